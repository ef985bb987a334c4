// What t2s-run does around the interpreter: its --input files, its printed output and its
// --check, with the rules the runtime of generated programs (libs/runtime) has too.
#pragma once

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "libs/exec/npy_files.h"
#include "libs/ir/program.h"

namespace t2s {

// The arrays of --input values NAME=FILE.npy, each file's bytes given by `read_file(path)`. A
// malformed value, a name given twice or a file that is not a good .npy is the user's error:
// `error(message)`, which must throw (t2s-run's IoError).
std::map<std::string, NdArray> read_input_arrays(
    const std::vector<std::string>& specs,
    const std::function<std::string(const std::string&)>& read_file,
    const std::function<void(const std::string&)>& error);

// t2s-run's default --max-memory: 4 GiB.
constexpr int64_t kDefaultMaxRunMemory = int64_t{4} << 30;

// The extents an engine stores for some realizes (the JIT's emulation folds storage: see
// libs/backends/cpp/emu_proofs.h); a realize not listed is stored whole.
using RealizeExtents = std::map<const Realize*, std::vector<int64_t>>;

// The memory a run of `program` is known to need before it starts, in bytes: the data of its
// inputs (their declared extents), and the interpreter's storage (8 bytes a value and a flag
// each) of its buffers (constant bounds), shift registers and realizes (constant bounds, or
// `folded`; per kernel the most that is live at once: a realize and those inside it; kernels
// run at the same time). Saturates at INT64_MAX.
int64_t declared_run_memory(const Program& program, const RealizeExtents* folded = nullptr);

// Refuses (Diagnostic [run-memory], located at the largest input, buffer, register or realize)
// a program whose declared_run_memory exceeds `max_bytes`, so that t2s-run stops before
// allocating.
void check_run_memory(const Program& program, int64_t max_bytes,
                      const RealizeExtents* folded = nullptr);

// Prints every element as `NAME(x0, x1, ...) = VALUE`, last index fastest (as T2S tests loop
// over results), byte for byte as generated programs print their output.
void print_array(const std::string& name, const NdArray& a, std::ostream& out);

// Checks `result`, the output of `program`, against `expected`, its merged stage's output, bit
// for bit: throws a Diagnostic [check] at the program's output on a difference, or returns the
// note saying that the check passed.
std::string check_against_reference(const Program& program, const NdArray& expected,
                                    const NdArray& result);

}  // namespace t2s
