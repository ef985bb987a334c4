// remove(v, ...): the targets checked here, the directives applied by apply_removes
// (libs/passes/common/remove_loops.h) to the producers no space_time_transform transforms; then
// buffer(P, v), applied by apply_buffers (libs/passes/common/double_buffer.h) to the consumers
// no space_time_transform transforms.
#include <map>
#include <set>
#include <string>

#include "libs/passes/common/double_buffer.h"
#include "libs/passes/common/remove_loops.h"
#include "libs/passes/merge/steps.h"

namespace t2s::merge_internal {

void remove_loops(const MergeContext& ctx, Program& merged) {
  std::set<std::string> producers, transformed;
  for (const Directive* d : ctx.producer_chains)
    for (size_t i = 1; i < d->args.size(); ++i) producers.insert(arg_name(d->args[i]));
  for (const Directive& d : ctx.parsed.directives)
    if (d.is(DirectiveKind::kSpaceTimeTransform)) transformed.insert(d.func);
  for (const Directive& d : ctx.parsed.directives) {
    if (!d.is(DirectiveKind::kRemove)) continue;
    if (!producers.count(d.func))
      throw Diagnostic(d.loc,
                       "remove applies to a producer that isolate_producer_chain defines; '" +
                           d.func + "' is not one",
                       "remove-target");
    const Kernel* kernel = nullptr;
    for (const Kernel& k : merged.kernels)
      if (k.name == d.func) kernel = &k;
    if (!kernel) throw InternalError("remove: no kernel for producer '" + d.func + "'");
    if (kernel->place != Place::kDevice)
      throw Diagnostic(d.loc,
                       "remove on '" + d.func +
                           "', which is on the host: its values go through memory, indexed by "
                           "every loop; only a device producer, which sends its values over a "
                           "channel, has loops removed",
                       "remove-target");
  }
  // A transformed producer (its own transform or the array's, inherited) has its loops
  // removed by t2s-stt, from the loops the transform makes.
  // A consumer keeps values only when no transform reorders its loops afterwards.
  const auto untransformed = [&](const Kernel& k) {
    return !transformed.count(k.name) && k.inherited_transforms.empty();
  };
  // A buffer's consumer keeps what the producer's removals make it keep inside the buffer's loop.
  std::map<std::string, const Directive*> buffers;
  for (const Directive& d : merged.directives)
    if (d.is(DirectiveKind::kBuffer)) buffers.emplace(d.args[0].text, &d);
  apply_removes(merged, untransformed, untransformed, buffers);
  apply_buffers(merged, untransformed);
}

}  // namespace t2s::merge_internal
