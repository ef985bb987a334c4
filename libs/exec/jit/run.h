// t2s-run's JIT engine (`--engine jit`, docs/jit.md): runs a lowered program by compiling the
// `cpp` target's emulation of it (libs/backends/cpp: the code the emulation tests hold equal to
// the interpreter) in process with clang and LLVM's ORC JIT (engine.h, in libt2s_jit.so, which
// is loaded with dlopen on first use: plugin_abi.h), and calling its main.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "libs/exec/npy_files.h"
#include "libs/ir/program.h"

namespace t2s::jit {

// A run-time error of the program (an out-of-bounds read, a deadlock, ...): the emulation's
// message, which is the interpreter's message for the same error, without its location.
class ProgramError : public std::runtime_error {
 public:
  using runtime_error::runtime_error;
};

// clang's -O level of the JIT's compiles unless t2s-run --jit-opt says otherwise. -O0 compiles
// in about 40% of -O2's time and runs several times slower: for small problems and tests.
constexpr int kDefaultJitOptLevel = 2;

struct Timings {
  double compile_seconds = 0;  // emitting the C++, clang, and linking the code
  double run_seconds = 0;      // the program's main: reading its inputs to writing its output
};

// Executes `program` (stage merged or later) on `inputs` (one per program input, as
// complete_inputs gives them) and returns the realized output, as run_program does. Throws
// ProgramError for a run-time error of the program, Diagnostic for a program the cpp target
// cannot emulate (rule emit-unsupported, ...), JitUnavailable (unavailable.h) when the engine's
// library, LLVM or the compiler's headers are missing or its temporary files cannot be written.
// `opt_level` is clang's -O level (0 to 3; t2s-run --jit-opt): the output is the same at every
// level (no contraction into FMAs, Halide's arithmetic spelled out), only the times differ.
NdArray run_program(const Program& program, const std::map<std::string, NdArray>& inputs,
                    Timings* timings = nullptr, int opt_level = kDefaultJitOptLevel);

// Whether the cpp target emulates `program` (emit_cpp does not refuse it).
bool emits_cpp(const Program& program);

// The number of innermost loop iterations of `program`'s kernels (each loop's constant extent
// times its body's count, a loop without a constant extent counted as 1), saturating at
// INT64_MAX: the measure of problem size by which `--engine auto` chooses.
int64_t loop_iterations(const Program& program);

// `--engine auto` runs programs with at least this many loop iterations with the JIT: below,
// the interpreter finishes before clang would (about 1 s to compile; the interpreter runs some
// 4 million iterations a second).
constexpr int64_t kAutoJitMinIterations = 4'000'000;

}  // namespace t2s::jit
