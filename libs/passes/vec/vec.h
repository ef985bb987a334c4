// t2s-vec: the `stt` stage to the `vectorized` stage (seed 002; docs/ir.md, "The vectorized
// stage").
//
// Every loop of kind `vectorized` (t2s-merge marks the loops named by `vectorize`; t2s-stt makes
// those of a transformed kernel the innermost loops of each PE) becomes one operation on N
// lanes: loop variables become ramps, reads gathers, the registers and channels it uses carry
// vectors. What depends on an earlier lane of the same step (a chain, as `C(k - 1)` with k
// vectorized) is computed lane after lane inside the step (seed 002 1.2); a loop whose body
// cannot keep its lane order as vector operations is serialised whole (an unrolled loop) and
// reported. Channels whose two ends have different lanes are matched (seed 002 1.1).
#pragma once

#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {

// What t2s-vec did with one nest of vectorized loops (`t2s-vec --report`).
struct VecLoopReport {
  std::string kernel;
  std::vector<std::string> loops;  // innermost first
  std::vector<int64_t> extents;    // innermost first
  int lanes = 1;
  bool serialised = false;         // the whole loop runs lane after lane (unrolled)
  std::vector<std::string> notes;  // what was computed lane by lane, or why it was serialised
  SourceLoc loc;
};

struct VecReport {
  std::vector<VecLoopReport> loops;
  std::vector<std::string> channels;  // how the lanes of each vector channel were matched
  std::vector<std::string> dropped;   // registers no longer read (a chain's same-step values)
  std::vector<std::string> narrowed;  // registers that keep only the lanes read from them
};

// Throws Diagnostic (located, with a rule id) for vectorized loops that cannot be vectorized
// and channels whose lanes cannot be matched. `stt` must be at stage stt. Fills `report` when
// it is not null and the pass succeeds.
Program vec_pass(const Program& stt, VecReport* report);
Program vec_pass(const Program& stt);

// The text `t2s-vec --report` prints.
std::string vec_report_text(const VecReport& report);

}  // namespace t2s
