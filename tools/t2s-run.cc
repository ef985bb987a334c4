// t2s-run: executes IR of any stage from `merged` on (a spec or parsed IR is merged first) with
// the reference interpreter (libs/exec), the JIT engine (libs/exec/jit, docs/jit.md) or the
// OpenCL executor (libs/exec/opencl, docs/opencl-executor.md), and optionally checks it against
// the merged stage.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>

#include "libs/cli/tool.h"
#include "libs/exec/interpreter.h"
#include "libs/exec/jit/select.h"
#include "libs/exec/jit/unavailable.h"
#include "libs/exec/opencl/executor.h"
#include "libs/exec/run_support.h"
#include "libs/passes/lower/lower.h"
#include "libs/passes/merge/merge.h"
#include "libs/runtime/file.h"
#include "libs/runtime/options.h"

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-run", "run",
                 "Execute IR of any stage from merged on (a spec or parsed IR is merged first) "
                 "with the reference interpreter or the JIT engine and write or print the realized "
                 "output.");
  tool.add_spec_options();
  tool.add_lowering_options();
  std::vector<std::string> input_specs;
  std::string fill = "sequential";
  uint64_t seed = 0;
  bool print = false, check = false;
  t2s::RunOptions options;
  std::string engine = "auto";
  bool timings = false;
  CLI::App& app = tool.app();
  app.add_option("--input", input_specs,
                 "Data for input NAME from a .npy file (C or Fortran order; indexed arr[x0, x1, "
                 "...] with x0 the first argument); repeatable")
      ->type_name("NAME=FILE.npy")
      ->allow_extra_args(false);
  app.add_option("--fill", fill,
                 "How to generate inputs not given with --input (formulas in the README): "
                 "sequential (the row-major linear index, as T2S's tests) or random")
      ->check(CLI::IsMember({"sequential", "random"}))
      ->default_str("sequential");
  app.add_option("--seed", seed, "Seed of --fill random (an unsigned 64-bit integer)")
      ->default_str("0")
      ->check(t2s::unsigned_64_validator());
  app.add_flag("--print", print,
               "Print every output element as NAME(x0, x1, ...) = VALUE, last index fastest (the "
               "default when there is no -o)");
  std::string stage_text;
  app.add_option("--stage", stage_text,
                 "Run this stage: a spec or IR of an earlier stage is lowered to it first. "
                 "Default: for a spec or parsed IR the last stage (gathered), the one t2s-emit "
                 "emits; IR of a lowered stage runs as it is")
      ->check(CLI::IsMember({"merged", "stt", "vectorized", "gathered"}));
  app.add_flag("--check", check,
               "Also run the merged stage of the same program with the interpreter and fail "
               "(exit 1) on the first element that differs, printing its index and both values; "
               "the run must be of a later stage (a merged run would be compared with itself: "
               "a usage error, exit 2)");
  uint64_t max_memory = t2s::kDefaultMaxRunMemory;
  app.add_option("--max-memory", max_memory,
                 "Refuse (exit 1, before allocating anything) a program whose inputs, buffers "
                 "and shift registers need more than this many bytes")
      ->default_str(std::to_string(t2s::kDefaultMaxRunMemory))
      ->check(t2s::unsigned_64_validator());
  app.add_option("--max-steps", options.max_steps,
                 "Stop with an error after this many statement executions (the interpreter; "
                 "--engine jit runs unbounded)")
      ->default_str("2000000000");
  app.add_option("--engine", engine,
                 "interp: the reference interpreter; jit: compile the program's C++ emulation "
                 "(t2s-emit --target cpp) in process with clang and LLVM's ORC JIT and run it "
                 "(same output bits and errors; --max-steps does not apply; needs clang's and the "
                 "C++ library's headers installed, else exit 1); auto: jit for programs of at "
                 "least " +
                     std::to_string(t2s::jit::kAutoJitMinIterations) +
                     " loop iterations (the kernels' constant extents multiplied), no more than "
                     "--max-steps (a program sure to exceed it stops at the limit), that the JIT "
                     "can run; interp otherwise; opencl: the OpenCL that t2s-emit --target opencl "
                     "writes, run on the CPU (the device code compiled by clang-14's OpenCL C "
                     "front end, Intel channels emulated, every kernel a thread; the host program "
                     "compiled by g++: docs/opencl-executor.md; --max-steps does not apply; "
                     "--check runs the merged stage with the interpreter)")
      ->check(CLI::IsMember({"interp", "jit", "auto", "opencl"}))
      ->default_str("auto");
  int jit_opt_level = t2s::jit::kDefaultJitOptLevel;
  app.add_option("--jit-opt", jit_opt_level,
                 "With the JIT (--engine jit or auto): clang's optimization level, 0 to 3. 0 "
                 "compiles in about 40% of the default's time and runs several times slower, "
                 "for small problems; the output is the same bits at every level")
      ->check(CLI::Range(0, 3))
      ->default_str(std::to_string(t2s::jit::kDefaultJitOptLevel));
  bool profile = false;
  app.add_flag(
      "--profile", profile,
      "With --engine opencl: after each device run, print on standard error a line per "
      "kernel: its cycles and steps as a model of the FPGA's clock counts them (the design's, "
      "the same on every run), its wall time, and per channel it reads or writes its calls and "
      "the cycles they were blocked, so a kernel that starves another shows "
      "(docs/opencl-executor.md)");
  app.add_flag("--timings", timings,
               "Print the engine used and its times to standard error (jit: compiling and "
               "running apart)");
  app.callback([&] {
    // A malformed --input is the command line's fault (exit 2), as in the emulation.
    std::map<std::string, std::string> named;
    for (const std::string& value : input_specs) {
      const std::string message = t2s_rt::add_input_spec(value, named);
      if (!message.empty()) throw CLI::ValidationError(message);
    }
    if (profile && engine != "opencl")
      throw CLI::ValidationError("--profile",
                                 "needs --engine opencl (the emulation's profile: "
                                 "t2s-emit --target cpp --profile)");
  });
  return tool.run(argc, argv, [&] {
    t2s::Program program = tool.read_input_program_or_spec([](t2s::Stage) { return true; }, "");
    // A spec (or parsed IR) runs at the stage t2s-emit emits, the last, unless --stage names
    // another; IR of a lowered stage runs as it is.
    t2s::Stage stage = program.stage == t2s::Stage::kParsed ? t2s::Stage::kGathered : program.stage;
    if (!stage_text.empty()) t2s::stage_from_name(stage_text, &stage);
    if (stage < program.stage)
      throw t2s::UsageError("--stage " + stage_text + ": the input is already at the '" +
                            t2s::stage_name(program.stage) +
                            "' stage (t2s-run lowers its input, never raises it)");
    if (check && stage == t2s::Stage::kMerged)
      throw t2s::UsageError(
          "--check compares the run with the merged stage, and this run is of the merged stage "
          "itself: run a later stage (--stage stt, vectorized or gathered)");
    if (stage != program.stage) program = t2s::lower_to(program, stage, tool.lowering_hooks());
    // A .npy file may be as large as its data; one that does not start like one (/dev/zero) is
    // refused after its first bytes.
    auto read_npy_file = [](const std::string& path) {
      return t2s::read_file_or_stdin(path, t2s_rt::kMaxNpyFileBytes, "\x93NUMPY");
    };
    auto given = t2s::read_input_arrays(input_specs, read_npy_file,
                                        [](const std::string& m) { throw t2s::IoError(m); });
    const bool opencl = engine == "opencl";
    const auto choice = engine == "interp" || opencl ? t2s::jit::EngineChoice::kInterp
                        : engine == "jit"            ? t2s::jit::EngineChoice::kJit
                                                     : t2s::jit::EngineChoice::kAuto;
    const auto memory_limit = static_cast<int64_t>(std::min<uint64_t>(max_memory, INT64_MAX));
    // Before the inputs are generated: they count too (run_with_engine checks again before
    // each run, for the engine it runs).
    t2s::jit::check_engine_memory(t2s::jit::resolve_engine(choice, program, options.max_steps),
                                  program, memory_limit);
    auto kind = fill == "random" ? t2s::FillKind::kRandom : t2s::FillKind::kSequential;
    auto inputs = t2s::complete_inputs(program, given, kind, seed);
    auto run = [&](const t2s::Program& p, const char* what) {
      t2s::jit::EngineRun r;
      try {
        r = t2s::jit::run_with_engine(choice, p, inputs, options, memory_limit, jit_opt_level);
      } catch (const t2s::jit::JitUnavailable& e) {
        throw t2s::IoError(e.what());  // the machine's fault, not the program's: exit 1
      }
      if (timings) t2s::jit::print_timings(what, r, std::cerr);
      return r.result;
    };
    t2s::NdArray result;
    if (opencl) {
      t2s::opencl_exec::Times t;
      t2s::opencl_exec::Options o;
      o.profile = profile;
      std::string profile_lines;
      try {
        result = t2s::opencl_exec::run_opencl(program, inputs, &t, o, &profile_lines);
      } catch (const t2s::opencl_exec::ExecutorUnavailable& e) {
        throw t2s::IoError(e.what());  // the machine's fault, not the program's: exit 1
      }
      std::cerr << profile_lines;
      if (timings)
        std::cerr << "t2s-run: run: engine opencl, build " << t.build_seconds << " s, run "
                  << t.run_seconds << " s\n";
    } else {
      result = run(program, "run");
    }
    if (check) {
      t2s::Program reference = t2s::lower_to(t2s::as_parsed(program), t2s::Stage::kMerged);
      t2s::NdArray expected = run(reference, "check");
      std::cerr << "t2s-run: " << t2s::check_against_reference(program, expected, result) << "\n";
    }
    if (tool.output_path() != "-") tool.write_output(t2s::write_npy(result));
    if (print || tool.output_path() == "-") {
      t2s::print_array(program.output.func, result, std::cout);
      if (!std::cout.flush()) throw t2s::IoError("cannot write to standard output");
    }
  });
}
