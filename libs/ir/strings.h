// Small string helpers every stage and backend shares.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace t2s {

// "a, b, c" for join({"a", "b", "c"}, ", ").
inline std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

inline std::string join_ints(const std::vector<int64_t>& values, const std::string& separator) {
  std::vector<std::string> parts;
  for (int64_t v : values) parts.push_back(std::to_string(v));
  return join(parts, separator);
}

}  // namespace t2s
