// Dependences through Func storage: a read of a Func the kernel provides that is not a URE read
// at a constant distance (those are checked with the registers, legality.cc). A loop split by
// t2s-merge gives such reads: `W(t, no * 4 + ni - 1)` reads the previous iteration of n, which
// is ni - 1 or, at ni == 0, the last ni of the previous no. The Func keeps its storage; isl
// checks, exactly on the iteration domain, that every value such a read needs is computed at
// an earlier step (or earlier in the same iteration) of the new execution order.
#include <algorithm>
#include <functional>

#include "libs/ir/expr_printer.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"
#include "libs/passes/stt/stt_internal.h"

namespace t2s::stt_internal {

namespace {

// A provide or a read of a Func, with its arguments over the original loop variables.
struct Access {
  std::string func;
  std::vector<Expr> args;
  size_t position = 0;           // statements in program order; a read before the write
  std::vector<Expr> conditions;  // the enclosing if and select conditions (reads)
  Expr call;                     // the read as written
};

}  // namespace

void check_storage_order(const TransformContext& ctx, const OriginalLoops& o,
                         const KernelSchedule& schedule, const Dependences& deps) {
  std::vector<Access> writes, reads;
  std::map<std::string, Expr> lets;  // let-bound integers, by their values
  std::vector<Expr> conditions;
  size_t position = 0;
  std::function<void(const Expr&)> expr = [&](const Expr& e) {
    if (!e) return;
    if (e->kind == ExprKind::kSelect) {
      expr(e->operands[0]);
      VarSubstituter s(lets);
      const Expr c = s.mutate(e->operands[0]);
      for (size_t b = 1; b < e->operands.size(); ++b) {
        conditions.push_back(b == 1 ? c : make_unary(UnaryOp::kNot, c, Type::Bool()));
        expr(e->operands[b]);
        conditions.pop_back();
      }
      return;
    }
    for (const Expr& o : e->operands) expr(o);
    if (e->kind != ExprKind::kCall || e->call_kind != CallKind::kFunc) return;
    VarSubstituter s(lets);
    Access a{e->name, {}, position, conditions, e};
    for (const Expr& arg : e->operands) a.args.push_back(s.mutate(arg));
    reads.push_back(a);
  };
  std::function<void(const StmtList&)> stmts = [&](const StmtList& list) {
    for (const StmtPtr& s : list) {
      ++position;
      for (const Expr* e : s->exprs()) expr(*e);
      match_stmt(
          *s, [&](const For& f) { stmts(f.body); },
          [&](const LetStmt& let) {
            if (let.value->type.is_int()) {
              VarSubstituter sub(lets);
              lets[let.var] = sub.mutate(let.value);
            }
            stmts(let.body);
            lets.erase(let.var);
          },
          [&](const IfThenElse& i) {
            VarSubstituter sub(lets);
            const Expr c = sub.mutate(i.condition);
            conditions.push_back(c);
            stmts(i.then_body);
            conditions.back() = make_unary(UnaryOp::kNot, c, Type::Bool());
            stmts(i.else_body);
            conditions.pop_back();
          },
          [&](const Provide& p) {
            if (!ctx.program.find_func(p.func)) return;
            VarSubstituter sub(lets);
            Access w{p.func, {}, position, {}, nullptr};
            for (const Expr& arg : p.args) w.args.push_back(sub.mutate(arg));
            writes.push_back(w);
          },
          [](const Alloc&) {}, [](const WriteChannel&) {}, [&](const Realize& r) { stmts(r.body); },
          [](const Shift&) {}, [](const Push&) {});
    }
  };
  stmts(o.body);

  poly::VarDims x_dims, y_dims;
  std::vector<std::string> ys;
  for (size_t v = 0; v < o.names.size(); ++v) {
    x_dims[o.names[v]] = o.isl[v];
    ys.push_back("y" + std::to_string(v));
    y_dims[o.names[v]] = ys.back();
  }
  // The execution order: time steps, then PEs (one-to-one on the domain: check_injective).
  Aff g = schedule.time;
  for (int64_t& c : g.coeff) c *= schedule.pes;
  g.add(schedule.order, 1);
  const poly::Aff gx = poly::Aff::linear(g.coeff, o.isl), gy = poly::Aff::linear(g.coeff, ys);
  for (const Access& r : reads) {
    // A URE read at a constant distance: checked with the registers (check_dependences).
    auto u = deps.ures.find(r.func);
    if (u != deps.ures.end() && distance_of(o.names, u->second, r.call->operands)) continue;
    for (const Access& w : writes) {
      if (w.func != r.func || w.args.size() != r.args.size()) continue;
      poly::Set bad = o.domain();
      for (size_t v = 0; v < o.names.size(); ++v) {
        bad.add_dim(ys[v]);
        bad.where(poly::Cond::range(o.mins[v], poly::Aff::dim(ys[v]), o.mins[v] + o.extents[v]));
      }
      bool affine = true;
      for (size_t a = 0; a < r.args.size(); ++a) {
        auto read_at = poly::Aff::from_expr(r.args[a], x_dims);
        auto written_at = poly::Aff::from_expr(w.args[a], y_dims);
        affine = affine && read_at && written_at;
        if (affine) bad.where(*written_at == *read_at);
      }
      if (!affine)
        ctx.fail("cannot check the read '" + print_expr(r.call) + "' of '" + r.func +
                     "' (its index is not affine in the loops), so cannot prove that the new "
                     "order computes it first",
                 "stt-dependence");
      for (const Expr& c : r.conditions)
        if (auto cond = poly::Cond::from_expr(c, x_dims)) bad.where(*cond);
      bad.where(gy > gx || (gy == gx && poly::Cond::always(w.position >= r.position)));
      auto witness = poly::sample(bad);
      if (!witness) continue;
      auto point = [&](size_t offset) {
        std::string s = "(";
        for (size_t v = o.names.size(); v-- > 0;)
          s += o.names[v] + " = " + std::to_string((*witness)[offset + v]) + (v ? ", " : ")");
        return s;
      };
      ctx.fail("the schedule computes " + r.func + " after the iteration that reads it: " +
                   point(0) + " reads '" + print_expr(r.call) + "', the value of iteration " +
                   point(o.names.size()) + ", which runs later in the new order (loops " +
                   o.loop_order() + ", outermost first)",
               "stt-dependence");
    }
  }
}

}  // namespace t2s::stt_internal
