// t2s-stt: the `merged` stage to the `stt` stage (seed 000, LANGUAGE.md section 5).
//
// Applies every space_time_transform directive to the kernel of the Func it names: space loops
// become unrolled PE loops, the next loop out a time loop with exact bounds, the original loop
// variables are recovered from the new ones, and the UREs that stay inside the kernel get shift
// registers or FIFOs of the exact size they need instead of Func storage. docs/ir.md ("The stt
// stage") describes the result.
#pragma once

#include <string>

#include "libs/ir/program.h"

namespace t2s {

// Throws Diagnostic (with the directive's source location and a rule id) when a transform is
// illegal. `merged` must be at stage merged.
Program stt_pass(const Program& merged);

// The table `t2s-stt --report` prints for a program at the stt stage: per transformed kernel the
// PE array and the time steps, per register the naive and the allocated storage, and the totals.
std::string stt_report(const Program& stt);

}  // namespace t2s
