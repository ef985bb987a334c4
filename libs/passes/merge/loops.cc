// The loops of the groups: the loop directives (set_bounds, reorder, and vectorize here;
// split and unroll in split.cc), the bounds realize gives, and the checks that every loop is
// bounded and no nest too large.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "libs/ir/strings.h"
#include "libs/passes/merge/steps.h"

namespace t2s::merge_internal {

namespace {

// Loop nests larger than this are refused rather than attempted (DESIGN.md section 5).
// 2^52, the most positions t2s-stt orders (time steps x PEs x statements): the passes' work does
// not grow with the iterations (t2s-run has --max-steps), so the limit is what the later stages
// can represent, not what a run could do.
constexpr int64_t kMaxIterations = int64_t{1} << 52;

// A set_bounds, reorder, split, unroll or vectorize directive `d` on the loops of group `g`.
void apply_loop(const MergeContext& ctx, Plan& plan, Group& g, const Directive& d) {
  if (d.is(DirectiveKind::kReorder)) {  // the last reorder, and the order before the first
    if (g.reorder < 0) g.defined_order = g.loop_vars;
    g.reorder = static_cast<int>(&d - ctx.parsed.directives.data());
  }
  if (d.is(DirectiveKind::kVectorize)) {
    if (d.args.size() != 1)
      throw Diagnostic(d.loc, "vectorize: expected (v) in the IR's normal form (docs/ir.md)",
                       "directive-args");
    // A loop given two kind directives takes the later one (as T2SP): vectorize after
    // unroll vectorizes.
    if (auto n = plan.nests.find(g.rep); n != plan.nests.end())
      n->second.unrolled.erase(arg_name(d.args[0]));
    plan.vectorized[g.rep][arg_name(d.args[0])] = d.loc;
    return;
  }
  if (apply_loop_directive(plan, g, d)) return;
  auto check_var = [&](const std::string& v) {
    if (std::find(g.loop_vars.begin(), g.loop_vars.end(), v) == g.loop_vars.end())
      throw Diagnostic(
          d.loc, "'" + v + "' is not a loop of '" + g.rep + "' (" + join(g.loop_vars, ", ") + ")",
          d.is(DirectiveKind::kReorder) ? "reorder-var" : "set-bounds-var");
  };
  if (d.is(DirectiveKind::kSetBounds)) {
    for (size_t i = 0; i + 2 < d.args.size(); i += 3) {
      const std::string& v = arg_name(d.args[i]);
      check_var(v);
      LoopBound b{arg_int(d.args[i + 1], d.loc), arg_int(d.args[i + 2], d.loc)};
      if (b.extent <= 0)
        throw Diagnostic(d.loc,
                         "extent of '" + v + "' must be positive, not " + std::to_string(b.extent),
                         "set-bounds-extent");
      auto copied = g.bounds.find(v);
      if (is_isolation_target(ctx, plan, g.rep) && copied != g.bounds.end() &&
          (copied->second.min != b.min || copied->second.extent != b.extent))
        throw Diagnostic(d.loc,
                         "set_bounds of '" + v + "' on '" + g.rep + "', an isolated Func, to [" +
                             std::to_string(b.min) + ", " + std::to_string(b.min + b.extent) +
                             "): it copies its loops from the nest it is isolated from, where '" +
                             v + "' runs over [" + std::to_string(copied->second.min) + ", " +
                             std::to_string(copied->second.min + copied->second.extent) + ")",
                         "set-bounds-var");
      g.bounds[v] = b;
    }
  } else {
    std::vector<std::string> order;
    for (const DirectiveArg& a : d.args) {
      check_var(arg_name(a));
      if (std::find(order.begin(), order.end(), arg_name(a)) != order.end())
        throw Diagnostic(d.loc, "'" + arg_name(a) + "' appears twice in reorder", "reorder-var");
      order.push_back(arg_name(a));
    }
    // Halide's reorder: the named loops take the positions they occupied, in the given
    // order (innermost first); other loops stay where they are.
    std::vector<size_t> slots;
    for (size_t i = 0; i < g.loop_vars.size(); ++i)
      if (std::find(order.begin(), order.end(), g.loop_vars[i]) != order.end()) slots.push_back(i);
    for (size_t i = 0; i < slots.size(); ++i) g.loop_vars[slots[i]] = order[i];
  }
}

void check_group_bounds(const Group& g) {
  for (const std::string& v : g.loop_vars)
    if (!g.bounds.count(v))
      throw Diagnostic(g.loc,
                       "no bounds for loop '" + v + "' of '" + g.rep + "': give " + g.rep +
                           ".set_bounds(" + v + ", min, extent)",
                       "merge-bounds");
}

}  // namespace

DeferredDirectives apply_loop_directives(const MergeContext& ctx, Plan& plan) {
  DeferredDirectives deferred;
  for (const Directive* d : ctx.loop_directives) {
    auto it = plan.group_of.find(d->func);
    if (it == plan.group_of.end())
      throw Diagnostic(
          d->loc,
          d->name + " on '" + d->func +
              "', which has no loop nest of its own (it is inlined into its "
              "users: it is not merged, recursive, realized, isolated, gathered or compute_root)",
          "directive-on-inlined");
    Group& g = plan.groups[it->second];
    if (g.rep != d->func)
      throw Diagnostic(d->loc,
                       d->name + " on '" + d->func + "', which is merged into '" + g.rep +
                           "': call it on the representative '" + g.rep + "'",
                       "merge-directive-on-member");
    // An isolated Func has no loops until isolation copies them (copy_loops, isolate.cc): its
    // loop directives wait until then (apply_deferred).
    if (is_isolation_target(ctx, plan, d->func))
      deferred[d->func].push_back(d);
    else
      apply_loop(ctx, plan, g, *d);
  }
  return deferred;
}

void bound_realized_loops(const MergeContext& ctx, const Program& merged, Plan& plan) {
  const Output& realized = ctx.parsed.output;
  // A realized isolated consumer copies the loops of the Func its chain starts from, so the
  // realize extents bound that Func's loops (over its arguments).
  // (The verifier refuses cycles of isolations; the walk stops after one step per isolation
  // all the same.)
  std::string source = realized.func;
  for (size_t steps = 0; steps < plan.isolations.size(); ++steps) {
    auto iso = std::find_if(plan.isolations.begin(), plan.isolations.end(),
                            [&](const Isolation& i) { return i.to == source; });
    if (iso == plan.isolations.end()) break;
    source = iso->from;
  }
  const Func* output = merged.find_func(source);
  for (Group& g : plan.groups) {
    bool has_output = std::find(g.members.begin(), g.members.end(), source) != g.members.end();
    for (const std::string& v : g.loop_vars) {
      auto pos = std::find(output->args.begin(), output->args.end(), v);
      if (has_output && pos != output->args.end()) {
        int64_t e = realized.extents[pos - output->args.begin()];
        if (!g.bounds.count(v)) {
          g.bounds[v] = {0, e};
        } else if (g.bounds[v].min != 0 || g.bounds[v].extent != e) {
          throw Diagnostic(
              realized.loc,
              "'" + realized.func + "' is realized with extent " + std::to_string(e) + " in '" + v +
                  "', but " +
                  (source == realized.func ? "its loop"
                                           : "the loop of '" + source + "' it copies") +
                  " runs over [" + std::to_string(g.bounds[v].min) + ", " +
                  std::to_string(g.bounds[v].min + g.bounds[v].extent) + ")",
              "realize-bounds");
        }
      }
    }
  }
}

void check_merge_bounds(const MergeContext& ctx, const Plan& plan) {
  for (const Group& g : plan.groups)
    if (g.copies.empty() && !is_isolation_target(ctx, plan, g.rep)) check_group_bounds(g);
}

void apply_deferred(const MergeContext& ctx, const DeferredDirectives& deferred, Plan& plan,
                    Group& g) {
  auto it = deferred.find(g.rep);
  if (it == deferred.end()) return;
  for (const Directive* d : it->second) apply_loop(ctx, plan, g, *d);
}

void check_loop_bounds(const Plan& plan) {
  for (const Group& g : plan.groups) {
    check_group_bounds(g);
    int64_t iterations = 1;
    for (const std::string& v : g.loop_vars) {
      auto it = g.bounds.find(v);
      iterations =
          it->second.extent > kMaxIterations ? kMaxIterations + 1 : iterations * it->second.extent;
      if (iterations > kMaxIterations)
        throw Diagnostic(g.loc,
                         "the loop nest of '" + g.rep + "' has more than " +
                             std::to_string(kMaxIterations) + " iterations",
                         "loop-too-large");
    }
  }
}

}  // namespace t2s::merge_internal
