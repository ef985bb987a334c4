// Halide's split (also the factor forms of vectorize and unroll, which the front end records as
// a split and the directive on the inner loop), unroll, vectorize marks and compute_root, for
// t2s-merge; and the order in which the two ends of a channel visit its values.
//
// A group's loops over its Func's arguments stay in Group::loop_vars (each split loop collapsed
// back into the loop it splits), so bounds (set_bounds, realize, inference) and the URE rules
// keep working over the arguments; LoopNest::loops is the nest the kernel runs. A split keeps
// the iteration domain (the factor divides the extent), so only the order changes: the
// dependences are checked again in the order the loops finally run (check_split_order).
#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <set>

#include "libs/ir/expr_printer.h"
#include "libs/ir/program_facts.h"
#include "libs/ir/strings.h"
#include "libs/ir/visitor.h"
#include "libs/passes/merge/plan.h"
#include "libs/poly/poly.h"

namespace t2s::merge_internal {

namespace {

// The loops the kernel of `g` runs, innermost first.
const std::vector<std::string>& real_loops(const Plan& plan, const Group& g) {
  auto it = plan.nests.find(g.rep);
  return it == plan.nests.end() || it->second.splits.empty() ? g.loop_vars : it->second.loops;
}

// Whether loop `name` of `n` was made by a split (rather than being a Func argument's loop).
bool made_by_split(const LoopNest& n, const std::string& name) {
  for (const Split& s : n.splits)
    if (s.outer == name || s.inner == name) return true;
  return false;
}

// The loops over the Func's arguments: every split undone, latest first, the split variable
// taking the outer loop's place (or the inner one's when the outer loop has one iteration, so
// that it does not order anything).
std::vector<std::string> collapse(const LoopNest& n) {
  std::vector<std::string> loops = n.loops;
  for (auto s = n.splits.rbegin(); s != n.splits.rend(); ++s) {
    auto outer = std::find(loops.begin(), loops.end(), s->outer);
    auto inner = std::find(loops.begin(), loops.end(), s->inner);
    if (outer == loops.end() || inner == loops.end())
      throw InternalError("merge: split loops of '" + s->var + "' are missing");
    auto b = n.bounds.find(s->outer);
    bool trivial_outer = b != n.bounds.end() && b->second.extent == 1;
    *(trivial_outer ? inner : outer) = s->var;
    loops.erase(trivial_outer ? outer : inner);
  }
  return loops;
}

std::string loops_text(const std::vector<std::string>& innermost_first) {
  return join(innermost_first, ", ") + " (innermost first)";
}

LoopNest& nest_of(Plan& plan, const Group& g) {
  LoopNest& n = plan.nests[g.rep];
  if (n.splits.empty()) n.loops = g.loop_vars;
  return n;
}

void apply_split(Plan& plan, Group& g, const Directive& d) {
  const std::string v = d.args[0].text, vo = d.args[1].text, vi = d.args[2].text;
  const std::optional<int64_t> factor_value = d.args[3].integer();
  if (!factor_value)
    throw Diagnostic(d.loc,
                     "split: the factor must be an integer constant, not '" + d.args[3].text + "'",
                     "directive-args");
  const int64_t factor = *factor_value;
  for (const std::string& name : {vo, vi}) {
    bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
    for (char c : name) identifier &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (!identifier)
      throw Diagnostic(d.loc, "split: a loop needs a name, not '" + name + "'", "directive-args");
  }
  LoopNest& n = nest_of(plan, g);
  if (!contains(n.loops, v)) {
    std::string why =
        "'" + v + "' is not a loop of '" + g.rep + "' (its loops: " + loops_text(n.loops) + ")";
    for (const Split& s : n.splits)
      if (s.var == v && s.outer != v && s.inner != v)
        why += "; an earlier split replaced it by '" + s.outer + "' and '" + s.inner + "'";
    throw Diagnostic(d.loc, "split: " + why, "split-var");
  }
  for (const std::string& name : {vo, vi}) {
    if (name == v) continue;
    bool taken = contains(n.loops, name) || contains(g.loop_vars, name);
    for (const Split& s : n.splits) taken |= s.var == name || s.outer == name || s.inner == name;
    if (taken)
      throw Diagnostic(d.loc,
                       "split: '" + name + "' is already a loop of '" + g.rep +
                           "' (or one of its arguments); the split loops need new names",
                       "split-var");
  }
  if (factor <= 0)
    throw Diagnostic(d.loc,
                     "split of '" + v + "': the factor must be a positive integer, not " +
                         std::to_string(factor),
                     "split-factor");
  auto at = std::find(n.loops.begin(), n.loops.end(), v);
  at = n.loops.erase(at);
  n.loops.insert(at, {vi, vo});  // innermost first
  // Unrolling the whole loop unrolls both of its parts.
  if (auto u = n.unrolled.find(v); u != n.unrolled.end()) {
    const SourceLoc at = u->second;
    n.unrolled.erase(u);
    n.unrolled.emplace(vo, at);
    n.unrolled.emplace(vi, at);
  }
  n.splits.push_back({v, vo, vi, factor, d.loc});
  g.loop_vars = collapse(n);
}

void apply_reorder(LoopNest& n, Group& g, const Directive& d) {
  std::vector<std::string> order;
  for (const DirectiveArg& a : d.args) {
    if (!contains(n.loops, a.text)) {
      std::string why = "'" + a.text + "' is not a loop of '" + g.rep +
                        "' (its loops: " + loops_text(n.loops) + ")";
      for (const Split& s : n.splits)
        if (s.var == a.text && !contains(n.loops, s.var))
          why += "; a split replaced it by '" + s.outer + "' and '" + s.inner + "'";
      throw Diagnostic(d.loc, why, "reorder-var");
    }
    if (contains(order, a.text))
      throw Diagnostic(d.loc, "'" + a.text + "' appears twice in reorder", "reorder-var");
    order.push_back(a.text);
  }
  // Halide's reorder: the named loops take the positions they occupied, in the given order.
  size_t next = 0;
  for (std::string& l : n.loops)
    if (contains(order, l)) l = order[next++];
  g.loop_vars = collapse(n);
}

// The value of each split variable over the loops that finally run (`dim(loop)`): var ->
// min + outer * factor + inner, through every later split of outer and inner.
template <typename T, typename Dim, typename Combine>
std::map<std::string, T> split_values(const LoopNest& n, const Group& g, Dim dim, Combine combine) {
  std::map<std::string, T> value;
  for (const std::string& l : n.loops) value.emplace(l, dim(l));
  for (size_t i = n.splits.size(); i-- > 0;) {
    const Split& s = n.splits[i];
    // A variable made by an earlier split starts at 0; an argument's loop at its min.
    bool made = false;
    for (size_t e = 0; e < i; ++e) made |= n.splits[e].outer == s.var || n.splits[e].inner == s.var;
    const int64_t min = made ? 0 : g.bounds.at(s.var).min;
    T v = combine(value.at(s.outer), s.factor, value.at(s.inner), min);
    value.erase(s.outer);
    value.erase(s.inner);
    value[s.var] = v;
  }
  return value;
}

std::string point_text(const std::vector<std::string>& outer_first,
                       const std::vector<int64_t>& values, size_t offset) {
  std::string s = "(";
  for (size_t i = 0; i < outer_first.size(); ++i)
    s += (i ? ", " : "") + outer_first[i] + " = " + std::to_string(values[offset + i]);
  return s + ")";
}

}  // namespace

bool apply_loop_directive(Plan& plan, Group& g, const Directive& d) {
  // The front end records these forms; IR written by hand may not follow them.
  if ((d.is(DirectiveKind::kSplit) && d.args.size() != 4) ||
      (d.is(DirectiveKind::kUnroll) && d.args.size() != 1))
    throw Diagnostic(d.loc,
                     d.name + ": expected " +
                         (d.is(DirectiveKind::kSplit) ? "(v, vo, vi, factor)" : "(v)") +
                         " in the IR's normal form (docs/ir.md)",
                     "directive-args");
  if (d.is(DirectiveKind::kSplit)) {
    apply_split(plan, g, d);
    return true;
  }
  if (d.is(DirectiveKind::kUnroll)) {
    // Checked in nest_loops: an isolated Func gets its loops later, when it copies them.
    // The later of two kind directives wins (as T2SP): unroll after vectorize unrolls.
    if (auto v = plan.vectorized.find(g.rep); v != plan.vectorized.end())
      v->second.erase(d.args.at(0).text);
    nest_of(plan, g).unrolled[d.args.at(0).text] = d.loc;
    return true;
  }
  auto it = plan.nests.find(g.rep);
  if (it == plan.nests.end() || it->second.splits.empty()) return false;
  LoopNest& n = it->second;
  if (d.is(DirectiveKind::kReorder)) {
    apply_reorder(n, g, d);
    return true;
  }
  if (d.is(DirectiveKind::kSetBounds)) {
    // set_bounds names the Func's arguments; the loops a split makes get their bounds from it.
    for (size_t i = 0; i < d.args.size(); i += 3) {
      const std::string& v = d.args[i].text;
      if (made_by_split(n, v) && !contains(g.loop_vars, v))
        throw Diagnostic(d.loc,
                         "set_bounds of '" + v +
                             "', a loop made by split: bound the loop it splits instead (a "
                             "split loop's bounds follow from it and the factor)",
                         "set-bounds-var");
    }
  }
  return false;
}

namespace {

// The first read of a URE of `g` that runs before the value is computed when the nest's loops
// run in `loops` (innermost first), as a diagnostic with an example.
std::optional<Diagnostic> split_order_violation(const Program& p, const Group& g, const LoopNest& n,
                                                const std::vector<std::string>& loops) {
  {
    std::vector<std::string> outer_first(loops.rbegin(), loops.rend());
    // Two iterations: the reader's loops x0, x1, ... (outermost first) and the writer's y0, ...,
    // and for each the values of the Func's arguments (a_x..., a_y...).
    poly::Set pairs;
    poly::VarDims reader_args, writer_args;
    for (const char* side : {"x", "y"}) {
      std::map<std::string, std::string> dim;
      for (size_t i = 0; i < outer_first.size(); ++i) {
        const std::string d = side + std::to_string(i);
        dim[outer_first[i]] = d;
        pairs.add_dim(d);
        const std::string& l = outer_first[i];
        const LoopBound& b = made_by_split(n, l) ? n.bounds.at(l) : g.bounds.at(l);
        pairs.where(poly::Cond::range(b.min, poly::Aff::dim(d), b.min + b.extent));
      }
      auto values = split_values<poly::Aff>(
          n, g, [&](const std::string& l) { return poly::Aff::dim(dim.at(l)); },
          [](const poly::Aff& outer, int64_t factor, const poly::Aff& inner, int64_t min) {
            return outer * factor + inner + poly::Aff(min);
          });
      poly::VarDims& args = std::string(side) == "x" ? reader_args : writer_args;
      for (const std::string& a : g.loop_vars) {
        const std::string d = std::string("a") + side + std::to_string(args.size());
        args[a] = d;
        pairs.add_dim(d);
        pairs.where(poly::Aff::dim(d) == values.at(a));
      }
    }
    // y runs before x in the final order (outermost loop first).
    std::optional<poly::Cond> y_first;
    poly::Cond same = poly::Cond::always(true);
    for (size_t i = outer_first.size(); i-- > 0;) {
      const poly::Aff x = poly::Aff::dim("x" + std::to_string(i));
      const poly::Aff y = poly::Aff::dim("y" + std::to_string(i));
      y_first = y_first ? y < x || (y == x && *y_first) : y < x;
      same = same && y == x;
    }
    // Every read of a URE of the group, under the select conditions that guard it.
    std::optional<Diagnostic> found;
    for (size_t r = 0; r < g.members.size() && !found; ++r) {
      const Func& reader = *p.find_func(g.members[r]);
      std::vector<poly::Cond> guards;
      std::function<void(const Expr&)> walk = [&](const Expr& e) {
        if (e->kind == ExprKind::kSelect) {
          walk(e->operands[0]);
          auto c = poly::Cond::from_expr(e->operands[0], reader_args);
          for (size_t b = 1; b < e->operands.size(); ++b) {
            if (c) guards.push_back(b == 1 ? *c : !*c);
            walk(e->operands[b]);
            if (c) guards.pop_back();
          }
          return;
        }
        for (const Expr& o : e->operands) walk(o);
        if (e->kind != ExprKind::kCall || e->call_kind != CallKind::kFunc) return;
        auto w = std::find(g.members.begin(), g.members.end(), e->name);
        if (w == g.members.end()) return;
        const Func& writer = *p.find_func(e->name);
        poly::Set bad = pairs;
        for (const poly::Cond& c : guards) bad.where(c);
        for (size_t a = 0; a < e->operands.size() && a < writer.args.size(); ++a) {
          auto index = poly::Aff::from_expr(e->operands[a], reader_args);
          if (!index) return;  // not a URE read: check_distances refuses it
          bad.where(poly::Aff::dim(writer_args.at(writer.args[a])) == *index);
        }
        const bool writer_first = static_cast<size_t>(w - g.members.begin()) < r;
        bad.where(!(*y_first || (same && poly::Cond::always(writer_first))));
        auto witness = poly::sample(bad);
        if (!witness || found) return;
        found = Diagnostic(
            e->loc.valid() ? e->loc : reader.loc,
            "'" + reader.name + "' reads '" + print_expr(e) +
                "' before it is computed in the order the loops run after split (" +
                join(outer_first, ", ") + ", outermost first): the iteration " +
                point_text(outer_first, *witness, 0) + " reads the value of " +
                point_text(outer_first, *witness, outer_first.size() + g.loop_vars.size()) +
                ", which is computed later",
            "ure-distance");
      };
      if (reader.definition) walk(reader.definition);
    }
    return found;
  }
}

// The loops of `n` with every split applied to the Func's arguments and no reorder: a split
// loop at the place of the loop it splits, inner innermost.
std::vector<std::string> unreordered_loops(const LoopNest& n, const Func& rep) {
  std::vector<std::string> loops = rep.args;
  for (const Split& s : n.splits) {
    auto at = std::find(loops.begin(), loops.end(), s.var);
    if (at == loops.end()) return n.loops;
    *at = s.outer;
    loops.insert(at, s.inner);
  }
  return loops;
}

}  // namespace

void check_split_order(const Program& p, Plan& plan, const GroupFilter& which) {
  for (auto& [rep, n] : plan.nests) {
    if (n.splits.empty()) continue;
    Group& g = plan.groups[plan.group_of.at(rep)];
    if (!which(g)) continue;
    bool known = true;  // else merge-bounds is reported later
    for (const std::string& l : n.loops)
      known &= (made_by_split(n, l) ? n.bounds : g.bounds).count(l) > 0;
    if (!known) continue;
    std::optional<Diagnostic> broken = split_order_violation(p, g, n, n.loops);
    if (!broken) continue;
    // As check_distances does for other nests: before a space_time_transform the nest runs in
    // an order that respects every dependence, here the splits without the reorders (each
    // candidate costs isl questions, so no search over permutations), and t2s-stt gets the
    // directives' order (Kernel::pending_order).
    if (!transformed_after(p, rep, g.reorder)) throw *broken;
    std::vector<std::string> legal = unreordered_loops(n, *p.find_func(rep));
    const bool found = legal.size() == n.loops.size() && !split_order_violation(p, g, n, legal);
    if (!found) throw *broken;
    g.pending_order = n.loops;
    n.loops = legal;
  }
}

void finish_splits(Plan& plan, const GroupFilter& which) {
  for (auto& [rep, n] : plan.nests) {
    if (n.splits.empty()) continue;
    Group& g = plan.groups[plan.group_of.at(rep)];
    if (!which(g)) continue;
    n.bounds.clear();
    bool known = true;
    for (const Split& s : n.splits) {
      auto made = n.bounds.find(s.var);
      const LoopBound* b = nullptr;
      if (made != n.bounds.end()) {
        b = &made->second;
      } else if (g.bounds.count(s.var)) {
        b = &g.bounds.at(s.var);
      } else {
        known = false;  // merge-bounds reports it
        break;
      }
      if (b->extent % s.factor != 0)
        throw Diagnostic(s.loc,
                         "split of '" + s.var + "' by " + std::to_string(s.factor) +
                             ": the factor does not divide the loop's extent " +
                             std::to_string(b->extent) +
                             " (splits have no tail; use a factor that divides " +
                             std::to_string(b->extent) + ")",
                         "split-factor");
      const int64_t outer_extent = b->extent / s.factor;
      n.bounds[s.inner] = {0, s.factor};
      n.bounds[s.outer] = {0, outer_extent};
    }
    if (known) g.loop_vars = collapse(n);
  }
}

std::set<std::string> compute_root_funcs(const Program& p, const Plan& plan) {
  std::set<std::string> targets;  // Funcs an isolation directive defines
  for (const Directive& d : p.directives)
    for (const std::string& f : d.defined_funcs()) targets.insert(f);
  std::set<std::string> out;
  for (const Directive& d : p.directives) {
    if (!d.is(DirectiveKind::kComputeRoot)) continue;
    auto it = plan.group_of.find(d.func);
    if (it != plan.group_of.end() && plan.groups[it->second].rep != d.func)
      throw Diagnostic(d.loc,
                       "compute_root on '" + d.func + "', which is merged into '" +
                           plan.groups[it->second].rep + "': call it on the representative '" +
                           plan.groups[it->second].rep + "'",
                       "merge-directive-on-member");
    const Func* f = p.find_func(d.func);
    if (f && !f->definition && !targets.count(d.func))
      throw Diagnostic(d.loc, "compute_root on '" + d.func + "', which is never defined",
                       "undefined-func");
    out.insert(d.func);
  }
  return out;
}

void copy_nest(Plan& plan, const Group& to, const Group& from,
               const std::vector<std::string>& vars) {
  auto it = plan.nests.find(from.rep);
  if (it == plan.nests.end() || it->second.splits.empty()) return;
  const LoopNest from_nest = it->second;  // a copy: plan.nests may grow below
  // The argument each split loop comes from.
  std::map<std::string, std::string> root;
  for (const Split& s : from_nest.splits) {
    const std::string r = root.count(s.var) ? root.at(s.var) : s.var;
    root[s.outer] = r;
    root[s.inner] = r;
  }
  auto keep = [&](const std::string& loop) {
    return contains(vars, root.count(loop) ? root.at(loop) : loop);
  };
  LoopNest& n = plan.nests[to.rep];
  n.splits.clear();
  n.loops.clear();
  n.bounds.clear();
  for (const Split& s : from_nest.splits)
    if (keep(s.var)) n.splits.push_back(s);
  for (const std::string& l : from_nest.loops)
    if (keep(l)) n.loops.push_back(l);
  for (const auto& [l, b] : from_nest.bounds)
    if (keep(l)) n.bounds[l] = b;
}

StmtList nest_loops(const Plan& plan, const Group& g, const StmtList& inner) {
  const LoopNest& n = plan.nests.at(g.rep);
  StmtList body = inner;
  if (!n.splits.empty()) {
    auto with = split_values<Expr>(
        n, g, [](const std::string& l) { return make_var(l); },
        [](const Expr& outer, int64_t factor, const Expr& inner_var, int64_t min) {
          const Type i32 = Type::Int(32);
          // outer * factor + inner, with a sum inner added term by term (a + b + c rather than
          // a + (b + c); integers wrap, so the order of additions does not change the value).
          std::function<Expr(const Expr&, const Expr&)> add = [&](const Expr& a, const Expr& b) {
            if (b->kind == ExprKind::kBinary && b->binary_op == BinaryOp::kAdd)
              return make_binary(BinaryOp::kAdd, add(a, b->operands[0]), b->operands[1], i32);
            return make_binary(BinaryOp::kAdd, a, b, i32);
          };
          Expr e = add(make_binary(BinaryOp::kMul, outer, make_int(i32, factor), i32), inner_var);
          if (min == 0) return e;
          return make_binary(min > 0 ? BinaryOp::kAdd : BinaryOp::kSub, e,
                             make_int(i32, min > 0 ? min : -min), i32);
        });
    for (auto it = with.begin(); it != with.end();) {  // loops that no split changes
      if (it->second->kind == ExprKind::kVar && it->second->name == it->first)
        it = with.erase(it);
      else
        ++it;
    }
    VarSubstituter substitute(with);
    body = substitute.mutate_stmts(body);
  }
  const std::vector<std::string>& loops = real_loops(plan, g);
  for (const auto& [v, at] : n.unrolled)
    if (!contains(loops, v))
      throw Diagnostic(at,
                       "unroll: '" + v + "' is not a loop of '" + g.rep +
                           "' (its loops: " + loops_text(loops) + ")",
                       "unroll-var");
  for (const std::string& v : loops) {
    const LoopBound& b = made_by_split(n, v) ? n.bounds.at(v) : g.bounds.at(v);
    body = {make_for(v, make_int(Type::Int(32), b.min), make_int(Type::Int(32), b.extent),
                     n.unrolled.count(v) ? LoopKind::kUnrolled : LoopKind::kSerial, body)};
  }
  return body;
}

// Vectorize: the loops of the nest `body` named by the vectorize directives of `rep` run as
// vectorized loops (still in order in this stage; t2s-stt makes them the lanes of each PE
// and t2s-vec turns them into vector operations).
void mark_vectorized(const std::string& rep, const std::map<std::string, SourceLoc>& vars,
                     StmtList* body) {
  // The loops of the perfect nest that `body` is (loop_nest looks through realizes: a kernel's
  // come around its nest only after this, and a nest under one has no loops here).
  const t2s::LoopNest perfect = t2s::loop_nest(*body);
  const std::vector<const For*> nest =
      perfect.realizes.empty() ? perfect.loops : std::vector<const For*>{};
  std::vector<std::string> loops;  // innermost first
  for (const For* f : nest) loops.insert(loops.begin(), f->var);
  std::set<size_t> marked;  // depths in the nest
  for (const auto& [v, at] : vars) {
    if (std::find(loops.begin(), loops.end(), v) == loops.end())
      throw Diagnostic(at,
                       "vectorize: '" + v + "' is not a loop of '" + rep +
                           "' (its loops: " + loops_text(loops) + ")",
                       "vectorize-var");
    size_t d = 0;  // the outermost loop named v
    while (nest[d]->var != v) ++d;
    if (nest[d]->loop_kind == LoopKind::kUnrolled)
      throw Diagnostic(at, "vectorize: loop '" + v + "' of '" + rep + "' is also unrolled",
                       "vectorize-var");
    marked.insert(d);
  }
  if (marked.empty()) return;
  // The nest rebuilt from its innermost marked loop out, each loop around the one inside it.
  StmtPtr inner;
  for (size_t d = *marked.rbegin() + 1; d-- > 0;) {
    const StmtPtr& s = d == 0 ? (*body)[0] : nest[d - 1]->body[0];  // the statement of nest[d]
    For copy = *nest[d];
    if (marked.count(d)) copy.loop_kind = LoopKind::kVectorized;
    if (inner) copy.body = {inner};
    inner = with_node(*s, std::move(copy));
  }
  (*body)[0] = inner;
}

std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>> channel_order_swap(
    const Plan& plan, const Group& from, const Group& to, const std::vector<std::string>& args,
    const Expr& sent) {
  // Two nests without splits whose loops over the arguments come in the same order visit the
  // values in the same (lexicographic) order: nothing to ask isl (a consumer that copies its
  // producer's loops and keeps their order).
  auto arg_order = [&](const Group& g) -> std::optional<std::vector<std::string>> {
    auto nest = plan.nests.find(g.rep);
    if (nest != plan.nests.end() && !nest->second.splits.empty()) return std::nullopt;
    std::vector<std::string> order;
    for (const std::string& l : g.loop_vars)
      if (contains(args, l)) order.push_back(l);
    if (order.size() != args.size()) return std::nullopt;
    return order;
  };
  // Loops of the producer that are not arguments but that the condition it sends under
  // mentions (`j == k` of T2SP's LU: the value of j is sent at k's place in the order).
  std::set<std::string> pinned;
  if (sent && called_funcs(sent).empty())  // a condition isl can read
    for (const std::string& v : used_vars(sent))
      if (!contains(args, v) && contains(from.loop_vars, v)) pinned.insert(v);
  if (auto f = arg_order(from), t = arg_order(to); f && t && *f == *t && pinned.empty())
    return std::nullopt;
  poly::Set pairs;
  // The values of the arguments of the two points, x and y.
  std::map<std::string, poly::VarDims> point;
  for (const char* side : {"x", "y"})
    for (size_t a = 0; a < args.size(); ++a) {
      const std::string d = std::string("a") + side + std::to_string(a);
      point[side][args[a]] = d;
      pairs.add_dim(d);
      auto b = from.bounds.find(args[a]);
      if (b == from.bounds.end()) return std::nullopt;
      pairs.where(
          poly::Cond::range(b->second.min, poly::Aff::dim(d), b->second.min + b->second.extent));
    }
  if (sent)
    for (const char* side : {"x", "y"}) {
      auto c = poly::Cond::from_expr(sent, point[side]);
      if (c) pairs.where(*c);  // else every value is taken as sent (a stricter question)
    }
  // `first(x, y)`: the group runs x's iteration before y's, over its loops that come from the
  // arguments (the others visit a value once, e.g. under `k == K - 1`).
  auto runs_first = [&](const Group& g, const std::string& tag,
                        bool producer) -> std::optional<poly::Cond> {
    auto nest = plan.nests.find(g.rep);
    const bool split = nest != plan.nests.end() && !nest->second.splits.empty();
    const std::vector<std::string>& loops = split ? nest->second.loops : g.loop_vars;
    std::map<std::string, std::string> root;  // split loop -> the argument it comes from
    if (split)
      for (const Split& s : nest->second.splits)
        root[s.outer] = root[s.inner] = root.count(s.var) ? root.at(s.var) : s.var;
    std::map<std::string, std::vector<poly::Aff>> order;  // side -> kept loops, outermost first
    for (const char* side : {"x", "y"}) {
      std::map<std::string, std::string> dim;
      for (size_t i = loops.size(); i-- > 0;) {
        const std::string& l = loops[i];
        const std::string d = tag + side + std::to_string(i);
        dim[l] = d;
        pairs.add_dim(d);
        const auto& bounds =
            split && made_by_split(nest->second, l) ? nest->second.bounds : g.bounds;
        auto b = bounds.find(l);
        if (b == bounds.end()) return std::nullopt;
        pairs.where(
            poly::Cond::range(b->second.min, poly::Aff::dim(d), b->second.min + b->second.extent));
        if (contains(args, root.count(l) ? root.at(l) : l) || (producer && pinned.count(l)))
          order[side].push_back(poly::Aff::dim(d));
      }
      std::map<std::string, poly::Aff> value;
      if (split)
        value = split_values<poly::Aff>(
            nest->second, g, [&](const std::string& l) { return poly::Aff::dim(dim.at(l)); },
            [](const poly::Aff& outer, int64_t factor, const poly::Aff& inner, int64_t min) {
              return outer * factor + inner + poly::Aff(min);
            });
      else
        for (const std::string& l : loops) value.emplace(l, poly::Aff::dim(dim.at(l)));
      for (const std::string& a : args) {
        auto v = value.find(a);
        if (v == value.end()) return std::nullopt;
        pairs.where(poly::Aff::dim(point[side].at(a)) == v->second);
      }
      if (producer && !pinned.empty()) {  // the iteration that sends the value
        poly::VarDims at;
        for (const auto& [l, d] : dim) at[l] = d;
        if (auto c = poly::Cond::from_expr(sent, at)) pairs.where(*c);
      }
    }
    std::optional<poly::Cond> first;
    for (size_t i = order["x"].size(); i-- > 0;) {
      const poly::Aff &x = order["x"][i], &y = order["y"][i];
      first = first ? x < y || (x == y && *first) : x < y;
    }
    return first;
  };
  auto sends_first = runs_first(from, "p", true);
  auto reads_first = runs_first(to, "c", false);
  if (!sends_first || !reads_first) return std::nullopt;
  // The producer sends x before y (so x != y) and the consumer does not read x first: it reads
  // y first.
  pairs.where(*sends_first && !*reads_first);
  auto witness = poly::sample(pairs);
  if (!witness) return std::nullopt;
  std::vector<int64_t> x(witness->begin(), witness->begin() + args.size());
  std::vector<int64_t> y(witness->begin() + args.size(), witness->begin() + 2 * args.size());
  return std::make_pair(x, y);
}

}  // namespace t2s::merge_internal
