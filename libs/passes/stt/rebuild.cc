// The new kernel body of a space-time transform: time and space loops, the recovered loop
// variables, the guard, and the UREs' reads and writes through registers.
#include <algorithm>

#include "libs/ir/stmt_visitor.h"
#include "libs/ir/typing.h"
#include "libs/ir/visitor.h"
#include "libs/passes/stt/stt_internal.h"

namespace t2s::stt_internal {

class KernelTransformer::ReadRewriter : public ExprMutator {
 public:
  explicit ReadRewriter(KernelTransformer& t) : t_(t) {}

 protected:
  Expr mutate_call(const Expr& e) override {
    Expr m = mutate_operands(e);
    if (e->call_kind != CallKind::kFunc) return m;
    auto it = t_.ures_.find(e->name);
    if (it == t_.ures_.end() || !it->second.allocatable) return m;
    auto d = t_.distance_of(it->second, e->operands);
    if (!d) throw InternalError("stt: read of allocated Func with complex arguments");
    const Ure& u = it->second;
    if (std::all_of(d->begin(), d->end(), [](int64_t c) { return c == 0; }))
      return make_var(u.value_name, u.type, e->loc);
    const Storage& s = t_.storage_[t_.storage_index_.at({u.func, *d})];
    if (s.none) return t_.typed_zero(u.type);
    if (s.reg.kind == Register::kFifo) return make_var(s.value_name, u.type, e->loc);
    // A register of depth 1 is never shifted (each PE writes its one value, or overwrites it
    // before the next read), so its value stays in slot 0 whatever the time distance.
    const int64_t slot =
        s.reg.depth == 1 ? 0
                         : t_.delta(*d, t_.current_stmt_, u.stmt) / (s.reg.period * t_.quantum_);
    std::vector<Expr> args = t_.pe_args(*d);
    args.push_back(int_lit(slot));
    return make_call(s.reg.name, CallKind::kRegister, s.reg.type, args);
  }

