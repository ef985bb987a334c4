// t2s-vec: the `stt` stage to the `vectorized` stage (seed 002).
//
// Vectorization is not built yet (issue 5 asks for a real tool in the pipeline meanwhile): a
// program without `vectorize` directives passes through with only its stage changed; a
// `vectorize` directive is refused with a located diagnostic, never ignored.
#pragma once

#include "libs/ir/program.h"

namespace t2s {

// Throws Diagnostic (rule "unsupported-directive") at the first `vectorize` directive; `stt`
// must be at stage stt.
Program vec_pass(const Program& stt);

}  // namespace t2s
