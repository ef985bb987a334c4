// The polyhedral program of a merge group (docs/explore.md, "T2S specs"): the loop nest of its
// kernel in the merged stage is the polytope, each URE's `provide` a statement over it (its
// domain narrowed by the `if`s around it), the Func calls in its value the reads (narrowed by
// the `select` conditions that guard them). The common space is the loop nest, outermost loop
// first; statements on one iteration run in the nest's order.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "libs/explore/program.h"
#include "libs/ir/program.h"

namespace t2s::explore {

struct KernelProgram {
  PolyProgram program;
  std::vector<std::string> loops;  // outermost first (= program.space)
  std::vector<int64_t> mins, extents;
  std::vector<std::string> notes;  // what could not be modelled exactly (non-affine reads, ...)
};

// Walks down the loop nest of a kernel's body: through each list that holds one loop or one
// realize (in any order, as a merged or stt-stage kernel has them), calling `on_loop` on each
// loop, outermost first. Stops at a list of another size, at a statement of another kind, or at
// a loop for which `on_loop` returns false; returns the list it stopped at (the nest's body).
const StmtList& walk_kernel_nest(const StmtList& body,
                                 const std::function<bool(const For&)>& on_loop);

// The program of kernel `kernel` of a merged-stage `merged`. Throws Diagnostic (rule
// explore-kernel, at the kernel) when the kernel is not a perfect nest of constant loops.
KernelProgram kernel_program(const Program& merged, const std::string& kernel);

}  // namespace t2s::explore
