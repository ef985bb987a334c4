#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "libs/backends/c/c_codegen.h"
#include "libs/backends/opencl/opencl_internal.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/program_facts.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/strings.h"
#include "libs/ir/visitor.h"

namespace t2s {
namespace opencl_internal {

namespace {

constexpr int64_t kMaxElements = INT32_MAX;  // indices are 32-bit in the generated code

// emit-extent at `loc` when storage with these (positive) extents has more elements than
// 32-bit indices reach.
void check_element_count(const std::string& what, const std::vector<int64_t>& extents,
                         const SourceLoc& loc) {
  int64_t total = 1;
  for (int64_t v : extents) total = total > kMaxElements / v ? kMaxElements + 1 : total * v;
  if (total > kMaxElements) {
    throw Diagnostic(loc,
                     what + " has more than 2^31 - 1 elements (extents " +
                         join_ints(extents, " x ") + "), too many for 32-bit indexing",
                     "emit-extent");
  }
}

// Names the OpenCL type of every value of a kernel (c_value_type_name), so that a vector type
// OpenCL cannot express (more than 32 lanes) is refused with emit-type at the innermost
// statement with a location, before any code is printed.
class VectorTypeCheck : public StmtVisitor {
 public:
  explicit VectorTypeCheck(const Kernel& kernel) : kernel_(kernel), loc_(kernel.loc) {}
  void run() { visit_stmts(kernel_.body); }

  // Each statement's operands, then (the hooks) the type of the storage it declares, then its
  // nested statements, at the innermost location known.
  void visit_stmt(const Stmt& s) override {
    const SourceLoc outer = loc_;
    if (s.loc.valid()) loc_ = s.loc;
    for (const Expr* e : s.exprs())
      for_each_expr(*e, [&](const Expr& n) { check(n->type, n->loc.valid() ? n->loc : loc_); });
    StmtVisitor::visit_stmt(s);
    loc_ = outer;
  }

 protected:
  void visit_realize(const Realize& n, const Stmt&) override {
    check(n.type, loc_);
    visit_stmts(n.body);
  }
  void visit_alloc(const Alloc& n, const Stmt&) override { check(n.type, loc_); }

 private:
  static void check(Type t, const SourceLoc& loc) {
    if (t.lanes != 1) c_value_type_name(t, CDialect::kOpenCl, loc);
  }
  const Kernel& kernel_;
  SourceLoc loc_;
};

}  // namespace

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
  for (int64_t v : input.extents) {
    if (v < 1) {
      throw Diagnostic(input.loc,
                       "extent '" + std::to_string(v) + "' of input '" + input.name +
                           "' is not a positive integer constant; the opencl target needs "
                           "constant extents to lay it out",
                       "emit-extent");
    }
    out.push_back(v);
  }
  check_element_count("input '" + input.name + "'", out, input.loc);
  return out;
}

// The constant extents of storage with `extents` (a buffer or a realize). emit-extent at `loc`.
std::vector<int64_t> storage_extents(const std::string& what, const std::vector<Expr>& extents,
                                     const SourceLoc& loc) {
  std::vector<int64_t> out;
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
  }
  check_element_count(what, out, loc);
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
    parts.push_back(parse_int64(mins[d], &m)
                        ? "[" + mins[d] + ", " + std::to_string(m + extents[d]) + ")"
                        : "[" + mins[d] + ", " + mins[d] + " + " + std::to_string(extents[d]) +
                              ")");
  }
  return parts.empty() ? "a scalar" : join(parts, " x ");
}

Uses collect_uses(const Program& program, const Kernel& kernel) {
  const KernelAccesses accesses = kernel_accesses(program, kernel);
  Uses uses;
  for (size_t i : accesses.inputs_read) uses.inputs.insert(program.inputs[i].name);
  for (size_t b : accesses.buffers_read) uses.reads.insert(program.buffers[b].name);
  for (size_t b : accesses.buffers_written) uses.writes.insert(program.buffers[b].name);
  for (const std::set<size_t>* channels : {&accesses.channels_read, &accesses.channels_written})
    for (size_t c : *channels) uses.channels.insert(program.channels[c].name);
  return uses;
}

namespace {

// The first channel operation of a kernel's run, traced from its start: the loops from their
// first iterations, conditions evaluated where they depend on loop variables and constants only
// (integer arithmetic, Halide's division and modulo: halide_div, halide_mod). kUnknown when a
// condition that decides it depends on data, or the trace runs past its budget.
class FirstChannelOp {
 public:
  enum Op { kNone, kRead, kWrite, kUnknown };

