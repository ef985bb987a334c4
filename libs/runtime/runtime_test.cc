// The runtime of generated programs against the toolchain's own implementation: input data
// identical to t2s::fill_array, .npy files identical to t2s::write_npy and read as t2s::read_npy
// reads them, elements printed as t2s::format_element prints them; and the channels, the
// scheduler's deadlock detection and the checked storage of the emulation.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "libs/exec/compare.h"
#include "libs/exec/input_fill.h"
#include "libs/exec/npy_files.h"
#include "libs/exec/npy_files_testing.h"
#include "libs/runtime/runtime_source.h"
#include "libs/runtime/t2s_runtime.h"

namespace {

const char* const kDtypes[] = {"int8",   "int16",  "int32",   "int64",   "uint8", "uint16",
                               "uint32", "uint64", "float32", "float64", "bool"};

t2s::Type type_of(const std::string& dtype) { return *t2s::Type::from_name(dtype); }

t2s_rt::Array rt(const t2s::NdArray& n) {
  t2s_rt::Array a;
  a.dtype = n.type.name();
  a.shape = n.shape;
  a.data.assign(n.data.begin(), n.data.end());
  return a;
}

const std::vector<std::vector<int64_t>> kShapes = {{},     {0},       {1},       {7},
                                                   {3, 5}, {2, 3, 4}, {4, 0, 2}, {1, 1, 1, 9}};

// Runs `body` as a group of one kernel named "K" and returns what the group reports: fail()
// inside a group is reported, not an exit.
std::string report_of(const std::function<void()>& body) {
  return t2s_rt::Threads().add("K", body).run_and_report();
}

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void set_threadsafe_death_tests() { testing::FLAGS_gtest_death_test_style = "threadsafe"; }

// --- Data -----------------------------------------------------------------------------------

TEST(Fill, SequentialAndRandomEqualTheInterpretersForEveryDtype) {
  for (const char* dtype : kDtypes) {
    for (const auto& shape : kShapes) {
      for (bool random : {false, true}) {
        for (uint64_t seed : {uint64_t{0}, uint64_t{7}, ~uint64_t{0}}) {
          for (const char* name : {"a", "input_b"}) {
            t2s::NdArray expected = t2s::fill_array(
                type_of(dtype), shape, random ? t2s::FillKind::kRandom : t2s::FillKind::kSequential,
                seed, name);
            t2s_rt::Array actual = t2s_rt::fill_array(dtype, shape, random, seed, name);
            EXPECT_EQ(actual.dtype, dtype);
            EXPECT_EQ(actual.shape, shape);
            EXPECT_TRUE(std::equal(actual.data.begin(), actual.data.end(), expected.data.begin(),
                                   expected.data.end()))
                << dtype << " " << t2s::format_index(shape) << " random=" << random
                << " seed=" << seed << " " << name;
          }
        }
      }
    }
  }
  // Sequential int8 wraps; a shape large enough to wrap twice.
  t2s::NdArray e = t2s::fill_array(t2s::Type::Int(8), {600}, t2s::FillKind::kSequential, 0, "x");
  t2s_rt::Array a = t2s_rt::fill_array("int8", {600}, false, 0, "x");
  EXPECT_TRUE(std::equal(a.data.begin(), a.data.end(), e.data.begin(), e.data.end()));
  EXPECT_EQ(t2s_rt::fnv1a64("gemm"), t2s::fnv1a64("gemm"));
}

TEST(Fill, InputArrayGeneratesWhatTheOptionsSay) {
  t2s_rt::Options options;
  options.random = true;
  options.seed = 7;
  t2s_rt::Array a = t2s_rt::input_array(options, "a", "float32", {4, 8});
  t2s::NdArray e = t2s::fill_array(t2s::Type::Float(32), {4, 8}, t2s::FillKind::kRandom, 7, "a");
  EXPECT_TRUE(std::equal(a.data.begin(), a.data.end(), e.data.begin(), e.data.end()));
}

TEST(Npy, WrittenBytesEqualTheToolchainsForEveryDtype) {
  for (const char* dtype : kDtypes) {
    for (auto shape : kShapes) {
      t2s::NdArray n = t2s::fill_array(type_of(dtype), shape, t2s::FillKind::kRandom, 3, "w");
      EXPECT_EQ(t2s_rt::npy_bytes(rt(n)), t2s::write_npy(n))
          << dtype << " " << t2s::format_index(shape);
    }
  }
  // Extents whose digits change the header's padding.
  for (auto shape : std::vector<std::vector<int64_t>>{
           {0, 123456789012}, {123456, 0}, {1000000000, 0, 7}, {5, 1000000}}) {
    t2s::NdArray n;
    n.type = t2s::Type::UInt(8);
    n.shape = shape;
    n.data.resize(static_cast<size_t>(n.num_elements()));
    EXPECT_EQ(t2s_rt::npy_bytes(rt(n)), t2s::write_npy(n)) << t2s::format_index(shape);
  }
}

using t2s::npy_with_header;

TEST(Npy, ReadsAsTheToolchainReads) {
  const std::string six_int32("\1\0\0\0\2\0\0\0\3\0\0\0\4\0\0\0\5\0\0\0\6\0\0\0", 24);
  std::vector<std::string> files = {
      // Valid: C and Fortran order, versions 2.0 and 3.0, big endian, bools, 0-d.
      npy_with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", six_int32),
      npy_with_header("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", six_int32),
      npy_with_header("{\"shape\":(3,2),\"fortran_order\":False,\"descr\":\"<i4\"}", six_int32, 2),
      npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (6,)}", six_int32, 3),
      npy_with_header("{'descr': '>i2', 'fortran_order': False, 'shape': (2, 2, 3), }", six_int32),
      npy_with_header("{'descr': '|b1', 'fortran_order': False, 'shape': (4, 6), }", six_int32),
      npy_with_header("{'descr': '<u8', 'fortran_order': False, 'shape': (), }",
                      six_int32.substr(0, 8)),
      // Malformed or unsupported.
      "",
      "not npy",
      std::string("\x93NUMPY\x04\x00", 8),
      npy_with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 4), }", six_int32),
      npy_with_header("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", six_int32),
      npy_with_header("{'descr': '<f2', 'fortran_order': False, 'shape': (12,), }", six_int32),
      npy_with_header("{'descr': 'O', 'fortran_order': False, 'shape': (3,), }", six_int32),
      npy_with_header("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (6,), }",
                      six_int32),
      npy_with_header("{'descr': '<i4', 'fortran_order': 1, 'shape': (6,), }", six_int32),
      npy_with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (6, -1), }", six_int32),
      npy_with_header("{'descr': '<i4', 'fortran_order': False, 'shape': [6], }", six_int32),
      npy_with_header("{'descr': '<i4', 'fortran_order': False}", six_int32),
      npy_with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (6,), 'x': 1}", six_int32),
      npy_with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (6,)", six_int32),
      npy_with_header("{'descr': '<i4', 'descr': '<i4'}", six_int32),
      npy_with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
                      six_int32),
      npy_with_header("{'descr': '<i4', 'fortran_order': Nope, 'shape': (6,), }", six_int32),
      std::string("\x93NUMPY\x01\x00\xff\x00{", 11),
  };
  for (size_t i = 0; i < files.size(); ++i) {
    std::string expected_error, actual_error;
    t2s::NdArray expected;
    t2s_rt::Array actual;
    try {
      expected = t2s::read_npy(files[i], "in.npy");
    } catch (const t2s::NpyError& e) {
      expected_error = e.what();
    }
    try {
      actual = t2s_rt::detail::parse_npy(files[i], "in.npy");
    } catch (const t2s_rt::detail::NpyError& e) {
      actual_error = e.message;
    }
    EXPECT_EQ(actual_error, expected_error) << "file " << i;
    if (expected_error.empty() && actual_error.empty()) {
      EXPECT_EQ(actual.dtype, expected.type.name()) << "file " << i;
      EXPECT_EQ(actual.shape, expected.shape) << "file " << i;
      EXPECT_TRUE(std::equal(actual.data.begin(), actual.data.end(), expected.data.begin(),
                             expected.data.end()))
          << "file " << i;
    }
  }
}

