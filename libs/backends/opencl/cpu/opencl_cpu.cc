// opencl_cpu.cc: the OpenCL host API calls an emitted host program makes, implemented on the
// CPU, with Intel's channel extension (docs/opencl-executor.md). Linked into the host program in
// place of libOpenCL; the host program is not changed.
//
//   - The "binary" the host program loads (KERNEL.aocx on a board) is the device code's OpenCL C
//     source, KERNEL.cl. clBuildProgram compiles it for the CPU with clang's OpenCL C front end
//     (clang-14, else clang, on PATH; the environment variable T2S_CL_CPU_CLANG names another)
//     and t2s_cl_cpu.h (its text is built in: t2s_cl_cpu_header_text) into a shared object,
//     loads it, and finds its kernels and channels.
//   - Channels: every program-scope `channel T name[d0]...` of the source is an array of FIFOs
//     (t2s_rt::Fifo) of its declared depth, one value of sizeof(T) bytes each; depth 0 (no depth
//     attribute) holds one value, as t2s-run's channels do: aoc sizes such a channel itself, and
//     one value is the least any depth gives, so a design that runs here runs with any depth.
//     The device code calls t2s_cl_cpu_read / _write (and _nb) with the element's address.
//   - Kernels run as they do on the FPGA: clEnqueueTask queues a single work-item kernel, and
//     the queued kernels and every autorun kernel of the program run concurrently, one thread
//     each (t2s_rt::Threads), once the host waits for one of them (clFinish, or a blocking
//     transfer). An autorun kernel runs again each time it returns; the group ends when the
//     queued kernels have finished and every autorun kernel waits for data. A deadlock, a
//     channel left holding values and a failed kernel are reported as t2s-run reports them, and
//     the program exits 1.
//   - Profile: with T2S_CL_CPU_PROFILE set (t2s-run --engine opencl --profile), each device run
//     ends with a line per kernel on stderr: its cycles and steps, as a model of the FPGA's
//     clock counts them, and per channel it reads or writes, its calls and the cycles they were
//     blocked (print_profile).
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "libs/runtime/t2s_runtime.h"

extern char** environ;

// The text of t2s_cl_cpu.h (a generated source: embed.sh).
const char* t2s_cl_cpu_header_text();

struct _cl_platform_id {};
struct _cl_device_id {};
struct _cl_context {};
struct _cl_command_queue {};
struct _cl_mem {
  std::vector<unsigned char> data;
};
struct _cl_program;
struct _cl_kernel {
  _cl_program* program = nullptr;
  std::string name;
  void* function = nullptr;
  std::vector<void*> args;
};

namespace {

using Blob = std::vector<unsigned char>;

// One channel of the device code: its FIFOs, Fortran order over `dims` (the declaration lists
// the dimensions outermost first, C order; both orders index the same elements, as
// `ch[i][j]` is element (j, i) of a Fortran-ordered array of dims (d1, d0)).
struct Channel {
  std::string name;
  size_t element_bytes = 0;
  const unsigned char* base = nullptr;
  size_t count = 1;
  std::unique_ptr<t2s_rt::FifoArray<Blob>> fifos;
  std::vector<int64_t> dims;  // Fortran order
};

_cl_platform_id the_platform;
_cl_device_id the_device;
_cl_context the_context;

}  // namespace

struct _cl_program {
  std::string source;
  std::string build_log;
  std::string dir;  // the temporary directory of the compiled object
  void* library = nullptr;
  std::vector<Channel> channels;
  std::vector<std::string> autorun;  // kernels, in source order
  std::vector<_cl_kernel*> queued;   // enqueued and not yet run
  ~_cl_program() {
    if (library) dlclose(library);
    if (!dir.empty()) {
      std::remove((dir + "/kernel.cl").c_str());
      std::remove((dir + "/kernel.so").c_str());
      std::remove((dir + "/t2s_cl_cpu.h").c_str());
      std::remove((dir + "/build.log").c_str());
      rmdir(dir.c_str());
    }
  }
};

