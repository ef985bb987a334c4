// The emulation's --profile (t2s-emit --target cpp --profile): each kernel counts its time
// steps and the PE-steps where a PE does useful work while it runs, by the rules of the
// performance model (docs/report.md: a step is an iteration of an innermost serial loop, or
// the whole body of a kernel without one; useful work is a write of anything or a channel
// read), and the program prints, at exit, the report's utilisation line for each kernel.
// The counting is marker statements in the kernel's body (Provides of the reserved names
// t2s_profile_step_K / t2s_profile_work_K, K the kernel's index) that the emulation's storage
// prints as counter updates; without --profile nothing changes.
#pragma once

#include <cstdint>
#include <string>

#include "libs/ir/program.h"

namespace t2s {

struct ProfileKernel {
  StmtList body;    // the kernel's body with the markers
  int64_t pes = 1;  // the product of the ranges of its unrolled loops (constant bounds)
};

// Throws Diagnostic (emit-unsupported) for an unrolled loop whose bounds are not constants.
ProfileKernel profile_kernel(const Kernel& kernel, size_t index);

// Whether `func` is a marker: then its kernel index, and whether it starts a step (else it
// marks work, its one argument the PE's linear index).
bool profile_marker(const std::string& func, size_t* index, bool* step);

}  // namespace t2s
