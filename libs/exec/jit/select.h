// t2s-run's `--engine interp|jit|auto` (docs/jit.md): which engine runs a program, and the
// located errors of the JIT engine.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

#include "libs/exec/interpreter.h"
#include "libs/exec/jit/run.h"

namespace t2s::jit {

enum class EngineChoice { kInterp, kJit, kAuto };

struct EngineRun {
  NdArray result;
  bool used_jit = false;
  Timings timings;  // compile_seconds: jit only
};

// Runs `program` on `inputs` with the chosen engine:
//   interp  the reference interpreter (t2s::run_program with `options`);
//   jit     jit::run_program; a run-time error of the program is located by running the
//           interpreter on the same inputs, which throws the Diagnostic (file:line:col, rule)
//           t2s-run prints with `interp` (it stops at the same error: the emulation tests hold
//           both to the same checks and messages);
//   auto    as resolve_engine decides (with `options.max_steps`), interp also when the JIT is
//           unavailable here (JitUnavailable: its library, LLVM or the headers missing).
// `options.max_steps` bounds the interpreter only. Throws what the engines throw.
// `max_memory` bounds the storage of the engine that runs (check_engine_memory, before the
// run) and the interpreter's where run_with_engine falls back to it or runs it to locate an
// error (check_run_memory). `jit_opt_level`: jit::run_program's `opt_level`.
EngineRun run_with_engine(EngineChoice choice, const Program& program,
                          const std::map<std::string, NdArray>& inputs, const RunOptions& options,
                          int64_t max_memory = INT64_MAX, int jit_opt_level = kDefaultJitOptLevel);

// The engine `choice` runs `program` with, unless the JIT turns out unavailable: interp or jit.
// auto: jit when loop_iterations(program) >= kAutoJitMinIterations, the cpp target emulates the
// program, and the iterations do not exceed `max_steps` (--max-steps, which bounds the
// interpreter only: a program sure to exceed it stops at the limit, as the interpreter would,
// instead of running unbounded under the JIT).
EngineChoice resolve_engine(EngineChoice choice, const Program& program, uint64_t max_steps);

// t2s-run's --max-memory for a run with `engine` (resolve_engine's): check_run_memory with the
// realize storage that engine allocates (the JIT's emulation folds some: emulation_folded_extents).
void check_engine_memory(EngineChoice engine, const Program& program, int64_t max_memory);

// Prints `t2s-run: WHAT: engine jit: compile 1.234 s, run 0.567 s` (interp: `run 0.567 s`).
void print_timings(const std::string& what, const EngineRun& run, std::ostream& out);

}  // namespace t2s::jit
