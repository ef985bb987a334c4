#include "libs/backends/opencl/opencl.h"

#include <cctype>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "libs/backends/c/c_codegen.h"
#include "libs/backends/opencl/host_support_source.h"
#include "libs/backends/runtime/runtime_source.h"
#include "libs/ir/visitor.h"

namespace t2s {

namespace {

constexpr int64_t kMaxElements = INT32_MAX;  // indices are 32-bit in the generated code

bool constant_int(const Expr& e, int64_t* value) {
  if (e && e->kind == ExprKind::kIntImm && !e->type.is_bool()) {
    *value = e->int_value;
    return true;
  }
  return false;
}

// A decimal integer, as the IR spells constant input extents.
bool parse_integer(const std::string& text, int64_t* value) {
  if (text.empty()) return false;
  size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size() || text.size() > 19) return false;
  for (size_t j = i; j < text.size(); ++j) {
    if (!std::isdigit(static_cast<unsigned char>(text[j]))) return false;
  }
  *value = std::stoll(text);
  return true;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

std::string join_ints(const std::vector<int64_t>& items, const std::string& separator) {
  std::vector<std::string> text;
  for (int64_t v : items) text.push_back(std::to_string(v));
  return join(text, separator);
}

// An identifier or a number: needs no parentheses as an operand.
bool is_simple(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// Whether `s` is one parenthesized expression: "(...)" whose first parenthesis closes last.
bool is_wrapped(const std::string& s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return false;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth == 0) return i + 1 == s.size();
  }
  return false;
}

std::string paren(const std::string& s) {
  return is_simple(s) || is_wrapped(s) ? s : "(" + s + ")";
}

// Whether `s` can be an operand of `+` or `-` without parentheses: it contains no operator of
// lower precedence than the additive ones (conservatively: none of these characters anywhere).
bool additive_safe(const std::string& s) {
  return s.find_first_of("?:<>=&|^,") == std::string::npos;
}

std::string additive_operand(const std::string& s) { return additive_safe(s) ? s : "(" + s + ")"; }

// `x - min`, an operand of `+`.
std::string offset(const std::string& x, const std::string& min) {
  if (min == "0") return additive_operand(x);
  int64_t m = 0;
  if (parse_integer(min, &m) && m < 0) return additive_operand(x) + " + " + min.substr(1);
  return additive_operand(x) + " - " + paren(min);
}

// The Fortran-order position of `index` in storage with these mins and extents:
// (x0 - m0) + E0 * ((x1 - m1) + E1 * (...)).
std::string fortran_index(const std::vector<std::string>& index,
                          const std::vector<std::string>& mins,
                          const std::vector<int64_t>& extents) {
  const size_t n = index.size();
  if (n == 0) return "0";
  if (mins.size() != n || extents.size() != n) {
    throw InternalError("emit: an access with " + std::to_string(n) + " indices of storage with " +
                        std::to_string(extents.size()) + " dimensions");
  }
  if (n == 1 && mins[0] == "0") return index[0];
  std::string acc = offset(index[n - 1], mins[n - 1]);
  for (size_t d = n - 1; d-- > 0;) {
    acc = offset(index[d], mins[d]) + " + " + std::to_string(extents[d]) + " * " + paren(acc);
  }
  return acc;
}

// `[a][b][c]` for the PE index `pe` (innermost space loop first), outermost first, then `slot`.
std::string pe_subscript(const std::vector<std::string>& pe, const std::string& slot) {
  std::string out;
  for (size_t i = pe.size(); i-- > 0;) out += "[" + pe[i] + "]";
  if (pe.empty()) out += "[0]";
  if (!slot.empty()) out += "[" + slot + "]";
  return out;
}

// The declared dimensions of a register's per-PE arrays: `[S1][S0]` (or `[1]` for no PEs).
std::string pe_dims(const Register& reg) {
  std::string out;
  for (size_t i = reg.shape.size(); i-- > 0;) out += "[" + std::to_string(reg.shape[i]) + "]";
  if (reg.shape.empty()) out += "[1]";
  return out;
}

std::string kind_word(const Register& reg) {
  return reg.kind == Register::kFifo ? "FIFO" : "shift register";
}

// The constant extents of an input (mins are 0). emit-extent when they are missing or not
// integer constants.
std::vector<int64_t> input_extents(const Input& input) {
  if (static_cast<int>(input.extents.size()) != input.dims) {
    throw Diagnostic(input.loc,
                     "input '" + input.name +
                         "' has no inferred extents (it is read at an index that is not "
                         "quasi-affine); the opencl target needs constant extents to lay it out",
                     "emit-extent");
  }
  std::vector<int64_t> out;
  int64_t total = 1;
  for (int64_t v : input.extents) {
    if (v < 1) {
      throw Diagnostic(input.loc,
                       "extent '" + std::to_string(v) + "' of input '" + input.name +
                           "' is not a positive integer constant; the opencl target needs "
                           "constant extents to lay it out",
                       "emit-extent");
    }
    out.push_back(v);
    total = total > kMaxElements / v ? kMaxElements + 1 : total * v;
  }
  if (total > kMaxElements) {
    throw Diagnostic(input.loc,
                     "input '" + input.name + "' has more than 2^31 - 1 elements (extents " +
                         join_ints(out, " x ") + "), too many for 32-bit indexing",
                     "emit-extent");
  }
  return out;
}

// The constant extents of storage with `extents` (a buffer or a realize). emit-extent at `loc`.
std::vector<int64_t> storage_extents(const std::string& what, const std::vector<Expr>& extents,
                                     const SourceLoc& loc) {
  std::vector<int64_t> out;
  int64_t total = 1;
  for (const Expr& e : extents) {
    int64_t v = 0;
    if (!constant_int(e, &v) || v < 1) {
      throw Diagnostic(loc,
                       "an extent of " + what +
                           " is not a positive integer constant; the opencl target needs "
                           "constant extents to lay out its storage",
                       "emit-extent");
    }
    out.push_back(v);
    total = total > kMaxElements / v ? kMaxElements + 1 : total * v;
  }
  if (total > kMaxElements) {
    throw Diagnostic(loc,
                     what + " has more than 2^31 - 1 elements (extents " + join_ints(out, " x ") +
                         "), too many for 32-bit indexing",
                     "emit-extent");
  }
  return out;
}

std::vector<std::string> buffer_mins(const Buffer& buffer) {
  std::vector<std::string> out;
  for (const Expr& m : buffer.mins) {
    int64_t v = 0;
    if (!constant_int(m, &v)) {
      throw Diagnostic(buffer.loc,
                       "a min of buffer '" + buffer.name +
                           "' is not an integer constant; the opencl target needs constant "
                           "bounds to lay out its storage",
                       "emit-extent");
    }
    out.push_back(std::to_string(v));
  }
  return out;
}

std::vector<int64_t> buffer_extents(const Buffer& buffer) {
  return storage_extents("buffer '" + buffer.name + "'", buffer.extents, buffer.loc);
}

std::string bounds_text(const std::vector<std::string>& mins, const std::vector<int64_t>& extents) {
  std::vector<std::string> parts;
  for (size_t d = 0; d < extents.size(); ++d) {
    int64_t m = 0;
    parts.push_back(parse_integer(mins[d], &m)
                        ? "[" + mins[d] + ", " + std::to_string(m + extents[d]) + ")"
                        : "[" + mins[d] + ", " + mins[d] + " + " + std::to_string(extents[d]) +
                              ")");
  }
  return parts.empty() ? "a scalar" : join(parts, " x ");
}

// What one kernel touches.
struct Uses {
  std::set<std::string> inputs;  // inputs read
  std::set<std::string> reads;   // buffers read
  std::set<std::string> writes;  // buffers written
  std::set<std::string> channels;
  bool global_memory() const { return !inputs.empty() || !reads.empty() || !writes.empty(); }
};

class UseCollector {
 public:
  explicit UseCollector(const Program& program) : program_(program) {}

