// The lowering driver (Halide's Lower.cpp): one table of the passes in pipeline order, so that
// t2s-emit, t2s-run, the stage tools, t2s-explore and the tests lower a program the same way,
// and adding a stage is one row in lower.cc. The driver is the only way a pass runs: it verifies
// each pass's output, and its hooks give what a caller wants besides the program.
#pragma once

#include <functional>

#include "libs/ir/program.h"

namespace t2s {

struct VecReport;
struct GatherReport;

// What a caller may ask of the driver besides the program (Halide's lowering logger, LLVM's
// -print-after and -time-passes): the report of each pass that makes one, each stage's program
// as its pass makes it, and each pass's wall time.
struct LowerHooks {
  VecReport* vec_report = nullptr;        // filled when the vec pass runs
  GatherReport* gather_report = nullptr;  // filled when the gather pass runs
  // Called with each pass's output, once the verifier has accepted it.
  std::function<void(const Program&)> after_pass;
  // Called after each pass with the pass's name (merge, stt, vec, gather) and its wall time in
  // seconds (the verifier's time not included).
  std::function<void(const char* pass, double seconds)> pass_timed;
};

// Runs every pass from the program's stage up to `target` (none when it is already there), and
// the IR verifier on each pass's output (InternalError when a pass produced ill-formed IR).
// Throws Diagnostic when a pass refuses the program, and Diagnostic (rule "stage") when the
// program is already past `target`: no pass goes back.
Program lower_to(Program program, Stage target, const LowerHooks& hooks = {});

}  // namespace t2s
