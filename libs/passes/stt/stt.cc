#include "libs/passes/stt/stt.h"

#include <map>
#include <set>
#include <utility>

#include "libs/ir/program_facts.h"
#include "libs/passes/common/double_buffer.h"
#include "libs/passes/common/remove_loops.h"
#include "libs/passes/common/scatter.h"
#include "libs/passes/stt/stt_internal.h"

namespace t2s {

namespace stt_internal {

namespace {

// The transformed kernel as the channel step sees it.
KernelView transformed_view(const TransformContext& ctx, const OriginalLoops& loops,
                            const KernelSchedule& schedule) {
  KernelView v;
  v.kernel = ctx.kernel.name;
  v.transformed = true;
  v.names = loops.names;
  v.mins = loops.mins;
  v.extents = loops.extents;
  v.input_order = loops.input_order;
  // time steps, then PEs in unrolled order (schedule_kernel): T * PEs + PE
  v.position = schedule.time;
  for (int64_t& c : v.position.coeff) c = checked_mul(c, schedule.pes);
  v.position.constant = checked_mul(v.position.constant, schedule.pes);
  v.position.add(schedule.order, 1);
  for (size_t i = 0; i < schedule.space; ++i) {
    const Loop& l = schedule.loops[i];
    if (!loops.vectorized.count(l.name)) v.space.push_back({l.name, l.aff, l.min, l.extent});
  }
  v.body = loops.body;
  v.at = ctx.directives.back()->loc;
  v.what = ctx.what();
  return v;
}

}  // namespace

TransformedKernel transform_kernel(const TransformContext& ctx, NameSupply& names) {
  const OriginalLoops loops = peel_loops(ctx, names);
  const KernelSchedule schedule = schedule_kernel(ctx, loops, names);
  const Guard guard = guard_pe_body(ctx, loops, schedule);
  const Dependences deps = find_dependences(ctx, loops);
  // The seed's T'd > 0 first: its message names T and T'd.
  check_schedule_vectors(ctx, loops, schedule, deps);
  const ExecutionOrder order = execution_order(ctx, loops, schedule);
  check_dependences(ctx, loops, deps, order);
  check_storage_order(ctx, loops, schedule, deps);
  const KernelStorage storage = allocate_registers(ctx, loops, schedule, deps, order, names);
  TransformedKernel t;
  t.body = rebuild_body(loops, schedule, guard, deps, order, storage);
  for (const Storage& s : storage.storage)
    if (!s.none) t.registers.push_back(s.reg);
  t.view = transformed_view(ctx, loops, schedule);
  return t;
}

void TransformContext::fail(const std::string& message, const std::string& rule) const {
  throw Diagnostic(at, what() + ": " + message, rule);
}

// "space_time_transform of 'drainer' (inherited from 'A')" for a transform an isolated consumer
// inherited (its directives name the Func they were written for).
std::string TransformContext::what() const {
  std::string s = "space_time_transform of '" + kernel.name + "'";
  if (directives.front()->func != kernel.name)
    s += " (inherited from '" + directives.front()->func + "')";
  return s;
}

}  // namespace stt_internal

Program stt_pass(const Program& merged) {
  if (merged.stage != Stage::kMerged)
    throw Diagnostic(
        {},
        std::string("t2s-stt takes the merged stage (or parsed IR or a spec, merged first), "
                    "not ") +
            stage_name(merged.stage),
        "stage");
  if (const Directive* d = first_unimplemented_directive(merged, DirectiveStage::kStt))
    throw Diagnostic(d->loc, d->name + " of '" + d->func + "' is not supported yet by t2s-stt",
                     "unsupported-directive");
  Program out = merged;
  out.stage = Stage::kStt;
  out.registers.clear();
  NameSupply names(out);
  // The transforms of each Func, in program order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Directive*>> transforms;
  for (const Directive& d : merged.directives) {
    if (!d.is(DirectiveKind::kSpaceTimeTransform)) continue;
    if (!transforms.count(d.func)) order.push_back(d.func);
    transforms[d.func].push_back(&d);
  }
  for (const std::string& f : order) {
    bool found = false;
    for (Kernel& k : out.kernels) found |= k.name == f;
    if (!found)
      throw Diagnostic(transforms[f].front()->loc,
                       "space_time_transform of '" + f +
                           "': it has no kernel of its own (t2s-stt transforms the loop nest of "
                           "a merge group's representative or of an isolated Func)",
                       "stt-func");
  }
  // An isolated consumer without a transform of its own applies the one it inherited (after
  // the own transforms, in kernel order).
  for (const Kernel& k : merged.kernels)
    if (!transforms.count(k.name) && !k.inherited_transforms.empty()) {
      order.push_back(k.name);
      for (const Directive& d : k.inherited_transforms) transforms[k.name].push_back(&d);
    }
  std::map<std::string, stt_internal::KernelView> views;
  // The kernel whose positions are being computed, for a PositionOverflow.
  const Kernel* current = nullptr;
  try {
    for (const std::string& f : order)
      for (Kernel& k : out.kernels)
        if (k.name == f) {
          current = &k;
          stt_internal::TransformedKernel t =
              stt_internal::transform_kernel({out, k, transforms[f]}, names);
          // Applied only now: the steps read the program and the kernel as they were.
          k.body = std::move(t.body);
          k.pending_order.clear();
          out.registers.insert(out.registers.end(), t.registers.begin(), t.registers.end());
          views[k.name] = std::move(t.view);
        }
    for (Kernel& k : out.kernels) {
      current = &k;
      k.inherited_transforms.clear();
      if (!views.count(k.name))
        if (auto v = stt_internal::untransformed_view(k)) views[k.name] = *v;
    }
    current = nullptr;
    stt_internal::arrange_channels(out, views);
    // remove on a transformed producer, over the loops the transform made (t2s-merge removed
    // the loops of the others).
    const std::set<std::string> transformed(order.begin(), order.end());
    // Its consumer, transformed too (a feeder that inherits the array's transform), keeps the
    // values over the loops the transform made (the array itself, which reads inside a select,
    // is refused: remove-reuse), inside the loop of its buffer directive if it has one; then
    // the buffers of transformed consumers.
    const auto is_transformed = [&](const Kernel& k) { return transformed.count(k.name) > 0; };
    std::map<std::string, const Directive*> buffers;
    for (const Directive& d : out.directives)
      if (d.is(DirectiveKind::kBuffer)) buffers.emplace(d.args[0].text, &d);
    apply_removes(out, is_transformed, is_transformed, buffers);
    apply_buffers(out, is_transformed);
    // Scatter a buffered feeder's values from one channel (scatter.h).
    apply_scatters(out, is_transformed);
  } catch (const stt_internal::PositionOverflow&) {
    const std::string what = current ? "kernel '" + current->name + "'" : "a channel";
    throw Diagnostic(current ? current->loc : SourceLoc{},
                     what +
                         ": the execution-order positions of its iterations overflow 64 bits "
                         "(loop bounds or dependence distances too large; docs/limits.md)",
                     "loop-too-large");
  }
  for (const Kernel& k : out.kernels)
    if (!k.pending_order.empty())
      throw Diagnostic(k.loc,
                       "kernel '" + k.name +
                           "' has a pending loop order but no space_time_transform to apply "
                           "it with (the merged stage gives one only to a transformed kernel)",
                       "stt-func");
  return out;
}

}  // namespace t2s