  Uses collect(const Kernel& kernel) {
    uses_ = Uses();
    realized_.clear();
    stmts(kernel.body);
    return uses_;
  }

 private:
  bool is_buffer(const std::string& name) const {
    for (const std::string& r : realized_) {
      if (r == name) return false;
    }
    return program_.find_buffer(name) != nullptr;
  }

  void expr(const Expr& e) {
    for_each_expr(e, [&](const Expr& n) {
      if (n->kind != ExprKind::kCall) return;
      if (n->call_kind == CallKind::kImage) uses_.inputs.insert(n->name);
      if (n->call_kind == CallKind::kFunc && is_buffer(n->name)) uses_.reads.insert(n->name);
      if (n->call_kind == CallKind::kChannel && !n->operands.empty()) {
        uses_.channels.insert(n->operands[0]->name);
      }
    });
  }

  void stmts(const StmtList& list) {
    for (const StmtPtr& s : list) {
      for (const Expr* e : s->exprs()) expr(*e);
      const Provide* provide = s->as<Provide>();
      if (provide && !program_.find_register(provide->func) && is_buffer(provide->func)) {
        uses_.writes.insert(provide->func);
      }
      if (const WriteChannel* write = s->as<WriteChannel>()) uses_.channels.insert(write->channel);
      const Realize* realize = s->as<Realize>();
      if (realize) realized_.push_back(realize->func);
      for (const StmtList* child : s->children()) stmts(*child);
      if (realize) realized_.pop_back();
    }
  }

  const Program& program_;
  Uses uses_;
  std::vector<std::string> realized_;
};

// Refuses vector types anywhere in a kernel (no stage produces them yet; the scalar printer
// cannot print them): emit-type at the innermost statement with a location.
class ScalarCheck {
 public:
  explicit ScalarCheck(const Kernel& kernel) : kernel_(kernel) {}
  void run() { stmts(kernel_.body, kernel_.loc); }

 private:
  static void refuse(Type t, const SourceLoc& loc) {
    throw Diagnostic(loc,
                     "vector type " + t.name() +
                         " is not supported by the opencl target yet (no stage produces vector "
                         "code; opencl_vector_type_name names the types for when one does)",
                     "emit-type");
  }
  static void expr(const Expr& e, const SourceLoc& loc) {
    for_each_expr(e, [&](const Expr& n) {
      if (n->type.lanes != 1) refuse(n->type, n->loc.valid() ? n->loc : loc);
    });
  }
  void stmts(const StmtList& list, const SourceLoc& outer) {
    for (const StmtPtr& s : list) {
      const SourceLoc& loc = s->loc.valid() ? s->loc : outer;
      for (const Expr* e : s->exprs()) expr(*e, loc);
      if (const Realize* realize = s->as<Realize>(); realize && realize->type.lanes != 1)
        refuse(realize->type, loc);
      if (const Alloc* alloc = s->as<Alloc>(); alloc && alloc->type.lanes != 1)
        refuse(alloc->type, loc);
      for (const StmtList* child : s->children()) stmts(*child, loc);
    }
  }
  const Kernel& kernel_;
};

bool is_device(const Kernel& k) { return k.place == Place::kDevice; }

std::vector<const Register*> registers_of(const Program& program, const Kernel& kernel) {
  std::vector<const Register*> out;
  for (const Register& r : program.registers) {
    if (r.kernel == kernel.name) out.push_back(&r);
  }
  return out;
}

void check_stage(const Program& program, const char* what) {
  if (program.stage == Stage::kParsed) {
    throw Diagnostic({},
                     std::string(what) +
                         " needs a program of the merged stage or later (got stage 'parsed'; "
                         "run t2s-merge first)",
                     "emit-stage");
  }
}

// Names of the inputs / buffers in `used`, in program order.
std::vector<const Input*> used_inputs(const Program& program, const std::set<std::string>& used) {
  std::vector<const Input*> out;
  for (const Input& in : program.inputs) {
    if (used.count(in.name)) out.push_back(&in);
  }
  return out;
}

std::vector<const Buffer*> used_buffers(const Program& program, const Uses& uses) {
  std::vector<const Buffer*> out;
  for (const Buffer& b : program.buffers) {
    if (uses.reads.count(b.name) || uses.writes.count(b.name)) out.push_back(&b);
  }
  return out;
}

// The runs of the execution model: each maximal run of consecutive device kernels, and each
// host kernel alone.
std::vector<std::vector<const Kernel*>> execution_runs(const Program& program) {
  std::vector<std::vector<const Kernel*>> runs;
  bool previous_device = false;
  for (const Kernel& k : program.kernels) {
    if (is_device(k) && previous_device) {
      runs.back().push_back(&k);
    } else {
      runs.push_back({&k});
    }
    previous_device = is_device(k);
  }
  return runs;
}

// ------------------------------------------------------------------------------------------
// Device code.

// A realize statement's private storage, while its body is printed.
struct LocalStorage {
  std::vector<std::string> mins;
  std::vector<int64_t> extents;
};

class DeviceStorage : public CStorage {
 public:
  explicit DeviceStorage(const Program& program) : program_(program) {}

