#include "libs/cli/tool.h"

#include <pthread.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "libs/cli/spec_lines.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/verify.h"
#include "libs/runtime/file.h"
#include "libs/runtime/options.h"

namespace t2s {

namespace {

std::string display(const SourceLoc& loc, const SourceManager& sources) {
  std::string file = sources.display_name(loc.file);
  if (!loc.valid()) return loc.file.empty() && !sources.has("") ? "" : file;
  return file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

void render_one(const char* severity, const SourceLoc& loc, const std::string& message,
                const std::string& rule, const SourceManager& sources, std::ostream& out) {
  std::string where = loc.valid() || !loc.file.empty() ? display(loc, sources) : "";
  if (!where.empty()) out << where << ": ";
  out << severity << ": " << message;
  if (!rule.empty()) out << " [" << rule << "]";
  out << "\n";
  if (!loc.valid()) return;
  std::optional<std::string> line = sources.line(loc.file, loc.line);
  if (!line) return;
  out << *line << "\n";
  // Keep tabs so that the caret lines up under the token however tabs are displayed.
  std::string caret;
  for (int i = 0; i + 1 < loc.col && i < static_cast<int>(line->size()); ++i)
    caret += (*line)[i] == '\t' ? '\t' : ' ';
  out << caret << "^\n";
}

}  // namespace

void render_diagnostic(const Diagnostic& d, const SourceManager& sources, std::ostream& out,
                       const char* severity) {
  render_one(severity, d.loc(), d.message(), d.rule(), sources, out);
  for (const DiagnosticNote& n : d.notes()) render_one("note", n.loc, n.message, "", sources, out);
}

std::string read_file_or_stdin(const std::string& path, int64_t max_bytes,
                               const std::string& magic) {
  // The runtime's reading, which generated programs use for their --input files too.
  std::string bytes;
  std::string error =
      t2s_rt::read_file(path == "-" ? "/dev/stdin" : path, &bytes, max_bytes, magic);
  if (!error.empty()) {
    if (path == "-") error = "cannot read standard input" + error.substr(error.find("':") + 1);
    throw IoError(error);
  }
  return bytes;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) throw IoError("cannot write to standard output");
    return;
  }
  // The runtime's atomic write, with which generated programs write their output too.
  std::string error = t2s_rt::try_write_file_atomically(path, text);
  if (!error.empty()) throw IoError(error);
}

Tool::Tool(std::string name, std::string stage, std::string description)
    : name_(std::move(name)), stage_(std::move(stage)), app_(std::move(description), name_) {
  app_.add_option("input", input_, "Input file, or - for standard input (the default)");
  app_.add_option("-o,--output", output_,
                  "Output file (default: standard output); written atomically, and not at all "
                  "when the tool fails");
  app_.set_version_flag("--version", name_ + " (t2s toolchain) " + kToolchainVersion +
                                         ", IR format " + std::to_string(kIrVersion));
  app_.footer(
      "Exit status: 0 success, 1 error in the input (diagnostics on stderr as "
      "file:line:col: error: message [rule]), 2 wrong command line, 3 internal error.");
}

std::string Tool::read_input_as_spec() {
  std::string text = read_file_or_stdin(input_);
  std::string display_name = input_ == "-" ? "<stdin>" : input_;
  sources_.add("", display_name, text);
  if (input_ != "-") {
    size_t slash = input_.rfind('/');
    sources_.set_base_dir(slash == std::string::npos ? "" : input_.substr(0, slash));
  }
  return text;
}

Program Tool::read_input_program(const std::function<bool(Stage)>& accepts, const char* expected) {
  std::string display_name = input_ == "-" ? "<stdin>" : input_;
  Program p = read_program(read_file_or_stdin(input_), display_name);
  if (!accepts(p.stage))
    throw Diagnostic(
        SourceLoc{display_name, 0, 0},
        name_ + " takes " + expected + " IR, not the '" + stage_name(p.stage) + "' stage", "stage");
  verify_program(p, display_name);
  return p;
}

void Tool::add_frontend_options() {
  app_.add_option("-D,--define", frontend_.preprocess.defines,
                  "Define macro NAME (as 1) or NAME=VALUE before the spec, as cc -D does; "
                  "repeatable")
      ->allow_extra_args(false)
      ->type_name("NAME[=VALUE]");
  app_.add_option("-I,--include-dir", frontend_.preprocess.include_dirs,
                  "Search DIR for #include \"...\" files after the including file's directory; "
                  "repeatable")
      ->allow_extra_args(false)
      ->type_name("DIR");
  app_.add_flag("--no-t2s-macros", no_t2s_macros_,
                "Do not predefine PLACE0 (Place::Host) and PLACE1 (Place::Device), the macros "
                "of T2S's test utilities");
}

