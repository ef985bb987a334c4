// tests/run/run_support.h: what the numeric tests of t2s-run share (run_test.cc,
// vec_run_test.cc, gather_run_test.cc): typed views of .npy arrays, the inputs t2s-run
// generates, running the tools on a spec, and bit-exact comparison of outputs with values
// computed by the test in C++.
// Test-only; the functions are inline so that each test binary includes them once.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "libs/exec/input_fill.h"
#include "libs/exec/npy_files.h"

namespace t2s::run_testing {

// ---------------------------------------------------------------------------------------------
// Element types and their arithmetic.

template <typename T>
Type TypeOf();
template <>
inline Type TypeOf<float>() {
  return Type::Float(32);
}
template <>
inline Type TypeOf<int32_t>() {
  return Type::Int(32);
}
template <>
inline Type TypeOf<int16_t>() {
  return Type::Int(16);
}

// float32: one IEEE single-precision rounding per operation, as the interpreter does.
inline float Add(float x, float y) { return x + y; }
inline float Mul(float x, float y) { return x * y; }
// int32: two's-complement wrap-around (Halide's integer semantics), computed in uint32.
inline int32_t Add(int32_t x, int32_t y) {
  return static_cast<int32_t>(static_cast<uint32_t>(x) + static_cast<uint32_t>(y));
}
inline int32_t Mul(int32_t x, int32_t y) {
  return static_cast<int32_t>(static_cast<uint32_t>(x) * static_cast<uint32_t>(y));
}

inline std::string FormatIndex(const std::vector<int64_t>& index) {
  std::string s = "(";
  for (size_t d = 0; d < index.size(); ++d) s += (d ? ", " : "") + std::to_string(index[d]);
  return s + ")";
}

// A typed view of an NdArray (Fortran order), with bounds-checked element access: an
// out-of-bounds read here is a bug of the test's own loops and throws.
template <typename T>
class Arr {
 public:
  explicit Arr(NdArray array) : a_(std::move(array)) {
    if (a_.type != TypeOf<T>()) {
      throw std::invalid_argument("array of type " + a_.type.name() + ", expected " +
                                  TypeOf<T>().name());
    }
  }
  explicit Arr(const std::vector<int64_t>& shape) {
    a_.type = TypeOf<T>();
    a_.shape = shape;
    a_.data.assign(static_cast<size_t>(a_.num_elements()) * sizeof(T), 0);
  }

  template <typename... I>
  T operator()(I... index) const {
    return get({static_cast<int64_t>(index)...});
  }
  T get(const std::vector<int64_t>& index) const {
    T value;
    std::memcpy(&value, &a_.data[position(index) * sizeof(T)], sizeof(T));
    return value;
  }
  void set(const std::vector<int64_t>& index, T value) {
    std::memcpy(&a_.data[position(index) * sizeof(T)], &value, sizeof(T));
  }
  int64_t extent(size_t d) const { return a_.shape.at(d); }
  const NdArray& array() const { return a_; }

 private:
  size_t position(const std::vector<int64_t>& index) const {
    bool ok = index.size() == a_.shape.size();
    for (size_t d = 0; ok && d < index.size(); ++d) {
      ok = index[d] >= 0 && index[d] < a_.shape[d];
    }
    if (!ok) throw std::out_of_range("test bug: index " + FormatIndex(index) + " out of bounds");
    return static_cast<size_t>(a_.linear_index(index));
  }

  NdArray a_;
};

// ---------------------------------------------------------------------------------------------
// Input data: the fills t2s-run uses for inputs not given with --input.

struct Fill {
  FillKind kind;
  uint64_t seed;

  std::vector<std::string> flags() const {
    if (kind == FillKind::kSequential) return {"--fill", "sequential"};
    return {"--fill", "random", "--seed", std::to_string(seed)};
  }
  std::string name() const {
    return kind == FillKind::kSequential ? "--fill sequential"
                                         : "--fill random --seed " + std::to_string(seed);
  }
};

inline const Fill kSequential{FillKind::kSequential, 0};
inline const Fill kRandom7{FillKind::kRandom, 7};
inline const Fill kRandom8{FillKind::kRandom, 8};

// Input `name` of a spec, as t2s-run generates it: same name, type, shape (the extents t2s-merge
// infers), kind and seed.
template <typename T>
Arr<T> Input(const std::string& name, const std::vector<int64_t>& shape, const Fill& fill) {
  return Arr<T>(fill_array(TypeOf<T>(), shape, fill.kind, fill.seed, name));
}

// ---------------------------------------------------------------------------------------------
// Running t2s-run.

inline std::string TmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir && *dir ? dir : "/tmp";
}
inline std::string OutPath() { return TmpDir() + "/out.npy"; }

inline std::string ShellQuote(const std::string& s) {
  std::string quoted = "'";
  for (char c : s) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
}

struct ToolRun {
  std::string command;  // as a user would type it from the repository root
  int status = -1;      // exit status; 128 + signal number if killed by a signal
  std::string err;      // standard error

  std::string first_err_line() const { return err.substr(0, err.find('\n')); }
  std::string describe() const {
    return "`" + command + "` exited with status " + std::to_string(status) + "; stderr:\n" + err;
  }
};