  void begin_kernel() { realized_.clear(); }
  bool uses_fifo_pop() const { return uses_fifo_pop_; }

  std::string read_input(const Input& input, const std::vector<std::string>& index) override {
    const std::vector<std::string> mins(index.size(), "0");
    const std::string access =
        c_identifier(input.name) + "[" + fortran_index(index, mins, input_extents(input)) + "]";
    return input.type.is_bool() ? "(" + access + " != 0)" : access;
  }

  std::string read_func(const std::string& func, const std::vector<std::string>& index,
                        const SourceLoc& loc) override {
    bool global = false;
    const std::string access = func_access(func, index, &global);
    return global && is_bool_buffer(func) ? "(" + access + " != 0)" : access;
  }

  std::vector<std::string> write_func(const std::string& func,
                                      const std::vector<std::string>& index,
                                      const std::string& value, const SourceLoc& loc) override {
    bool global = false;
    const std::string access = func_access(func, index, &global);
    if (global && is_bool_buffer(func)) return {access + " = (uchar)(" + value + ");"};
    return {access + " = " + value + ";"};
  }

  std::vector<std::string> declare_realize(const Realize& realize, const SourceLoc& loc,
                                           const std::vector<std::string>& mins,
                                           const std::vector<std::string>& extents) override {
    LocalStorage local;
    local.mins = mins;
    local.extents = storage_extents("the storage of '" + realize.func + "'", realize.extents, loc);
    int64_t total = 1;
    for (int64_t e : local.extents) total *= e;
    realized_[realize.func] = local;
    return {opencl_vector_type_name(realize.type, loc) + " " + c_identifier(realize.func) + "[" +
            std::to_string(total) + "];  // " + realize.func + " " +
            bounds_text(mins, local.extents) + ", Fortran order"};
  }

  std::string read_channel(const Channel& channel, const std::vector<std::string>& index,
                           const SourceLoc& loc) override {
    return "read_channel_intel(" + channel_ref(channel, index) + ")";
  }

  std::vector<std::string> write_channel(const Channel& channel,
                                         const std::vector<std::string>& index,
                                         const std::string& value, const SourceLoc& loc) override {
    return {"write_channel_intel(" + channel_ref(channel, index) + ", " + value + ");"};
  }

  std::string read_register(const Register& reg, const std::vector<std::string>& pe,
                            const std::string& slot, const SourceLoc& loc) override {
    return c_identifier(reg.name) + pe_subscript(pe, slot);
  }

  std::vector<std::string> write_register(const Register& reg, const std::vector<std::string>& pe,
                                          const std::string& slot, const std::string& value,
                                          const SourceLoc& loc) override {
    return {c_identifier(reg.name) + pe_subscript(pe, slot) + " = " + value + ";"};
  }

  std::vector<std::string> shift_register(const Register& reg, const std::vector<std::string>& pe,
                                          const SourceLoc& loc) override {
    const std::string name = c_identifier(reg.name);
    if (reg.depth <= 1) return {"// shift " + name + ": one slot, nothing moves"};
    return {"#pragma unroll",
            "for (int t2s_s = " + std::to_string(reg.depth - 1) + "; t2s_s > 0; t2s_s--) {",
            "  " + name + pe_subscript(pe, "t2s_s") + " = " + name + pe_subscript(pe, "t2s_s - 1") +
                ";",
            "}"};
  }

  std::vector<std::string> push_fifo(const Register& reg, const std::vector<std::string>& pe,
                                     const std::string& value, const SourceLoc& loc) override {
    const std::string name = c_identifier(reg.name);
    const std::string at = pe_subscript(pe, "");
    const std::string depth = std::to_string(reg.depth);
    return {"{",
            "  const int t2s_tail = " + name + "_head" + at + " + " + name + "_count" + at + ";",
            "  " + name + at + "[t2s_tail < " + depth + " ? t2s_tail : t2s_tail - " + depth +
                "] = " + value + ";",
            "  " + name + "_count" + at + " += 1;", "}"};
  }

  std::string pop_fifo(const Register& reg, const std::vector<std::string>& pe,
                       const SourceLoc& loc) override {
    uses_fifo_pop_ = true;
    const std::string name = c_identifier(reg.name);
    const std::string at = pe_subscript(pe, "");
    return name + at + "[t2s_fifo_pop(&" + name + "_head" + at + ", &" + name + "_count" + at +
           ", " + std::to_string(reg.depth) + ")]";
  }

  std::vector<std::string> before_unrolled_loop() override { return {"#pragma unroll"}; }

 private:
  bool is_bool_buffer(const std::string& func) const {
    const Buffer* b = program_.find_buffer(func);
    return b && b->type.is_bool();
  }

  std::string func_access(const std::string& func, const std::vector<std::string>& index,
                          bool* global) {
    auto local = realized_.find(func);
    if (local != realized_.end()) {
      *global = false;
      return c_identifier(func) + "[" +
             fortran_index(index, local->second.mins, local->second.extents) + "]";
    }
    const Buffer* buffer = program_.find_buffer(func);
    if (!buffer) {
      throw InternalError("emit: Func '" + func +
                          "' is accessed in a kernel but has neither a buffer nor a realize");
    }
    *global = true;
    return c_identifier(func) + "[" +
           fortran_index(index, buffer_mins(*buffer), buffer_extents(*buffer)) + "]";
  }