FrontendOptions Tool::frontend_options() const {
  FrontendOptions o = frontend_;
  o.t2s_builtin_macros = !no_t2s_macros_;
  o.preprocess.warn = [this](const Diagnostic& d) {
    render_diagnostic(d, sources_, std::cerr, "warning");
  };
  return o;
}

void Tool::add_spec_options() {
  app_.add_option("--spec", spec_,
                  "The spec the input IR was made from; read only to show its lines in "
                  "diagnostics (IR records spec locations as LINE:COL, without the file name). "
                  "Not needed when the input is the spec itself")
      ->type_name("FILE");
  app_.add_option("--spec-lines", spec_lines_,
                  "In place of --spec: the spec lines the IR's locations point at, as "
                  "`t2s-parse --spec-lines-out FILE` wrote them; diagnostics show the same "
                  "lines, and no source file is read (a build system's action then depends on "
                  "the IR and these lines only, not on the spec's comments)")
      ->type_name("FILE")
      ->excludes("--spec");
  add_frontend_options();
}

void Tool::add_lowering_options() {
  app_.add_option("--dump-after", dump_after_,
                  "Print on standard error the IR (JSON, as the stage's tool writes it) of STAGE "
                  "as its pass makes it, after a line `// NAME --dump-after STAGE`; repeatable. "
                  "A stage no pass of this run makes (the input is at or past it, or the run "
                  "stops before it) prints a note instead")
      ->check(CLI::IsMember({"merged", "stt", "vectorized", "gathered"}))
      ->allow_extra_args(false)
      ->type_name("STAGE");
  app_.add_flag("--time-passes", time_passes_,
                "Print on standard error, when the run ends, the wall time of each pass this "
                "run made (the IR verifier's time not included), as LLVM's -time-passes does");
}

LowerHooks Tool::lowering_hooks(const LowerHooks& reports) {
  LowerHooks hooks = reports;
  if (!dump_after_.empty()) {
    hooks.after_pass = [this](const Program& p) {
      const std::string stage = stage_name(p.stage);
      if (std::find(dump_after_.begin(), dump_after_.end(), stage) == dump_after_.end()) return;
      std::cerr << "// " << name_ << " --dump-after " << stage << "\n" << write_program(p);
      dumped_.push_back(stage);
    };
  }
  if (time_passes_) {
    hooks.pass_timed = [this](const char* pass, double seconds) {
      pass_times_.emplace_back(pass, seconds);
    };
  }
  return hooks;
}

void Tool::report_lowering() const {
  for (const std::string& stage : dump_after_) {
    if (std::find(dumped_.begin(), dumped_.end(), stage) == dumped_.end())
      std::cerr << name_ << ": note: --dump-after " << stage << ": no pass of this run made the "
                << stage << " stage\n";
  }
  if (!time_passes_) return;
  std::ostringstream out;
  out << name_ << ": pass times (wall clock; the IR verifier's not included):\n";
  double total = 0;
  char line[96];
  for (const auto& [pass, seconds] : pass_times_) {
    std::snprintf(line, sizeof line, "  %-8s %10.3f ms\n", pass.c_str(), seconds * 1e3);
    out << line;
    total += seconds;
  }
  if (pass_times_.empty()) out << "  (no pass ran)\n";
  std::snprintf(line, sizeof line, "  %-8s %10.3f ms\n", "total", total * 1e3);
  out << line;
  std::cerr << out.str();
}

Program Tool::read_input_program_or_spec(const std::function<bool(Stage)>& accepts,
                                         const char* expected) {
  std::string display_name = input_ == "-" ? "<stdin>" : input_;
  std::string text = read_file_or_stdin(input_);
  size_t first = text.find_first_not_of(" \t\r\n");
  // An empty spec is legal for t2s-parse, but a tool reading IR or a spec from a pipe most
  // likely got nothing because the tool before it failed: say so instead of "no realize call".
  if (first == std::string::npos)
    throw Diagnostic(SourceLoc{display_name, 0, 0},
                     "the input is empty; " + name_ + " takes a spec or " +
                         (*expected ? std::string(expected) + " IR" : "IR of any stage") +
                         " (in a pipe, the tool before this one may have failed)",
                     "input-empty");
  if (text[first] == '{') {
    if (!spec_.empty()) {
      sources_.add("", spec_, read_file_or_stdin(spec_));
      size_t slash = spec_.rfind('/');
      sources_.set_base_dir(slash == std::string::npos ? "" : spec_.substr(0, slash));
    }
    if (!spec_lines_.empty())
      read_spec_lines(read_file_or_stdin(spec_lines_), spec_lines_, &sources_);
    Program p = read_program(text, display_name);
    if (!accepts(p.stage))
      throw Diagnostic(
          SourceLoc{display_name, 0, 0},
          name_ + " takes " + expected + " IR, not the '" + stage_name(p.stage) + "' stage",
          "stage");
    verify_program(p, display_name);
    return p;
  }
  sources_.add("", display_name, text);
  if (input_ != "-") {
    size_t slash = input_.rfind('/');
    sources_.set_base_dir(slash == std::string::npos ? "" : input_.substr(0, slash));
  }
  return parse_spec(sources_, frontend_options());
}

