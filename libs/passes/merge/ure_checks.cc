// The URE rules of seed 001 that look inside definitions: the initial-value (recursive
// reference) check and the rules on the arguments of calls between UREs of one loop nest.
#include <algorithm>
#include <map>
#include <optional>

#include "libs/ir/expr_printer.h"
#include "libs/ir/linear.h"
#include "libs/ir/strings.h"
#include "libs/ir/visitor.h"
#include "libs/passes/merge/plan.h"

namespace t2s::merge_internal {

std::vector<std::string> called_funcs(const Expr& e) {
  std::vector<std::string> out;
  for_each_expr(e, [&](const Expr& n) {
    if (n->kind == ExprKind::kCall && n->call_kind == CallKind::kFunc &&
        std::find(out.begin(), out.end(), n->name) == out.end())
      out.push_back(n->name);
  });
  return out;
}

std::vector<std::string> used_vars(const Expr& e) {
  std::vector<std::string> out;
  for_each_expr(e, [&](const Expr& n) {
    if (n->kind == ExprKind::kVar && std::find(out.begin(), out.end(), n->name) == out.end())
      out.push_back(n->name);
  });
  return out;
}

bool is_write_when(const Expr& e) {
  return e && e->kind == ExprKind::kSelect && e->operands.size() == 2;
}

namespace {

// Seed 001: a Func "has an initial value" when some way of evaluating it ends without coming
// back to a Func that has none. As a formula over the Funcs: a select needs its condition and
// either branch (c and (t or f)), every other node needs all its operands, a leaf (literal,
// Var, input read) is true. The seed builds a tree and converts each node's formula to CNF;
// the least fixed point of the same formulas, iterated from "nothing has a value", gives the
// same answer on every program (the formulas are monotone) and needs no tree.
bool has_value(const Expr& e, const std::map<std::string, bool>& known) {
  switch (e->kind) {
    case ExprKind::kCall:
      if (e->call_kind == CallKind::kFunc) {
        auto it = known.find(e->name);
        if (it != known.end() && !it->second) return false;
      }
      break;
    case ExprKind::kSelect:
      if (!has_value(e->operands[0], known)) return false;
      return has_value(e->operands[1], known) ||
             (e->operands.size() == 3 && has_value(e->operands[2], known));
    default:
      break;
  }
  for (const Expr& o : e->operands)
    if (!has_value(o, known)) return false;
  return true;
}

}  // namespace

void check_initial_values(const Program& p) {
  std::map<std::string, bool> known;  // defined Funcs only; others count as values
  for (const Func& f : p.funcs)
    if (f.definition) known[f.name] = false;
  for (bool changed = true; changed;) {
    changed = false;
    for (const Func& f : p.funcs) {
      if (!f.definition || known[f.name]) continue;
      if (has_value(f.definition, known)) known[f.name] = changed = true;
    }
  }
  std::vector<const Func*> missing;
  for (const Func& f : p.funcs)
    if (f.definition && !known[f.name]) missing.push_back(&f);
  if (missing.empty()) return;
  const Func& first = *missing.front();
  Diagnostic d(first.loc,
               "'" + first.name +
                   "' has no initial value: every way of computing it needs a value of a Func "
                   "that has none (recursive reference)",
               "ure-initial-value");
  for (size_t i = 1; i < missing.size(); ++i)
    d.add_note(missing[i]->loc, "'" + missing[i]->name + "' has no initial value either");
  throw d;
}

namespace {

// Why `caller` may not read `call` (a read of `callee`, both in group `g`) with the loops in
// `order` (innermost first), or nullopt when it may. Non-simple arguments and a wrong argument
// order are wrong in every order: thrown.
std::optional<Diagnostic> distance_violation(const Func& caller, const Expr& call,
                                             const Func& callee, const Group& g,
                                             const std::vector<std::string>& order) {
  std::map<std::string, int64_t> distance;  // loop var -> caller point minus callee point
  const SourceLoc at = call->loc.valid() ? call->loc : caller.loc;
  for (size_t a = 0; a < call->operands.size(); ++a) {
    const Expr& arg = call->operands[a];
    const std::string& want = callee.args[a];
    std::string var;
    int64_t offset = 0;
    std::string where = "argument " + std::to_string(a + 1) + " of '" + callee.name + "' in '" +
                        print_expr(call) + "'";
    if (!simple_arg(arg, &var, &offset))
      throw Diagnostic(
          at,
          where + " is not simple: a URE reads '" + want + "' or '" + want + " +/- constant' there",
          "ure-simple-args");
    if (var != want)
      throw Diagnostic(at,
                       where + " uses '" + var + "' where '" + callee.name + "' has '" + want +
                           "': a URE reads its arguments in the same order as it is defined",
                       "ure-arg-order");
    distance[var] = -offset;
  }
  // Lexicographically non-negative in loop order, outermost loop first.
  std::vector<std::string> outer_first(order.rbegin(), order.rend());
  std::vector<std::string> shown;
  for (const std::string& v : outer_first)
    shown.push_back(std::to_string(distance.count(v) ? distance[v] : 0));
  for (const std::string& v : outer_first) {
    int64_t d = distance.count(v) ? distance[v] : 0;
    if (d > 0) return std::nullopt;
    if (d < 0)
      return Diagnostic(at,
                        "'" + caller.name + "' reads '" + print_expr(call) + "' at distance (" +
                            join(shown, ", ") + ") in loop order (" + join(outer_first, ", ") +
                            "), which is lexicographically negative: that value is computed later",
                        "ure-distance");
  }
  // Distance zero: the callee must be realized earlier in the same iteration (in every order).
  const std::vector<std::string>& members = g.members;
  auto pos = [&](const std::string& f) { return std::find(members.begin(), members.end(), f); };
  if (pos(callee.name) >= pos(caller.name))
    throw Diagnostic(at,
                     callee.name == caller.name
                         ? "'" + caller.name + "' reads itself at distance zero"
                         : "'" + caller.name + "' reads '" + print_expr(call) +
                               "' at distance zero, but '" + callee.name + "' is realized after '" +
                               caller.name + "' in the merge order (" + join(members, ", ") + ")",
                     "ure-distance");
  return std::nullopt;
}

// The first read in group `g` that the loop order `order` breaks.
std::optional<Diagnostic> first_violation(const Program& p, const Plan& plan, const Group& g,
                                          const std::vector<std::string>& order) {
  std::optional<Diagnostic> found;
  for (const std::string& name : g.members) {
    const Func& caller = *p.find_func(name);
    for_each_expr(caller.definition, [&](const Expr& n) {
      if (found || n->kind != ExprKind::kCall || n->call_kind != CallKind::kFunc) return;
      auto it = plan.group_of.find(n->name);
      if (it == plan.group_of.end() || plan.groups[it->second].rep != g.rep) return;
      found = distance_violation(caller, n, *p.find_func(n->name), g, order);
    });
    if (found) break;
  }
  return found;
}

// A loop order that respects every dependence of `g` for the stages before the transform: the
// defined order when it does, else the first permutation of it that does (the loops' bounds are
// constants by then, so any order of the box computes the same values).
std::optional<std::vector<std::string>> legal_order(const Program& p, const Plan& plan,
                                                    const Group& g) {
  std::vector<std::string> order = g.defined_order.empty() ? g.loop_vars : g.defined_order;
  if (!first_violation(p, plan, g, order)) return order;
  if (order.size() > 8) return std::nullopt;  // 8! orders at most
  std::vector<size_t> perm(order.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  while (std::next_permutation(perm.begin(), perm.end())) {
    std::vector<std::string> candidate;
    for (size_t i : perm) candidate.push_back(order[i]);
    if (!first_violation(p, plan, g, candidate)) return candidate;
  }
  return std::nullopt;
}

}  // namespace

bool transformed_after(const Program& p, const std::string& func, int from) {
  for (size_t i = static_cast<size_t>(from + 1); i < p.directives.size(); ++i)
    if (p.directives[i].is(DirectiveKind::kSpaceTimeTransform) && p.directives[i].func == func)
      return true;
  return false;
}

namespace {

bool is_last_of_merge(const Plan& plan, const std::string& f) {
  auto it = plan.group_of.find(f);
  return it != plan.group_of.end() && plan.groups[it->second].members.back() == f;
}

}  // namespace

void check_structure(const Program& p, const Plan& plan) {
  for (const Func& f : p.funcs) {
    if (!f.definition) continue;
    auto it = plan.group_of.find(f.name);
    const Group* g = it == plan.group_of.end() ? nullptr : &plan.groups[it->second];
    const Func* rep = g ? p.find_func(g->rep) : nullptr;
    std::vector<std::string> extra;
    for (const std::string& v : used_vars(f.definition))
      if (std::find(f.args.begin(), f.args.end(), v) == f.args.end()) extra.push_back(v);
    bool extended = !extra.empty() || (rep && f.args.size() < rep->args.size());
    if (g && f.name != g->rep) {
      if (!extended && f.args != rep->args)
        throw Diagnostic(f.loc,
                         "'" + f.name + "' has arguments (" + join(f.args, ", ") +
                             ") but the representative '" + rep->name + "' has (" +
                             join(rep->args, ", ") +
                             "): merged UREs have the same arguments in the same order",
                         "ure-arg-order");
      for (const std::string& a : f.args)
        if (std::find(rep->args.begin(), rep->args.end(), a) == rep->args.end())
          throw Diagnostic(f.loc,
                           "argument '" + a + "' of '" + f.name + "' is not a loop of '" +
                               rep->name + "' (" + join(rep->args, ", ") + ")",
                           "ure-arg-order");
    }
    if (extended && !is_last_of_merge(plan, f.name))
      throw Diagnostic(
          f.loc,
          "'" + f.name + "' is an extended URE (" +
              (extra.empty() ? "it has fewer arguments than its representative"
                             : "it uses " + join(extra, ", ") + ", not among its arguments") +
              "): only the last URE of a merge_ures may be one",
          "ure-extended-not-last");
    for (const std::string& v : extra)
      if (rep && std::find(rep->args.begin(), rep->args.end(), v) == rep->args.end())
        throw Diagnostic(
            f.loc, "'" + f.name + "' uses '" + v + "', which is not a loop of '" + g->rep + "'",
            "ure-extended-not-last");
    if (is_write_when(f.definition) && !is_last_of_merge(plan, f.name))
      throw Diagnostic(f.loc,
                       "select without a false value is allowed only as the whole definition "
                       "of the last URE of a merge_ures ('" +
                           f.name + "' is not one)",
                       "select-no-false");
  }
  const std::string& out = p.output.func;
  auto it = plan.group_of.find(out);
  if (it != plan.group_of.end() && plan.groups[it->second].members.back() != out)
    throw Diagnostic(p.output.loc,
                     "realized Func '" + out + "' is in the merge_ures of '" +
                         plan.groups[it->second].rep + "' but is not its last URE ('" +
                         plan.groups[it->second].members.back() +
                         "'): realize the last URE, or an isolated consumer of it",
                     "realize-not-last-ure");
}

void check_distances(const Program& p, Plan& plan, const GroupFilter& which) {
  for (Group& g : plan.groups) {
    if (!which(g)) continue;
    std::optional<Diagnostic> broken = first_violation(p, plan, g, g.loop_vars);
    if (!broken) continue;
    // A nest with split loops runs LoopNest::loops, not loop_vars: check_split_order judges
    // its order exactly (the rules on arguments above hold in every order).
    if (plan.nests.count(g.rep) && !plan.nests.at(g.rep).splits.empty()) continue;
    // The order the loops have now breaks a dependence. Legal when a space_time_transform
    // after the last reorder gives an order that respects it again (t2s-stt checks that
    // order); until then the nest runs in an order that respects every dependence, so every
    // stage computes the right values.
    // (Not for a nest with split or unrolled loops: its loops are LoopNest::loops, which
    // check_split_order judges in the order they run.)
    if (!plan.nests.count(g.rep) && transformed_after(p, g.rep, g.reorder)) {
      if (auto legal = legal_order(p, plan, g)) {
        g.pending_order = g.loop_vars;
        g.loop_vars = *legal;
        continue;
      }
      throw *broken;
    }
    if (g.reorder < 0 || first_violation(p, plan, g, g.defined_order)) throw *broken;
    const size_t reorder = static_cast<size_t>(g.reorder);
    std::vector<std::string> outer_first(g.loop_vars.rbegin(), g.loop_vars.rend());
    Diagnostic d(p.directives[reorder].loc,
                 "reorder of '" + g.rep + "' gives the loop order (" + join(outer_first, ", ") +
                     "), which breaks a dependence, and no later space_time_transform of '" +
                     g.rep + "' gives an order that respects it",
                 "reorder-dependence");
    d.add_note(broken->loc(), broken->message());
    throw d;
  }
}

}  // namespace t2s::merge_internal
