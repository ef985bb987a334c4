#include "libs/backends/text/text.h"

#include <cstdint>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "libs/ir/expr_printer.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/strings.h"
#include "libs/ir/visitor.h"

namespace t2s {

namespace {

std::string expr_or_null(const Expr& e) { return e ? print_expr(e) : std::string("<none>"); }

std::string join_exprs(const std::vector<Expr>& es, const char* sep) {
  std::string out;
  for (size_t i = 0; i < es.size(); ++i) {
    if (i) out += sep;
    out += expr_or_null(es[i]);
  }
  return out;
}

// `name(a, b)`, or `name` when there are no arguments.
std::string indexed(const std::string& name, const std::vector<Expr>& args) {
  if (args.empty()) return name;
  return name + "(" + join_exprs(args, ", ") + ")";
}

// Counts from a document can exceed int64: those read "more than 9223372036854775807".
const char* const kTooMany = "more than 9223372036854775807";

// The product of `vs` (all positive), or nothing on overflow.
std::optional<int64_t> product(const std::vector<int64_t>& vs) {
  int64_t p = 1;
  for (int64_t v : vs) {
    if (v <= 0) return 0;
    if (__builtin_mul_overflow(p, v, &p)) return std::nullopt;
  }
  return p;
}

std::string count_text(std::optional<int64_t> n) { return n ? std::to_string(*n) : kTooMany; }

std::string times(std::optional<int64_t> a, int64_t b) {
  int64_t p;
  if (!a || b < 0 || __builtin_mul_overflow(*a, b, &p)) return kTooMany;
  return std::to_string(p);
}

std::string type_name(const Type& t) { return t.known() ? t.name() : std::string("unknown"); }

class TextPrinter {
 public:
  explicit TextPrinter(const Program& p) : p_(p) {}

  std::string run() {
    header();
    for (const Kernel& k : p_.kernels) {
      out_ << "\n";
      const std::string lanes = lanes_text(kernel_lanes(k));
      out_ << "kernel " << k.name << " (" << (k.place == Place::kDevice ? "device" : "host")
           << (lanes.empty() ? "" : ", " + lanes) << "):\n";
      if (k.body.empty()) line(1, "(empty)");
      stmts(k.body, 1);
    }
    out_ << "\n";
    channels();
    registers();
    return out_.str();
  }

 private:
  void line(int depth, const std::string& text) {
    out_ << std::string(2 * depth, ' ') << text << "\n";
  }

  void header() {
    out_ << "// t2s pseudo-code, stage " << stage_name(p_.stage) << "\n";
    const Output& o = p_.output;
    if (!o.func.empty()) {
      std::string type = "unknown";
      if (const Buffer* b = p_.find_buffer(o.func)) {
        type = type_name(b->type);
      } else if (const Func* f = p_.find_func(o.func)) {
        type = type_name(f->type);
      }
      out_ << "// output: " << o.func << ": " << type << ", extents [" << join_ints(o.extents, ", ")
           << "]\n";
    } else {
      out_ << "// output: none\n";
    }
    if (p_.inputs.empty()) {
      out_ << "// inputs: none\n";
    } else {
      out_ << "// inputs:\n";
      for (const Input& in : p_.inputs) {
        out_ << "//   " << in.name << ": " << type_name(in.type) << ", " << in.dims
             << (in.dims == 1 ? " dim" : " dims") << ", extents ";
        if (in.extents.empty()) {
          out_ << "unknown";
        } else {
          out_ << "[" << join_ints(in.extents, ", ") << "]";
        }
        out_ << "\n";
      }
    }
    if (!p_.buffers.empty()) {
      out_ << "// buffers:\n";
      for (const Buffer& b : p_.buffers) {
        out_ << "//   " << b.name << ": " << type_name(b.type) << " " << bounds(b.mins, b.extents)
             << "\n";
      }
    }
  }

  static std::string bounds(const std::vector<Expr>& mins, const std::vector<Expr>& extents) {
    if (mins.empty() && extents.empty()) return "(scalar)";
    std::string out;
    for (size_t i = 0; i < mins.size() || i < extents.size(); ++i) {
      if (i) out += " x ";
      Expr m = i < mins.size() ? mins[i] : nullptr;
      Expr e = i < extents.size() ? extents[i] : nullptr;
      if (m && e) {
        out += print_range(m, e);
      } else {
        out += "[" + expr_or_null(m) + ", " + expr_or_null(e) + "?)";
      }
    }
    return out;
  }

  void stmts(const StmtList& list, int depth) {
    for (size_t i = 0; i < list.size(); ++i) stmt(list[i], depth, i + 1 == list.size());
  }