  static std::string channel_ref(const Channel& channel, const std::vector<std::string>& index) {
    if (index.size() != channel.dims.size()) {
      throw InternalError(
          "emit: channel '" + channel.name + "' has " + std::to_string(channel.dims.size()) +
          " dimensions but is accessed with " + std::to_string(index.size()) + " indices");
    }
    std::string out = c_identifier(channel.name);
    for (const std::string& i : index) out += "[" + i + "]";
    return out;
  }

  const Program& program_;
  std::map<std::string, LocalStorage> realized_;
  bool uses_fifo_pop_ = false;
};

// The element type of an input or buffer in global memory (bool as uchar).
std::string global_type(Type t, const SourceLoc& loc) {
  return t.is_bool() ? "uchar" : opencl_vector_type_name(t, loc);
}

std::string run_description(const std::vector<const Kernel*>& run,
                            const std::map<std::string, bool>& autorun) {
  std::vector<std::string> names;
  for (const Kernel* k : run) {
    names.push_back(k->name + (autorun.count(k->name) && autorun.at(k->name) ? " (autorun)" : ""));
  }
  return join(names, ", ");
}

class DeviceEmitter {
 public:
  explicit DeviceEmitter(const Program& program)
      : program_(program), storage_(program), codegen_(program, CDialect::kOpenCl, storage_) {}

  std::string run() {
    check_stage(program_, "the opencl target");
    UseCollector collector(program_);
    std::vector<const Kernel*> device;
    for (const Kernel& k : program_.kernels) {
      if (!is_device(k)) continue;
      device.push_back(&k);
      uses_[k.name] = collector.collect(k);
      autorun_[k.name] = !uses_[k.name].global_memory();
    }

    std::string kernels;
    for (const Kernel* k : device) kernels += "\n" + kernel(*k);

    std::string out = "#pragma OPENCL EXTENSION cl_intel_channels : enable\n\n";
    out += header_comment(device);
    const std::string typedefs = vector_typedefs(device);
    if (!typedefs.empty()) out += "\n" + typedefs;
    std::string helpers = codegen_.helper_definitions();
    if (storage_.uses_fifo_pop()) {
      helpers +=
          "// Removes the oldest value of a FIFO register's ring buffer: returns its slot and "
          "advances the head.\n"
          "static inline int t2s_fifo_pop(int* head, int* count, int depth) {\n"
          "  const int slot = *head;\n"
          "  *head = slot + 1 == depth ? 0 : slot + 1;\n"
          "  *count -= 1;\n"
          "  return slot;\n"
          "}\n";
    }
    if (!helpers.empty()) out += "\n" + helpers;
    const std::string channels = channel_declarations(device);
    if (!channels.empty()) out += "\n" + channels;
    out += kernels;
    return out;
  }

 private:
  std::string header_comment(const std::vector<const Kernel*>& device) const {
    std::string out =
        "// Intel FPGA OpenCL device code generated by t2s-emit (target opencl) from "
        "the " +
        std::string(stage_name(program_.stage)) + " stage.\n";
    if (device.empty()) {
      std::vector<std::string> names;
      for (const Kernel& k : program_.kernels) names.push_back(k.name);
      out += "// This program has no device kernel: its kernels (" +
             (names.empty() ? std::string("none") : join(names, ", ")) +
             ") run in the host program, so this file declares nothing.\n";
      return out;
    }
    out +=
        "// Single work-item kernels connected by channels; the host program runs them in this "
        "order:\n";
    for (const std::vector<const Kernel*>& run : execution_runs(program_)) {
      if (is_device(*run[0])) {
        out += "//   device: " + run_description(run, autorun_) +
               (run.size() > 1 ? " (concurrently)" : "") + "\n";
      } else {
        out += "//   host: " + run[0]->name + "\n";
      }
    }
    out +=
        "// Autorun kernels touch no global memory and are not enqueued by the host. Global "
        "arrays are in\n// Fortran order (first index fastest).\n";
    return out;
  }

  std::string vector_typedefs(const std::vector<const Kernel*>& device) const {
    std::set<std::string> seen;
    std::string out;
    auto add = [&](Type t, const SourceLoc& loc) {
      const std::string def = opencl_vector_typedef(t, loc);
      if (!def.empty() && seen.insert(def).second) out += def;
    };
    for (const Channel& c : program_.channels) add(c.type, c.loc);
    for (const Kernel* k : device) {
      for (const Register* r : registers_of(program_, *k)) add(r->type, r->loc);
      for (const Input* in : used_inputs(program_, uses_.at(k->name).inputs)) {
        add(in->type, in->loc);
      }
      for (const Buffer* b : used_buffers(program_, uses_.at(k->name))) add(b->type, b->loc);
    }
    return out;
  }

  std::string channel_declarations(const std::vector<const Kernel*>& device) const {
    std::set<std::string> device_names;
    for (const Kernel* k : device) device_names.insert(k->name);
    std::string out;
    for (const Channel& c : program_.channels) {
      std::string dims;
      for (int64_t d : c.dims) {
        if (d < 1) {
          throw Diagnostic(
              c.loc, "channel '" + c.name + "' has an array dimension of " + std::to_string(d),
              "emit-extent");
        }
        dims += "[" + std::to_string(d) + "]";
      }
      out += "channel " + opencl_vector_type_name(c.type, c.loc) + " " + c_identifier(c.name) +
             dims +
             (c.depth > 0 ? " __attribute__((depth(" + std::to_string(c.depth) + ")))" : "") +
             ";  // " + c.producer + " -> " + c.consumer + "\n";
    }
    return out;
  }

