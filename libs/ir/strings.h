// Small string helpers every stage and backend shares.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
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

// The decimal integer `text` spells in full ("42", "-7"; no sign '+', no spaces), into *value.
// False, with *value unchanged, for anything else and for a number outside int64_t: the one
// checked decoder of the integers that IR fields, directive arguments and emitted attributes
// spell (std::stoll throws on overflow, and accepts "12abc").
inline bool parse_int64(std::string_view text, int64_t* value) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, v);
  if (text.empty() || error != std::errc() || ptr != end) return false;
  *value = v;
  return true;
}

}  // namespace t2s