// Runs `TOOL ARGS...` (tools/t2s-run unless told) with standard input from /dev/null.
inline ToolRun RunTool(const std::vector<std::string>& args,
                       const std::string& tool = "tools/t2s-run") {
  ToolRun run;
  run.command = tool;
  for (const std::string& arg : args) run.command += " " + ShellQuote(arg);
  const std::string err_path = TmpDir() + "/stderr.txt";
  const std::string shell = run.command + " >" + ShellQuote(TmpDir() + "/stdout.txt") + " 2>" +
                            ShellQuote(err_path) + " </dev/null";
  const int raw = std::system(shell.c_str());
  if (raw != -1) {
    run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  }
  run.err = ReadFile(err_path);
  return run;
}

inline std::string SpecPath(const std::string& spec) { return "testdata/specs/" + spec + ".t2s"; }

// Runs `t2s-run SPEC FLAGS... -o OUT` and reads the output; fails unless the tool exits 0.
inline ::testing::AssertionResult RunSpec(const std::string& spec,
                                          const std::vector<std::string>& flags, NdArray* out) {
  std::remove(OutPath().c_str());
  std::vector<std::string> args = {SpecPath(spec)};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"-o", OutPath()});
  const ToolRun run = RunTool(args);
  if (run.status != 0) return ::testing::AssertionFailure() << run.describe();
  try {
    *out = read_npy(ReadFile(OutPath()), OutPath());
  } catch (const NpyError& e) {
    return ::testing::AssertionFailure() << "`" << run.command << "`: " << e.what();
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------
// Bit-exact comparison.

inline std::string FormatElement(const NdArray& a, int64_t position) {
  const uint8_t* p = &a.data[static_cast<size_t>(position) * a.element_size()];
  std::ostringstream s;
  if (a.type == Type::Float(32)) {
    float f;
    uint32_t bits;
    std::memcpy(&f, p, 4);
    std::memcpy(&bits, p, 4);
    s << std::setprecision(9) << f << " (bits 0x" << std::hex << std::setw(8) << std::setfill('0')
      << bits << ")";
  } else if (a.type == Type::Int(32)) {
    int32_t i;
    std::memcpy(&i, p, 4);
    s << i;
  } else {
    s << "0x";
    for (size_t b = a.element_size(); b-- > 0;) {
      s << std::hex << std::setw(2) << std::setfill('0') << static_cast<int>(p[b]);
    }
  }
  return s.str();
}

// Index of the element at Fortran-order `position` of an array of `shape`.
inline std::vector<int64_t> IndexOf(const std::vector<int64_t>& shape, int64_t position) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    index[d] = position % shape[d];
    position /= shape[d];
  }
  return index;
}

inline ::testing::AssertionResult SameBits(const NdArray& expected, const NdArray& actual,
                                           const std::string& name) {
  if (actual.type != expected.type) {
    return ::testing::AssertionFailure()
           << name << " has type " << actual.type.name() << ", expected " << expected.type.name();
  }
  if (actual.shape != expected.shape) {
    return ::testing::AssertionFailure() << name << " has shape " << FormatIndex(actual.shape)
                                         << ", expected " << FormatIndex(expected.shape);
  }
  const size_t size = expected.element_size();
  int64_t mismatches = 0;
  std::ostringstream report;
  for (int64_t p = 0; p < expected.num_elements(); ++p) {
    if (std::memcmp(&expected.data[p * size], &actual.data[p * size], size) == 0) continue;
    if (++mismatches <= 10) {
      report << "\n  " << name << FormatIndex(IndexOf(expected.shape, p)) << ": expected "
             << FormatElement(expected, p) << ", t2s-run gave " << FormatElement(actual, p);
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << expected.num_elements()
                                       << " elements of " << name << " differ:" << report.str();
}

// One numeric case: SPEC run with FLAGS (e.g. -D USE_INT) under --fill sequential and
// --fill random --seed 7, each output compared bit for bit with expected(fill). When the spec
// has inputs, a run with --seed 8 must match expected(seed 8) and differ from the seed-7 output,
// so that the comparison depends on the data.
inline void CheckSpec(const std::string& spec, const std::vector<std::string>& flags,
                      const std::string& output, bool has_inputs,
                      const std::function<NdArray(const Fill&)>& expected) {
  std::vector<Fill> fills = {kSequential, kRandom7};
  if (has_inputs) fills.push_back(kRandom8);
  std::vector<NdArray> outputs;
  for (const Fill& fill : fills) {
    std::vector<std::string> all = flags;
    for (const std::string& f : fill.flags()) all.push_back(f);
    std::string what = SpecPath(spec);
    for (const std::string& f : all) what += " " + f;
    SCOPED_TRACE(what);
    NdArray actual;
    ASSERT_TRUE(RunSpec(spec, all, &actual));
    EXPECT_TRUE(SameBits(expected(fill), actual, output));
    outputs.push_back(std::move(actual));
  }
  if (has_inputs) {
    EXPECT_NE(outputs[1].data, outputs[2].data)
        << SpecPath(spec) << ": --seed 7 and --seed 8 gave the same output";
  }
}

}  // namespace t2s::run_testing
