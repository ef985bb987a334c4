// Test aid: .npy files built by hand, for the tests of the readers (libs/exec, the runtime).
#pragma once

#include <cstddef>
#include <string>

namespace t2s {

// A .npy file around a hand-written header, without numpy's padding (readers must not need it).
inline std::string npy_with_header(const std::string& header, const std::string& data,
                                   int major = 1) {
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  size_t length_bytes = major == 1 ? 2 : 4;
  for (size_t i = 0; i < length_bytes; ++i) out += static_cast<char>(header.size() >> (8 * i));
  return out + header + data;
}

}  // namespace t2s