  Op of(const Kernel& kernel) { return list(kernel.body); }

 private:
  static constexpr int64_t kBudget = 200000;  // statements and expressions visited

  Op list(const StmtList& stmts) {
    for (const StmtPtr& s : stmts) {
      const Op op = stmt(*s);
      if (op != kNone) return op;
    }
    return kNone;
  }

  Op stmt(const Stmt& s) {
    if (++steps_ > kBudget) return kUnknown;
    // Storage and registers: their operands, then their nested statements, in order.
    auto operands_then_body = [&]() {
      for (const Expr* e : s.exprs()) {
        const Op op = expr(*e);
        if (op != kNone) return op;
      }
      for (const StmtList* child : s.children()) {
        const Op op = list(*child);
        if (op != kNone) return op;
      }
      return kNone;
    };
    return match_stmt(
        s,
        [&](const For& f) {
          const auto min = value(f.min), extent = value(f.extent);
          if (!min || !extent) return kUnknown;
          int64_t end = 0;
          if (__builtin_add_overflow(*min, *extent, &end)) return kUnknown;
          for (int64_t v = *min; v < end; ++v) {
            if (++steps_ > kBudget) return kUnknown;
            env_[f.var] = v;
            const Op op = list(f.body);
            if (op != kNone) return op;
          }
          env_.erase(f.var);
          return kNone;
        },
        [&](const LetStmt& l) {
          const Op op = expr(l.value);
          if (op != kNone) return op;
          if (auto v = value(l.value))
            env_[l.var] = *v;
          else
            env_.erase(l.var);
          return list(l.body);
        },
        [&](const IfThenElse& i) {
          const Op op = expr(i.condition);
          if (op != kNone) return op;
          const auto c = value(i.condition);
          if (c) return list(*c ? i.then_body : i.else_body);
          const Op t = list(i.then_body), e = list(i.else_body);
          return t == e ? t : kUnknown;
        },
        [&](const WriteChannel& w) {
          for (const Expr& i : w.index) {
            const Op op = expr(i);
            if (op != kNone) return op;
          }
          const Op op = expr(w.value);
          return op != kNone ? op : kWrite;
        },
        [&](const Provide&) { return operands_then_body(); },
        [&](const Alloc&) { return operands_then_body(); },
        [&](const Realize&) { return operands_then_body(); },
        [&](const Shift&) { return operands_then_body(); },
        [&](const Push&) { return operands_then_body(); });
  }

  // The first channel read while evaluating `e` (kNone: it reads none).
  Op expr(const Expr& e) {
    if (!e || ++steps_ > kBudget) return e ? kUnknown : kNone;
    if (e->kind == ExprKind::kCall && e->call_kind == CallKind::kChannel) return kRead;
    if (e->kind == ExprKind::kSelect ||
        (e->kind == ExprKind::kBinary &&
         (e->binary_op == BinaryOp::kAnd || e->binary_op == BinaryOp::kOr))) {
      const Op c = expr(e->operands[0]);
      if (c != kNone) return c;
      const auto v = value(e->operands[0]);
      const Expr& then_e = e->operands[1];
      const Expr else_e = e->kind == ExprKind::kSelect
                              ? (e->operands.size() > 2 ? e->operands[2] : nullptr)
                              : nullptr;
      if (e->kind == ExprKind::kBinary) {
        // a && b evaluates b when a holds; a || b when it does not.
        const bool evaluates_b = e->binary_op == BinaryOp::kAnd;
        if (v) return *v == evaluates_b ? expr(then_e) : kNone;
        const Op b = expr(then_e);
        return b == kNone ? kNone : kUnknown;
      }
      if (v) return *v ? expr(then_e) : expr(else_e);
      const Op t = expr(then_e), f = expr(else_e);
      return t == f ? t : kUnknown;
    }
    for (const Expr& o : e->operands) {
      const Op op = expr(o);
      if (op != kNone) return op;
    }
    return kNone;
  }

