// The legality checks of a space-time transform, each refusing with a located diagnostic:
// injectivity, the reverse mapping, dependences in the new execution order (the order of
// channels is channels.cc's).
#include <algorithm>

#include "libs/ir/expr_printer.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/linear.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"
#include "libs/passes/stt/stt_internal.h"

namespace t2s::stt_internal {

std::string distance_text(const std::vector<int64_t>& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + ")";
}

std::string outermost_first(const std::vector<int64_t>& by_argument) {
  return distance_text(std::vector<int64_t>(by_argument.rbegin(), by_argument.rend())) +
         " (outermost loop first)";
}

namespace {

int64_t evaluate(const Aff& a, const std::vector<int64_t>& x) {
  int64_t s = a.constant;
  for (size_t i = 0; i < a.coeff.size(); ++i) s = checked_add(s, checked_mul(a.coeff[i], x[i]));
  return s;
}

// A directive argument (canonical expression text in the IR) as a typed expression.
Expr directive_expr(const DirectiveArg& arg, const Program& program) {
  if (arg.kind != DirectiveArg::kExpr || !arg.value)
    throw Diagnostic({}, "expected an expression, not a list", "stt-reverse");
  return resolve_in_program(arg.value, program);
}

// "B(i - 1, j, k)": the read as the spec writes it.
std::string read_text(const OriginalLoops& o, const Dependences& deps, const Read& r) {
  const Ure& u = deps.ures.at(r.func);
  std::string args;
  for (size_t p = 0; p < u.arg_var.size(); ++p) {
    const std::string& v = o.names[u.arg_var[p]];
    const int64_t c = -r.distance[u.arg_var[p]];
    args += (p ? ", " : "") + v + (c > 0 ? " + " + std::to_string(c) : "") +
            (c < 0 ? " - " + std::to_string(-c) : "");
  }
  return r.func + "(" + args + ")";
}

}  // namespace

// Two iterations on the same PE at the same step: refused with an example (isl). `dst_aff`
// holds the destination loops, then the outer loops the transform keeps; the example shows the
// destination loops.
void check_injective(const TransformContext& ctx, const OriginalLoops& o,
                     const std::vector<std::string>& dst, const std::vector<Aff>& dst_aff) {
  std::vector<std::string> other;
  poly::Set pairs = o.ordered_pairs(&other);
  for (const Aff& a : dst_aff)
    pairs.where(o.poly_of(a) == poly::Aff::linear(a.coeff, other, a.constant));
  auto witness = poly::sample(pairs);
  if (!witness) return;
  auto point = [&](size_t offset) {
    std::string s = "(";
    for (size_t v = o.names.size(); v-- > 0;)
      s += o.names[v] + " = " + std::to_string((*witness)[offset + v]) + (v ? ", " : ")");
    return s;
  };
  std::string where;
  for (size_t r = 0; r < dst.size(); ++r)
    where += (r ? ", " : "") + dst[r] + " = " + std::to_string(evaluate(dst_aff[r], *witness));
  ctx.fail("the mapping puts iterations " + point(0) + " and " + point(o.names.size()) +
               " on the same PE at the same time step (" + where + ")",
           "stt-injective");
}

// The user's reverse mapping must recover every source loop from the destination loops on
// the whole domain (isl proves it).
std::vector<std::pair<std::string, Expr>> check_reverse_mapping(
    const TransformContext& ctx, const OriginalLoops& o, const std::vector<Loop>& current,
    const std::vector<std::string>& src, const std::vector<std::string>& dst,
    const DirectiveArg& reverse, const std::vector<Aff>& dst_aff) {
  std::vector<std::pair<std::string, Expr>> recover;
  std::set<std::string> recovered;
  poly::VarDims names;
  for (size_t r = 0; r < dst.size(); ++r) names[dst[r]] = "d" + std::to_string(r);
  poly::Set wrong = o.domain();
  for (size_t r = 0; r < dst.size(); ++r) {
    wrong.add_dim("d" + std::to_string(r));
    wrong.where(poly::Aff::dim("d" + std::to_string(r)) == o.poly_of(dst_aff[r]));
  }
  std::vector<poly::Cond> mismatch;
  for (const DirectiveArg& pair : reverse.items) {
    const std::string var = pair.items[0].text;
    if (std::find(src.begin(), src.end(), var) == src.end())
      ctx.fail("the reverse mapping recovers '" + var + "', which is not a source loop",
               "stt-reverse");
    if (!recovered.insert(var).second)
      ctx.fail("the reverse mapping recovers '" + var + "' twice", "stt-reverse");
    Expr e;
    try {
      e = directive_expr(pair.items[1], ctx.program);
    } catch (const Diagnostic& diag) {
      ctx.fail("the reverse expression for '" + var + "': " + diag.message(), "stt-reverse");
    }
    auto inverse = poly::Aff::from_expr(e, names);
    if (!inverse)
      ctx.fail("the reverse expression for '" + var + "' (" + pair.items[1].text +
                   ") must be quasi-affine in the destination loops and the source loops "
                   "recovered before it",
               "stt-reverse");
    const std::string r = "r" + std::to_string(recovered.size() - 1);
    names[var] = r;
    wrong.add_dim(r);
    wrong.where(poly::Aff::dim(r) == *inverse);
    mismatch.push_back(poly::Aff::dim(r) != o.poly_of(current[position(current, var)].aff));
    // A destination loop with a source loop's name holds that value already.
    if (std::find(dst.begin(), dst.end(), var) == dst.end()) recover.emplace_back(var, e);
  }
  for (const std::string& v : src)
    if (!recovered.count(v) && std::find(dst.begin(), dst.end(), v) == dst.end())
      ctx.fail("the reverse mapping does not recover source loop '" + v + "'", "stt-reverse");
  if (mismatch.empty()) return recover;
  wrong.where(poly::Cond::any_of(mismatch));
  if (auto w = poly::sample(wrong)) {
    std::string at = "(";
    for (size_t v = o.names.size(); v-- > 0;)
      at += o.names[v] + " = " + std::to_string((*w)[v]) + (v ? ", " : ")");
    ctx.fail("the reverse mapping does not invert the matrix on the iteration domain: at " + at +
                 " it does not give the iteration back",
             "stt-reverse");
  }
  return recover;
}

std::optional<std::vector<int64_t>> distance_of(const std::vector<std::string>& names, const Ure& u,
                                                const std::vector<Expr>& args) {
  if (args.size() != u.arg_var.size()) return std::nullopt;
  std::vector<int64_t> d(names.size(), 0);
  for (size_t p = 0; p < args.size(); ++p) {
    std::string var;
    int64_t offset = 0;
    if (!simple_arg(args[p], &var, &offset) || var != names[u.arg_var[p]]) return std::nullopt;
    d[u.arg_var[p]] = -offset;
  }
  return d;
}

namespace {

// The provides of a loop nest's body: those of its own list, with their positions in it, and
// the Funcs provided inside its other statements (an if: hand-edited IR).
class BodyProvides : public StmtVisitor {
 public:
  explicit BodyProvides(const StmtList& body) {
    for (position_ = 0; position_ < body.size(); ++position_) visit_stmt(*body[position_]);
  }
  std::vector<std::pair<size_t, const Provide*>> own;
  std::set<std::string> nested;