namespace {

_cl_program* the_program = nullptr;  // the program whose channels the device code uses

// The channel element at `address`, checked to hold values of `bytes` bytes; `channel`, when
// given, is set to the channel's name.
t2s_rt::Fifo<Blob>& element_at(const void* address, unsigned long bytes,
                               const std::string** channel = nullptr) {
  const auto* a = static_cast<const unsigned char*>(address);
  if (the_program)
    for (Channel& c : the_program->channels) {
      if (a < c.base || a >= c.base + c.element_bytes * c.count) continue;
      const size_t offset = static_cast<size_t>(a - c.base);
      if (offset % c.element_bytes != 0 || bytes != c.element_bytes)
        t2s_rt::fail("channel '" + c.name + "' accessed with a value of " + std::to_string(bytes) +
                     " bytes; its elements have " + std::to_string(c.element_bytes));
      if (channel) *channel = &c.name;
      return c.fifos->at_linear(static_cast<int64_t>(offset / c.element_bytes));
    }
  t2s_rt::fail("the device code reads or writes a channel at an address that is no channel");
}

// ---- The profile (T2S_CL_CPU_PROFILE set and not empty) ----
// Cycles, counted by a model of the FPGA's clock that the run itself drives, so the counts are
// the design's, the same on every run (docs/opencl-executor.md, "Profile"):
//   - a kernel starts at cycle 0 and issues one step (an iteration of an innermost loop that is
//     not fully unrolled: the loop pipelined with II 1) per cycle; t2s_cl_cpu_step() marks a
//     step (with_step_counters puts the calls into the device code);
//   - a channel call stalls its kernel until the value is there (a value written at cycle t can
//     be read from t + 1), or until there is room (the k-th write waits for the read of value
//     k - depth, and comes a cycle after it), and a FIFO's end takes one call a cycle;
//   - a call's stall, in cycles, is counted as blocked on its channel.
// Per kernel, the cycles and steps, the wall time it ran, and per channel and direction its
// calls and the cycles they were blocked; printed on stderr after each device run, a line per
// kernel, the kernels in the order they were run.
struct Traffic {
  int64_t calls = 0;
  int64_t blocked_cycles = 0;
};
struct KernelProfile {
  double run_seconds = 0;
  int64_t now = 0;  // the cycle of the kernel's current step or call
  int64_t steps = 0;
  bool started = false;  // a step or a call has been made
  // A step begun and not yet shown to be made: it is once the kernel calls a channel, begins
  // another step or returns. An autorun kernel's last step, begun before it waits for data
  // that never comes, is not counted.
  bool step_begun = false;
  bool autorun = false;
  void make_begun_step() {
    if (!step_begun) return;
    step_begun = false;
    if (started) ++now;
    started = true;
    ++steps;
  }
  std::map<const void*, int64_t> ports;  // per FIFO: the cycle of the kernel's last call on it
  std::map<std::pair<std::string, bool>, Traffic> channels;  // (channel, is a write)
};
// Per FIFO: the cycles of its reads that writes still wait for (read k - depth gives room for
// write k).
struct FifoClock {
  int64_t writes = 0;
  int64_t reads = 0;
  int64_t first_kept_read = 0;
  std::deque<int64_t> read_cycles;  // reads first_kept_read, first_kept_read + 1, ...
};
constexpr size_t kStampBytes = sizeof(int64_t);  // a value's write cycle, after its bytes
std::mutex profile_mutex;
std::deque<std::pair<std::string, KernelProfile>> profile;  // this device run (stable references)
std::map<const void*, FifoClock> fifo_clocks;               // this device run
bool profiling() {
  static const bool on = [] {
    const char* v = std::getenv("T2S_CL_CPU_PROFILE");
    return v && *v;
  }();
  return on;
}
KernelProfile& profile_of(const std::string& kernel) {
  for (auto& [name, p] : profile)
    if (name == kernel) return p;
  profile.emplace_back(kernel, KernelProfile{});
  return profile.back().second;
}
KernelProfile& current_profile() {
  const t2s_rt::Member* m = t2s_rt::current_member;
  return profile_of(m ? m->name : "(host)");
}
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
// A channel call of the current kernel on `fifo`, possible from cycle `ready` on (the value's
// or the room's); called with the value moving (under the channel lock). Returns its cycle.
int64_t clock_call(const t2s_rt::Fifo<Blob>& fifo, const std::string& channel, bool write,
                   int64_t ready) {
  std::lock_guard<std::mutex> lock(profile_mutex);
  KernelProfile& k = current_profile();
  k.make_begun_step();
  k.started = true;
  int64_t& port = k.ports.try_emplace(&fifo, -1).first->second;
  const int64_t cycle = std::max({k.now, port + 1, ready});
  Traffic& t = k.channels[{channel, write}];
  ++t.calls;
  t.blocked_cycles += cycle - k.now;
  k.now = port = cycle;
  return cycle;
}
// Stamps a value written to `fifo` with its write cycle.
void clock_write(const t2s_rt::Fifo<Blob>& fifo, const std::string& channel, Blob& value) {
  int64_t room = 0;
  {
    std::lock_guard<std::mutex> lock(profile_mutex);
    FifoClock& f = fifo_clocks[&fifo];
    const int64_t k = f.writes++, freed_by = k - static_cast<int64_t>(fifo.capacity());
    if (freed_by >= 0) {
      // The FIFO has room, so read `freed_by` has been made (and clocked, under the same lock).
      room = f.read_cycles.at(static_cast<size_t>(freed_by - f.first_kept_read)) + 1;
      while (f.first_kept_read <= freed_by) {
        f.read_cycles.pop_front();
        ++f.first_kept_read;
      }
    }
  }
  const int64_t cycle = clock_call(fifo, channel, true, room);
  value.resize(value.size() + kStampBytes);
  std::memcpy(value.data() + value.size() - kStampBytes, &cycle, kStampBytes);
}
// Clocks a value read from `fifo` (stamped by clock_write).
void clock_read(const t2s_rt::Fifo<Blob>& fifo, const std::string& channel, const Blob& value) {
  int64_t written = 0;
  std::memcpy(&written, value.data() + value.size() - kStampBytes, kStampBytes);
  const int64_t cycle = clock_call(fifo, channel, false, written + 1);
  std::lock_guard<std::mutex> lock(profile_mutex);
  FifoClock& f = fifo_clocks[&fifo];
  ++f.reads;
  f.read_cycles.push_back(cycle);
}
std::string milliseconds(double seconds) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(3);
  s << seconds * 1000 << " ms";
  return s.str();
}
void print_profile(int run) {
  std::lock_guard<std::mutex> lock(profile_mutex);
  for (auto& [kernel, p] : profile) {
    if (!p.autorun) p.make_begun_step();
    std::string line = "t2s profile: device run " + std::to_string(run) + ": kernel '" + kernel +
                       "': " + std::to_string(p.started ? p.now + 1 : 0) + " cycles, " +
                       std::to_string(p.steps) + " steps (ran " + milliseconds(p.run_seconds) + ")";
    for (const auto& [key, t] : p.channels)
      line += std::string("; ") + (key.second ? "writes" : "reads") + " '" + key.first + "' " +
              std::to_string(t.calls) + " (blocked " + std::to_string(t.blocked_cycles) +
              " cycles)";
    std::cerr << line << "\n";
  }
  profile.clear();
  fifo_clocks.clear();
}