  std::string kernel(const Kernel& k) {
    ScalarCheck(k).run();
    const Uses& uses = uses_.at(k.name);
    const bool autorun = autorun_.at(k.name);
    std::vector<std::string> params, notes;
    std::vector<std::string> input_names, read_names, write_names;
    for (const Input* in : used_inputs(program_, uses.inputs)) {
      input_extents(*in);  // emit-extent before anything uses it
      params.push_back("__global const " + global_type(in->type, in->loc) + "* restrict " +
                       c_identifier(in->name));
      input_names.push_back(in->name);
    }
    for (const Buffer* b : used_buffers(program_, uses)) {
      buffer_mins(*b);
      buffer_extents(*b);
      const bool written = uses.writes.count(b->name) > 0;
      params.push_back(std::string("__global ") + (written ? "" : "const ") +
                       global_type(b->type, b->loc) + "* restrict " + c_identifier(b->name));
      (written ? write_names : read_names).push_back(b->name);
      if (written && uses.reads.count(b->name)) read_names.push_back(b->name);
    }
    if (!input_names.empty()) notes.push_back("reads input " + join(input_names, ", "));
    if (!read_names.empty()) notes.push_back("reads buffer " + join(read_names, ", "));
    if (!write_names.empty()) notes.push_back("writes buffer " + join(write_names, ", "));
    if (!uses.channels.empty()) {
      const std::vector<std::string> channels(uses.channels.begin(), uses.channels.end());
      notes.push_back("channels " + join(channels, ", "));
    }
    if (autorun) notes.push_back("no global memory: autorun");

    std::string out = "// Kernel " + k.name + (k.loc.valid() ? " (" + k.loc.str() + ")" : "") +
                      (notes.empty() ? "" : ": " + join(notes, "; ")) + ".\n";
    out += "__kernel __attribute__((max_global_work_dim(0)))" +
           std::string(autorun ? " __attribute__((autorun))" : "") + "\n";
    out += "void " + c_identifier(k.name) + "(" + join(params, ", ") + ") {\n";
    for (const Register* r : registers_of(program_, k)) out += register_declaration(*r);
    storage_.begin_kernel();
    codegen_.stmts(k.body, 1, &out);
    out += "}\n";
    return out;
  }

  static std::string register_declaration(const Register& r) {
    if (r.depth < 1) {
      throw InternalError("emit: register '" + r.name + "' has depth " + std::to_string(r.depth));
    }
    for (int64_t s : r.shape) {
      if (s < 1) throw InternalError("emit: register '" + r.name + "' has an empty PE array");
    }
    const std::string type = opencl_vector_type_name(r.type, r.loc);
    const std::string name = c_identifier(r.name);
    const std::string dims = pe_dims(r);
    std::string out = "  // " + kind_word(r) + " " + r.name + " of Func " + r.func + ": " +
                      std::to_string(r.depth) + (r.depth == 1 ? " value" : " values") +
                      " per PE, PE array (" + join_ints(r.shape, ", ") + ")" +
                      (r.shape.size() > 1 ? ", outermost space loop first" : "") + "\n";
    out += "  " + type + " " + name + dims + "[" + std::to_string(r.depth) + "];\n";
    if (r.kind == Register::kFifo) {
      out += "  int " + name + "_head" + dims + " = {0};\n";
      out += "  int " + name + "_count" + dims + " = {0};\n";
    }
    return out;
  }

  const Program& program_;
  DeviceStorage storage_;
  CCodegen codegen_;
  std::map<std::string, Uses> uses_;
  std::map<std::string, bool> autorun_;
};

// ------------------------------------------------------------------------------------------
// Host program.

// A C++ string literal for `text` (names and dtypes: identifier characters only, but escape
// anyway).
std::string cpp_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string cpp_list(const std::vector<std::string>& items) {
  return "{" + join(items, ", ") + "}";
}

std::vector<std::string> int_strings(const std::vector<int64_t>& v) {
  std::vector<std::string> out;
  for (int64_t x : v) out.push_back(std::to_string(x));
  return out;
}

class HostStorage : public CStorage {
 public:
  void begin_kernel(const Kernel& kernel) {
    kernel_ = &kernel;
    realized_.clear();
  }

  std::string read_input(const Input& input, const std::vector<std::string>& index) override {
    return c_identifier(input.name) + ".at(\"read\", " + cpp_list(index) + ")";
  }
  // Inputs and buffers are t2s_refs; realizes are t2s_rt::FuncStorage.
  std::string read_func(const std::string& func, const std::vector<std::string>& index,
                        const SourceLoc& loc) override {
    if (realized(func)) return c_identifier(func) + ".read(" + index_list(index) + ")";
    return c_identifier(func) + ".at(\"read\", " + cpp_list(index) + ")";
  }
  std::vector<std::string> write_func(const std::string& func,
                                      const std::vector<std::string>& index,
                                      const std::string& value, const SourceLoc& loc) override {
    // The index is evaluated (and checked) before the value, as in the interpreter.
    const std::string name = c_identifier(func);
    if (realized(func)) {
      return {"{", "  const int64_t t2s_at = " + name + ".locate_write(" + index_list(index) + ");",
              "  " + name + ".store(t2s_at, " + value + ");", "}"};
    }
    return {"{", "  auto& t2s_cell = " + name + ".at(\"write\", " + cpp_list(index) + ");",
            "  t2s_cell = " + value + ";", "}"};
  }
  std::vector<std::string> declare_realize(const Realize& realize, const SourceLoc& loc,
                                           const std::vector<std::string>& mins,
                                           const std::vector<std::string>& extents) override {
    realized_.insert(realize.func);
    return {"t2s_rt::FuncStorage<" + c_type_name(realize.type, CDialect::kCpp, loc) + "> " +
            c_identifier(realize.func) + "(" + cpp_string(realize.func) + ", " + cpp_list(mins) +
            ", " + cpp_list(extents) + ");"};
  }
  std::string read_channel(const Channel& channel, const std::vector<std::string>& index,
                           const SourceLoc& loc) override {
    refuse_channel(channel, loc);
  }
  std::vector<std::string> write_channel(const Channel& channel,
                                         const std::vector<std::string>& index,
                                         const std::string& value, const SourceLoc& loc) override {
    refuse_channel(channel, loc);
  }
  std::string read_register(const Register& reg, const std::vector<std::string>& pe,
                            const std::string& slot, const SourceLoc& loc) override {
    std::vector<std::string> index = pe;
    index.push_back(slot);
    return c_identifier(reg.name) + ".read(" + cpp_list(index) + ")";
  }
  std::vector<std::string> write_register(const Register& reg, const std::vector<std::string>& pe,
                                          const std::string& slot, const std::string& value,
                                          const SourceLoc& loc) override {
    std::vector<std::string> index = pe;
    index.push_back(slot);
    const std::string name = c_identifier(reg.name);
    return {"{", "  const int64_t t2s_at = " + name + ".locate_write(" + cpp_list(index) + ");",
            "  " + name + ".store(t2s_at, " + value + ");", "}"};
  }
  std::vector<std::string> shift_register(const Register& reg, const std::vector<std::string>& pe,
                                          const SourceLoc& loc) override {
    return {c_identifier(reg.name) + ".shift(" + index_list(pe) + ");"};
  }
  std::vector<std::string> push_fifo(const Register& reg, const std::vector<std::string>& pe,
                                     const std::string& value, const SourceLoc& loc) override {
    const std::string name = c_identifier(reg.name);
    const std::string locate =
        pe.empty() ? name + ".locate_push()" : name + ".locate_push(" + cpp_list(pe) + ")";
    return {"{", "  const int64_t t2s_pe = " + locate + ";",
            "  " + name + ".push(t2s_pe, " + value + ");", "}"};
  }
  std::string pop_fifo(const Register& reg, const std::vector<std::string>& pe,
                       const SourceLoc& loc) override {
    return c_identifier(reg.name) + ".pop(" + index_list(pe) + ")";
  }

