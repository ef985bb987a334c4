#include "libs/exec/jit/select.h"

#include <chrono>
#include <cstdio>

#include "libs/backends/cpp/cpp.h"
#include "libs/exec/jit/unavailable.h"
#include "libs/exec/run_support.h"
#include "libs/ir/diagnostic.h"

namespace t2s::jit {

EngineChoice resolve_engine(EngineChoice choice, const Program& program, uint64_t max_steps) {
  if (choice != EngineChoice::kAuto) return choice;
  const int64_t iterations = loop_iterations(program);
  return iterations >= kAutoJitMinIterations && static_cast<uint64_t>(iterations) <= max_steps &&
                 emits_cpp(program)
             ? EngineChoice::kJit
             : EngineChoice::kInterp;
}

void check_engine_memory(EngineChoice engine, const Program& program, int64_t max_memory) {
  if (engine != EngineChoice::kJit) {
    check_run_memory(program, max_memory);
    return;
  }
  RealizeExtents folded;
  try {
    folded = emulation_folded_extents(program);
  } catch (const Diagnostic&) {
    // Not emulated: the run fails with emit_cpp's diagnostic; count the storage unfolded.
  }
  check_run_memory(program, max_memory, &folded);
}

EngineRun run_with_engine(EngineChoice choice, const Program& program,
                          const std::map<std::string, NdArray>& inputs, const RunOptions& options,
                          int64_t max_memory, int jit_opt_level) {
  EngineRun run;
  const bool automatic = choice == EngineChoice::kAuto;
  choice = resolve_engine(choice, program, options.max_steps);
  check_engine_memory(choice, program, max_memory);
  if (choice == EngineChoice::kJit) {
    run.used_jit = true;
    try {
      run.result = jit::run_program(program, inputs, &run.timings, jit_opt_level);
      return run;
    } catch (const ProgramError& e) {
      // The interpreter stops at the same error and locates it (it throws the Diagnostic), when
      // its storage (the JIT's emulation may fold some) fits in the memory limit.
      try {
        check_run_memory(program, max_memory);
      } catch (const Diagnostic& memory) {
        throw Diagnostic({},
                         "the program stopped with a run-time error: " + std::string(e.what()) +
                             " (not located: the interpreter, which locates run-time errors, " +
                             "would need more memory than --max-memory: " + memory.message() + ")",
                         "run-unlocated");
      }
      t2s::run_program(program, inputs, options);
      throw InternalError("--engine jit: the program stopped with '" + std::string(e.what()) +
                          "', but the interpreter runs it to the end");
    } catch (const JitUnavailable&) {
      if (!automatic) throw;  // auto: the interpreter instead (nothing has run yet)
      run.used_jit = false;
      check_run_memory(program, max_memory);
    }
  }
  auto start = std::chrono::steady_clock::now();
  run.result = t2s::run_program(program, inputs, options);
  run.timings.run_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
