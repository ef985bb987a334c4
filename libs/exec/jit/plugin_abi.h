// The C interface between t2s-run and its JIT engine's shared library, libt2s_jit.so (plugin.cc:
// engine.h behind a C function), which t2s-run loads with dlopen only when it runs a program
// with the JIT (run.cc). t2s-run links the C++ runtime statically and the library links it as a
// shared library (as LLVM does): no C++ object or exception crosses this interface.
#pragma once

#include <stddef.h>

extern "C" {

enum T2sJitStatus {
  kT2sJitOk = 0,
  kT2sJitProgramError = 1,  // the program stopped with a run-time error: `message`
  kT2sJitUnavailable = 2,   // the engine cannot work here (headers missing): `message`
  kT2sJitInternal = 3,      // a bug: `message`
};

struct T2sJitRun {
  // In: a C++17 program (run.cc's wrapping of emit_cpp) with the entry
  // `extern "C" int t2s_jit_run(int, char**, void (*)(void*, const char*), void*)`.
  const char* source;
  size_t source_size;
  const char* file_name;  // for diagnostics
  int argc;
  char** argv;
  int opt_level;  // clang's -O level, 0 to 3 (t2s-run --jit-opt)
  // Out.
  int status;  // a T2sJitStatus
  char message[8192];
  double compile_seconds;
  double run_seconds;
};

// Compiles `run->source` in process, calls its t2s_jit_run(argc, argv) and fills the results.
typedef void (*T2sJitCompileAndRun)(T2sJitRun* run);
}

// The library's file name and its entry's symbol (versioned with this interface).
#define T2S_JIT_LIBRARY "libt2s_jit.so"
#define T2S_JIT_ENTRY "t2s_jit_compile_and_run_v2"