 private:
  bool realized(const std::string& func) const { return realized_.count(func) > 0; }
  // The argument of the runtime's read / shift / pop: a braced list, or nothing for no index.
  static std::string index_list(const std::vector<std::string>& index) {
    return index.empty() ? "" : cpp_list(index);
  }

  [[noreturn]] void refuse_channel(const Channel& channel, const SourceLoc& loc) const {
    throw Diagnostic(loc.valid() ? loc : channel.loc,
                     "host kernel '" + (kernel_ ? kernel_->name : std::string("?")) +
                         "' uses channel '" + channel.name +
                         "'; channels connect device kernels only",
                     "emit-channel");
  }

  const Kernel* kernel_ = nullptr;
  // Funcs with a realize in the kernel being printed (a Func is either realized in a kernel or
  // a program buffer).
  std::set<std::string> realized_;
};

class HostEmitter {
 public:
  explicit HostEmitter(const Program& program)
      : program_(program), codegen_(program, CDialect::kCpp, storage_) {}

  std::string run() {
    check_stage(program_, "the opencl target");
    UseCollector collector(program_);
    bool any_device = false;
    for (const Kernel& k : program_.kernels) {
      uses_[k.name] = collector.collect(k);
      if (is_device(k)) any_device = true;
    }
    // Host arrays: every input a kernel reads, every buffer.
    std::set<std::string> read_inputs;
    for (const auto& entry : uses_) {
      read_inputs.insert(entry.second.inputs.begin(), entry.second.inputs.end());
    }
    for (const Input& in : program_.inputs) {
      if (read_inputs.count(in.name)) {
        c_type_name(in.type, CDialect::kCpp, in.loc);
        input_extents(in);
      }
    }
    for (const Buffer& b : program_.buffers) {
      c_type_name(b.type, CDialect::kCpp, b.loc);
      buffer_mins(b);
      buffer_extents(b);
    }
    const Buffer* output = program_.find_buffer(program_.output.func);
    if (!output) {
      throw InternalError("emit: the output Func '" + program_.output.func + "' has no buffer");
    }

    std::string functions;
    for (const Kernel& k : program_.kernels) {
      if (!is_device(k)) functions += "\n" + host_kernel(k);
    }

    std::string out = header_comment(any_device);
    out += "#define CL_TARGET_OPENCL_VERSION 120\n#include <CL/cl.h>\n\n";
    for (const char* h : {"climits", "cmath", "cstdint", "cstdio", "fstream", "initializer_list",
                          "iterator", "memory", "string", "utility", "vector"}) {
      out += std::string("#include <") + h + ">\n";
    }
    out += "\n" + t2s_runtime_block();
    // Fixed support code (OpenCL error names, checked calls, array views), marked like the
    // runtime so that golden files can elide it.
    // The marker names opencl.cc, as golden files have it; the code is host_support.h. It ends
    // its anonymous namespace, which the program's own code reopens (closed at its end).
    out += "// ---- BEGIN t2s OpenCL host support (libs/backends/opencl/opencl.cc) ----\n";
    out += t2s_opencl_host_support_source();
    out += "\nnamespace {\n";
    out += "// ---- END t2s OpenCL host support ----\n";
    const std::string helpers = codegen_.helper_definitions();
    if (!helpers.empty()) out += "// ---- Halide arithmetic ----\n\n" + helpers + "\n";
    out += data_struct(read_inputs);
    out += functions;
    out += "\n}  // namespace\n\n";
    out += main_function(read_inputs, *output, any_device);
    return out;
  }

 private:
  std::string header_comment(bool any_device) const {
    std::string out = "// OpenCL host program generated by t2s-emit (target opencl) from the " +
                      std::string(stage_name(program_.stage)) + " stage.\n";
    out += "// Runs the program with the device code of the same IR, compiled by aoc:\n";
    out +=
        "//   PROGRAM KERNEL.aocx [--input NAME=FILE.npy ...] [-o OUT.npy] [--fill] [--seed N] "
        "[--print]\n";
    out += "// Build: g++ -std=c++17 -O2 -ffp-contract=off -pthread THIS.cpp -lOpenCL\n";
    if (!any_device) {
      out +=
          "// This program has no device kernel: every kernel runs on the host, OpenCL is not "
          "used and the\n// KERNEL.aocx argument is not read.\n";
    }
    out += "// Kernels in the order they run:\n";
    std::map<std::string, bool> autorun;
    for (const Kernel& k : program_.kernels) {
      autorun[k.name] = is_device(k) && !uses_.at(k.name).global_memory();
    }
    for (const std::vector<const Kernel*>& run : execution_runs(program_)) {
      out += std::string("//   ") + (is_device(*run[0]) ? "device: " : "host: ") +
             run_description(run, autorun) + (run.size() > 1 ? " (concurrently)" : "") + "\n";
    }
    return out + "\n";
  }

