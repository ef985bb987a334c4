// What every fuzz target shares (tests/fuzz/README.md): the outcome classes of one input. A
// located diagnostic (exit 1 in a tool) is a correct answer to a wrong input; anything else that
// escapes (an internal error, a standard exception, a crash caught by the sanitizers) is a
// finding, reported by aborting so that libFuzzer saves the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace t2s::fuzz {

// Runs `body` on a thread with the tools' large stack (libs/cli/tool.h), as the tools do, and
// aborts with a message when it throws anything but a Diagnostic or an IoError.
void run_one_input(const char* target, const std::function<void()>& body);

inline std::string as_text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace t2s::fuzz
