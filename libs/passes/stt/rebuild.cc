// The new kernel body of a space-time transform: time and space loops, the recovered loop
// variables, the guard, and the UREs' reads and writes through registers.
#include <algorithm>

#include "libs/ir/stmt_visitor.h"
#include "libs/ir/typing.h"
#include "libs/ir/visitor.h"
#include "libs/passes/stt/stt_internal.h"

namespace t2s::stt_internal {

namespace {

// PE index of the PE at `distance` back from this one (0-based), for space loop `l`.
Expr pe_index(const Loop& l, const std::vector<int64_t>& distance) {
  const int64_t off = l.min + l.aff.dot(distance);
  if (off == 0) return loop_var(l.name);
  return off > 0 ? binop(BinaryOp::kSub, loop_var(l.name), int_lit(off))
                 : binop(BinaryOp::kAdd, loop_var(l.name), int_lit(-off));
}

std::vector<Expr> pe_args(const KernelSchedule& schedule, const std::vector<int64_t>& distance) {
  std::vector<Expr> args;
  for (size_t i = 0; i < schedule.space; ++i) args.push_back(pe_index(schedule.loops[i], distance));
  return args;
}

// This PE's index, one 0-based expression per space loop.
std::vector<Expr> own_pe(const OriginalLoops& o, const KernelSchedule& schedule) {
  return pe_args(schedule, std::vector<int64_t>(o.names.size(), 0));
}

// x - d in the domain (sign = -1) or x + d in the domain (sign = +1), for x in the domain; null
// when that always holds.
Expr shifted_in_domain(const OriginalLoops& o, const std::vector<int64_t>& d, int sign) {
  std::vector<Expr> conds;
  for (size_t v = 0; v < o.names.size(); ++v) {
    const int64_t off = sign * d[v];
    if (off == 0) continue;
    conds.push_back(off < 0 ? binop(BinaryOp::kLE, int_lit(o.mins[v] - off), loop_var(o.names[v]))
                            : binop(BinaryOp::kLT, loop_var(o.names[v]),
                                    int_lit(o.mins[v] + o.extents[v] - off)));
  }
  return all_of(conds);
}

// The flattened time T over the serial loops, innermost fastest: 28 * t1 + t2, or
// 5 * (t1 - 1) + t2 for loops that do not start at 0.
Expr time_expr(const KernelSchedule& schedule) {
  const std::vector<Loop>& loops = schedule.loops;
  std::vector<Expr> terms;
  int64_t stride = 1;
  for (size_t i = schedule.space; i < loops.size(); ++i) {
    Expr t = loops[i].min == 0
                 ? loop_var(loops[i].name)
                 : binop(BinaryOp::kSub, loop_var(loops[i].name), int_lit(loops[i].min));
    terms.push_back(stride == 1 ? t : binop(BinaryOp::kMul, int_lit(stride), t));
    stride *= loops[i].extent;
  }
  return terms.empty() ? int_lit(0) : sum_of(terms);
}

Expr typed_zero(Type t) {
  return t.is_float() ? make_float(t, 0.0) : t.is_bool() ? make_bool(false) : make_int(t, 0);
}

StmtPtr maybe_if(const Expr& cond, StmtList then_body) {
  if (!cond) return then_body.size() == 1 ? then_body[0] : nullptr;
  return make_if(cond, std::move(then_body), {});
}

// What rebuild_body reads, by reference: it decides nothing but the body it returns.
struct Inputs {
  const OriginalLoops& loops;
  const KernelSchedule& schedule;
  const Dependences& deps;
  const ExecutionOrder& order;
  const KernelStorage& storage;
};

StmtPtr shift_stmt(const Inputs& in, const Storage& s) {
  return make_shift(s.reg.name, own_pe(in.loops, in.schedule), s.reg.loc);
}

// The reads of statement `stmt` through the registers that replace their Funcs' storage.
class ReadRewriter : public ExprMutator {
 public:
  ReadRewriter(const Inputs& in, size_t stmt) : in_(in), stmt_(stmt) {}

 protected:
  Expr mutate_call(const Expr& e) override {
    Expr m = mutate_operands(e);
    if (e->call_kind != CallKind::kFunc) return m;
    auto it = in_.deps.ures.find(e->name);
    if (it == in_.deps.ures.end() || !it->second.allocatable) return m;
    auto d = distance_of(in_.loops.names, it->second, e->operands);
    if (!d) throw InternalError("stt: read of allocated Func with complex arguments");
    const Ure& u = it->second;
    if (std::all_of(d->begin(), d->end(), [](int64_t c) { return c == 0; }))
      return make_var(in_.storage.value_names.at(u.func), u.type, e->loc);
    const Storage& s = in_.storage.storage[in_.storage.index.at({u.func, *d})];
    if (s.none) return typed_zero(u.type);
    if (s.reg.kind == Register::kFifo) return make_var(s.value_name, u.type, e->loc);
    // A register of depth 1 is never shifted (each PE writes its one value, or overwrites it
    // before the next read), so its value stays in slot 0 whatever the time distance.
    const int64_t slot =
        s.reg.depth == 1 ? 0
                         : in_.order.delta(*d, stmt_, u.stmt) / (s.reg.period * in_.order.quantum);
    std::vector<Expr> args = pe_args(in_.schedule, *d);
    args.push_back(int_lit(slot));
    return make_call(s.reg.name, CallKind::kRegister, s.reg.type, args);
  }

