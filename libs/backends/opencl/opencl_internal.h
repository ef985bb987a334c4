// What the OpenCL device code (opencl_device.cc) and the host program (opencl_host.cc) share:
// the layout of inputs and buffers, what each kernel touches, and the execution runs. Internal
// to libs/backends/opencl.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {
namespace opencl_internal {

// The constant extents of an input (mins are 0). emit-extent when they are missing or not
// integer constants.
std::vector<int64_t> input_extents(const Input& input);

// The constant extents of storage with `extents` (a buffer or a realize). emit-extent at `loc`.
std::vector<int64_t> storage_extents(const std::string& what, const std::vector<Expr>& extents,
                                     const SourceLoc& loc);

// A buffer's constant mins and extents. emit-extent at the buffer's loc.
std::vector<std::string> buffer_mins(const Buffer& buffer);
std::vector<int64_t> buffer_extents(const Buffer& buffer);

// "[0, 4) x [2, 5)" for a comment, or "a scalar".
std::string bounds_text(const std::vector<std::string>& mins, const std::vector<int64_t>& extents);

// What one kernel touches.
struct Uses {
  std::set<std::string> inputs;  // inputs read
  std::set<std::string> reads;   // buffers read
  std::set<std::string> writes;  // buffers written
  std::set<std::string> channels;
  bool global_memory() const { return !inputs.empty() || !reads.empty() || !writes.empty(); }
};

// The Uses of `kernel` in a verified `program`.
Uses collect_uses(const Program& program, const Kernel& kernel);

// Whether device kernel `kernel` (with `uses`) is autorun: it touches no global memory (the host
// has nothing to hand it), and the first channel operation of its run is a read (traced from
// its start: loops from their first iterations, conditions on loop variables evaluated). Intel
// restarts an autorun kernel each time it returns; one that writes first (`write(ch, n >= 1 ?
// read(in) : 0)` at n = 0) would, restarted, send values no kernel reads (the OpenCL executor
// reports them as left in the channel). Such a kernel, or one whose first operation depends on
// data, is enqueued by the host instead.
bool is_autorun(const Kernel& kernel, const Uses& uses);

// Refuses a device kernel's vector types that OpenCL cannot express (more than 32 lanes):
// emit-type at the `vectorize` directive of the kernel's Func (or of a Func merged into it),
// with a note at the innermost statement with a location that uses the type; at that statement
// when no such directive exists (IR written by hand).
void check_opencl_types(const Program& program, const Kernel& kernel);

// The kernel's body with each read or write of a channel array whose index is not a constant
// once the PEs are unrolled (it uses a serial loop, directly or through a let) expanded into a
// choice among the constant indices of that dimension (Intel's channel arrays take constants);
// an index of a vectorized loop or of a value read at run time is refused: emit-channel at the
// innermost statement with a location.
StmtList expand_channel_indices(const Program& program, const Kernel& kernel);

inline bool is_device(const Kernel& k) { return k.place == Place::kDevice; }

// The program's registers that belong to `kernel`, in program order.
std::vector<const Register*> registers_of(const Program& program, const Kernel& kernel);

// The inputs / buffers in `used`, in program order.
std::vector<const Input*> used_inputs(const Program& program, const std::set<std::string>& used);
std::vector<const Buffer*> used_buffers(const Program& program, const Uses& uses);

// The runs of the execution model: each maximal run of consecutive device kernels, and each
// host kernel alone.
std::vector<std::vector<const Kernel*>> execution_runs(const Program& program);

// "A, drainer (autorun)": the kernels of a run, for comments.
std::string run_description(const std::vector<const Kernel*>& run,
                            const std::map<std::string, bool>& autorun);

}  // namespace opencl_internal
}  // namespace t2s