// The device code with a call of t2s_cl_cpu_step() at the start of every step: the body of
// each innermost loop that is not fully unrolled (no `#pragma unroll` without a count on the
// line before it) and has no such loop inside, and the body of each kernel that has none (one
// step a call: an autorun kernel's body is its loop). A loop whose body is one statement gets
// braces when that statement is an expression; loops of other forms (while, do, a body that is
// an if) are not counted. The calls go on the lines where the bodies open, so the compiler's
// line numbers stay those of the source.
std::string with_step_counters(const std::string& source) {
  const size_t n = source.size();
  // Which characters are code (not a comment, a string or a character literal, or a
  // preprocessor line).
  std::vector<bool> code(n, true);
  for (size_t i = 0; i < n;) {
    const bool line_start = i == 0 || source[i - 1] == '\n';
    size_t first = i;
    if (line_start) {
      while (first < n && (source[first] == ' ' || source[first] == '\t')) ++first;
      if (first < n && source[first] == '#') {
        size_t end = first;
        while (end < n && !(source[end] == '\n' && source[end - 1] != '\\')) ++end;
        std::fill(code.begin() + i, code.begin() + end, false);
        i = end;
        continue;
      }
    }
    if (source.compare(i, 2, "//") == 0) {
      const size_t end = std::min(n, source.find('\n', i));
      std::fill(code.begin() + i, code.begin() + end, false);
      i = end;
    } else if (source.compare(i, 2, "/*") == 0) {
      const size_t end = std::min(n, source.find("*/", i + 2) + 2);
      std::fill(code.begin() + i, code.begin() + end, false);
      i = end;
    } else if (source[i] == '"' || source[i] == '\'') {
      size_t end = i + 1;
      while (end < n && source[end] != source[i]) end += source[end] == '\\' ? 2 : 1;
      end = std::min(n, end + 1);
      std::fill(code.begin() + i, code.begin() + end, false);
      i = end;
    } else {
      ++i;
    }
  }
  auto is_word = [&](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  auto skip_space = [&](size_t i) {
    while (i < n && (!code[i] || std::isspace(static_cast<unsigned char>(source[i])))) ++i;
    return i;
  };
  auto word_at = [&](size_t i, const char* word) {
    const size_t len = std::strlen(word);
    return i + len <= n && code[i] && source.compare(i, len, word) == 0 &&
           (i == 0 || !is_word(source[i - 1])) && (i + len == n || !is_word(source[i + len]));
  };
  // The position after the bracket that closes the one at `open`, or npos.
  auto close_of = [&](size_t open) {
    int depth = 0;
    for (size_t i = open; i < n; ++i) {
      if (!code[i]) continue;
      const char c = source[i];
      if (c == '(' || c == '{' || c == '[') ++depth;
      if ((c == ')' || c == '}' || c == ']') && --depth == 0) return i + 1;
    }
    return std::string::npos;
  };
  // `#pragma unroll` (no count) on the last line before `at` that is not blank.
  auto fully_unrolled = [&](size_t at) {
    size_t line = source.rfind('\n', at == 0 ? 0 : at - 1);
    while (line != std::string::npos && line > 0) {
      const size_t begin = source.rfind('\n', line - 1);
      const std::string text = source.substr(begin == std::string::npos ? 0 : begin + 1,
                                             line - (begin == std::string::npos ? 0 : begin + 1));
      static const std::regex blank(R"([ \t\r]*)");
      static const std::regex unroll(R"([ \t]*#[ \t]*pragma[ \t]+unroll[ \t\r]*)");
      if (std::regex_match(text, blank)) {
        line = begin;
        continue;
      }
      return std::regex_match(text, unroll);
    }
    return false;
  };
  struct Body {
    size_t begin, end;  // the body's extent: from its `{` (or statement) to its end
    bool braced;
    bool counted;  // a step per iteration (a loop not fully unrolled)
    bool holds_step = false;
  };
  std::vector<Body> loops;
  for (size_t i = 0; i < n; ++i) {
    if (!word_at(i, "for")) continue;
    const size_t open = skip_space(i + 3);
    if (open >= n || source[open] != '(') continue;
    const size_t header_end = close_of(open);
    if (header_end == std::string::npos) continue;
    const size_t body = skip_space(header_end);
    if (body >= n) continue;
    Body b{body, 0, source[body] == '{', !fully_unrolled(i)};
    if (b.braced) {
      b.end = close_of(body);
    } else if (is_word(source[body]) &&
               !(word_at(body, "if") || word_at(body, "while") || word_at(body, "do") ||
                 word_at(body, "switch") || word_at(body, "for") || word_at(body, "return"))) {
      b.end = source.find(';', body);
      while (b.end != std::string::npos && !code[b.end]) b.end = source.find(';', b.end + 1);
      if (b.end != std::string::npos) ++b.end;
    } else {
      b.end = std::string::npos;
    }
    if (b.end == std::string::npos) {
      if (b.counted) b.counted = false, b.holds_step = true;  // not counted; outer loops neither
      b.end = body;
    }
    loops.push_back(b);
  }
  // A counted loop holds a step when a counted loop (or an uncountable one) is inside it.
  for (Body& inner : loops)
    for (Body& outer : loops)
      if (&inner != &outer && inner.begin > outer.begin && inner.begin < outer.end &&
          (inner.counted || inner.holds_step))
        outer.holds_step = true;
  std::vector<std::pair<size_t, std::string>> insertions;  // (position, text)
  for (const Body& b : loops) {
    if (!b.counted || b.holds_step) continue;
    if (b.braced) {
      insertions.emplace_back(b.begin + 1, " t2s_cl_cpu_step();");
    } else {
      insertions.emplace_back(b.begin, "{ t2s_cl_cpu_step(); ");
      insertions.emplace_back(b.end, " }");
    }
  }
  // Kernels without a counted loop: a step a call.
  static const std::regex kernel(R"(__kernel\b[^{;]*?\bvoid\s+[A-Za-z_][A-Za-z0-9_]*\s*\()");
  for (auto it = std::sregex_iterator(source.begin(), source.end(), kernel);
       it != std::sregex_iterator(); ++it) {
    if (!code[static_cast<size_t>(it->position())]) continue;
    const size_t open = static_cast<size_t>(it->position() + it->length() - 1);
    const size_t params_end = close_of(open);
    if (params_end == std::string::npos) continue;
    size_t body = params_end;
    while (body < n && !(code[body] && (source[body] == '{' || source[body] == ';'))) ++body;
    if (body >= n || source[body] != '{') continue;
    const size_t end = close_of(body);
    bool has_step = false;
    for (const Body& b : loops)
      if (b.begin > body && b.begin < end && (b.counted || b.holds_step)) has_step = true;
    if (!has_step) insertions.emplace_back(body + 1, " t2s_cl_cpu_step();");
  }
  std::sort(insertions.begin(), insertions.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string result = source;
  for (const auto& [at, text] : insertions) result.insert(at, text);
  return result;
}

// Runs `argv` (argv[0] found on PATH) with its output into `log`; the exit status, or -1.
int run_command(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The program-scope channel declarations of the source: `channel T name[d0][d1] ...;`, with
// an optional __attribute__((depth(N))).
// A channel's array dimension or depth, as its declaration spells it (digits only: the regex
// matched them); a number beyond int64_t is a fault of the device code, not a crash.
int64_t declared_number(const std::string& digits, const std::string& channel) {
  int64_t value = 0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, error] = std::from_chars(digits.data(), end, value);
  if (error != std::errc() || ptr != end)
    t2s_rt::fail("channel '" + channel + "' is declared with a size out of range: " + digits);
  return value;
}

cl_int find_channels(_cl_program& p) {
  static const std::regex declaration(
      R"(^[ \t]*channel[ \t]+[^;\n]+?[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*((?:\[[ \t]*[0-9]+[ \t]*\][ \t]*)*)((?:__attribute__[^;\n]*)?);)",
      std::regex::multiline);
  static const std::regex dim(R"(\[[ \t]*([0-9]+)[ \t]*\])");
  static const std::regex depth(R"(depth[ \t]*\([ \t]*([0-9]+)[ \t]*\))");
  for (auto it = std::sregex_iterator(p.source.begin(), p.source.end(), declaration);
       it != std::sregex_iterator(); ++it) {
    Channel c;
    c.name = (*it)[1].str();
    const std::string dims = (*it)[2].str();
    std::vector<int64_t> c_order;
    for (auto d = std::sregex_iterator(dims.begin(), dims.end(), dim); d != std::sregex_iterator();
         ++d)
      c_order.push_back(declared_number((*d)[1].str(), c.name));
    c.dims.assign(c_order.rbegin(), c_order.rend());
    for (int64_t d : c.dims) c.count *= static_cast<size_t>(d);
    int64_t capacity = 1;
    std::smatch m;
    const std::string rest = (*it)[3].str();
    if (std::regex_search(rest, m, depth))
      capacity = std::max<int64_t>(declared_number(m[1].str(), c.name), 1);
    void* symbol = dlsym(p.library, c.name.c_str());
    ElfW(Sym)* entry = nullptr;
    Dl_info info;
    if (!symbol || !dladdr1(symbol, &info, reinterpret_cast<void**>(&entry), RTLD_DL_SYMENT) ||
        !entry || entry->st_size == 0 || entry->st_size % c.count != 0) {
      p.build_log += "channel '" + c.name + "': not found in the compiled device code\n";
      return CL_BUILD_PROGRAM_FAILURE;
    }
    c.base = static_cast<const unsigned char*>(symbol);
    c.element_bytes = entry->st_size / c.count;
    c.fifos = std::make_unique<t2s_rt::FifoArray<Blob>>(c.name, c.dims, capacity);
    p.channels.push_back(std::move(c));
  }
  static const std::regex kernel(
      R"(__kernel([^{;]*?)void[ \t\n]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*\()");
  for (auto it = std::sregex_iterator(p.source.begin(), p.source.end(), kernel);
       it != std::sregex_iterator(); ++it)
    if ((*it)[1].str().find("autorun") != std::string::npos) p.autorun.push_back((*it)[2].str());
  return CL_SUCCESS;
}

// Calls kernel `k` with its arguments (device buffers: every argument is a pointer).
void call(const _cl_kernel& k) {
  void* f = k.function;
  const std::vector<void*>& a = k.args;
  using P = void*;
  switch (a.size()) {
    case 0:
      return reinterpret_cast<void (*)()>(f)();
    case 1:
      return reinterpret_cast<void (*)(P)>(f)(a[0]);
    case 2:
      return reinterpret_cast<void (*)(P, P)>(f)(a[0], a[1]);
    case 3:
      return reinterpret_cast<void (*)(P, P, P)>(f)(a[0], a[1], a[2]);
    case 4:
      return reinterpret_cast<void (*)(P, P, P, P)>(f)(a[0], a[1], a[2], a[3]);
    case 5:
      return reinterpret_cast<void (*)(P, P, P, P, P)>(f)(a[0], a[1], a[2], a[3], a[4]);
    case 6:
      return reinterpret_cast<void (*)(P, P, P, P, P, P)>(f)(a[0], a[1], a[2], a[3], a[4], a[5]);
    case 7:
      return reinterpret_cast<void (*)(P, P, P, P, P, P, P)>(f)(a[0], a[1], a[2], a[3], a[4], a[5],
                                                                a[6]);
    case 8:
      return reinterpret_cast<void (*)(P, P, P, P, P, P, P, P)>(f)(a[0], a[1], a[2], a[3], a[4],
                                                                   a[5], a[6], a[7]);
    default:
      t2s_rt::fail("kernel '" + k.name + "' has " + std::to_string(a.size()) +
                   " arguments; the CPU executor calls kernels of at most 8");
  }
}

// Runs the queued kernels with every autorun kernel, and checks every channel is drained.
void run_queued(_cl_program& p) {
  if (p.queued.empty()) return;
  static int device_runs = 0;
  ++device_runs;
  // A kernel's time: from its thread's start to its end (an autorun kernel's, to the run's).
  auto timed = [](const _cl_kernel& k) {
    if (!profiling()) return call(k);
    const auto start = std::chrono::steady_clock::now();
    struct Stop {
      const _cl_kernel& k;
      std::chrono::steady_clock::time_point start;
      ~Stop() {
        std::lock_guard<std::mutex> lock(profile_mutex);
        profile_of(k.name).run_seconds += seconds_since(start);
      }
    } stop{k, start};
    call(k);
  };
  if (profiling()) {
    std::lock_guard<std::mutex> lock(profile_mutex);
    for (_cl_kernel* k : p.queued) profile_of(k->name);
    for (const std::string& name : p.autorun) profile_of(name).autorun = true;
  }
  t2s_rt::Threads threads;
  for (_cl_kernel* k : p.queued) threads.add(k->name, [k, timed] { timed(*k); });
  std::vector<_cl_kernel> autorun;
  autorun.reserve(p.autorun.size());
  for (const std::string& name : p.autorun) {
    _cl_kernel k;
    k.program = &p;
    k.name = name;
    k.function = dlsym(p.library, name.c_str());
    if (!k.function) t2s_rt::fail("autorun kernel '" + name + "' is not in the device code");
    autorun.push_back(k);
  }
  for (const _cl_kernel& k : autorun)
    threads.add(
        k.name, [&k, timed] { timed(k); }, /*daemon=*/true);
  p.queued.clear();
  threads.run();
  if (profiling()) print_profile(device_runs);
  for (const Channel& c : p.channels) t2s_rt::check_drained(*c.fifos);
}

}  // namespace

extern "C" {

// ---- The device code's channel calls (t2s_cl_cpu.h) ----

void t2s_cl_cpu_read(const void* element, void* value, unsigned long bytes) {
  const std::string* channel = nullptr;
  t2s_rt::Fifo<Blob>& f = element_at(element, bytes, &channel);
  const Blob b = profiling() ? f.read([&](Blob& v) { clock_read(f, *channel, v); }) : f.read();
  std::memcpy(value, b.data(), bytes);
}
void t2s_cl_cpu_write(const void* element, const void* value, unsigned long bytes) {
  const auto* v = static_cast<const unsigned char*>(value);
  const std::string* channel = nullptr;
  t2s_rt::Fifo<Blob>& f = element_at(element, bytes, &channel);
  if (profiling())
    f.write(Blob(v, v + bytes), [&](Blob& b) { clock_write(f, *channel, b); });
  else
    f.write(Blob(v, v + bytes));
}
// A step of the calling kernel (with_step_counters): the next cycle.
void t2s_cl_cpu_step() {
  std::lock_guard<std::mutex> lock(profile_mutex);
  KernelProfile& k = current_profile();
  k.make_begun_step();
  k.step_begun = true;
}
// The non-blocking calls: a single try (a FIFO's size under its lock).
bool t2s_cl_cpu_read_nb(const void* element, void* value, unsigned long bytes) {
  t2s_rt::Fifo<Blob>& f = element_at(element, bytes);
  if (f.size() == 0) return false;
  t2s_cl_cpu_read(element, value, bytes);
  return true;
}
bool t2s_cl_cpu_write_nb(const void* element, const void* value, unsigned long bytes) {
  t2s_rt::Fifo<Blob>& f = element_at(element, bytes);
  if (f.size() >= f.capacity()) return false;
  t2s_cl_cpu_write(element, value, bytes);
  return true;
}

// ---- The OpenCL API ----

cl_int clGetPlatformIDs(cl_uint num_entries, cl_platform_id* platforms, cl_uint* num_platforms) {
  if (num_platforms) *num_platforms = 1;
  if (platforms && num_entries > 0) platforms[0] = &the_platform;
  return CL_SUCCESS;
}

cl_int clGetPlatformInfo(cl_platform_id, cl_platform_info param, size_t size, void* value,
                         size_t* size_ret) {
  if (param != CL_PLATFORM_NAME) return CL_INVALID_VALUE;
  static const char kName[] = "t2s CPU executor (Intel FPGA OpenCL channels emulated)";
  if (size_ret) *size_ret = sizeof(kName);
  if (value) {
    if (size < sizeof(kName)) return CL_INVALID_VALUE;
    std::memcpy(value, kName, sizeof(kName));
  }
  return CL_SUCCESS;
}

cl_int clGetDeviceIDs(cl_platform_id, cl_device_type, cl_uint num_entries, cl_device_id* devices,
                      cl_uint* num_devices) {
  if (num_devices) *num_devices = 1;
  if (devices && num_entries > 0) devices[0] = &the_device;
  return CL_SUCCESS;
}

cl_context clCreateContext(const cl_context_properties*, cl_uint, const cl_device_id*,
                           void(CL_CALLBACK*)(const char*, const void*, size_t, void*), void*,
                           cl_int* err) {
  if (err) *err = CL_SUCCESS;
  return &the_context;
}

cl_int clReleaseContext(cl_context) { return CL_SUCCESS; }

cl_program clCreateProgramWithBinary(cl_context, cl_uint num_devices, const cl_device_id*,
                                     const size_t* lengths, const unsigned char** binaries,
                                     cl_int* binary_status, cl_int* err) {
  if (num_devices != 1 || !lengths || !binaries) {
    if (err) *err = CL_INVALID_VALUE;
    return nullptr;
  }
  auto* p = new _cl_program;
  p->source.assign(reinterpret_cast<const char*>(binaries[0]), lengths[0]);
  if (binary_status) *binary_status = CL_SUCCESS;
  if (err) *err = CL_SUCCESS;
  return p;
}

cl_int clBuildProgram(cl_program p, cl_uint, const cl_device_id*, const char*,
                      void(CL_CALLBACK*)(cl_program, void*), void*) {
  if (!p) return CL_INVALID_PROGRAM;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/t2s_cl_cpu.XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!mkdtemp(buffer.data())) {
    p->build_log = "cannot create a temporary directory for the device code";
    return CL_BUILD_PROGRAM_FAILURE;
  }
  p->dir = buffer.data();
  const std::string source = p->dir + "/kernel.cl", object = p->dir + "/kernel.so",
                    header = p->dir + "/t2s_cl_cpu.h", log = p->dir + "/build.log";
  // With the profile on, the device code counts its steps (with_step_counters).
  for (const auto& [path, text] :
       {std::make_pair(source, profiling() ? with_step_counters(p->source) : p->source),
        std::make_pair(header, std::string(t2s_cl_cpu_header_text()))}) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) {
      p->build_log = "cannot write " + path;
      return CL_BUILD_PROGRAM_FAILURE;
    }
  }
  const char* chosen = std::getenv("T2S_CL_CPU_CLANG");
  std::string clang = chosen && *chosen ? chosen : "clang-14";
  std::vector<std::string> command = {clang,        "-x",
                                      "cl",         "-cl-std=CL2.0",
                                      "-target",    "x86_64-unknown-linux-gnu",
                                      "-O1",        "-fPIC",
                                      "-shared",    "-funwind-tables",
                                      "-Wno-psabi", "-include",
                                      header,       source,
                                      "-o",         object};
  int status = run_command(command, log);
  if (status < 0 && !(chosen && *chosen)) {  // no clang-14: the unversioned name
    command[0] = clang = "clang";
    status = run_command(command, log);
  }
  p->build_log = read_text(log);
  if (status != 0) {
    if (status < 0) p->build_log += "cannot run " + clang + " (an OpenCL C compiler)\n";
    return CL_BUILD_PROGRAM_FAILURE;
  }
  p->library = dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!p->library) {
    p->build_log += std::string("cannot load the compiled device code: ") + dlerror() + "\n";
    return CL_BUILD_PROGRAM_FAILURE;
  }
  the_program = p;
  return find_channels(*p);
}

