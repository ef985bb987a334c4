// The `cpp` target of t2s-emit: one self-contained C++17 program that emulates a lowered design
// (stage merged or later) the way the reference interpreter (libs/exec) executes it, with the
// interpreter's arithmetic bit for bit and its checks and error messages.
//
// The program embeds the runtime (libs/runtime/t2s_runtime.h) and the Halide-arithmetic
// helpers of CCodegen, so it needs nothing but a C++17 compiler:
//
//   g++ -std=c++17 -O2 -pthread -ffp-contract=off NAME_emu.cpp -o NAME_emu
//   ./NAME_emu [--input NAME=FILE.npy]... [--fill sequential|random] [--seed N] [-o OUT.npy]
//              [--print]
//
// It takes t2s-run's data options and writes the same output: `-o OUT.npy` gives the bytes
// `t2s-run STAGE.json -o OUT.npy` gives for the same options, and the printed form is t2s-run's.
// Execution: kernels in list order; each maximal run of consecutive device kernels runs
// concurrently, one thread per kernel, connected by bounded FIFOs of max(depth, 1) values with
// exact deadlock detection; host kernels run on the main thread. Registers (stt stage on) get
// fresh storage per PE when their kernel starts. Errors (out-of-bounds reads and writes, reads of
// values never computed, FIFO register overflow and underflow, deadlock, values left in a channel
// or a FIFO register) stop the program with `PROGRAM: error: MESSAGE` (the interpreter's
// message) and exit status 1. An access that isl proves can never fail its check
// (emu_proofs.h) is emitted without it; CppOptions::checked keeps every check
// (docs/emulation.md). With CppOptions::profile the program also counts each kernel's steps
// and useful PE-steps and prints them at exit (profile.h, docs/report.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {

// The program's source text; the same IR gives the same bytes. Vector values (docs/ir.md,
// "Vector values") are t2s_rt::Vec<T, N> (c_codegen.h). Throws Diagnostic for what the target
// cannot emulate (rule `emit-unsupported`: inputs, buffers and realizes of vector type, alloc
// statements, names that are not C identifiers; `emit-extent`: an input whose extents are not
// constants, so that its data cannot be generated; `emit-stage`: a parsed-stage program) and
// InternalError for malformed IR (what the interpreter refuses as such).
struct CppOptions {
  // Every access through the runtime's checked accessors, as the interpreter checks it; by
  // default an access isl proves inside its storage (and a read it proves to find its element
  // written) is a plain array access (docs/emulation.md).
  bool checked = false;
  // Count each kernel's steps and useful PE-steps while it runs and print them at exit, on
  // standard error, as the report's utilisation lines (libs/backends/cpp/profile.h).
  bool profile = false;
};
std::string emit_cpp(const Program& program);
std::string emit_cpp(const Program& program, const CppOptions& options);

// The extents the emulation (without CppOptions::checked) stores for each realize it folds
// (emu_proofs.h) whose bounds are constants: a folded dimension's F, the others' extents. For
// t2s-run's --max-memory under the JIT engine.
std::map<const Realize*, std::vector<int64_t>> emulation_folded_extents(const Program& program);

}  // namespace t2s
