// t2s-gather: the `vectorized` stage to the `gathered` stage (seed 003).
//
// Gathering is not built yet (issue 5 asks for a real tool in the pipeline meanwhile): a
// program without `gather` directives passes through with only its stage changed; a
// `gather` directive is refused with a located diagnostic, never ignored.
#pragma once

#include "libs/ir/program.h"

namespace t2s {

// Throws Diagnostic (rule "unsupported-directive") at the first `gather` directive; `vectorized`
// must be at stage vectorized.
Program gather_pass(const Program& vectorized);

}  // namespace t2s