 protected:
  void visit_stmt(const Stmt& s) override {
    ++depth_;
    StmtVisitor::visit_stmt(s);
    --depth_;
  }
  void visit_provide(const Provide& p, const Stmt&) override {
    if (depth_ == 1)
      own.push_back({position_, &p});
    else
      nested.insert(p.func);
  }

 private:
  size_t position_ = 0;
  int depth_ = 0;  // 1 for a statement of the body's own list
};

}  // namespace

Dependences find_dependences(const TransformContext& ctx, const OriginalLoops& o) {
  Dependences deps;
  std::map<std::string, Ure>& ures = deps.ures;
  const Program& program = ctx.program;
  std::set<std::string> realized;
  for (const StmtPtr& r : o.realizes) realized.insert(r->as<Realize>()->func);
  const BodyProvides provides(o.body);
  for (const auto& [i, s] : provides.own) {
    if (!program.find_func(s->func)) continue;
    Ure u;
    u.func = s->func;
    u.stmt = i;
    u.type = s->value->type;
    u.loc = o.body[i]->loc;
    bool simple = s->args.size() == o.names.size();
    std::set<size_t> seen;
    for (const Expr& a : s->args) {
      auto it = a->kind == ExprKind::kVar ? std::find(o.names.begin(), o.names.end(), a->name)
                                          : o.names.end();
      if (it == o.names.end()) {
        simple = false;
        break;
      }
      u.arg_var.push_back(static_cast<size_t>(it - o.names.begin()));
      seen.insert(u.arg_var.back());
    }
    simple = simple && seen.size() == o.names.size();
    if (!simple) continue;
    u.allocatable =
        realized.count(u.func) && u.func != program.output.func && !program.find_buffer(u.func);
    if (ures.count(u.func)) {  // provided twice: keep its storage
      ures[u.func].allocatable = false;
      continue;
    }
    ures[u.func] = u;
  }
  // A URE also provided inside another statement (an if: hand-edited IR) keeps its storage:
  // registers replace only the provides of the nest's own list.
  for (const std::string& func : provides.nested) {
    auto it = ures.find(func);
    if (it != ures.end()) it->second.allocatable = false;
  }
  // Every read of a URE of the nest.
  for (size_t i = 0; i < o.body.size(); ++i)
    for_each_stmt_expr({o.body[i]}, [&](const Expr& e) {
      if (e->kind != ExprKind::kCall || e->call_kind != CallKind::kFunc) return;
      auto it = ures.find(e->name);
      if (it == ures.end()) return;
      auto d = distance_of(o.names, it->second, e->operands);
      if (!d) {
        it->second.allocatable = false;
        return;
      }
      deps.reads.push_back(Read{e->name, i, *d});
    });
  return deps;
}

ExecutionOrder execution_order(const TransformContext& ctx, const OriginalLoops& o,
                               const KernelSchedule& s) {
  ExecutionOrder order;
  order.time = s.time;
  order.pe = s.order;
  order.stmts = static_cast<int64_t>(o.body.size());
  if (s.steps_total > kMaxPositions / s.pes / (2 * order.stmts))
    ctx.fail("too many time steps x PEs to order", "loop-too-large");
  order.quantum = s.pes * order.stmts * 2;
  return order;
}

int64_t ExecutionOrder::delta(const std::vector<int64_t>& d, size_t reader, size_t writer) const {
  return checked_add(
      checked_add(checked_mul(quantum, time.dot(d)), checked_mul(2 * stmts, pe.dot(d))),
      2 * (static_cast<int64_t>(reader) - static_cast<int64_t>(writer)) - 1);
}

void check_dependences(const TransformContext& ctx, const OriginalLoops& o, const Dependences& deps,
                       const ExecutionOrder& order) {
  for (const Read& r : deps.reads) {
    const Ure& u = deps.ures.at(r.func);
    const int64_t dt = order.time.dot(r.distance);
    if (order.delta(r.distance, r.stmt, u.stmt) > 0) continue;
    ctx.fail("the schedule computes " + read_text(o, deps, r) +
                 " after the iteration that reads it (" +
                 (dt < -1    ? std::to_string(-dt) + " time steps later"
                  : dt == -1 ? "1 time step later"
                  : dt == 0  ? "at the same time step, on a PE that runs later"
                             : "later") +
                 "), breaking the dependence at distance " +
                 distance_text(std::vector<int64_t>(r.distance.rbegin(), r.distance.rend())) +
                 " in loop order (" + o.loop_order() + ")",
             "stt-dependence");
  }
}

// Seed 000, front-end check 2: with a scheduling vector T, a dependence d between PEs must
// have T'd > 0 (if T'd <= 0, error out), unless a loop outside the transform carries it. The
// execution order (check_dependences) would accept T'd = 0 when the reading PE happens to run
// later in the same step; the seed's schedule is a promise about time steps, so it is held to
// it.
void check_schedule_vectors(const TransformContext& ctx, const OriginalLoops& o,
                            const KernelSchedule& schedule, const Dependences& deps) {
  for (const ScheduleVector& sv : schedule.schedule_vectors) {
    // The read with the smallest T'd (the first of them) is reported.
    const Read* worst = nullptr;
    int64_t worst_td = 0;
    std::vector<int64_t> worst_ds;
    for (const Read& r : deps.reads) {
      bool between_pes = false, carried_outside = false;
      std::vector<int64_t> ds;
      for (const Aff& a : sv.space_aff) {
        ds.push_back(a.dot(r.distance));
        between_pes |= ds.back() != 0;
      }
      for (const Aff& a : sv.outer_aff) carried_outside |= a.dot(r.distance) != 0;
      if (!between_pes || carried_outside) continue;
      const int64_t td = sv.time_aff.dot(r.distance);
      if (td > 0 || (worst && td >= worst_td)) continue;
      worst = &r;
      worst_td = td;
      worst_ds = ds;
    }
    if (!worst) continue;
    // T and d over (space loops..., the loop that becomes time), as the directive lists them.
    int64_t d_next = worst_td;
    for (size_t i = 0; i < worst_ds.size(); ++i)
      d_next = checked_add(d_next, -checked_mul(sv.vector[i], worst_ds[i]));
    std::string loops, t_text, d_text;
    for (size_t i = 0; i < sv.space.size(); ++i) {
      loops += sv.space[i] + ", ";
      t_text += std::to_string(sv.vector[i]) + ", ";
      d_text += std::to_string(worst_ds[i]) + ", ";
    }
    ctx.pointing_at(sv.at).fail(
        "the scheduling vector breaks the dependence of the read " + read_text(o, deps, *worst) +
            " between PEs: over (" + loops + sv.next + "), T = (" + t_text + "1) and d = (" +
            d_text + std::to_string(d_next) + "), so T'd = " + std::to_string(worst_td) +
            " (a PE would read the value " +
            (worst_td == 0 ? "in the time step that computes it"
                           : std::to_string(-worst_td) + " time step" +
                                 (worst_td == -1 ? "" : "s") + " before it is computed") +
            "); T'd must be positive",
        "stt-schedule");
  }
}

}  // namespace t2s::stt_internal
