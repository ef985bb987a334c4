// Source locations and diagnostics shared by every library and tool.
//
// A location names a file, a line and a column (both 1-based). The main spec file is recorded
// with an empty file name, so that the IR of a spec does not depend on how the spec was named on
// the command line (`t2s-parse spec.t2s` and `t2s-parse - < spec.t2s` give the same bytes).
// Files reached through `#include` keep their path relative to the main spec's directory.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace t2s {

struct SourceLoc {
  std::string file;  // "" = the main spec file
  int line = 0;      // 0 = unknown location
  int col = 0;

  bool valid() const { return line > 0; }
  // "L:C" for the main file, "path:L:C" otherwise, "" when unknown. The IR's `loc` spelling.
  std::string str() const;
  // Inverse of str(); throws std::invalid_argument on a malformed spelling.
  static SourceLoc parse(const std::string& text);
  bool operator==(const SourceLoc& o) const {
    return file == o.file && line == o.line && col == o.col;
  }
  bool operator!=(const SourceLoc& o) const { return !(*this == o); }
};

struct DiagnosticNote {
  SourceLoc loc;
  std::string message;
};

// An error in the user's input (a spec or an IR document): exit status 1.
class Diagnostic : public std::runtime_error {
 public:
  Diagnostic(SourceLoc loc, std::string message, std::string rule)
      : std::runtime_error(message),
        loc_(std::move(loc)),
        message_(std::move(message)),
        rule_(std::move(rule)) {}

  const SourceLoc& loc() const { return loc_; }
  const std::string& message() const { return message_; }
  const std::string& rule() const { return rule_; }
  const std::vector<DiagnosticNote>& notes() const { return notes_; }
  Diagnostic& add_note(SourceLoc loc, std::string message) {
    notes_.push_back({std::move(loc), std::move(message)});
    return *this;
  }

 private:
  SourceLoc loc_;
  std::string message_;
  std::string rule_;
  std::vector<DiagnosticNote> notes_;
};

// A bug in the toolchain, not in the user's input: exit status 3.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& message) : std::logic_error(message) {}
};

}  // namespace t2s