cl_int clGetProgramBuildInfo(cl_program p, cl_device_id, cl_program_build_info param, size_t size,
                             void* value, size_t* size_ret) {
  if (!p || param != CL_PROGRAM_BUILD_LOG) return CL_INVALID_VALUE;
  if (size_ret) *size_ret = p->build_log.size() + 1;
  if (value) {
    if (size < p->build_log.size() + 1) return CL_INVALID_VALUE;
    std::memcpy(value, p->build_log.c_str(), p->build_log.size() + 1);
  }
  return CL_SUCCESS;
}

cl_int clReleaseProgram(cl_program p) {
  if (the_program == p) the_program = nullptr;
  delete p;
  return CL_SUCCESS;
}

cl_command_queue clCreateCommandQueue(cl_context, cl_device_id, cl_command_queue_properties,
                                      cl_int* err) {
  if (err) *err = CL_SUCCESS;
  return new _cl_command_queue;
}

cl_int clReleaseCommandQueue(cl_command_queue q) {
  delete q;
  return CL_SUCCESS;
}

cl_kernel clCreateKernel(cl_program p, const char* name, cl_int* err) {
  void* f = p && p->library ? dlsym(p->library, name) : nullptr;
  if (!f) {
    if (err) *err = CL_INVALID_KERNEL_NAME;
    return nullptr;
  }
  auto* k = new _cl_kernel;
  k->program = p;
  k->name = name;
  k->function = f;
  if (err) *err = CL_SUCCESS;
  return k;
}

