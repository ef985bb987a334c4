// The OpenCL executor behind `t2s-run --engine opencl` (docs/opencl-executor.md): the program's
// OpenCL, as t2s-emit --target opencl writes it (device code and host program), run on the CPU.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

#include "libs/exec/npy_files.h"
#include "libs/ir/program.h"

namespace t2s::opencl_exec {

// The machine cannot run the executor (no C++ compiler, no temporary directory): a user-facing
// error saying what is missing (t2s-run exit 1).
class ExecutorUnavailable : public std::runtime_error {
 public:
  using runtime_error::runtime_error;
};

// What the run took, for t2s-run --timings.
struct Times {
  double build_seconds = 0;  // emitting and compiling the host program
  double run_seconds = 0;    // the host program, with its device code compiled by clang
};

struct Options {
  // Run with the executor's profile (T2S_CL_CPU_PROFILE): `profile` receives its lines.
  bool profile = false;
};

// Emits the program's device code and host program, compiles the host program with g++ and the
// executor's OpenCL (libs/backends/opencl/cpu), runs it with the device code and `inputs` (one
// .npy file each) and returns its output. A Diagnostic from t2s-emit when the program has no
// OpenCL form; a run error of the program (a deadlock, a channel left holding values, an access
// out of bounds) is a Diagnostic of rule `run-opencl` with the host program's message; the
// machine's faults are ExecutorUnavailable. Every file lives in a temporary directory (under
// TMPDIR) removed before returning.
// With options.profile, `profile` (when given) receives the profile's lines: per device run and
// kernel, its cycles and steps, the time it ran, and its calls per channel with the cycles they
// were blocked (docs/opencl-executor.md, "Profile").
NdArray run_opencl(const Program& program, const std::map<std::string, NdArray>& inputs,
                   Times* times = nullptr, const Options& options = {},
                   std::string* profile = nullptr);

}  // namespace t2s::opencl_exec
