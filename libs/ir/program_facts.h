// Facts about a program that the verifier, the interpreter and the emitters all need, computed
// in one place: which kernels run together, and which buffers and channels each kernel reads
// and writes. The rules these facts serve (no buffer written by one kernel of a run and used by
// another; a channel read only in its consumer and written only in its producer) are the
// verifier's (libs/ir/verify, rules ir-storage and ir-channel): code below it trusts verified
// IR and does not check them again.
#pragma once

#include <cstddef>
#include <set>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {

// The kernels `first` .. `last - 1` of a program, which run at once: each maximal run of
// consecutive device kernels, and each host kernel alone (docs/ir.md, "Execution model").
struct KernelRun {
  size_t first = 0, last = 0;
};
std::vector<KernelRun> kernel_runs(const Program& program);

// What one kernel touches outside itself, as indices into program.inputs, program.buffers and
// program.channels. A Func accessed inside a realize of the same name is the realize's own
// storage, not a buffer.
struct KernelAccesses {
  std::set<size_t> inputs_read;
  std::set<size_t> buffers_read, buffers_written;
  std::set<size_t> channels_read, channels_written;
};
KernelAccesses kernel_accesses(const Program& program, const Kernel& kernel);

}  // namespace t2s