cl_int clReleaseKernel(cl_kernel k) {
  delete k;
  return CL_SUCCESS;
}

cl_int clSetKernelArg(cl_kernel k, cl_uint index, size_t size, const void* value) {
  if (!k) return CL_INVALID_KERNEL;
  if (size != sizeof(cl_mem) || !value) return CL_INVALID_ARG_SIZE;
  cl_mem m = *static_cast<const cl_mem*>(value);
  if (!m) return CL_INVALID_MEM_OBJECT;
  if (k->args.size() <= index) k->args.resize(index + 1, nullptr);
  k->args[index] = m->data.data();
  return CL_SUCCESS;
}

cl_mem clCreateBuffer(cl_context, cl_mem_flags, size_t size, void*, cl_int* err) {
  if (size == 0) {
    if (err) *err = CL_INVALID_BUFFER_SIZE;
    return nullptr;
  }
  auto* m = new _cl_mem;
  m->data.assign(size, 0);
  if (err) *err = CL_SUCCESS;
  return m;
}

cl_int clReleaseMemObject(cl_mem m) {
  delete m;
  return CL_SUCCESS;
}

cl_int clEnqueueTask(cl_command_queue, cl_kernel k, cl_uint, const cl_event*, cl_event*) {
  if (!k || !k->program) return CL_INVALID_KERNEL;
  for (void* a : k->args)
    if (!a) return CL_INVALID_KERNEL_ARGS;
  k->program->queued.push_back(k);
  return CL_SUCCESS;
}

cl_int clFlush(cl_command_queue) { return CL_SUCCESS; }

cl_int clFinish(cl_command_queue) {
  if (the_program) run_queued(*the_program);
  return CL_SUCCESS;
}

cl_int clEnqueueWriteBuffer(cl_command_queue, cl_mem m, cl_bool, size_t offset, size_t size,
                            const void* ptr, cl_uint, const cl_event*, cl_event*) {
  if (!m || offset + size > m->data.size()) return CL_INVALID_VALUE;
  if (the_program) run_queued(*the_program);  // in order: what was queued runs first
  std::memcpy(m->data.data() + offset, ptr, size);
  return CL_SUCCESS;
}

cl_int clEnqueueReadBuffer(cl_command_queue, cl_mem m, cl_bool, size_t offset, size_t size,
                           void* ptr, cl_uint, const cl_event*, cl_event*) {
  if (!m || offset + size > m->data.size()) return CL_INVALID_VALUE;
  if (the_program) run_queued(*the_program);
  std::memcpy(ptr, m->data.data() + offset, size);
  return CL_SUCCESS;
}

}  // extern "C"
