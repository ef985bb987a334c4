// libt2s_jit.so: the JIT engine (engine.h) behind the C interface of plugin_abi.h.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#include "libs/exec/jit/engine.h"
#include "libs/exec/jit/plugin_abi.h"

namespace {

void set_message(T2sJitRun* run, const std::string& text) {
  std::snprintf(run->message, sizeof run->message, "%s", text.c_str());
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

using ProgramEntry = int (*)(int, char**, void (*)(void*, const char*), void*);

}  // namespace

extern "C" __attribute__((visibility("default"))) void t2s_jit_compile_and_run_v2(T2sJitRun* run) {
  run->status = kT2sJitInternal;
  run->message[0] = '\0';
  try {
    auto start = std::chrono::steady_clock::now();
    if (run->opt_level < 0 || run->opt_level > 3)
      throw std::invalid_argument("optimization level " + std::to_string(run->opt_level) +
                                  " is not 0 to 3");
    auto unit = t2s::jit::compile_unit(std::string(run->source, run->source_size), run->file_name,
                                       {"-O" + std::to_string(run->opt_level)});
    auto entry = reinterpret_cast<ProgramEntry>(unit->function("t2s_jit_run"));
    run->compile_seconds = seconds_since(start);
    start = std::chrono::steady_clock::now();
    auto report = [](void* context, const char* text) {
      set_message(static_cast<T2sJitRun*>(context), text);
    };
    int status = entry(run->argc, run->argv, report, run);
    run->run_seconds = seconds_since(start);
    if (status == 0) {
      run->status = kT2sJitOk;
    } else if (status == 1) {
      run->status = kT2sJitProgramError;
    } else {
      std::string message = run->message;
      set_message(run, "the program ended with status " + std::to_string(status) +
                           (message.empty() ? "" : ": " + message));
    }
  } catch (const t2s::jit::JitUnavailable& e) {
    run->status = kT2sJitUnavailable;
    set_message(run, e.what());
  } catch (const std::exception& e) {
    set_message(run, e.what());
  } catch (...) {
    set_message(run, "an exception that is not a std::exception");
  }
}