  // The integer value of `e` from constants and the bound loop variables, if it has one.
  std::optional<int64_t> value(const Expr& e) const {
    if (!e) return std::nullopt;
    switch (e->kind) {
      case ExprKind::kIntImm:
        return e->int_value;
      case ExprKind::kVar: {
        auto it = env_.find(e->name);
        if (it == env_.end()) return std::nullopt;
        return it->second;
      }
      case ExprKind::kCast:
        if (!e->type.is_int() && !e->type.is_uint() && !e->type.is_bool()) return std::nullopt;
        return value(e->operands[0]);
      case ExprKind::kUnary: {
        const auto a = value(e->operands[0]);
        if (!a) return std::nullopt;
        if (e->unary_op == UnaryOp::kNot) return int64_t{*a == 0};
        int64_t r = 0;
        if (__builtin_sub_overflow(int64_t{0}, *a, &r)) return std::nullopt;
        return r;
      }
      case ExprKind::kSelect: {
        const auto c = value(e->operands[0]);
        if (!c || e->operands.size() < 3) return std::nullopt;
        return value(*c ? e->operands[1] : e->operands[2]);
      }
      case ExprKind::kBinary: {
        const auto a = value(e->operands[0]), b = value(e->operands[1]);
        if (!a || !b) return std::nullopt;
        int64_t r = 0;
        switch (e->binary_op) {
          // Overflow (IR written by hand, a fuzzer's): no value, so the trace stops unknown.
          case BinaryOp::kAdd:
            if (__builtin_add_overflow(*a, *b, &r)) return std::nullopt;
            return r;
          case BinaryOp::kSub:
            if (__builtin_sub_overflow(*a, *b, &r)) return std::nullopt;
            return r;
          case BinaryOp::kMul:
            if (__builtin_mul_overflow(*a, *b, &r)) return std::nullopt;
            return r;
          case BinaryOp::kDiv:
            return halide_div(*a, *b);
          case BinaryOp::kMod:
            return halide_mod(*a, *b);
          case BinaryOp::kEQ:
            return int64_t{*a == *b};
          case BinaryOp::kNE:
            return int64_t{*a != *b};
          case BinaryOp::kLT:
            return int64_t{*a < *b};
          case BinaryOp::kLE:
            return int64_t{*a <= *b};
          case BinaryOp::kGT:
            return int64_t{*a > *b};
          case BinaryOp::kGE:
            return int64_t{*a >= *b};
          case BinaryOp::kAnd:
            return int64_t{*a != 0 && *b != 0};
          case BinaryOp::kOr:
            return int64_t{*a != 0 || *b != 0};
        }
        return std::nullopt;
      }
      default:
        return std::nullopt;
    }
  }

  std::map<std::string, int64_t> env_;
  int64_t steps_ = 0;
};

}  // namespace

bool is_autorun(const Kernel& kernel, const Uses& uses) {
  if (uses.global_memory()) return false;
  const FirstChannelOp::Op first = FirstChannelOp().of(kernel);
  return first == FirstChannelOp::kRead || first == FirstChannelOp::kNone;
}

void check_opencl_types(const Program& program, const Kernel& kernel) {
  try {
    VectorTypeCheck(kernel).run();
  } catch (const Diagnostic& d) {
    // The Funcs of the kernel: its own, and those merged into it.
    std::set<std::string> funcs = {kernel.name};
    for (const Directive& m : program.directives)
      if (m.is(DirectiveKind::kMergeUres) && m.func == kernel.name)
        for (const DirectiveArg& a : m.args) funcs.insert(a.text);
    for (const Directive& v : program.directives) {
      if (!v.is(DirectiveKind::kVectorize) || !funcs.count(v.func) || !v.loc.valid()) continue;
      Diagnostic at_directive(v.loc, "vectorize: " + d.message(), d.rule());
      at_directive.add_note(d.loc(), "a value of that type is computed here");
      throw at_directive;
    }
    throw;
  }
}

namespace {

// Rewrites a kernel's channel accesses for Intel's channel arrays, which take constant indices:
// once the PEs are unrolled, unrolled loop variables and lets of constants and such variables
// only are constants. An index of a serial loop (directly or through a let) is expanded into a
// choice among the constants of its dimension, as Intel's Programming Guide advises (5.4.4,
// "Static Indexing": the Standard edition refuses a dynamic index, the Pro edition expands it
// the same way with a warning): a read becomes `e == 0 ? read(ch[0]) : e == 1 ? ... :
// read(ch[D - 1])` (C's `?:` reads one channel only), a write `const T v = value;` and an if
// chain. An index of a vectorized loop (the stt stage; t2s-vec gives each lane its own channel)
// or of a value read at run time from a channel is refused (emit-channel).
class ChannelIndexExpander : public StmtMutator {
 public:
  ChannelIndexExpander(const Program& program, const Kernel& kernel)
      : program_(program), kernel_(kernel), at_(kernel.loc) {}
  StmtList run() { return mutate_stmts(kernel_.body); }

