// common.h: what every part of the runtime (t2s_runtime.h) shares: fail() and the state of the
// kernel group the current thread runs for. Arrays hold their elements little endian.
#pragma once

#include <cstdlib>
#include <iostream>
#include <string>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "t2s_runtime.h keeps array data little endian as host values"
#endif

namespace t2s_rt {

// ---------------------------------------------------------------------------------------------
// Errors

namespace detail {

inline std::string& program_name() {
  static std::string name = "t2s-program";
  return name;
}

// Thrown by fail() on a kernel thread of a running group: the group reports it (Threads).
struct KernelFailure {
  std::string message;
};

// Thrown to unwind a kernel thread that the group has stopped (another kernel's error or a
// deadlock); not an error of its own.
struct Stopped {};

struct Member;
// The kernel the current thread runs for a Threads group; null outside any group.
inline thread_local Member* current_member = nullptr;

}  // namespace detail

// T2S_RT_EXIT(status) ends the program where the runtime would call std::exit, and
// T2S_RT_FAIL(message), when defined, replaces fail()'s report and exit on the main thread:
// t2s-run's JIT engine (libs/exec/jit) runs a program's main in its own process and must get
// control back.
#ifndef T2S_RT_EXIT
#define T2S_RT_EXIT(status) std::exit(status)
#endif

// Prints `PROGRAM: error: MESSAGE` to stderr and exits with status 1. On a kernel thread of a
// running Threads group, the group stops and reports the message instead, once its threads have
// ended (so that no thread outlives the report).
[[noreturn]] inline void fail(const std::string& message) {
  if (detail::current_member) throw detail::KernelFailure{message};
#ifdef T2S_RT_FAIL
  T2S_RT_FAIL(message);
#endif
  std::cout.flush();
  std::cerr << detail::program_name() << ": error: " << message << "\n";
  std::cerr.flush();
  T2S_RT_EXIT(1);
}

// The rules other layers call (libs/exec, libs/cli, the OpenCL executor): their public names.
using detail::current_member;
using detail::Member;
using detail::Stopped;

}  // namespace t2s_rt
