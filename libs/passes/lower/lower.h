// The lowering driver (Halide's Lower.cpp): one table of the passes in pipeline order, so that
// t2s-emit, t2s-run, the stage tools and the tests lower a program the same way, and adding a
// stage is one row in lower.cc.
#pragma once

#include "libs/ir/program.h"

namespace t2s {

// Runs every pass from the program's stage up to `target` (none when it is already there), and
// the IR verifier on each pass's output (InternalError when a pass produced ill-formed IR).
// Throws Diagnostic when a pass refuses the program, and Diagnostic (rule "stage") when the
// program is already past `target`: no pass goes back.
Program lower_to(Program program, Stage target);

// A pass that produces ill-formed IR has a bug: the verifier's finding is an internal error
// (exit 3), not the user's. For a tool that runs a pass itself (t2s-vec --report).
void verify_pass_output(const Program& out, const char* pass);

}  // namespace t2s
