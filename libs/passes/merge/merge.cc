// t2s-merge as the list of its steps (plan.h and steps.h declare them): each reads the plan and
// the program as the steps before it left them, and says what it adds by what it returns or
// fills.
#include "libs/passes/merge/merge.h"

#include "libs/ir/program_facts.h"
#include "libs/passes/merge/plan.h"
#include "libs/passes/merge/steps.h"

namespace t2s {

using namespace merge_internal;

Program as_parsed(const Program& lowered) {
  Program p = lowered;
  p.stage = Stage::kParsed;
  p.kernels.clear();
  p.buffers.clear();
  p.channels.clear();
  p.registers.clear();
  for (Input& in : p.inputs) in.extents.clear();
  return p;
}

Program merge_pass(const Program& parsed) {
  if (parsed.stage != Stage::kParsed)
    throw InternalError("merge_pass needs a parsed-stage program");
  // The program being built: the parsed one, until isolation defines Funcs and lowering gives it
  // channels, buffers and kernels.
  Program merged = parsed;
  merged.stage = Stage::kMerged;
  merged.kernels.clear();
  merged.buffers.clear();
  merged.channels.clear();
  // The names merge makes up (the Funcs of a list isolation's values, channels), fresh against
  // every name the spec declares and every one given out before.
  NameSupply names(parsed);
  Plan plan;

  // The merge_ures groups, isolation edges and min_depths; the other merge directives.
  const MergeContext ctx = read_directives(parsed, plan);
  // Seed 001's rules on the shape of UREs and merges, and every URE's initial value.
  check_structure(merged, plan);
  check_initial_values(merged);
  // A loop nest for every Func that needs one; the others are inlined.
  make_groups(ctx, merged, plan);
  // Funcs that depend on each other share a loop nest.
  check_cycles(merged, plan);
  // The realized Func ends its consumer chain.
  check_realized_consumer(ctx, plan);
  // The loop directives of the nests with loops of their own; those of isolated Funcs wait.
  const DeferredDirectives deferred = apply_loop_directives(ctx, plan);
  // The realize extents bound the realized Func's loops.
  bound_realized_loops(ctx, merged, plan);
  // Halide's bounds inference for the loops still unbounded, isolated Funcs aside.
  infer_bounds(merged, plan, isolation_targets(ctx, plan));

  // The URE rules on the nests with loops of their own; isolated Funcs get theirs by isolation
  // and are checked after it.
  const GroupFilter own_loops = [&](const Group& g) {
    return !is_isolation_target(ctx, plan, g.rep);
  };
  // Split factors divide their loops' extents; the split loops get their bounds and order.
  finish_splits(plan, own_loops);
  // Simple arguments and non-negative dependence distances in the order that runs.
  check_distances(merged, plan, own_loops);
  // The same for nests with splits, over the loops they finally run.
  check_split_order(merged, plan, own_loops);

  // Every loop of those nests is bounded before isolated Funcs copy them.
  check_merge_bounds(ctx, plan);
  // Isolated consumers copy their producers' definition, loops and schedule.
  isolate_consumers(ctx, deferred, merged, plan);
  // Producer chains compute the isolated values, which their readers now read.
  const ProducerChains chains = isolate_producers(ctx, deferred, names, merged, plan);
  // Every nest bounded, the isolated ones too, and none too large.
  check_loop_bounds(plan);
  // The URE rules on the isolated Funcs' nests.
  const GroupFilter isolated = [&](const Group& g) {
    return is_isolation_target(ctx, plan, g.rep);
  };
  finish_splits(plan, isolated);
  check_distances(merged, plan, isolated);
  check_split_order(merged, plan, isolated);

  // Channels for isolation edges between device kernels, their values visited in one order at
  // both ends; buffers for the other edges.
  Transfers transfers;
  connect_isolations(ctx, chains, names, merged, plan, transfers);
  // Channels for the reads of device kernels by device kernels that can be streams.
  const DeviceReadRefusals refusals =
      connect_device_reads(ctx, chains, names, merged, plan, transfers);
  // Every min_depth sets the depth of a channel.
  check_min_depths(ctx, merged, plan, transfers);
  // The computed Funcs' definitions with inlined Funcs substituted.
  const InlinedValues values = inline_values(merged, plan, transfers);
  // What each kernel reads from memory (buffers for other kernels' Funcs) and needs first.
  const KernelDependences deps =
      find_kernel_dependences(ctx, merged, plan, values, refusals, transfers);
  // No kernels that need each other's values.
  check_kernel_cycle(ctx, merged, plan, deps);
  // The global buffers, then the kernels in the order they run.
  merged.buffers = make_buffers(ctx, merged, plan, transfers);
  merged.kernels = make_kernels(merged, plan, chains, transfers, values, deps);
  // Isolated producers drop the loops `remove` names; consumers get their double buffers.
  remove_loops(ctx, merged);
  // The inputs' extents, from the indices read (isl); accesses isl proves wrong are refused.
  infer_input_extents(merged);
  // `funcs` stay as the spec wrote them (isolation's rewrites live in the kernels), so any
  // later stage can be merged again to give its reference (t2s-run --check).
  merged.funcs = parsed.funcs;
  return merged;
}

}  // namespace t2s
