#include "libs/exec/run_support.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "libs/exec/compare.h"
#include "libs/ir/diagnostic.h"
#include "libs/ir/saturating.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/runtime/options.h"

namespace t2s {

std::map<std::string, NdArray> read_input_arrays(
    const std::vector<std::string>& specs,
    const std::function<std::string(const std::string&)>& read_file,
    const std::function<void(const std::string&)>& error) {
  std::map<std::string, std::string> paths;
  std::map<std::string, NdArray> out;
  for (const std::string& s : specs) {
    std::string message = t2s_rt::add_input_spec(s, paths);
    if (!message.empty()) error(message);
    const std::string name = s.substr(0, s.find('='));
    try {
      out[name] = read_npy(read_file(paths[name]), paths[name]);
    } catch (const NpyError& e) {
      error(e.what());
    }
  }
  return out;
}

void print_array(const std::string& name, const NdArray& a, std::ostream& out) {
  t2s_rt::print_elements(
      name, a.shape, [&](int64_t linear) { return format_element(a, linear); }, out);
}

std::string check_against_reference(const Program& program, const NdArray& expected,
                                    const NdArray& result) {
  const std::string& name = program.output.func;
  const std::string stage = stage_name(program.stage);
  std::optional<Mismatch> m;
  try {
    m = compare_arrays(expected, result);
  } catch (const NpyError& e) {
    throw Diagnostic(program.output.loc,
                     std::string("the output differs from the merged reference: ") + e.what(),
                     "check");
  }
  if (m) {
    throw Diagnostic(program.output.loc,
                     "the " + stage + " stage differs from the merged reference at " + name +
                         format_index(m->index) + ": merged " + m->expected + ", " + stage + " " +
                         m->actual + " (" + std::to_string(m->count) + " of " +
                         std::to_string(result.num_elements()) + " elements differ)",
                     "check");
  }
  return "check passed: " + name + " of the " + stage + " stage equals the merged reference (" +
         std::to_string(result.num_elements()) + " elements, bit for bit)";
}

namespace {

// One thing a run stores: what it is (for the message), where, and its size in bytes.
struct Declared {
  std::string what;
  SourceLoc loc;
  int64_t bytes = 0;
};

// The interpreter's storage: an 8-byte value and a 1-byte written flag per element.
constexpr int64_t kStoredBytes = 9;

// The interpreter's bytes for storage of `type` over `extents`, `folded[d]` elements in place of
// extent d where given (the JIT's folded realizes); nullopt when an extent is not constant.
std::optional<int64_t> storage_bytes(Type type, const std::vector<Expr>& extents,
                                     const std::vector<int64_t>* folded = nullptr) {
  int64_t n = kStoredBytes * std::max(1, type.lanes);
  for (size_t d = 0; d < extents.size(); ++d) {
    if (folded && d < folded->size())
      n = saturating_mul(n, std::max<int64_t>((*folded)[d], 0));
    else if (extents[d]->kind == ExprKind::kIntImm)
      n = saturating_mul(n, std::max<int64_t>(extents[d]->int_value, 0));
    else
      return std::nullopt;
  }
  return n;
}

// The realizes of `list` live at once at its peak (the chain with the most storage: a realize
// and the peak of its body; a statement list's peak is its largest statement's), appended to
// `chain`; returns their bytes.
int64_t realize_peak(const StmtList& list, const RealizeExtents* folded,
                     std::vector<Declared>* chain) {
  int64_t best = 0;
  std::vector<Declared> best_chain;
  for (const StmtPtr& s : list) {
    std::vector<Declared> here;
    int64_t bytes = 0;
    // A statement that is no realize peaks where the largest of its nested lists does.
    const auto largest_nested = [&] {
      for (const StmtList* child : s->children()) {
        std::vector<Declared> inner;
        const int64_t b = realize_peak(*child, folded, &inner);
        if (b > bytes) {
          bytes = b;
          here = std::move(inner);
        }
      }
    };
    match_stmt(
        *s, [&](const For&) { largest_nested(); }, [&](const LetStmt&) { largest_nested(); },
        [&](const IfThenElse&) { largest_nested(); }, [](const Provide&) {}, [](const Alloc&) {},
        [](const WriteChannel&) {},
        [&](const Realize& realize) {
          const std::vector<int64_t>* extents = nullptr;
          if (folded) {
            auto it = folded->find(&realize);
            if (it != folded->end()) extents = &it->second;
          }
          if (auto n = storage_bytes(realize.type, realize.extents, extents)) {
            here.push_back({"realize of '" + realize.func + "'", s->loc, *n});
            bytes = *n;
          }
          bytes = saturating_add(bytes, realize_peak(realize.body, folded, &here));
        },
        [](const Shift&) {}, [](const Push&) {});
    if (bytes > best) {
      best = bytes;
      best_chain = std::move(here);
    }
  }
  chain->insert(chain->end(), best_chain.begin(), best_chain.end());
  return best;
}

std::vector<Declared> declared_storage(const Program& program, const RealizeExtents* folded) {
  std::vector<Declared> out;
  for (const Input& in : program.inputs) {
    int64_t n = std::max(1, in.type.bits / 8) * int64_t{std::max(1, in.type.lanes)};
    for (int64_t e : in.extents) n = saturating_mul(n, std::max<int64_t>(e, 0));
    out.push_back({"input '" + in.name + "'", in.loc, n});
  }
  for (const Buffer& b : program.buffers) {
    if (auto n = storage_bytes(b.type, b.extents))
      out.push_back({"buffer '" + b.name + "'", b.loc, *n});
  }
  for (const Register& r : program.registers) {
    if (r.kind != Register::kShift) continue;
    int64_t n =
        saturating_mul(kStoredBytes * std::max(1, r.type.lanes), std::max<int64_t>(r.depth, 0));
    for (int64_t e : r.shape) n = saturating_mul(n, std::max<int64_t>(e, 0));
    out.push_back({"register '" + r.name + "'", r.loc, n});
  }
  for (const Kernel& k : program.kernels) realize_peak(k.body, folded, &out);
  return out;
}

}  // namespace

int64_t declared_run_memory(const Program& program, const RealizeExtents* folded) {
  int64_t total = 0;
  for (const Declared& d : declared_storage(program, folded))
    total = saturating_add(total, d.bytes);
  return total;
}

void check_run_memory(const Program& program, int64_t max_bytes, const RealizeExtents* folded) {
  const int64_t total = declared_run_memory(program, folded);
  if (total <= max_bytes) return;
  std::vector<Declared> all = declared_storage(program, folded);
  const Declared& largest =
      *std::max_element(all.begin(), all.end(),
                        [](const Declared& a, const Declared& b) { return a.bytes < b.bytes; });
  auto size = [](int64_t bytes) {
    return bytes == INT64_MAX ? std::string("over 2^63 bytes") : std::to_string(bytes) + " bytes";
  };
  throw Diagnostic(largest.loc,
                   "the run needs " + size(total) + " of storage (the largest, " + largest.what +
                       ": " + size(largest.bytes) + "), more than the limit of " +
                       std::to_string(max_bytes) + " bytes (t2s-run --max-memory)",
                   "run-memory");
}

}  // namespace t2s
