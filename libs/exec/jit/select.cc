#include "libs/exec/jit/select.h"

#include <chrono>
#include <cstdio>

#include "libs/exec/jit/engine.h"
#include "libs/ir/diagnostic.h"

namespace t2s::jit {
namespace {

// Whether `auto` may use the JIT for `program`: its compiler works here, and the cpp target
// emulates the program (it refuses, say, vector-typed buffers, which the interpreter runs).
bool jit_can_run(const Program& program) {
  try {
    find_toolchain();
  } catch (const JitUnavailable&) {
    return false;
  }
  return emits_cpp(program);
}

}  // namespace

EngineRun run_with_engine(EngineChoice choice, const Program& program,
                          const std::map<std::string, NdArray>& inputs, const RunOptions& options) {
  EngineRun run;
  if (choice == EngineChoice::kAuto)
    choice = loop_iterations(program) >= kAutoJitMinIterations && jit_can_run(program)
                 ? EngineChoice::kJit
                 : EngineChoice::kInterp;
  if (choice == EngineChoice::kInterp) {
    auto start = std::chrono::steady_clock::now();
    run.result = t2s::run_program(program, inputs, options);
    run.timings.run_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return run;
  }
  run.used_jit = true;
  try {
    run.result = jit::run_program(program, inputs, &run.timings);
  } catch (const ProgramError& e) {
    // The interpreter stops at the same error and locates it (it throws the Diagnostic).
    t2s::run_program(program, inputs, options);
    throw InternalError("--engine jit: the program stopped with '" + std::string(e.what()) +
                        "', but the interpreter runs it to the end");
  }
  return run;
}

void print_timings(const std::string& what, const EngineRun& run, std::ostream& out) {
  char text[128];
  if (run.used_jit)
    std::snprintf(text, sizeof text, "engine jit: compile %.3f s, run %.3f s",
                  run.timings.compile_seconds, run.timings.run_seconds);
  else
    std::snprintf(text, sizeof text, "engine interp: run %.3f s", run.timings.run_seconds);
  out << "t2s-run: " << what << ": " << text << "\n";
}

}  // namespace t2s::jit
