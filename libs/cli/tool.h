// What every t2s tool shares: CLI11 setup, input and output files, diagnostics and exit codes.
//
// Exit codes (DESIGN.md section 5): 0 success; 1 the user's input is wrong (spec or IR, or an
// unreadable input / unwritable output); 2 wrong command line; 3 internal error.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "libs/frontend/frontend.h"
#include "libs/ir/diagnostic.h"
#include "libs/ir/program.h"
#include "libs/ir/source_manager.h"
#include "libs/passes/lower/lower.h"

namespace t2s {

constexpr const char* kToolchainVersion = "0.1.0";

enum ExitCode { kExitOk = 0, kExitUserError = 1, kExitUsage = 2, kExitInternal = 3 };

// Writes `file:line:col: error: message [rule]`, the source line and a caret, then each note
// the same way. Locations are spelled with the display names `sources` knows.
// `severity` is "warning" for a warning (a Diagnostic that does not stop the tool).
void render_diagnostic(const Diagnostic& d, const SourceManager& sources, std::ostream& out,
                       const char* severity = "error");

// An input or output file that cannot be used (exit 1).
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A command line that cannot be carried out, found once the input is read (a flag the input's
// stage rules out, a malformed --input): exit 2, as CLI11's own parse errors.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The largest input file (a spec, an included file, an IR document) a tool reads: 16 MiB, far
// above any real spec or IR (docs/limits.md).
constexpr int64_t kMaxInputBytes = int64_t{16} << 20;

// Reads `path` ("-" = standard input) whole. Throws IoError, also when it is larger than
// `max_bytes` (read no further) or, with `magic`, as t2s_rt::read_file says.
std::string read_file_or_stdin(const std::string& path, int64_t max_bytes = kMaxInputBytes,
                               const std::string& magic = "");
// Writes `text` to `path` ("-" = standard output). A file is written to a temporary file in the
// same directory and renamed into place, so a failed run never leaves a partial or stale
// output. Throws IoError.
void write_file_atomically(const std::string& path, const std::string& text);

// A CLI11 check for an unsigned 64-bit decimal integer (digits only, in range), refused as the
// emulations refuse it: CLI11's own conversion takes "-1" as 2^64 - 1.
CLI::Validator unsigned_64_validator();

// Runs `body` on a thread with a large stack: the IR is a tree, and the passes walk it
// recursively; the parsers cap its depth, and this stack makes those caps safe. Exceptions are
// carried back to the caller. Tool::run runs its body so (and the fuzz targets, tests/fuzz).
void run_with_large_stack(const std::function<void()>& body);

class Tool {
 public:
  // `stage` names the tool's stage in internal-error messages ("parse", "merge", ...).
  Tool(std::string name, std::string stage, std::string description);

  CLI::App& app() { return app_; }
  const std::string& input_path() const { return input_; }
  const std::string& output_path() const { return output_; }
  SourceManager& sources() { return sources_; }

  // Reads the input file (or stdin) and registers it as the main spec in sources().
  std::string read_input_as_spec();
  // Reads an IR document from the input; `accepts` says whether the tool takes its stage.
  Program read_input_program(const std::function<bool(Stage)>& accepts, const char* expected);
  // For tools that read IR of a later stage: adds `--spec FILE` (the spec the IR came from,
  // read only to show its lines in diagnostics), `--spec-lines FILE` (in its place: the lines
  // t2s-parse --spec-lines-out recorded, libs/cli/spec_lines.h) and the front-end options -D,
  // -I and --no-t2s-macros, and accepts a .t2s spec as input in place of parsed IR.
  void add_spec_options();
  // Reads the input: an IR document (anything whose first non-blank character is '{'), or a
  // spec, which is parsed with the front-end options (parse_spec). Diagnostics on spec
  // locations then show the spec's lines, with exact columns.
  Program read_input_program_or_spec(const std::function<bool(Stage)>& accepts,
                                     const char* expected);
  // The front-end options (-D, -I, --no-t2s-macros) as given on the command line.
  FrontendOptions frontend_options() const;
  // Registers the -D, -I and --no-t2s-macros options (t2s-parse, and add_spec_options).
  void add_frontend_options();

  // For tools that lower (t2s-merge, t2s-stt, t2s-vec, t2s-gather, t2s-emit, t2s-run): adds
  // `--dump-after STAGE` (repeatable: the IR of STAGE on standard error as its pass makes it)
  // and `--time-passes` (each pass's wall time on standard error when the run ends).
  void add_lowering_options();
  // The driver's hooks for those options, with `reports` (the vec and gather reports a tool
  // prints) filled in: pass them to lower_to.
  LowerHooks lowering_hooks(const LowerHooks& reports = {});

  // Writes the output; refuses to replace the input file itself (IoError).
  void write_output(const std::string& text);
  // Writes a second output file (`path`, "-" = standard output) the same way.
  void write_output_to(const std::string& path, const std::string& text);
  // Writes several outputs (path, text) of one run: all of them or none (each is prepared in a
  // temporary file first, then all are renamed into place); two outputs at one path, or an
  // output at the input file, are refused (IoError). At most one may be "-".
  void write_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

  // Parses the command line and runs `body`, mapping every outcome to an exit code.
  int run(int argc, char** argv, const std::function<void()>& body);

 private:
  std::string name_;
  std::string stage_;
  CLI::App app_;
  std::string input_ = "-";
  std::string output_ = "-";
  std::string spec_;
  std::string spec_lines_;
  FrontendOptions frontend_;
  bool no_t2s_macros_ = false;
  std::vector<std::string> dump_after_;  // stage names
  std::vector<std::string> dumped_;      // the stages dumped so far
  bool time_passes_ = false;
  std::vector<std::pair<std::string, double>> pass_times_;
  SourceManager sources_;

  // At the end of run(): the pass times (--time-passes) and a note per --dump-after stage that
  // no pass made.
  void report_lowering() const;
};

}  // namespace t2s
