#include "libs/passes/gather/gather.h"

namespace t2s {

Program gather_program(const Program& vectorized) {
  if (vectorized.stage != Stage::kVectorized)
    throw Diagnostic(
        {},
        std::string("t2s-gather takes the vectorized stage, not ") + stage_name(vectorized.stage),
        "stage");
  for (const Directive& d : vectorized.directives)
    if (d.name == "gather")
      throw Diagnostic(d.loc,
                       "gather of '" + d.func +
                           "' is not supported yet: t2s-gather passes only programs without "
                           "gather directives through",
                       "unsupported-directive");
  Program out = vectorized;
  out.stage = Stage::kGathered;
  return out;
}

}  // namespace t2s