 private:
  const Inputs& in_;
  const size_t stmt_;
};

StmtPtr rewrite(const Inputs& in, const StmtPtr& s, size_t stmt) {
  class Rewriter : public StmtMutator {
   public:
    Rewriter(const Inputs& in, size_t stmt) : reads_(in, stmt) {}
    Expr mutate(const Expr& e) override { return e ? reads_.mutate(e) : e; }

   private:
    ReadRewriter reads_;
  } rewriter(in, stmt);
  return rewriter.mutate_stmt(s);
}

// Statements i.. of the PE body, with lets wrapping what follows them.
StmtList build(const Inputs& in, size_t i) {
  const StmtList& body = in.loops.body;
  if (i == body.size()) return {};
  const KernelStorage& ks = in.storage;
  StmtList tail;
  // The URE with registers that statement i is the provide of, and the value it provides with
  // its reads rewritten (its arguments are loop variables, find_dependences: nothing to rewrite).
  const Ure* u = nullptr;
  Expr value;
  match_stmt(
      *body[i], [](const For&) {}, [](const LetStmt&) {}, [](const IfThenElse&) {},
      [&](const Provide& p) {
        auto it = in.deps.ures.find(p.func);
        if (it == in.deps.ures.end() || !it->second.allocatable || it->second.stmt != i) return;
        u = &it->second;
        value = ReadRewriter(in, i).mutate(p.value);
      },
      [](const Alloc&) {}, [](const WriteChannel&) {}, [](const Realize&) {}, [](const Shift&) {},
      [](const Push&) {});
  if (u) {
    const std::string& value_name = ks.value_names.at(u->func);
    StmtList inner;
    for (const Storage& s : ks.storage) {
      if (s.func != u->func || s.none) continue;
      if (s.reg.kind == Register::kShift) {
        if (s.reg.depth > 1) inner.push_back(shift_stmt(in, s));
        std::vector<Expr> slot = own_pe(in.loops, in.schedule);
        slot.push_back(make_int(Type::Int(32), 0));
        inner.push_back(make_provide(s.reg.name, slot, make_var(value_name, u->type, {}), u->loc));
      } else {
        StmtPtr push = make_push(s.reg.name, own_pe(in.loops, in.schedule),
                                 make_var(value_name, u->type, {}), u->loc);
        inner.push_back(maybe_if(shifted_in_domain(in.loops, s.distance, +1), {push}));
      }
    }
    for (const StmtPtr& s : build(in, i + 1)) inner.push_back(s);
    tail.push_back(make_let(value_name, value, inner));
  } else {
    tail.push_back(rewrite(in, body[i], i));
    for (const StmtPtr& s : build(in, i + 1)) tail.push_back(s);
  }
  // FIFO values read first by statement i are popped just before it.
  for (auto it = ks.storage.rbegin(); it != ks.storage.rend(); ++it) {
    const Storage& s = *it;
    if (s.none || s.reg.kind != Register::kFifo || s.first_reader != i) continue;
    const Expr cond = shifted_in_domain(in.loops, s.distance, -1);
    std::vector<Expr> args = {make_var(s.reg.name)};
    for (const Expr& a : pe_args(in.schedule, s.distance)) args.push_back(a);
    const Expr pop = make_call("pop", CallKind::kFifo, s.reg.type, args);
    Expr value = pop;
    if (cond) {
      // Where nothing was pushed the value is 0, of the FIFO's type (a literal coerced).
      Expr zero = coerce_literal_to(int_lit(0), pop->type);
      if (!zero) throw InternalError("stt: FIFO '" + s.reg.name + "' of a type without 0");
      value = make_select(cond, pop, zero, pop->type);
    }
    tail = {make_let(s.value_name, value, tail)};
  }
  return tail;
}

}  // namespace

StmtList rebuild_body(const OriginalLoops& loops, const KernelSchedule& schedule,
                      const Guard& guard, const Dependences& deps, const ExecutionOrder& order,
                      const KernelStorage& storage) {
  const Inputs in{loops, schedule, deps, order, storage};
  StmtList then_body = build(in, 0);
  std::vector<Expr> conds = guard.range;
  conds.insert(conds.end(), guard.checks.begin(), guard.checks.end());
  const Expr cond = all_of(conds);
  StmtList pe_body;
  if (!cond) {
    pe_body = then_body;
  } else {
    // Shift registers keep counting time where the PE does not run.
    StmtList else_body;
    for (const Storage& s : storage.storage) {
      if (s.none || s.reg.kind != Register::kShift || s.reg.depth == 1) continue;
      StmtPtr sh = shift_stmt(in, s);
      if (s.reg.period > 1)
        sh = maybe_if(
            binop(BinaryOp::kEQ, binop(BinaryOp::kMod, time_expr(schedule), int_lit(s.reg.period)),
                  int_lit(s.phase)),
            {sh});
      else_body.push_back(sh);
    }
    pe_body = {make_if(cond, then_body, else_body)};
  }
  // Recovered variables, the last transform's first.
  for (auto it = guard.recover.rbegin(); it != guard.recover.rend(); ++it)
    pe_body = {make_let(it->first, it->second, pe_body)};
  // Loops, innermost first.
  for (const Loop& l : schedule.loops) {
    pe_body = {make_for(l.name, make_int(Type::Int(32), l.min), make_int(Type::Int(32), l.extent),
                        loops.vectorized.count(l.name) ? LoopKind::kVectorized
                        : l.space                      ? LoopKind::kUnrolled
                                                       : LoopKind::kSerial,
                        pe_body)};
  }
  // Realizes of the Funcs that keep their storage.
  for (auto it = loops.realizes.rbegin(); it != loops.realizes.rend(); ++it) {
    Realize realize = *(*it)->as<Realize>();
    auto u = deps.ures.find(realize.func);
    bool allocated = u != deps.ures.end() && u->second.allocatable;
    if (allocated) continue;
    realize.body = pe_body;
    pe_body = {with_node(**it, realize)};
  }
  return pe_body;
}

}  // namespace t2s::stt_internal