  void stmt(const StmtPtr& s, int depth, bool last) {
    if (!s) {
      line(depth, "<null statement>");
      return;
    }
    match_stmt(
        *s,
        [&](const For& loop) {
          line(depth, "for " + loop.var + " in " + print_range(loop.min, loop.extent) + " " +
                          loop_kind_name(loop.loop_kind) + ":");
          stmts(loop.body, depth + 1);
        },
        [&](const LetStmt& let) {
          // The seed's listings bind a value and go on at the same level; that reads right when
          // nothing follows the let in its block (the let's scope is the rest of the block).
          if (last) {
            line(depth, "let " + let.var + " = " + expr_or_null(let.value));
            stmts(let.body, depth);
          } else {
            line(depth, "let " + let.var + " = " + expr_or_null(let.value) + ":");
            stmts(let.body, depth + 1);
          }
        },
        [&](const IfThenElse& branch) {
          line(depth, "if (" + expr_or_null(branch.condition) + "):");
          stmts(branch.then_body, depth + 1);
          if (!branch.else_body.empty()) {
            line(depth, "else:");
            stmts(branch.else_body, depth + 1);
          }
        },
        [&](const Provide& provide) {
          line(depth, provide.func + "(" + join_exprs(provide.args, ", ") +
                          ") = " + expr_or_null(provide.value));
        },
        [&](const Alloc& alloc) {
          line(depth, "alloc " + alloc.reg + ": " + type_name(alloc.type) + " [" +
                          join_exprs(alloc.shape, ", ") + "]");
        },
        [&](const WriteChannel& write) {
          line(depth, "write_channel " + indexed(write.channel, write.index) + " <- " +
                          expr_or_null(write.value));
        },
        [&](const Realize& realize) {
          std::string buffer;
          if (const std::optional<DoubleBuffer>& b = realize.double_buffer)
            buffer = ", double buffer of " + b->producer + " at " + b->loop + " (" +
                     std::to_string(b->reads) + " reads, " + std::to_string(b->writes) +
                     " writes a period)";
          line(depth, "realize " + realize.func + ": " + type_name(realize.type) + " " +
                          bounds(realize.mins, realize.extents) + buffer + ":");
          stmts(realize.body, depth + 1);
        },
        [&](const Shift& shift) { line(depth, "shift " + indexed(shift.reg, shift.pe)); },
        [&](const Push& push) {
          line(depth, "push " + indexed(push.fifo, push.pe) + " <- " + expr_or_null(push.value));
        });
  }

  void channels() {
    if (p_.channels.empty()) {
      out_ << "channels: none\n";
      return;
    }
    out_ << "channels:\n";
    for (const Channel& c : p_.channels) {
      out_ << "  " << c.name << ": " << type_name(c.type) << ", " << c.producer << " -> "
           << c.consumer << ", depth " << c.depth;
      if (c.depth == 0) out_ << " (default)";
      out_ << ", dims [" << join_ints(c.dims, ", ") << "]";
      if (!c.dims.empty()) out_ << " (" << count_text(product(c.dims)) << " channels)";
      if (c.producer == c.consumer) out_ << ", between the PEs of " << c.producer;
      out_ << "\n";
      if (!c.depth_reason.empty())
        out_ << "    depth " << c.depth << ": " << c.depth_reason << "\n";
    }
  }

  void registers() {
    if (p_.registers.empty()) {
      out_ << "registers: none\n";
      return;
    }
    out_ << "registers:\n";
    for (const Register& r : p_.registers) {
      std::optional<int64_t> pes = product(r.shape);
      out_ << "  " << r.name << ": " << register_kind_name(r.kind) << " " << type_name(r.type)
           << ", Func " << r.func << " in kernel " << r.kernel << ", depth " << r.depth
           << " per PE, PE array [" << join_ints(r.shape, ", ") << "] (" << count_text(pes)
           << (pes && *pes == 1 ? " PE" : " PEs") << "), distance (" << join_ints(r.distance, ", ")
           << "), time_distance " << r.time_distance << ", period " << r.period << ", naive "
           << r.naive << " per PE (" << times(pes, r.naive) << " values in all; allocated "
           << times(pes, r.depth) << ")\n";
    }
  }

  const Program& p_;
  std::ostringstream out_;
};

}  // namespace

std::string print_range(const Expr& min, const Expr& extent) {
  std::string lo = print_expr(min);
  std::string hi;
  int64_t sum;
  if (min->kind == ExprKind::kIntImm && extent->kind == ExprKind::kIntImm &&
      !__builtin_add_overflow(min->int_value, extent->int_value, &sum) &&
      fits_in_type(sum, extent->type)) {
    hi = print_int_literal(sum, extent->type);
  } else if (min->kind == ExprKind::kIntImm && min->int_value == 0) {
    hi = print_expr(extent);
  } else {
    hi = print_expr(make_binary(BinaryOp::kAdd, min, extent, extent->type));
  }
  return "[" + lo + ", " + hi + ")";
}

std::vector<int> kernel_lanes(const Kernel& kernel) {
  std::set<int> lanes;
  for_each_stmt_expr(kernel.body, [&](const Expr& e) {
    if (e->type.lanes > 1) lanes.insert(e->type.lanes);
  });
  return {lanes.begin(), lanes.end()};
}

std::string lanes_text(const std::vector<int>& lanes) {
  if (lanes.empty()) return "";
  std::vector<int64_t> counts(lanes.begin(), lanes.end());
  return "vector lanes " + join_ints(counts, ", ");
}

std::string emit_text(const Program& program) {
  require_kernel_stage(program, "the text target");
  return TextPrinter(program).run();
}

}  // namespace t2s