 protected:
  // Each statement at its own location (or the innermost one around it), through the hooks.
  StmtPtr mutate_stmt(const StmtPtr& s) override {
    const SourceLoc outer = at_;
    if (s->loc.valid()) at_ = s->loc;
    StmtPtr out = StmtMutator::mutate_stmt(s);
    at_ = outer;
    return out;
  }

  // A loop's variable is constant in its body when the loop is unrolled.
  StmtPtr mutate_for(const For& loop, const StmtPtr& s) override {
    For f = loop;
    f.min = mutate(f.min);
    f.extent = mutate(f.extent);
    const Scope outer = scope_;
    scope_.kinds[loop.var] = loop.loop_kind == LoopKind::kUnrolled     ? Kind::kConstant
                             : loop.loop_kind == LoopKind::kVectorized ? Kind::kVectorized
                                                                       : Kind::kSerial;
    scope_.why.erase(loop.var);
    f.body = mutate_stmts(f.body);
    scope_ = outer;
    return with_node(*s, std::move(f));
  }

  // A let's variable is as constant as its value.
  StmtPtr mutate_let(const LetStmt& let, const StmtPtr& s) override {
    LetStmt l = let;
    l.value = mutate(l.value);
    const Scope outer = scope_;
    const std::string bad = first_varying(l.value);
    scope_.kinds[l.var] = bad.empty() ? Kind::kConstant : kind_of(bad);
    if (bad.empty())
      scope_.why.erase(l.var);
    else
      scope_.why[l.var] = "bound by a let to a value that uses " + why(bad);
    l.body = mutate_stmts(l.body);
    scope_ = outer;
    return with_node(*s, std::move(l));
  }

  StmtPtr mutate_write_channel(const WriteChannel& write, const StmtPtr& s) override {
    WriteChannel w = write;
    for (Expr& i : w.index) i = mutate(i);
    w.value = mutate(w.value);
    if (!needs_expansion(w.channel, w.index, "writes")) return with_node(*s, std::move(w));
    // The value once, then the write to the channel the index selects.
    const std::string value = "t2s_channel_value_" + std::to_string(values_++);
    const WriteChannel selected{w.channel, w.index, make_var(value, w.value->type, s->loc)};
    return make_let(value, w.value, {expand_write(selected, 0, s->loc)}, s->loc);
  }

  Expr mutate_call(const Expr& e) override {
    Expr call = mutate_operands(e);
    if (call->call_kind != CallKind::kChannel) return call;
    const std::vector<Expr> index(call->operands.begin() + 1, call->operands.end());
    if (!needs_expansion(call->operands[0]->name, index, "reads")) return call;
    return expand_read(call, 0);
  }

 private:
  enum class Kind { kConstant, kSerial, kVectorized };
  struct Scope {
    std::map<std::string, Kind> kinds;
    std::map<std::string, std::string> why;
  };

  // Whether an access needs expanding; refuses one that cannot be expanded.
  bool needs_expansion(const std::string& channel, const std::vector<Expr>& index,
                       const char* how) {
    bool varying = false;
    for (const Expr& i : index) {
      const std::string bad = first_varying(i);
      if (bad.empty()) continue;
      const bool runtime = bad.find('(') != std::string::npos;
      if (i->type.lanes == 1 && !runtime && kind_of(bad) == Kind::kSerial) {
        varying = true;
        continue;
      }
      std::vector<std::string> parts;
      for (const Expr& j : index) parts.push_back(print_expr(j));
      throw Diagnostic(at_,
                       "kernel '" + kernel_.name + "' " + how + " channel array '" + channel +
                           "' at [" + join(parts, "][") + "], whose index uses " + why(bad) +
                           ": the opencl target indexes channel arrays with constants, or expands "
                           "an index of serial loops into a choice among them, but cannot expand "
                           "this one (the emulation and t2s-run run it)",
                       "emit-channel");
    }
    return varying;
  }