void Tool::write_output(const std::string& text) { write_output_to(output_, text); }

void Tool::write_output_to(const std::string& path, const std::string& text) {
  write_outputs({{path, text}});
}

namespace {

// The file `path` names, as (device, inode) of its own or, for a file that does not exist yet,
// of its directory plus its name; "" when neither can be found.
std::string file_identity(const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) == 0)
    return std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino);
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  if (stat(dir.c_str(), &info) != 0) return "";
  return std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino) + "/" +
         path.substr(slash == std::string::npos ? 0 : slash + 1);
}

}  // namespace

void Tool::write_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  const std::string input = input_ == "-" ? "" : file_identity(input_);
  std::vector<std::string> seen;
  for (const auto& [path, text] : outputs) {
    if (path == "-") continue;
    const std::string id = file_identity(path);
    if (!input.empty() && id == input)
      throw IoError("the output '" + path + "' is the input file; refusing to overwrite it");
    if (!id.empty() && std::find(seen.begin(), seen.end(), id) != seen.end())
      throw IoError("'" + path + "' is given for two outputs of one run; refusing to write either");
    seen.push_back(id);
  }
  std::vector<t2s_rt::PreparedWrite> prepared(outputs.size());
  auto discard = [&] {
    for (auto& w : prepared) t2s_rt::discard_write(w);
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].first == "-") continue;
    std::string error = t2s_rt::prepare_write(outputs[i].first, outputs[i].second, &prepared[i]);
    if (!error.empty()) {
      discard();
      throw IoError(error);
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].first == "-") {
      write_file_atomically("-", outputs[i].second);
      continue;
    }
    std::string error = t2s_rt::commit_write(prepared[i]);
    if (!error.empty()) {
      discard();
      throw IoError(error);
    }
  }
}

void run_with_large_stack(const std::function<void()>& body) {
  struct Task {
    const std::function<void()>* body;
    std::exception_ptr error;
  } task{&body, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t{1} << 30);  // reserved, committed only when used
  pthread_t thread;
  auto entry = [](void* arg) -> void* {
    auto* t = static_cast<Task*>(arg);
    try {
      (*t->body)();
    } catch (...) {
      t->error = std::current_exception();
    }
    return nullptr;
  };
  if (pthread_create(&thread, &attr, entry, &task) != 0) {
    pthread_attr_destroy(&attr);
    body();  // no thread to be had: run on this one
    return;
  }
  pthread_attr_destroy(&attr);
  pthread_join(thread, nullptr);
  if (task.error) std::rethrow_exception(task.error);
}

int Tool::run(int argc, char** argv, const std::function<void()>& body) {
  try {
    app_.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app_.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app_.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << name_ << ": error: " << e.what() << "\n"
              << "Run '" << name_ << " --help' for the options.\n";
    return kExitUsage;
  }
  // The lowering report (--time-passes, --dump-after notes) after the run, whatever its end.
  struct ReportAtEnd {
    const Tool& tool;
    ~ReportAtEnd() { tool.report_lowering(); }
  } report_at_end{*this};
  try {
    run_with_large_stack(body);
    return kExitOk;
  } catch (const Diagnostic& d) {
    render_diagnostic(d, sources_, std::cerr);
    return kExitUserError;
  } catch (const IoError& e) {
    std::cerr << name_ << ": error: " << e.what() << "\n";
    return kExitUserError;
  } catch (const UsageError& e) {
    std::cerr << name_ << ": error: " << e.what() << "\n"
              << "Run '" << name_ << " --help' for the options.\n";
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << name_ << ": internal error in stage '" << stage_
              << "': out of memory (this is a bug: no input should need this much)\n";
    return kExitInternal;
  } catch (const std::exception& e) {
    std::cerr << name_ << ": internal error in stage '" << stage_ << "': " << e.what()
              << " (this is a bug in the t2s toolchain; please report it with the input)\n";
    return kExitInternal;
  }
}

CLI::Validator unsigned_64_validator() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        uint64_t parsed = 0;
        return t2s_rt::parse_uint64(value, &parsed)
                   ? ""
                   : "'" + value + "' is not an unsigned 64-bit integer";
      },
      "");
}

}  // namespace t2s
