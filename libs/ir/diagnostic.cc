#include "libs/ir/diagnostic.h"

#include <cstdlib>

namespace t2s {

std::string SourceLoc::str() const {
  if (!valid()) return file;  // a whole file (an IR document), or nothing
  std::string lc = std::to_string(line) + ":" + std::to_string(col);
  return file.empty() ? lc : file + ":" + lc;
}

namespace {
bool parse_positive(const std::string& s, int* out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  *out = std::atoi(s.c_str());
  return *out > 0;
}
}  // namespace

SourceLoc SourceLoc::parse(const std::string& text) {
  SourceLoc loc;
  if (text.empty()) return loc;
  size_t last = text.rfind(':');
  if (last == std::string::npos) throw std::invalid_argument("malformed location '" + text + "'");
  size_t prev = last == 0 ? std::string::npos : text.rfind(':', last - 1);
  std::string line_text =
      prev == std::string::npos ? text.substr(0, last) : text.substr(prev + 1, last - prev - 1);
  if (!parse_positive(line_text, &loc.line) || !parse_positive(text.substr(last + 1), &loc.col))
    throw std::invalid_argument("malformed location '" + text + "'");
  if (prev != std::string::npos) {
    loc.file = text.substr(0, prev);
    if (loc.file.empty()) throw std::invalid_argument("malformed location '" + text + "'");
  }
  return loc;
}

}  // namespace t2s
