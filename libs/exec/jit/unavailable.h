// The JIT engine cannot work on this machine: its library or LLVM's is missing, the compiler's
// headers are missing, no native target. A user-facing error (t2s-run exit 1) saying what to
// install; `--engine auto` uses the interpreter instead.
#pragma once

#include <stdexcept>

namespace t2s::jit {

class JitUnavailable : public std::runtime_error {
 public:
  using runtime_error::runtime_error;
};

}  // namespace t2s::jit
