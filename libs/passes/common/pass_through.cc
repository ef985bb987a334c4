#include "libs/passes/common/pass_through.h"

namespace t2s {

Program pass_through_stage(const Program& in, Stage from, Stage to, const std::string& tool,
                           const std::string& directive) {
  if (in.stage != from)
    throw Diagnostic(
        {}, tool + " takes the " + stage_name(from) + " stage, not " + stage_name(in.stage),
        "stage");
  for (const Directive& d : in.directives)
    if (d.name == directive)
      throw Diagnostic(d.loc,
                       directive + " of '" + d.func + "' is not supported yet: " + tool +
                           " passes only programs without " + directive + " directives through",
                       "unsupported-directive");
  Program out = in;
  out.stage = to;
  return out;
}

}  // namespace t2s