 private:
  KernelTransformer& t_;
};

// PE index of the PE at `distance` back from this one (0-based).
Expr KernelTransformer::pe_index(size_t i, const std::vector<int64_t>& distance) const {
  const Loop& l = loops_[i];
  const int64_t off = l.min + l.aff.dot(distance);
  if (off == 0) return loop_var(l.name);
  return off > 0 ? binop(BinaryOp::kSub, loop_var(l.name), int_lit(off))
                 : binop(BinaryOp::kAdd, loop_var(l.name), int_lit(-off));
}

std::vector<Expr> KernelTransformer::pe_args(const std::vector<int64_t>& distance) const {
  std::vector<Expr> args;
  for (size_t i = 0; i < space_; ++i) args.push_back(pe_index(i, distance));
  return args;
}

// x - d in the domain (sign = -1) or x + d in the domain (sign = +1), for x in the domain; null
// when that always holds.
Expr KernelTransformer::shifted_in_domain(const std::vector<int64_t>& d, int sign) const {
  std::vector<Expr> conds;
  for (size_t v = 0; v < names_.size(); ++v) {
    const int64_t off = sign * d[v];
    if (off == 0) continue;
    conds.push_back(
        off < 0 ? binop(BinaryOp::kLE, int_lit(mins_[v] - off), loop_var(names_[v]))
                : binop(BinaryOp::kLT, loop_var(names_[v]), int_lit(mins_[v] + extents_[v] - off)));
  }
  return all_of(conds);
}

// The flattened time T over the serial loops, innermost fastest: 28 * t1 + t2, or
// 5 * (t1 - 1) + t2 for loops that do not start at 0.
Expr KernelTransformer::time_expr() const {
  std::vector<Expr> terms;
  int64_t stride = 1;
  for (size_t i = space_; i < loops_.size(); ++i) {
    Expr t = loops_[i].min == 0
                 ? loop_var(loops_[i].name)
                 : binop(BinaryOp::kSub, loop_var(loops_[i].name), int_lit(loops_[i].min));
    terms.push_back(stride == 1 ? t : binop(BinaryOp::kMul, int_lit(stride), t));
    stride *= loops_[i].extent;
  }
  return terms.empty() ? int_lit(0) : sum_of(terms);
}

Expr KernelTransformer::typed_zero(Type t) {
  return t.is_float() ? make_float(t, 0.0) : t.is_bool() ? make_bool(false) : make_int(t, 0);
}

StmtPtr KernelTransformer::rewrite(const StmtPtr& s, size_t stmt) {
  current_stmt_ = stmt;
  class Rewriter : public StmtMutator {
   public:
    explicit Rewriter(KernelTransformer& t) : reads_(t) {}
    Expr mutate(const Expr& e) override { return e ? reads_.mutate(e) : e; }

   private:
    ReadRewriter reads_;
  } rewriter(*this);
  return rewriter.mutate_stmt(s);
}

StmtPtr KernelTransformer::let(const std::string& name, const Expr& value, StmtList body) {
  return make_let(name, value, std::move(body));
}

StmtPtr KernelTransformer::maybe_if(const Expr& cond, StmtList then_body) {
  if (!cond) return then_body.size() == 1 ? then_body[0] : nullptr;
  return make_if(cond, std::move(then_body), {});
}

StmtPtr KernelTransformer::shift_stmt(const Storage& s) {
  return make_shift(s.reg.name, own_pe(), s.reg.loc);
}

// This PE's index, one 0-based expression per space loop.
std::vector<Expr> KernelTransformer::own_pe() {
  std::vector<Expr> index;
  const std::vector<int64_t> here(names_.size(), 0);
  for (size_t i = 0; i < space_; ++i) index.push_back(pe_index(i, here));
  return index;
}

// Statements i.. of the PE body, with lets wrapping what follows them.
StmtList KernelTransformer::build(size_t i) {
  if (i == body_.size()) return {};
  StmtList tail;
  // The URE with registers that statement i is the provide of, and the value it provides with
  // its reads rewritten (its arguments are loop variables, collect_ures: nothing to rewrite).
  const Ure* u = nullptr;
  Expr value;
  match_stmt(
      *body_[i], [](const For&) {}, [](const LetStmt&) {}, [](const IfThenElse&) {},
      [&](const Provide& p) {
        auto it = ures_.find(p.func);
        if (it == ures_.end() || !it->second.allocatable || it->second.stmt != i) return;
        u = &it->second;
        current_stmt_ = i;
        value = ReadRewriter(*this).mutate(p.value);
      },
      [](const Alloc&) {}, [](const WriteChannel&) {}, [](const Realize&) {}, [](const Shift&) {},
      [](const Push&) {});
  if (u) {
    StmtList inner;
    for (const Storage& s : storage_) {
      if (s.func != u->func || s.none) continue;
      if (s.reg.kind == Register::kShift) {
        if (s.reg.depth > 1) inner.push_back(shift_stmt(s));
        std::vector<Expr> slot = own_pe();
        slot.push_back(make_int(Type::Int(32), 0));
        inner.push_back(
            make_provide(s.reg.name, slot, make_var(u->value_name, u->type, {}), u->loc));
      } else {
        StmtPtr push =
            make_push(s.reg.name, own_pe(), make_var(u->value_name, u->type, {}), u->loc);
        inner.push_back(maybe_if(shifted_in_domain(s.distance, +1), {push}));
      }
    }
    for (const StmtPtr& s : build(i + 1)) inner.push_back(s);
    tail.push_back(let(u->value_name, value, inner));
  } else {
    tail.push_back(rewrite(body_[i], i));
    for (const StmtPtr& s : build(i + 1)) tail.push_back(s);
  }
  // FIFO values read first by statement i are popped just before it.
  for (auto it = storage_.rbegin(); it != storage_.rend(); ++it) {
    const Storage& s = *it;
    if (s.none || s.reg.kind != Register::kFifo || s.first_reader != i) continue;
    const Expr cond = shifted_in_domain(s.distance, -1);
    std::vector<Expr> args = {make_var(s.reg.name)};
    for (const Expr& a : pe_args(s.distance)) args.push_back(a);
    const Expr pop = make_call("pop", CallKind::kFifo, s.reg.type, args);
    Expr value = pop;
    if (cond) {
      // Where nothing was pushed the value is 0, of the FIFO's type (a literal coerced).
      Expr zero = coerce_literal_to(int_lit(0), pop->type);
      if (!zero) throw InternalError("stt: FIFO '" + s.reg.name + "' of a type without 0");
      value = make_select(cond, pop, zero, pop->type);
    }
    tail = {let(s.value_name, value, tail)};
  }
  return tail;
}

void KernelTransformer::rebuild() {
  StmtList then_body = build(0);
  std::vector<Expr> conds = range_;
  conds.insert(conds.end(), checks_.begin(), checks_.end());
  const Expr cond = all_of(conds);
  StmtList pe_body;
  if (!cond) {
    pe_body = then_body;
  } else {
    // Shift registers keep counting time where the PE does not run.
    StmtList else_body;
    for (const Storage& s : storage_) {
      if (s.none || s.reg.kind != Register::kShift || s.reg.depth == 1) continue;
      StmtPtr sh = shift_stmt(s);
      if (s.reg.period > 1)
        sh =
            maybe_if(binop(BinaryOp::kEQ, binop(BinaryOp::kMod, time_expr(), int_lit(s.reg.period)),
                           int_lit(s.phase)),
                     {sh});
      else_body.push_back(sh);
    }
    pe_body = {make_if(cond, then_body, else_body)};
  }
  // Recovered variables, the last transform's first.
  for (auto it = recover_.rbegin(); it != recover_.rend(); ++it)
    pe_body = {let(it->first, it->second, pe_body)};
  // Loops, innermost first.
  for (const Loop& l : loops_) {
    pe_body = {make_for(l.name, make_int(Type::Int(32), l.min), make_int(Type::Int(32), l.extent),
                        vectorized_.count(l.name) ? LoopKind::kVectorized
                        : l.space                 ? LoopKind::kUnrolled
                                                  : LoopKind::kSerial,
                        pe_body)};
  }
  // Realizes of the Funcs that keep their storage.
  for (auto it = realizes_.rbegin(); it != realizes_.rend(); ++it) {
    Realize realize = *(*it)->as<Realize>();
    auto u = ures_.find(realize.func);
    bool allocated = u != ures_.end() && u->second.allocatable;
    if (allocated) continue;
    realize.body = pe_body;
    pe_body = {with_node(**it, realize)};
  }
  kernel_.body = pe_body;
}

}  // namespace t2s::stt_internal
