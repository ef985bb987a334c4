#include "libs/exec/opencl/executor.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "libs/backends/opencl/cpu/opencl_cpu_source.h"
#include "libs/backends/opencl/opencl.h"
#include "libs/ir/diagnostic.h"
#include "libs/runtime/runtime_source.h"

extern char** environ;

namespace t2s::opencl_exec {
namespace {

namespace fs = std::filesystem;

// A temporary directory, removed with everything in it when this goes.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/t2s-run-opencl.XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!mkdtemp(buffer.data()))
      throw ExecutorUnavailable("cannot create a temporary directory like " + pattern);
    path_ = buffer.data();
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) throw ExecutorUnavailable("cannot write " + path);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs argv (argv[0] looked up on PATH) with stdout and stderr into `log` and TMPDIR set to
// `tmpdir`; its exit status, or -1 when it could not start or was killed.
int run(const std::vector<std::string>& argv, const std::string& log, const std::string& tmpdir,
        bool profile = false) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("TMPDIR=", 0) != 0 &&
        std::string(*e).rfind("T2S_CL_CPU_PROFILE=", 0) != 0)
      env_text.push_back(*e);
  env_text.push_back("TMPDIR=" + tmpdir);
  if (profile) env_text.push_back("T2S_CL_CPU_PROFILE=1");
  std::vector<char*> env;
  for (std::string& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// opencl_cpu.cc as one translation unit: the runtime, the file, and its built-in header text.
std::string executor_source() {
  const std::string header = t2s_cl_cpu_header_source();
  const std::string delimiter = "t2s_cl_cpu_h";
  if (header.find(")" + delimiter + "\"") != std::string::npos)
    throw std::logic_error("t2s_cl_cpu.h contains the raw-string delimiter");
  return std::string(t2s_runtime_source()) + "\n" + t2s_opencl_cpu_source() +
         "\nconst char* t2s_cl_cpu_header_text() {\n  return R\"" + delimiter + "(" + header + ")" +
         delimiter + "\";\n}\n";
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// "PROGRAM: error: MESSAGE" lines of the host program's log, without the prefix.
std::string host_errors(const std::string& log) {
  std::istringstream lines(log);
  std::string line, out;
  while (std::getline(lines, line)) {
    const size_t at = line.find(": error: ");
    if (at == std::string::npos) continue;
    out += (out.empty() ? "" : "; ") + line.substr(at + 9);
  }
  return out;
}

}  // namespace

NdArray run_opencl(const Program& program, const std::map<std::string, NdArray>& inputs,
                   Times* times, const Options& options, std::string* profile) {
  const auto start = std::chrono::steady_clock::now();
  const std::string device = emit_opencl(program);
  const std::string host = emit_opencl_host(program);
  TempDir dir;
  write_file(dir.file("kernel.cl"), device);
  write_file(dir.file("host.cpp"), host);
  write_file(dir.file("opencl_cpu.cc"), executor_source());
  const std::string log = dir.file("build.log");
  const int built =
      run({"g++", "-std=c++17", "-O1", "-ffp-contract=off", "-w", "-pthread", "-rdynamic",
           dir.file("host.cpp"), dir.file("opencl_cpu.cc"), "-o", dir.file("host"), "-ldl"},
          log, dir.path());
  if (built != 0) {
    if (built < 0) throw ExecutorUnavailable("--engine opencl needs g++ on PATH (apt install g++)");
    throw std::logic_error("the emitted OpenCL host program does not compile with the executor:\n" +
                           read_file(log));
  }
  if (times) times->build_seconds = seconds_since(start);
  const auto run_start = std::chrono::steady_clock::now();
  std::vector<std::string> argv = {dir.file("host"), dir.file("kernel.cl")};
  for (const auto& [name, array] : inputs) {
    const std::string path = dir.file("input_" + name + ".npy");
    write_file(path, write_npy(array));
    argv.push_back("--input");
    argv.push_back(name + "=" + path);
  }
  const std::string output = dir.file("output.npy");
  argv.push_back("-o");
  argv.push_back(output);
  const std::string run_log = dir.file("run.log");
  const int status = run(argv, run_log, dir.path(), options.profile);
  if (times) times->run_seconds = seconds_since(run_start);
  const std::string text = read_file(run_log);
  if (profile) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line))
      if (line.rfind("t2s profile: ", 0) == 0) *profile += line + "\n";
  }
  if (status != 0) {
    std::string message = host_errors(text);
    if (message.find("clBuildProgram failed") != std::string::npos ||
        message.find("OpenCL C compiler") != std::string::npos)
      throw ExecutorUnavailable("the OpenCL executor could not compile the device code: " + text);
    if (message.empty())
      message = "the host program ended with status " + std::to_string(status) +
                (text.empty() ? "" : ":\n" + text);
    throw Diagnostic(SourceLoc{}, "the OpenCL run failed: " + message, "run-opencl");
  }
  return read_npy(read_file(output), "the OpenCL run's output");
}

}  // namespace t2s::opencl_exec
