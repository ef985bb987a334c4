// Keeps the text of every source file a tool has read, so that diagnostics can show the
// offending line. The main spec is registered under the empty name (see SourceLoc).
#pragma once

#include <map>
#include <optional>
#include <string>

namespace t2s {

class SourceManager {
 public:
  // Registers `text` under `name` ("" for the main spec). `display_name` is how diagnostics
  // spell the file (the path as the user gave it, or "<stdin>").
  void add(const std::string& name, const std::string& display_name, std::string text);
  // Registers only some lines of file `name` (line number -> text, without newline), as a
  // spec-lines file records them: line() answers from these and never reads the file.
  void add_lines(const std::string& name, const std::string& display_name,
                 std::map<int, std::string> lines);
  // Never read a file from disk: a line of a file not registered is unknown. A tool given a
  // spec-lines file uses no other source text, so that it reads only its declared inputs.
  void disable_file_reads() { read_files_ = false; }
  // Directory against which relative names of included files are resolved ("" = cwd).
  void set_base_dir(std::string dir) { base_dir_ = std::move(dir); }
  const std::string& base_dir() const { return base_dir_; }

  bool has(const std::string& name) const { return files_.count(name) > 0; }
  const std::string* text(const std::string& name) const;
  // The display name of `name` (falls back to `name`, or "<spec>" for the unnamed main file).
  std::string display_name(const std::string& name) const;
  // Line `line` (1-based) of file `name`, without its newline; nullopt when not known. Files
  // not registered are read from disk (relative to base_dir) on first use.
  std::optional<std::string> line(const std::string& name, int line) const;

 private:
  struct File {
    std::string display_name;
    std::string text;
    bool partial = false;  // only `lines` are known (add_lines)
    std::map<int, std::string> lines;
  };
  std::string base_dir_;
  bool read_files_ = true;
  mutable std::map<std::string, File> files_;
};

}  // namespace t2s