  std::string data_struct(const std::set<std::string>& read_inputs) const {
    std::string out = "// The host copy of every input and buffer (Fortran order).\n";
    out += "struct t2s_data {\n";
    for (const Input& in : program_.inputs) {
      if (read_inputs.count(in.name)) {
        out += "  t2s_rt::Array " + c_identifier(in.name) + ";  // input\n";
      }
    }
    for (const Buffer& b : program_.buffers) {
      out += "  t2s_rt::Array " + c_identifier(b.name) + ";  // buffer " +
             bounds_text(buffer_mins(b), buffer_extents(b)) + "\n";
    }
    return out + "};\n";
  }

  std::string host_kernel(const Kernel& k) {
    ScalarCheck(k).run();
    const Uses& uses = uses_.at(k.name);
    std::string out =
        "// Host kernel " + k.name + (k.loc.valid() ? " (" + k.loc.str() + ")" : "") + ".\n";
    out += "void t2s_host_" + k.name + "(t2s_data& t2s_d) {\n";
    for (const Input* in : used_inputs(program_, uses.inputs)) {
      const std::string type = c_type_name(in->type, CDialect::kCpp, in->loc);
      const std::vector<int64_t> extents = input_extents(*in);
      out += "  const t2s_ref<const " + type + "> " + c_identifier(in->name) + "(" +
             cpp_string("input '" + in->name + "'") + ", reinterpret_cast<const " + type +
             "*>(t2s_d." + c_identifier(in->name) + ".data.data()), " +
             cpp_list(std::vector<std::string>(extents.size(), "0")) + ", " +
             cpp_list(int_strings(extents)) + ");\n";
    }
    for (const Buffer* b : used_buffers(program_, uses)) {
      const std::string type = c_type_name(b->type, CDialect::kCpp, b->loc);
      out += "  const t2s_ref<" + type + "> " + c_identifier(b->name) + "(" +
             cpp_string("'" + b->name + "'") + ", reinterpret_cast<" + type + "*>(t2s_d." +
             c_identifier(b->name) + ".data.data()), " + cpp_list(buffer_mins(*b)) + ", " +
             cpp_list(int_strings(buffer_extents(*b))) + ");\n";
    }
    const std::vector<const Register*> registers = registers_of(program_, k);
    for (const Register* r : registers) {
      const std::string type = c_type_name(r->type, CDialect::kCpp, r->loc);
      out += "  t2s_rt::" +
             std::string(r->kind == Register::kFifo ? "FifoRegister" : "ShiftRegister") + "<" +
             type + "> " + c_identifier(r->name) + "(" + cpp_string(r->name) + ", " +
             cpp_list(int_strings(r->shape)) + ", " + std::to_string(r->depth) + ");\n";
    }
    if (uses.inputs.empty() && uses.reads.empty() && uses.writes.empty()) {
      out += "  (void)t2s_d;\n";
    }
    storage_.begin_kernel(k);
    codegen_.stmts(k.body, 1, &out);
    for (const Register* r : registers) {
      if (r->kind == Register::kFifo) {
        out += "  " + c_identifier(r->name) + ".check_empty(" + cpp_string(k.name) + ");\n";
      }
    }
    return out + "}\n";
  }

