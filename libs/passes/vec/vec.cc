#include "libs/passes/vec/vec.h"

namespace t2s {

Program vectorize_program(const Program& stt) {
  if (stt.stage != Stage::kStt)
    throw Diagnostic({}, std::string("t2s-vec takes the stt stage, not ") + stage_name(stt.stage),
                     "stage");
  for (const Directive& d : stt.directives)
    if (d.name == "vectorize")
      throw Diagnostic(d.loc,
                       "vectorize of '" + d.func +
                           "' is not supported yet: t2s-vec passes only programs without "
                           "vectorize directives through",
                       "unsupported-directive");
  Program out = stt;
  out.stage = Stage::kVectorized;
  return out;
}

}  // namespace t2s
