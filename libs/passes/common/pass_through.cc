#include "libs/passes/common/pass_through.h"

#include <algorithm>

#include "libs/ir/program_facts.h"

namespace t2s {

Program pass_through_stage(const Program& in, Stage from, Stage to, const std::string& tool,
                           DirectiveStage stage) {
  if (in.stage != from)
    throw Diagnostic(
        {}, tool + " takes the " + stage_name(from) + " stage, not " + stage_name(in.stage),
        "stage");
  if (const Directive* d = first_unimplemented_directive(in, stage))
    throw Diagnostic(d->loc,
                     d->name + " of '" + d->func + "' is not supported yet: " + tool +
                         " passes only programs without " + d->name + " directives through",
                     "unsupported-directive");
  Program out = in;
  out.stage = to;
  return out;
}

}  // namespace t2s
