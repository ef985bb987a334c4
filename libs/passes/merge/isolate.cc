// Isolation: the Funcs isolate_consumer(_chain) and isolate_producer_chain define, their loop
// nests (copied from the Func they are isolated from), and the edges values travel along.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "libs/ir/ir_json.h"
#include "libs/ir/strings.h"
#include "libs/ir/visitor.h"
#include "libs/passes/merge/rewrite.h"
#include "libs/passes/merge/steps.h"

namespace t2s::merge_internal {

namespace {

// The loops of `from` over `vars`, in its order, for isolated Func `g` (with the bounds of
// `from`). An isolated consumer copies its producer's split loops too (it inherits the
// producer's schedule); an isolated producer copies the loops as declared and bounded
// (`with_splits` false): its own directives act on its own copy, whatever its consumer splits
// (T2S: each Func's schedule is its own; channel lanes are matched by t2s-vec, orders checked by
// check_channel_order).
void copy_loops(Plan& plan, Group& g, const Group& from, const std::vector<std::string>& vars,
                bool with_splits = true) {
  g.loop_vars.clear();
  for (const std::string& v : from.loop_vars)
    if (std::find(vars.begin(), vars.end(), v) != vars.end()) g.loop_vars.push_back(v);
  g.bounds = from.bounds;
  if (with_splits) copy_nest(plan, g, from, vars);
}

// A Func that carries value `v` of a list isolation `d` in producer `p`'s kernel, named by
// `names`. It exists in the merged kernels only (the IR's funcs stay as the spec wrote them),
// so its values must leave over channels, never through a buffer.
std::string value_producer(const std::string& p, size_t v, const Directive& d, NameSupply& names,
                           Program& merged, Plan& plan) {
  for (const std::string& end : {p, group(plan, d.func).rep})
    if (!on_device(merged, plan, end))
      throw Diagnostic(d.loc,
                       "isolate_producer_chain of a list " +
                           (end == p ? "into '" + p + "'" : "read by '" + end + "'") +
                           ", which is on the host: the values of a list after the first travel "
                           "over channels of their own, so the producers and the reader must "
                           "be on Place::Device",
                       "isolate-producer-list");
  const SourceLoc& loc = d.loc;
  const std::string name = names.fresh(p + "_" + std::to_string(v));
  Func f;
  f.name = name;
  f.place = Place::kDevice;
  f.loc = loc;
  merged.funcs.push_back(f);
  const size_t index = plan.group_of.at(p);
  plan.groups[index].members.push_back(name);
  plan.group_of[name] = index;
  return name;
}

// Isolates `value` of directive `d` into `producers`: they compute it (each the one before it)
// with the loops of d.func's group, and the reader of its one occurrence reads the last one.
void isolate_value(const MergeContext& ctx, const DeferredDirectives& deferred, const Directive& d,
                   const DirectiveArg& value, const std::vector<std::string>& producers,
                   Program& merged, Plan& plan, ProducerChains& chains) {
  if (value.kind != DirectiveArg::kExpr || !value.value)
    throw Diagnostic(d.loc, "the value to isolate must be an expression", "directive-args");
  Expr x = resolve_in_program(value.value, merged);
  // Occurrences: a bare name stands for every call of that Func or input.
  bool by_name = x->kind == ExprKind::kVar;
  std::vector<Expr> conditions;  // select conditions on the path to the occurrence
  int count = 0;
  Expr found;
  std::string found_in;                // the URE whose definition holds the occurrence
  std::vector<std::string> occurs_in;  // every URE with an occurrence, in merge order
  std::string current;
  std::function<void(const Expr&, std::vector<Expr>&)> find = [&](const Expr& e,
                                                                  std::vector<Expr>& path) {
    bool match = by_name ? (e->kind == ExprKind::kCall && e->name == x->name) : equal(e, x);
    if (match) {
      if (++count == 1) {
        conditions = path;
        found = e;
        found_in = current;
      }
      if (std::find(occurs_in.begin(), occurs_in.end(), current) == occurs_in.end())
        occurs_in.push_back(current);
      return;
    }
    if (e->kind == ExprKind::kSelect) {
      find(e->operands[0], path);
      path.push_back(e->operands[0]);
      find(e->operands[1], path);
      path.pop_back();
      if (e->operands.size() == 3) {
        path.push_back(make_unary(UnaryOp::kNot, e->operands[0], e->operands[0]->type));
        find(e->operands[2], path);
        path.pop_back();
      }
      return;
    }
    for (const Expr& o : e->operands) find(o, path);
  };
  const Group& rg = group(plan, d.func);
  for (const std::string& m : rg.members) {
    if (!func(merged, m).definition) continue;
    current = m;
    std::vector<Expr> path;
    find(func(merged, m).definition, path);
  }
  if (count != 1) {
    std::string where = rg.members.size() > 1
                            ? "the merge group of '" + rg.rep + "' (" + join(rg.members, ", ") + ")"
                            : "the definition of '" + d.func + "'";
    if (!occurs_in.empty() && rg.members.size() > 1) where += ", in " + join(occurs_in, ", ");
    throw Diagnostic(d.loc,
                     "'" + value.text + "' occurs " + std::to_string(count) + " times in " + where +
                         "; isolate_producer_chain needs exactly one occurrence",
                     "isolate-producer-occurrence");
  }
  Func& reader = func(merged, found_in);
  // The producer follows the conditions on loop variables. A condition that reads Func values
  // (`select(F(n), w(n) - 4, ...)` with F a merged URE) is the reader's to decide: the
  // producer sends the value wherever the loop conditions hold, and the reader takes it from
  // the channel there, before its select (a let), so both ends agree on every value whatever
  // F computes (T2SP accepts such a producer).
  // A chain built one link at a time (`A.isolate_producer_chain(a, feed);
  // feed.isolate_producer_chain(a, load);`) isolates from a producer whose definition is the
  // bare value: when it sends lives in its producer condition, which the new links keep, so
  // every link sends exactly the values the next one reads.
  Expr condition;
  if (auto it = chains.condition.find(found_in); it != chains.condition.end())
    condition = it->second;
  bool func_condition = false;
  for (const Expr& c : conditions) {
    if (!called_funcs(c).empty()) {
      func_condition = true;
      continue;
    }
    condition = condition ? make_binary(BinaryOp::kAnd, condition, c, Type::Bool()) : c;
  }
  const Func& rep = func(merged, rg.rep);
  // Without the reader's Func condition the producer may reach input indices the program
  // never read (`select(F(n), w(n - 1), 7)` with F(0) false reads w(-1)): inputs start at 0
  // (their extents are inferred as the largest index read plus one), so each index that is
  // not a plain loop variable or a constant is guarded, and the producer sends 0 below it.
  Expr sent = found;
  if (func_condition) {
    Expr guard;
    for_each_expr(found, [&](const Expr& e) {
      if (e->kind != ExprKind::kCall || e->call_kind != CallKind::kImage) return;
      for (const Expr& index : e->operands) {
        if (index->kind == ExprKind::kVar || index->kind == ExprKind::kIntImm) continue;
        Expr ge = make_binary(BinaryOp::kGE, index, make_int(index->type, 0), Type::Bool());
        guard = guard ? make_binary(BinaryOp::kAnd, guard, ge, Type::Bool()) : ge;
      }
    });
    if (guard) sent = make_select(guard, found, zero_of(found->type), found->type, found->loc);
  }
  std::string prev;
  for (const std::string& producer : producers) {
    Func& p = func(merged, producer);
    if (p.definition)
      throw Diagnostic(d.loc,
                       "'" + p.name +
                           "' is already defined; isolate_producer_chain "
                           "defines it",
                       "isolate-defined");
    p.type = found->type;
    p.args = rep.args;
    p.definition =
        prev.empty() ? sent : make_call(prev, CallKind::kFunc, found->type, var_exprs(rep.args));
    p.loc = d.loc;
    Group& g = group(plan, p.name);
    g.loc = d.loc;
    copy_loops(plan, g, rg, rep.args, /*with_splits=*/false);
    if (p.place == Place::kDevice) inherit_array_schedule(ctx.parsed, plan, g, rg, d.loc);
    apply_deferred(ctx, deferred, plan, g);
    if (!prev.empty()) plan.isolations.push_back({prev, p.name, d.loc});
    prev = p.name;
  }
  // The reader now reads the last producer.
  Expr last = make_call(prev, CallKind::kFunc, found->type, var_exprs(rep.args));
  NodeReplacer swap(found, last);
  reader.definition = swap.mutate(reader.definition);
  plan.isolations.push_back({prev, reader.name, d.loc});
  for (const std::string& producer : producers) chains.condition[producer] = condition;
  if (func_condition) chains.hoisted_reads[reader.name][prev] = condition;
}

// F.isolate_producer_chain(x, P1, ..., Pn): `x` must occur exactly once in the definitions
// of F's merge group (any of its UREs, not only F's own definition).
// `x` may be a list {x0, x1, ...}: each value is isolated in turn, the first into P1..Pn, the
// others into Funcs of their own merged into P1..Pn's kernels (named Pi_1, Pi_2, ...; each
// value keeps its own channels), so one producer kernel sends several values.
void isolate_producer_chain(const MergeContext& ctx, const DeferredDirectives& deferred,
                            const Directive& d, NameSupply& names, Program& merged, Plan& plan,
                            ProducerChains& chains) {
  if (!defined(merged, d.func)) {
    // A chain built in steps names each link after the directive that defines it.
    for (const Directive* later : ctx.producer_chains)
      for (size_t i = 1; later != &d && i < later->args.size(); ++i)
        if (arg_name(later->args[i]) == d.func)
          throw Diagnostic(d.loc,
                           "'" + d.func +
                               "' is not defined yet: a later isolate_producer_chain defines "
                               "it; isolate from it after that directive",
                           "isolate-undefined")
              .add_note(later->loc, "'" + d.func + "' is defined here");
    throw Diagnostic(d.loc, "'" + d.func + "' is not defined", "isolate-undefined");
  }
  std::vector<std::string> producers;
  for (size_t i = 1; i < d.args.size(); ++i) producers.push_back(arg_name(d.args[i]));
  if (d.args[0].kind != DirectiveArg::kList) {
    isolate_value(ctx, deferred, d, d.args[0], producers, merged, plan, chains);
    return;
  }
  for (size_t v = 0; v < d.args[0].items.size(); ++v) {
    std::vector<std::string> value_names = producers;
    if (v > 0) {
      for (std::string& name : value_names) name = value_producer(name, v, d, names, merged, plan);
    }
    isolate_value(ctx, deferred, d, d.args[0].items[v], value_names, merged, plan, chains);
  }
}

}  // namespace

void isolate_consumers(const MergeContext& ctx, const DeferredDirectives& deferred, Program& merged,
                       Plan& plan) {
  for (Isolation& iso : plan.isolations) {
    if (!defined(merged, iso.from))
      throw Diagnostic(iso.loc, "'" + iso.from + "' is not defined, so it has no consumer",
                       "isolate-undefined");
    Func& from = func(merged, iso.from);
    Func& to = func(merged, iso.to);
    to.type = from.type;
    to.args = from.args;
    to.definition = make_call(from.name, CallKind::kFunc, from.type, var_exprs(from.args));
    to.loc = iso.loc;
    Group& g = group(plan, iso.to);
    g.copies = iso.from;
    g.loc = iso.loc;
    copy_loops(plan, g, group(plan, iso.from), from.args);
    inherit_schedule(ctx.parsed, plan, g, group(plan, iso.from), iso.loc);
    apply_deferred(ctx, deferred, plan, g);
  }
}

ProducerChains isolate_producers(const MergeContext& ctx, const DeferredDirectives& deferred,
                                 NameSupply& names, Program& merged, Plan& plan) {
  ProducerChains chains;
  for (const Directive* d : ctx.producer_chains)
    isolate_producer_chain(ctx, deferred, *d, names, merged, plan, chains);
  return chains;
}

}  // namespace t2s::merge_internal
