#include "libs/exec/jit/run.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <sstream>
#include <vector>

#include "libs/backends/cpp/cpp.h"
#include "libs/exec/jit/engine.h"
#include "libs/ir/diagnostic.h"

namespace t2s::jit {
namespace {

// Put before the emitted program: the runtime's exits (libs/backends/runtime/common.h) become
// an exception that t2s_jit_run catches, so that the program's errors come back to t2s-run
// instead of ending its process; main is renamed so that t2s_jit_run can call it.
constexpr const char* kPrelude = R"(// t2s-run --engine jit: libs/exec/jit/run.cc
#include <string>
struct t2s_jit_exit {
  int status;
  std::string message;
};
#define T2S_RT_EXIT(status) throw t2s_jit_exit{status, ""}
#define T2S_RT_FAIL(message) throw t2s_jit_exit{1, message}
#define main t2s_jit_program_main
)";

// Put after it: the entry t2s-run calls, with a C interface.
constexpr const char* kEntry = R"(
#undef main
extern "C" int t2s_jit_run(int argc, char** argv, void (*report)(void*, const char*),
                           void* context) {
  try {
    return t2s_jit_program_main(argc, argv);
  } catch (const t2s_jit_exit& e) {
    report(context, e.message.c_str());
    return e.status;
  } catch (const std::exception& e) {
    report(context, e.what());
    return 3;
  } catch (...) {
    report(context, "an exception that is not a std::exception");
    return 3;
  }
}
)";

using EntryPoint = int (*)(int, char**, void (*)(void*, const char*), void*);

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A fresh directory of its own under $TMPDIR (or /tmp) for the program's input and output
// files, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/t2s-jit-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!::mkdtemp(buffer.data()))
      throw JitUnavailable("--engine jit: cannot create a temporary directory like " + pattern);
    path_ = buffer.data();
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) throw JitUnavailable("--engine jit: cannot write " + path);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) throw InternalError("--engine jit: the program wrote no output " + path);
  return bytes.str();
}

int64_t saturating_multiply(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > std::numeric_limits<int64_t>::max() / b) return std::numeric_limits<int64_t>::max();
  return a * b;
}

int64_t saturating_add(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

// Innermost iterations of a statement list: 1 for a list of plain statements.
int64_t list_iterations(const StmtList& list) {
  int64_t total = 0;
  bool has_plain_statement = false;
  for (const StmtPtr& s : list) {
    if (const For* loop = s->as<For>()) {
      int64_t extent = 1;
      if (loop->extent && loop->extent->kind == ExprKind::kIntImm)
        extent = std::max<int64_t>(loop->extent->int_value, 0);
      total = saturating_add(total, saturating_multiply(extent, list_iterations(loop->body)));
      continue;
    }
    const Stmt& stmt = *s;
    std::vector<const StmtList*> children = stmt.children();
    if (children.empty()) {
      has_plain_statement = true;
      continue;
    }
    for (const StmtList* child : children) total = saturating_add(total, list_iterations(*child));
  }
  return total == 0 && has_plain_statement ? 1 : total;
}

}  // namespace

bool emits_cpp(const Program& program) {
  try {
    emit_cpp(program);
    return true;
  } catch (const Diagnostic&) {
    return false;
  }
}

int64_t loop_iterations(const Program& program) {
  int64_t total = 0;
  for (const Kernel& kernel : program.kernels)
    total = saturating_add(total, list_iterations(kernel.body));
  return total;
}

NdArray run_program(const Program& program, const std::map<std::string, NdArray>& inputs,
                    Timings* timings) {
  auto start = std::chrono::steady_clock::now();
  std::string source = kPrelude + emit_cpp(program) + kEntry;
  std::unique_ptr<CompiledUnit> unit = compile_unit(source, program.output.func + "_emu.cpp");
  auto entry = reinterpret_cast<EntryPoint>(unit->function("t2s_jit_run"));
  if (timings) timings->compile_seconds = seconds_since(start);

  // Every input goes to the program as a file, so that it reads exactly the arrays the
  // interpreter would (given or generated by complete_inputs).
  TempDir dir;
  std::vector<std::string> args = {"t2s-run"};
  for (const auto& [name, array] : inputs) {
    std::string path = dir.path() + "/input_" + std::to_string(args.size()) + ".npy";
    write_file(path, write_npy(array));
    args.push_back("--input");
    args.push_back(name + "=" + path);
  }
  const std::string output_path = dir.path() + "/output.npy";
  args.push_back("-o");
  args.push_back(output_path);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  start = std::chrono::steady_clock::now();
  std::string message;
  auto report = [](void* context, const char* text) { *static_cast<std::string*>(context) = text; };
  int status = entry(static_cast<int>(args.size()), argv.data(), report, &message);
  if (timings) timings->run_seconds = seconds_since(start);
  if (status == 1) throw ProgramError(message);
  if (status != 0)
    throw InternalError("--engine jit: the program ended with status " + std::to_string(status) +
                        (message.empty() ? "" : ": " + message));
  return read_npy(read_file(output_path), output_path);
}

}  // namespace t2s::jit