  // `call` with its index expanded from dimension d on.
  Expr expand_read(const Expr& call, size_t d) {
    const size_t rank = call->operands.size() - 1;
    while (d < rank && first_varying(call->operands[d + 1]).empty()) ++d;
    if (d == rank) return call;
    const Expr& index = call->operands[d + 1];
    Expr choice;
    for (int64_t c = extent(call->operands[0]->name, d) - 1; c >= 0; --c) {
      std::vector<Expr> operands = call->operands;
      operands[d + 1] = make_int(index->type, c, index->loc);
      const Expr read = expand_read(
          make_call(call->name, CallKind::kChannel, call->type, operands, call->loc), d + 1);
      choice = !choice ? read
                       : make_select(make_binary(BinaryOp::kEQ, index, operands[d + 1],
                                                 Type::Bool(), index->loc),
                                     read, choice, call->type, call->loc);
    }
    return choice;
  }

  StmtPtr expand_write(const WriteChannel& w, size_t d, const SourceLoc& loc) {
    while (d < w.index.size() && first_varying(w.index[d]).empty()) ++d;
    if (d == w.index.size()) return make_write_channel(w.channel, w.index, w.value, loc);
    const Expr& index = w.index[d];
    StmtList chain;
    for (int64_t c = extent(w.channel, d) - 1; c >= 0; --c) {
      WriteChannel one = w;
      one.index[d] = make_int(index->type, c, index->loc);
      const StmtPtr write = expand_write(one, d + 1, loc);
      chain = chain.empty() ? StmtList{write}
                            : StmtList{make_if(make_binary(BinaryOp::kEQ, index, one.index[d],
                                                           Type::Bool(), index->loc),
                                               {write}, chain, loc)};
    }
    return chain.front();
  }

  int64_t extent(const std::string& channel, size_t d) const {
    const Channel* c = program_.find_channel(channel);
    if (!c || d >= c->dims.size())
      throw InternalError("emit: channel '" + channel + "' has no dimension " + std::to_string(d));
    return c->dims[d];
  }

  // The first variable of `e` that is not constant once the PEs are unrolled, or the first call
  // in it that reads a value at run time ("" if none).
  std::string first_varying(const Expr& e) const {
    std::string bad;
    for_each_expr(e, [&](const Expr& x) {
      if (!bad.empty()) return;
      if (x->kind == ExprKind::kVar && kind_of(x->name) != Kind::kConstant) bad = x->name;
      if (x->kind == ExprKind::kCall && x->call_kind != CallKind::kIntrinsic) bad = print_expr(x);
    });
    return bad;
  }

  // A variable that no loop or let of the kernel binds is a serial value.
  Kind kind_of(const std::string& var) const {
    auto it = scope_.kinds.find(var);
    return it == scope_.kinds.end() ? Kind::kSerial : it->second;
  }

  std::string why(const std::string& var) const {
    if (auto it = scope_.why.find(var); it != scope_.why.end())
      return "'" + var + "' (" + it->second + ")";
    if (var.find('(') != std::string::npos) return "'" + var + "', a value read at run time";
    if (kind_of(var) == Kind::kVectorized) return "'" + var + "', a vectorized loop";
    return "'" + var + "'";
  }

  const Program& program_;
  const Kernel& kernel_;
  SourceLoc at_;
  Scope scope_;
  int values_ = 0;
};

}  // namespace

StmtList expand_channel_indices(const Program& program, const Kernel& kernel) {
  return ChannelIndexExpander(program, kernel).run();
}

std::vector<const Register*> registers_of(const Program& program, const Kernel& kernel) {
  std::vector<const Register*> out;
  for (const Register& r : program.registers) {
    if (r.kernel == kernel.name) out.push_back(&r);
  }
  return out;
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

// The runs of the execution model (libs/ir/program_facts.h), as the kernels of each.
std::vector<std::vector<const Kernel*>> execution_runs(const Program& program) {
  std::vector<std::vector<const Kernel*>> runs;
  for (const KernelRun& run : kernel_runs(program)) {
    runs.emplace_back();
    for (size_t k = run.first; k < run.last; ++k) runs.back().push_back(&program.kernels[k]);
  }
  return runs;
}

std::string run_description(const std::vector<const Kernel*>& run,
                            const std::map<std::string, bool>& autorun) {
  std::vector<std::string> names;
  for (const Kernel* k : run) {
    names.push_back(k->name + (autorun.count(k->name) && autorun.at(k->name) ? " (autorun)" : ""));
  }
  return join(names, ", ");
}

}  // namespace opencl_internal
}  // namespace t2s