  std::string main_function(const std::set<std::string>& read_inputs, const Buffer& output,
                            bool any_device) {
    std::string description = "Runs the t2s program (" + std::string(stage_name(program_.stage)) +
                              " stage) on an OpenCL device: KERNEL.aocx is the device code "
                              "compiled by aoc.";
    std::string out = "int main(int argc, char** argv) {\n";
    out += "  const t2s_rt::Options t2s_options = t2s_rt::parse_options(argc, argv, " +
           cpp_string(description) + ", {\"KERNEL.aocx\"});\n";
    std::vector<std::string> input_names;
    for (const Input& in : program_.inputs) input_names.push_back(cpp_string(in.name));
    out += "  t2s_rt::check_input_names(t2s_options, " + cpp_list(input_names) + ");\n";
    out += "  t2s_data t2s_d;\n";
    for (const Input& in : program_.inputs) {
      if (!read_inputs.count(in.name)) continue;
      out += "  t2s_d." + c_identifier(in.name) + " = t2s_rt::input_array(t2s_options, " +
             cpp_string(in.name) + ", " + cpp_string(in.type.name()) + ", " +
             cpp_list(int_strings(input_extents(in))) + ");\n";
    }
    for (const Buffer& b : program_.buffers) {
      out += "  t2s_d." + c_identifier(b.name) + " = t2s_rt::make_array(" +
             cpp_string(b.type.name()) + ", " + cpp_list(int_strings(buffer_extents(b))) + ");\n";
    }

    // Which inputs and buffers live on the device, and which kernels are enqueued.
    std::set<std::string> device_inputs, device_buffers;
    std::map<std::string, bool> autorun;
    for (const Kernel& k : program_.kernels) {
      if (!is_device(k)) continue;
      const Uses& u = uses_.at(k.name);
      device_inputs.insert(u.inputs.begin(), u.inputs.end());
      device_buffers.insert(u.reads.begin(), u.reads.end());
      device_buffers.insert(u.writes.begin(), u.writes.end());
      autorun[k.name] = !u.global_memory();
    }

    if (any_device) {
      out += "\n  // OpenCL: platform, device, context, and the program from the .aocx.\n";
      out += "  t2s_opencl t2s_cl(t2s_options.positional.at(0));\n";
      out += "  cl_command_queue t2s_io = t2s_cl.queue(\"transfers\");\n";
      out += "  (void)t2s_io;\n";
      for (const Input& in : program_.inputs) {
        if (!device_inputs.count(in.name)) continue;
        out += "  cl_mem t2s_mem_" + in.name + " = t2s_cl.buffer(CL_MEM_READ_ONLY, t2s_d." +
               c_identifier(in.name) + ", " + cpp_string("input " + in.name) + ");\n";
      }
      for (const Buffer& b : program_.buffers) {
        if (!device_buffers.count(b.name)) continue;
        out += "  cl_mem t2s_mem_" + b.name + " = t2s_cl.buffer(CL_MEM_READ_WRITE, t2s_d." +
               c_identifier(b.name) + ", " + cpp_string("buffer " + b.name) + ");\n";
      }
      for (const Kernel& k : program_.kernels) {
        if (!is_device(k)) continue;
        if (autorun.at(k.name)) {
          out += "  // Kernel " + k.name + " is autorun: it starts with the program.\n";
          continue;
        }
        const Uses& u = uses_.at(k.name);
        out += "  cl_kernel t2s_kernel_" + k.name + " = t2s_cl.kernel(" +
               cpp_string(c_identifier(k.name)) + ");\n";
        int index = 0;
        for (const Input* in : used_inputs(program_, u.inputs)) {
          out += "  t2s_opencl::set_arg(t2s_kernel_" + k.name + ", " + std::to_string(index) +
                 ", t2s_mem_" + in->name + ", " +
                 cpp_string("kernel " + k.name + ", argument " + std::to_string(index) + ": " +
                            in->name) +
                 ");\n";
          ++index;
        }
        for (const Buffer* b : used_buffers(program_, u)) {
          out += "  t2s_opencl::set_arg(t2s_kernel_" + k.name + ", " + std::to_string(index) +
                 ", t2s_mem_" + b->name + ", " +
                 cpp_string("kernel " + k.name + ", argument " + std::to_string(index) + ": " +
                            b->name) +
                 ");\n";
          ++index;
        }
        out += "  cl_command_queue t2s_queue_" + k.name + " = t2s_cl.queue(" +
               cpp_string("kernel " + k.name) + ");\n";
      }
      for (const Input& in : program_.inputs) {
        if (!device_inputs.count(in.name)) continue;
        out += "  t2s_opencl::write(t2s_io, t2s_mem_" + in.name + ", t2s_d." +
               c_identifier(in.name) + ", " + cpp_string("input " + in.name) + ");\n";
      }
    }

    // The runs, in order. A device buffer is up to date once written (before its first run, and
    // again after a host kernel changed the host copy); buffers a run writes are read back.
    std::set<std::string> device_fresh;
    int run_number = 0;
    for (const std::vector<const Kernel*>& run : execution_runs(program_)) {
      if (!is_device(*run[0])) {
        const Kernel& k = *run[0];
        out += "\n  // Host kernel " + k.name + ".\n";
        out += "  t2s_host_" + k.name + "(t2s_d);\n";
        for (const std::string& b : uses_.at(k.name).writes) device_fresh.erase(b);
        continue;
      }
      ++run_number;
      std::vector<std::string> names;
      std::set<std::string> used, written;
      for (const Kernel* k : run) {
        names.push_back(k->name + (autorun.at(k->name) ? " (autorun)" : ""));
        const Uses& u = uses_.at(k->name);
        used.insert(u.reads.begin(), u.reads.end());
        used.insert(u.writes.begin(), u.writes.end());
        written.insert(u.writes.begin(), u.writes.end());
      }
      out += "\n  // Device run " + std::to_string(run_number) + ": " + join(names, ", ") +
             (run.size() > 1 ? ", concurrently" : "") + ".\n";
      for (const Buffer& b : program_.buffers) {
        if (used.count(b.name) && !device_fresh.count(b.name)) {
          out += "  t2s_opencl::write(t2s_io, t2s_mem_" + b.name + ", t2s_d." +
                 c_identifier(b.name) + ", " + cpp_string("buffer " + b.name) + ");\n";
          device_fresh.insert(b.name);
        }
      }
      bool any_enqueued = false;
      for (const Kernel* k : run) {
        if (autorun.at(k->name)) continue;
        any_enqueued = true;
        out += "  t2s_opencl::task(t2s_queue_" + k->name + ", t2s_kernel_" + k->name + ", " +
               cpp_string("kernel " + k->name) + ");\n";
      }
      if (!any_enqueued) out += "  // Only autorun kernels: nothing to enqueue.\n";
      for (const Kernel* k : run) {
        if (autorun.at(k->name)) continue;
        out += "  t2s_opencl::finish(t2s_queue_" + k->name + ", " +
               cpp_string("kernel " + k->name) + ");\n";
      }
      for (const Buffer& b : program_.buffers) {
        if (written.count(b.name)) {
          out += "  t2s_opencl::read(t2s_io, t2s_mem_" + b.name + ", t2s_d." +
                 c_identifier(b.name) + ", " + cpp_string("buffer " + b.name) + ");\n";
        }
      }
    }
    out += "\n  t2s_rt::write_output(t2s_options, " + cpp_string(output.name) + ", t2s_d." +
           c_identifier(output.name) + ");\n";
    out += "  return 0;\n}\n";
    return out;
  }

  const Program& program_;
  HostStorage storage_;
  CCodegen codegen_;
  std::map<std::string, Uses> uses_;
};

}  // namespace

std::string opencl_vector_type_name(Type type, const SourceLoc& loc) {
  if (type.lanes == 1) return c_type_name(type, CDialect::kOpenCl, loc);
  if (type.lanes < 1 || type.lanes > 32) {
    throw Diagnostic(loc,
                     "vector type " + type.name() +
                         " has no OpenCL equivalent (the opencl target takes 2 to 32 lanes)",
                     "emit-type");
  }
  const Type element = type.is_bool() ? Type::Int(8) : type.element_of();
  const std::string base = c_type_name(element, CDialect::kOpenCl, loc);
  const int n = type.lanes;
  if (n == 2 || n == 3 || n == 4 || n == 8 || n == 16) return base + std::to_string(n);
  return base + "_vec" + std::to_string(n);
}

std::string opencl_vector_typedef(Type type, const SourceLoc& loc) {
  const std::string name = opencl_vector_type_name(type, loc);
  if (name.find("_vec") == std::string::npos) return "";
  const Type element = type.is_bool() ? Type::Int(8) : type.element_of();
  return "typedef struct { " + c_type_name(element, CDialect::kOpenCl, loc) + " data[" +
         std::to_string(type.lanes) + "]; } " + name + ";\n";
}

std::string emit_opencl(const Program& program) { return DeviceEmitter(program).run(); }

std::string emit_opencl_host(const Program& program) { return HostEmitter(program).run(); }

}  // namespace t2s