TEST(Npy, FormatElementEqualsTheToolchainsForEveryDtype) {
  for (const char* dtype : kDtypes) {
    t2s::NdArray n = t2s::fill_array(type_of(dtype), {300}, t2s::FillKind::kRandom, 11, dtype);
    // Arbitrary bit patterns too (every byte random), to reach NaNs, infinities, denormals and
    // long decimal expansions.
    uint64_t state = 99;
    if (n.type.is_float())
      for (size_t i = n.data.size() / 2; i < n.data.size(); ++i)
        n.data[i] = static_cast<uint8_t>(t2s::splitmix64_next(state));
    t2s_rt::Array a = rt(n);
    for (int64_t i = 0; i < n.num_elements(); ++i)
      EXPECT_EQ(t2s_rt::format_element(a, i), t2s::format_element(n, i)) << dtype << " " << i;
  }
  for (double v : {0.0, -0.0, 1.0, 0.1, 1e-7, 123456789.0, 1e16, 1e21, 5e-324,
                   1.7976931348623157e308, 560.0, 0.00001, 0.000001}) {
    for (int bits : {32, 64}) {
      t2s::NdArray n;
      n.type = t2s::Type::Float(bits);
      n.shape = {1};
      n.data.resize(bits / 8);
      if (bits == 32) {
        float f = static_cast<float>(v);
        std::memcpy(n.data.data(), &f, 4);
      } else {
        std::memcpy(n.data.data(), &v, 8);
      }
      EXPECT_EQ(t2s_rt::format_element(rt(n), 0), t2s::format_element(n, 0)) << v << " " << bits;
    }
  }
}

