#include "libs/exec/jit/select.h"

#include <chrono>
#include <cstdio>

#include "libs/exec/jit/unavailable.h"
#include "libs/ir/diagnostic.h"

namespace t2s::jit {

EngineRun run_with_engine(EngineChoice choice, const Program& program,
                          const std::map<std::string, NdArray>& inputs, const RunOptions& options) {
  EngineRun run;
  const bool automatic = choice == EngineChoice::kAuto;
  if (automatic)
    choice = loop_iterations(program) >= kAutoJitMinIterations && emits_cpp(program)
                 ? EngineChoice::kJit
                 : EngineChoice::kInterp;
  if (choice == EngineChoice::kJit) {
    run.used_jit = true;
    try {
      run.result = jit::run_program(program, inputs, &run.timings);
      return run;
    } catch (const ProgramError& e) {
      // The interpreter stops at the same error and locates it (it throws the Diagnostic).
      t2s::run_program(program, inputs, options);
      throw InternalError("--engine jit: the program stopped with '" + std::string(e.what()) +
                          "', but the interpreter runs it to the end");
    } catch (const JitUnavailable&) {
      if (!automatic) throw;  // auto: the interpreter instead (nothing has run yet)
      run.used_jit = false;
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
