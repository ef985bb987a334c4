#include "libs/exec/jit/run.h"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <vector>

#include "libs/backends/cpp/cpp.h"
#include "libs/exec/jit/plugin_abi.h"
#include "libs/exec/jit/unavailable.h"
#include "libs/ir/diagnostic.h"
#include "libs/ir/saturating.h"
#include "libs/ir/stmt_visitor.h"

namespace t2s::jit {
namespace {

// Put before the emitted program: the runtime's exits (libs/runtime/common.h) become
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

std::string executable_path() {
  std::vector<char> buffer(4096);
  ssize_t n = ::readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
  return n > 0 ? std::string(buffer.data(), static_cast<size_t>(n)) : "";
}

// Where libt2s_jit.so may be: T2S_JIT_LIBRARY names it; else the runfiles of the running tool
// or test (Bazel puts it there as a data dependency of t2s-run), bazel-bin's layout (tools/ and
// libs/exec/jit/ side by side), or the directory of the executable (an installed copy).
std::vector<std::string> library_candidates() {
  if (const char* env = std::getenv("T2S_JIT_LIBRARY"); env && *env) return {env};
  const std::string relative = std::string("/t2s/libs/exec/jit/") + T2S_JIT_LIBRARY;
  std::vector<std::string> candidates;
  const std::string exe = executable_path();
  if (!exe.empty()) candidates.push_back(exe + ".runfiles" + relative);
  for (const char* var : {"RUNFILES_DIR", "TEST_SRCDIR"})
    if (const char* dir = std::getenv(var); dir && *dir) candidates.push_back(dir + relative);
  if (!exe.empty()) {
    const std::string dir = exe.substr(0, exe.rfind('/'));
    candidates.push_back(dir + "/../libs/exec/jit/" + T2S_JIT_LIBRARY);
    candidates.push_back(dir + "/" + T2S_JIT_LIBRARY);
  }
  return candidates;
}

// The engine's entry, loaded once. RTLD_GLOBAL: the JIT'd code resolves the C++ runtime's
// symbols in the process's global scope, where the library's libstdc++.so.6 then is.
T2sJitCompileAndRun load_engine() {
  static T2sJitCompileAndRun entry = nullptr;
  static std::string refusal;
  static bool tried = false;
  if (tried) {
    if (!entry) throw JitUnavailable(refusal);
    return entry;
  }
  tried = true;
  std::string looked;
  for (const std::string& path : library_candidates()) {
    if (::access(path.c_str(), R_OK) != 0) {
      looked += (looked.empty() ? "" : ", ") + path;
      continue;
    }
    void* library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!library) {
      const char* why = ::dlerror();
      refusal = "--engine jit: cannot load " + path + ": " + (why ? why : "dlopen failed") +
                " (install libllvm14 and libclang-cpp14); use --engine interp";
      throw JitUnavailable(refusal);
    }
    entry = reinterpret_cast<T2sJitCompileAndRun>(::dlsym(library, T2S_JIT_ENTRY));
    if (!entry) {
      refusal = "--engine jit: " + path + " has no " + T2S_JIT_ENTRY + " (another version)";
      throw JitUnavailable(refusal);
    }
    return entry;
  }
  refusal = std::string("--engine jit: the engine's library ") + T2S_JIT_LIBRARY +
            " is not installed (looked for " + looked + "; T2S_JIT_LIBRARY names it)";
  throw JitUnavailable(refusal);
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

// Innermost iterations of a statement list: 1 for a list of plain statements.
int64_t list_iterations(const StmtList& list) {
  int64_t total = 0;
  bool has_plain_statement = false;
  for (const StmtPtr& s : list) {
    // A let, an if or a realize: the iterations of its nested lists.
    const auto nested = [&] {
      for (const StmtList* child : s->children())
        total = saturating_add(total, list_iterations(*child));
    };
    const auto plain = [&] { has_plain_statement = true; };
    match_stmt(
        *s,
        [&](const For& loop) {
          int64_t extent = 1;
          if (loop.extent && loop.extent->kind == ExprKind::kIntImm)
            extent = std::max<int64_t>(loop.extent->int_value, 0);
          total = saturating_add(total, saturating_mul(extent, list_iterations(loop.body)));
        },
        [&](const LetStmt&) { nested(); }, [&](const IfThenElse&) { nested(); },
        [&](const Provide&) { plain(); }, [&](const Alloc&) { plain(); },
        [&](const WriteChannel&) { plain(); }, [&](const Realize&) { nested(); },
        [&](const Shift&) { plain(); }, [&](const Push&) { plain(); });
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
                    Timings* timings, int opt_level) {
  auto start = std::chrono::steady_clock::now();
  const std::string source = kPrelude + emit_cpp(program) + kEntry;
  const std::string file_name = program.output.func + "_emu.cpp";
  T2sJitCompileAndRun engine = load_engine();
  const double emit_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

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

  auto run = std::make_unique<T2sJitRun>();
  run->source = source.data();
  run->source_size = source.size();
  run->file_name = file_name.c_str();
  run->argc = static_cast<int>(args.size());
  run->argv = argv.data();
  run->opt_level = opt_level;
  engine(run.get());
  if (timings) {
    timings->compile_seconds = emit_seconds + run->compile_seconds;
    timings->run_seconds = run->run_seconds;
  }
  switch (run->status) {
    case kT2sJitOk:
      break;
    case kT2sJitProgramError:
      throw ProgramError(run->message);
    case kT2sJitUnavailable:
      throw JitUnavailable(run->message);
    default:
      throw InternalError(std::string("--engine jit: ") + run->message);
  }
  return read_npy(read_file(output_path), output_path);
}

}  // namespace t2s::jit