TEST(Output, FileAndPrintedFormAreTheToolchains) {
  t2s::NdArray n = t2s::fill_array(t2s::Type::Float(32), {3, 2, 2}, t2s::FillKind::kRandom, 5, "c");
  t2s_rt::Options options;
  options.output = temp_path("out.npy");
  t2s_rt::write_output(options, "c", rt(n));
  EXPECT_EQ(file_bytes(options.output), t2s::write_npy(n));
  std::ostringstream printed;
  t2s_rt::print_array("c", rt(n), printed);
  // t2s-run's print_array: last index fastest.
  std::string expected;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t k = 0; k < 2; ++k)
        expected += "c" + t2s::format_index({i, j, k}) + " = " +
                    t2s::format_element(n, n.linear_index({i, j, k})) + "\n";
  EXPECT_EQ(printed.str(), expected);
  std::ostringstream scalar;
  t2s_rt::print_array("s", t2s_rt::make_array("int32", {}), scalar);
  EXPECT_EQ(scalar.str(), "s() = 0\n");
}

TEST(Input, FileGivenWithInputIsCheckedAndRead) {
  t2s::NdArray n = t2s::fill_array(t2s::Type::Int(16), {2, 3}, t2s::FillKind::kRandom, 1, "a");
  const std::string path = temp_path("a.npy");
  t2s_rt::write_file_atomically(path, t2s::write_npy(n));
  t2s_rt::Options options;
  options.inputs["a"] = path;
  t2s_rt::Array a = t2s_rt::input_array(options, "a", "int16", {2, 3});
  EXPECT_TRUE(std::equal(a.data.begin(), a.data.end(), n.data.begin(), n.data.end()));
  set_threadsafe_death_tests();
  EXPECT_EXIT(t2s_rt::input_array(options, "a", "int32", {2, 3}), testing::ExitedWithCode(1),
              "error: input 'a' has type int32, but the array given for it holds int16\n");
  EXPECT_EXIT(t2s_rt::input_array(options, "a", "int16", {2, 3, 1}), testing::ExitedWithCode(1),
              "error: input 'a' has 3 dimensions, but the array given for it has 2\n");
  EXPECT_EXIT(t2s_rt::input_array(options, "a", "int16", {2, 4}), testing::ExitedWithCode(1),
              "error: input 'a' is read over \\[0, 2\\) x \\[0, 4\\), but the array given for it "
              "has shape \\(2, 3\\)\n");
  // A larger array than the region read is accepted whole (input_array) or cut to the region
  // (input_region, for code indexed with the region's extents).
  t2s_rt::Array whole = t2s_rt::input_array(options, "a", "int16", {1, 2});
  EXPECT_EQ(whole.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(std::equal(whole.data.begin(), whole.data.end(), n.data.begin(), n.data.end()));
  t2s_rt::Array region = t2s_rt::input_region(options, "a", "int16", {1, 2});
  EXPECT_EQ(region.shape, (std::vector<int64_t>{1, 2}));
  ASSERT_EQ(region.data.size(), 4u);
  EXPECT_EQ(region.data[0], n.data[0]);  // (0, 0): element 0 in Fortran order
  EXPECT_EQ(region.data[1], n.data[1]);
  EXPECT_EQ(region.data[2], n.data[4]);  // (0, 1): element 2 of the 2x3 array
  EXPECT_EQ(region.data[3], n.data[5]);
  options.inputs["a"] = temp_path("missing.npy");
  EXPECT_EXIT(t2s_rt::input_array(options, "a", "int16", {2, 3}), testing::ExitedWithCode(1),
              "error: cannot read '.*missing.npy': No such file or directory\n");
  EXPECT_EXIT(t2s_rt::check_input_names(options, {"b"}), testing::ExitedWithCode(1),
              "error: an array is given for 'a', which is not an input\n");
}

TEST(Input, CheckInputArrayIsTheRule) {
  using t2s_rt::InputMismatch;
  auto check = [](const std::vector<int64_t>& region, const std::string& dtype,
                  const std::vector<int64_t>& shape, size_t dims = 2) {
    return t2s_rt::check_input_array("a", "float32", dims, region, dtype, shape);
  };
  // Exactly the region, or larger in any dimension: accepted.
  EXPECT_EQ(check({4, 8}, "float32", {4, 8}).mismatch, InputMismatch::kNone);
  EXPECT_EQ(check({4, 8}, "float32", {10, 8}).mismatch, InputMismatch::kNone);
  EXPECT_EQ(check({4, 8}, "float32", {5, 9}).message, "");
  EXPECT_EQ(check({0, 3}, "float32", {0, 3}).mismatch, InputMismatch::kNone);
  EXPECT_EQ(check({}, "float32", {}, 0).mismatch, InputMismatch::kNone);
  // An unknown region (no extents) checks only the type and dimensions.
  EXPECT_EQ(check({}, "float32", {1, 1}).mismatch, InputMismatch::kNone);
  // Smaller in one dimension, another type, other dimensions: refused.
  t2s_rt::InputCheck c = check({4, 8}, "float32", {3, 8});
  EXPECT_EQ(c.mismatch, InputMismatch::kRegion);
  EXPECT_EQ(c.message,
            "input 'a' is read over [0, 4) x [0, 8), but the array given for it has shape (3, 8)");
  c = check({3}, "float32", {2}, 1);
  EXPECT_EQ(c.message, "input 'a' is read over [0, 3), but the array given for it has shape (2)");
  c = check({4, 8}, "float32", {40, 7});
  EXPECT_EQ(c.mismatch, InputMismatch::kRegion);
  c = check({4, 8}, "int32", {4, 8});
  EXPECT_EQ(c.mismatch, InputMismatch::kType);
  EXPECT_EQ(c.message, "input 'a' has type float32, but the array given for it holds int32");
  c = check({4, 8}, "float32", {4, 8, 1});
  EXPECT_EQ(c.mismatch, InputMismatch::kDimensions);
  EXPECT_EQ(c.message, "input 'a' has 2 dimensions, but the array given for it has 3");
}

TEST(Input, LeadingRegion) {
  // A 3x4x2 int32 array of its Fortran positions; its leading 2x3x2 region.
  t2s_rt::Array a = t2s_rt::make_array("int32", {3, 4, 2});
  for (int32_t k = 0; k < 24; ++k) std::memcpy(&a.data[static_cast<size_t>(k) * 4], &k, 4);
  t2s_rt::Array r = t2s_rt::leading_region(a, {2, 3, 2});
  EXPECT_EQ(r.shape, (std::vector<int64_t>{2, 3, 2}));
  std::vector<int32_t> got(12);
  ASSERT_EQ(r.data.size(), 48u);
  std::memcpy(got.data(), r.data.data(), 48);
  EXPECT_EQ(got, (std::vector<int32_t>{0, 1, 3, 4, 6, 7, 12, 13, 15, 16, 18, 19}));
  EXPECT_EQ(t2s_rt::leading_region(a, {3, 4, 2}).data, a.data);
  EXPECT_EQ(t2s_rt::leading_region(a, {3, 0, 2}).data.size(), 0u);
  set_threadsafe_death_tests();
  EXPECT_EXIT(t2s_rt::leading_region(a, {4, 4, 2}), testing::ExitedWithCode(1),
              "leading_region: an array of shape \\(3, 4, 2\\) does not cover");
}

// --- Command line ----------------------------------------------------------------------------

t2s_rt::Options parse(std::vector<std::string> args, std::vector<std::string> positional = {}) {
  args.insert(args.begin(), "/some/dir/prog_emu");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  return t2s_rt::parse_options(static_cast<int>(args.size()), argv.data(), "Test program.",
                               positional);
}

TEST(Options, ParsesEveryOption) {
  t2s_rt::Options o = parse({"--input", "a=x.npy", "--input=b=y.npy", "-o", "out.npy", "--fill",
                             "random", "--seed=18446744073709551615", "--print"});
  EXPECT_EQ(o.inputs, (std::map<std::string, std::string>{{"a", "x.npy"}, {"b", "y.npy"}}));
  EXPECT_EQ(o.output, "out.npy");
  EXPECT_TRUE(o.random);
  EXPECT_EQ(o.seed, ~uint64_t{0});
  EXPECT_TRUE(o.print);
  o = parse({});
  EXPECT_FALSE(o.random);
  EXPECT_EQ(o.seed, 0u);
  EXPECT_TRUE(o.output.empty());
  EXPECT_FALSE(o.print);
  o = parse({"kernel.aocx", "--fill", "sequential", "-oout.npy"}, {"AOCX"});
  EXPECT_EQ(o.positional, std::vector<std::string>{"kernel.aocx"});
  EXPECT_EQ(o.output, "out.npy");
  EXPECT_EQ(t2s_rt::detail::program_name(), "prog_emu");
}

TEST(Options, WrongUsageExitsWithStatus2) {
  set_threadsafe_death_tests();
  EXPECT_EXIT(parse({"--bogus"}), testing::ExitedWithCode(2),
              "prog_emu: error: unknown option '--bogus'\nRun 'prog_emu --help' for the options.");
  EXPECT_EXIT(parse({"--fill", "zeros"}), testing::ExitedWithCode(2),
              "--fill: 'zeros' is not one of sequential, random");
  EXPECT_EXIT(parse({"--seed", "-1"}), testing::ExitedWithCode(2), "--seed: '-1' is not");
  EXPECT_EXIT(parse({"--seed", "18446744073709551616"}), testing::ExitedWithCode(2),
              "--seed: '18446744073709551616' is not");
  EXPECT_EXIT(parse({"-o"}), testing::ExitedWithCode(2), "-o requires an argument");
  EXPECT_EXIT(parse({"extra"}), testing::ExitedWithCode(2), "unexpected argument 'extra'");
  EXPECT_EXIT(parse({}, {"AOCX"}), testing::ExitedWithCode(2), "missing argument AOCX");
  // As t2s-run: a malformed or repeated --input is an error in the input (status 1).
  EXPECT_EXIT(parse({"--input", "a"}), testing::ExitedWithCode(1),
              "error: --input expects NAME=FILE.npy, not 'a'");
  EXPECT_EXIT(parse({"--input", "a=x", "--input", "a=y"}), testing::ExitedWithCode(1),
              "error: --input gives 'a' twice");
}

TEST(Options, HelpDocumentsEveryOption) {
  set_threadsafe_death_tests();
  for (const char* flag : {"-h", "--help"}) {
    EXPECT_EXIT(
        {
          parse({flag});
          std::exit(5);
        },
        testing::ExitedWithCode(0), "");
  }
  // The text itself, captured through a pipe from a child process.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  if (child == 0) {
    dup2(fds[1], 1);
    parse({"--help"}, {"AOCX"});
    std::_Exit(5);
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (const char* option :
       {"Test program.", "AOCX", "-h,--help", "--input NAME=FILE.npy", "-o,--output FILE.npy",
        "--fill sequential|random", "--seed N", "--print"})
    EXPECT_NE(text.find(option), std::string::npos) << option << " in\n" << text;
}

TEST(Fail, PrintsTheProgramNameAndExits1) {
  set_threadsafe_death_tests();
  parse({});
  EXPECT_EXIT(t2s_rt::fail("it broke"), testing::ExitedWithCode(1),
              "^prog_emu: error: it broke\n$");
}

// --- Channels and the scheduler --------------------------------------------------------------

TEST(Fifo, HoldsItsCapacityAndKeepsOrder) {
  t2s_rt::Fifo<int> f("ch", 3);
  EXPECT_EQ(f.capacity(), 3u);
  for (int i = 0; i < 3; ++i) f.write(i);  // never blocks below the capacity
  EXPECT_EQ(f.size(), 3u);
  EXPECT_EQ(f.leftover_message(),
            "channel 'ch' still holds 3 unread values after its kernels finished");
  // One more does not fit: the only kernel waits for ever, which is a deadlock.
  EXPECT_EQ(report_of([&] { f.write(3); }),
            "deadlock: every unfinished kernel is blocked: kernel 'K' waits to write to channel "
            "'ch' (full)");
  EXPECT_EQ(f.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(f.read(), i);
  EXPECT_EQ(f.leftover_message(), "");
  EXPECT_EQ(report_of([&] { f.read(); }),
            "deadlock: every unfinished kernel is blocked: kernel 'K' waits to read from channel "
            "'ch' (empty)");
  // Depth 0 (no attribute) holds one value, as the interpreter's FIFOs.
  t2s_rt::Fifo<float> g("g", 0);
  EXPECT_EQ(g.capacity(), 1u);
  g.write(1.5f);
  EXPECT_EQ(g.leftover_message(),
            "channel 'g' still holds 1 unread value after its kernels finished");
}

TEST(Threads, ProducerAndConsumerPassEveryValueInOrder) {
  for (int capacity : {1, 2, 64}) {
    t2s_rt::Fifo<int64_t> a("a", capacity), b("b", capacity);
    int64_t sum = 0;
    bool ordered = true;
    std::string report = t2s_rt::Threads()
                             .add("producer",
                                  [&] {
                                    for (int64_t i = 0; i < 20000; ++i) a.write(i);
                                  })
                             .add("relay",
                                  [&] {
                                    for (int64_t i = 0; i < 20000; ++i) b.write(a.read() * 2);
                                  })
                             .add("consumer",
                                  [&] {
                                    for (int64_t i = 0; i < 20000; ++i) {
                                      int64_t v = b.read();
                                      ordered = ordered && v == 2 * i;
                                      sum += v;
                                    }
                                  })
                             .run_and_report();
    EXPECT_EQ(report, "");
    EXPECT_TRUE(ordered);
    EXPECT_EQ(sum, 20000LL * 19999LL);
    EXPECT_EQ(a.leftover_message() + b.leftover_message(), "");
  }
}

TEST(Threads, DetectsDeadlockOfTwoKernels) {
  for (int repeat = 0; repeat < 50; ++repeat) {
    t2s_rt::Fifo<int> ch("ch", 1), e("e", 1);
    std::string report = t2s_rt::Threads()
                             .add("B", [] {})
                             .add("C", [&] { ch.read(); })
                             .add("D",
                                  [&] {
                                    e.write(1);
                                    e.write(2);
                                  })
                             .run_and_report();
    EXPECT_EQ(report,
              "deadlock: every unfinished kernel is blocked: kernel 'C' waits to read from "
              "channel 'ch' (empty); kernel 'D' waits to write to channel 'e' (full)");
  }
}

TEST(Threads, DetectsDeadlockAfterPartialProgress) {
  // The consumer wants one value more than the producer sends: the deadlock comes after the
  // producer finished, at any interleaving.
  for (int repeat = 0; repeat < 50; ++repeat) {
    t2s_rt::FifoArray<int> ch("ch", {2, 3}, 2);
    std::string report = t2s_rt::Threads()
                             .add("P",
                                  [&] {
                                    for (int i = 0; i < 10; ++i) ch.at({1, 2}).write(i);
                                  })
                             .add("Q",
                                  [&] {
                                    for (int i = 0; i < 11; ++i) ch.at({1, 2}).read();
                                  })
                             .run_and_report();
    EXPECT_EQ(report,
              "deadlock: every unfinished kernel is blocked: kernel 'Q' waits to read from "
              "channel 'ch' at (1, 2) (empty)");
  }
}

TEST(Threads, AnErrorInOneKernelStopsTheOthers) {
  t2s_rt::Fifo<int> ch("ch", 1);
  std::string report = t2s_rt::Threads()
                           .add("reader", [&] { ch.read(); })  // would wait for ever
                           .add("failer", [] { t2s_rt::fail("something is wrong"); })
                           .run_and_report();
  EXPECT_EQ(report, "something is wrong");
  // Two failures: the first in list order is reported.
  for (int repeat = 0; repeat < 20; ++repeat) {
    report = t2s_rt::Threads()
                 .add("x",
                      [] {
                        std::this_thread::sleep_for(std::chrono::milliseconds(2));
                        t2s_rt::fail("first");
                      })
                 .add("y", [] { t2s_rt::fail("second"); })
                 .run_and_report();
    EXPECT_EQ(report, "first");
  }
}

TEST(Threads, RunExitsWithTheReport) {
  set_threadsafe_death_tests();
  EXPECT_EXIT(
      {
        t2s_rt::Fifo<int> ch("ch", 1);
        t2s_rt::Threads().add("A", [&] { ch.read(); }).add("B", [&] { ch.read(); }).run();
      },
      testing::ExitedWithCode(1),
      "error: deadlock: every unfinished kernel is blocked: kernel 'A' waits to read from "
      "channel 'ch' \\(empty\\); kernel 'B' waits to read from channel 'ch' \\(empty\\)\n");
  EXPECT_EXIT(
      {
        t2s_rt::Fifo<int> ch("ch", 1);
        ch.write(1);
        ch.write(2);  // the main thread, outside any group
      },
      testing::ExitedWithCode(1), "deadlock: the main thread waits to write to channel 'ch'");
  EXPECT_EXIT(
      {
        t2s_rt::Fifo<int> ch("ch", 4);
        ch.write(1);
        ch.write(2);
        t2s_rt::check_drained(ch);
      },
      testing::ExitedWithCode(1),
      "error: channel 'ch' still holds 2 unread values after its kernels finished\n");
}

TEST(FifoArray, IndexesAndReportsLeftovers) {
  t2s_rt::FifoArray<int> ch("ch", {2, 3}, 4);
  ch.at({1, 0}).write(5);
  ch.at({0, 2}).write(6);
  ch.at({0, 2}).write(7);
  EXPECT_EQ(ch.leftover_message(),
            "channel 'ch' still holds 3 unread values after its kernels finished, the first at "
            "(1, 0)");
  EXPECT_EQ(ch.at({0, 2}).read(), 6);
  EXPECT_EQ(report_of([&] {
              ch.at({2, 0});
            }),
            "index (2, 0) of channel 'ch' is outside its dimensions (2, 3)");
}

// --- Storage of the emulation ----------------------------------------------------------------

TEST(FuncStorage, ChecksBoundsAndUncomputedReads) {
  t2s_rt::FuncStorage<int32_t> s("A", {0, -1}, {4, 3});
  EXPECT_EQ(report_of([&] { s.read({0, -1}); }), "read of 'A' at (0, -1) before it was computed");
  s.store(s.locate_write({3, 1}), 42);
  EXPECT_EQ(s.read({3, 1}), 42);
  EXPECT_EQ(report_of([&] {
              s.read({4, 1});
            }),
            "read of 'A' at (4, 1) is outside its bounds [0, 4) x [-1, 2)");
  EXPECT_EQ(report_of([&] {
              s.locate_write({0, 2});
            }),
            "write of 'A' at (0, 2) is outside its bounds [0, 4) x [-1, 2)");
  EXPECT_EQ(report_of([&] { s.to_output(); }),
            "the output buffer 'A' does not start at 0 in every dimension");

  t2s_rt::FuncStorage<bool> out("c", {0, 0}, {2, 2});
  out.store(out.locate_write({0, 0}), true);
  out.store(out.locate_write({1, 0}), false);
  EXPECT_EQ(report_of([&] { out.to_output(); }),
            "2 of the 4 elements of output 'c' were never computed; the first is at (0, 1)");
  out.store(out.locate_write({0, 1}), true);
  out.store(out.locate_write({1, 1}), true);
  t2s_rt::Array a = out.to_output();
  EXPECT_EQ(a.dtype, "bool");
  EXPECT_EQ(a.data, (std::vector<unsigned char>{1, 0, 1, 1}));
  EXPECT_EQ(report_of([] {
              t2s_rt::FuncStorage<double> big("B", {0, 0}, {1 << 20, 1 << 20});
            }),
            "storage of 'B' with bounds [0, 1048576) x [0, 1048576) is too large for the "
            "emulation (more than 2^32 elements)");
}

TEST(InputArray, ChecksBounds) {
  t2s_rt::InputArray<float> in;
  in.init("a", t2s_rt::fill_array("float32", {4, 8}, false, 0, "a"));
  EXPECT_EQ(in.read({3, 1}), 25.0f);  // sequential: the row-major index 3 * 8 + 1
  EXPECT_EQ(report_of([&] {
              in.read({4, 0});
            }),
            "read of input 'a' at (4, 0) is outside its extents (4, 8)");
}

TEST(ShiftRegister, ShiftsAndChecks) {
  t2s_rt::ShiftRegister<int> r("R", {2, 2}, 3);
  EXPECT_EQ(report_of([&] {
              r.read({1, 0, 2});
            }),
            "read of slot 2 of shift register 'R' of PE (1, 0) before any value reached it");
  r.store(r.locate_write({1, 0, 0}), 10);
  r.shift({1, 0});
  r.store(r.locate_write({1, 0, 0}), 11);
  r.shift({1, 0});
  EXPECT_EQ(r.read({1, 0, 0}), 11);  // slot 0 keeps its value
  EXPECT_EQ(r.read({1, 0, 1}), 11);
  EXPECT_EQ(r.read({1, 0, 2}), 10);
  r.shift({1, 0});
  EXPECT_EQ(r.read({1, 0, 2}), 11);  // 10 fell off the end
  EXPECT_EQ(report_of([&] {
              r.read({0, 0, 0});
            }),
            "read of slot 0 of shift register 'R' of PE (0, 0) before any value reached it");
  EXPECT_EQ(report_of([&] {
              r.read({3, 0, 1});
            }),
            "read of shift register 'R' at (3, 0, 1) is outside its PE array (2, 2) x 3 slots");
  EXPECT_EQ(report_of([&] {
              r.locate_write({0, 0, 3});
            }),
            "write of shift register 'R' at (0, 0, 3) is outside its PE array (2, 2) x 3 slots");
  EXPECT_EQ(report_of([&] {
              r.shift({2, 0});
            }),
            "shift of shift register 'R' at (2, 0) is outside its PE array (2, 2)");
}

TEST(FifoRegister, OverflowUnderflowAndLeftovers) {
  t2s_rt::FifoRegister<int> f("F", {4}, 7);
  for (int i = 0; i < 7; ++i) f.push(f.locate_push({3}), i);
  EXPECT_EQ(report_of([&] { f.push(f.locate_push({3}), 7); }),
            "FIFO 'F' of PE (3) overflows: it already holds its depth of 7 values");
  for (int i = 0; i < 7; ++i) EXPECT_EQ(f.pop({3}), i);
  EXPECT_EQ(report_of([&] { f.pop({3}); }), "pop from FIFO 'F' of PE (3), which is empty");
  f.push(f.locate_push({2}), 1);
  EXPECT_EQ(report_of([&] { f.check_empty("A"); }),
            "FIFO 'F' of PE (2) still holds 1 value after kernel 'A' finished");
  EXPECT_EQ(report_of([&] { f.pop({4}); }), "pop from FIFO 'F' at (4) is outside its PE array (4)");
  EXPECT_EQ(report_of([&] { f.locate_push({-1}); }),
            "push to FIFO 'F' at (-1) is outside its PE array (4)");
  // Wrapping around the ring many times keeps the order.
  t2s_rt::FifoRegister<int64_t> g("G", {}, 5);
  int64_t next = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    g.push(g.locate_push(), i);
    if (i - next == 4) {
      for (int k = 0; k < 3; ++k) EXPECT_EQ(g.pop(), next++);
    }
  }
  t2s_rt::FifoRegister<int> one("H", {2}, 1);
  one.push(one.locate_push({0}), 1);
  EXPECT_EQ(report_of([&] { one.push(one.locate_push({0}), 2); }),
            "FIFO 'H' of PE (0) overflows: it already holds its depth of 1 value");
}

// --- Vector values ---------------------------------------------------------------------------

TEST(Vec, ChannelsAndRegistersHoldWholeVectorsAndCountLanes) {
  using V = t2s_rt::Vec<float, 4>;
  static_assert(t2s_rt::LanesOf<V>::value == 4 && t2s_rt::LanesOf<float>::value == 1);
  // A FIFO of capacity 2 holds two vectors; leftovers count lanes, as the interpreter does.
  t2s_rt::Fifo<V> ch("ch", 2);
  ch.write(V{{1, 2, 3, 4}});
  ch.write(V{{5, 6, 7, 8}});
  EXPECT_EQ(ch.read().lane[3], 4.0f);
  EXPECT_EQ(ch.leftover_message(),
            "channel 'ch' still holds 4 unread values after its kernels finished");
  t2s_rt::FifoArray<t2s_rt::Vec<int, 2>> array("a", {2}, 1);
  array.at({1}).write(t2s_rt::Vec<int, 2>{{1, 2}});
  EXPECT_EQ(array.leftover_message(),
            "channel 'a' still holds 2 unread values after its kernels finished, the first at (1)");
  // A FIFO register of depth 2 holds two vectors.
  t2s_rt::FifoRegister<V> f("F", {1}, 2);
  f.push(f.locate_push({0}), V{{1, 2, 3, 4}});
  f.push(f.locate_push({0}), V{{5, 6, 7, 8}});
  EXPECT_EQ(report_of([&] { f.push(f.locate_push({0}), V{}); }),
            "FIFO 'F' of PE (0) overflows: it already holds its depth of 2 values");
  EXPECT_EQ(f.pop({0}).lane[0], 1.0f);
  EXPECT_EQ(report_of([&] { f.check_empty("K"); }),
            "FIFO 'F' of PE (0) still holds 4 values after kernel 'K' finished");
  // A shift register moves whole vectors.
  t2s_rt::ShiftRegister<t2s_rt::Vec<bool, 3>> r("R", {1}, 2);
  r.store(r.locate_write({0, 0}), t2s_rt::Vec<bool, 3>{{true, false, true}});
  r.shift({0});
  EXPECT_TRUE(r.read({0, 1}).lane[2]);
  EXPECT_FALSE(r.read({0, 1}).lane[1]);
}

// --- Embedding ---------------------------------------------------------------------------------

TEST(RuntimeSource, IsThePartsConcatenatedWithoutTheirOwnIncludes) {
  const std::string text = t2s_runtime_source();
  ASSERT_GT(text.size(), 1000u);
  // One self-contained piece of code: no include of the runtime's own headers, no
  // `#pragma once` (a warning in a main file), every system header included once.
  EXPECT_EQ(text.find("#include \""), std::string::npos);
  EXPECT_EQ(text.find("#pragma once"), std::string::npos);
  std::istringstream lines(text);
  std::set<std::string> includes;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("#include <", 0) != 0) continue;
    EXPECT_TRUE(includes.insert(line).second) << line;
  }
  const std::string umbrella = file_bytes("libs/runtime/t2s_runtime.h");
  EXPECT_EQ(text.rfind(umbrella.substr(0, umbrella.find("#pragma once")), 0), 0u);
  // Every part's code, whole and in order.
  size_t at = 0;
  for (const char* part : {"common.h", "vector.h", "array.h", "npy.h", "file.h", "fill.h",
                           "options.h", "channels.h", "storage.h"}) {
    const std::string bytes = file_bytes(std::string("libs/runtime/") + part);
    const std::string code = bytes.substr(bytes.find("\nnamespace t2s_rt {\n"));
    ASSERT_GT(code.size(), 100u) << part;
    size_t found = text.find(code, at);
    ASSERT_NE(found, std::string::npos) << part;
    at = found + code.size();
  }
}

}  // namespace
