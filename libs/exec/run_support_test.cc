// t2s-run's helpers: --input values and files, the printed output, the --check diagnostic.
#include "libs/exec/run_support.h"

#include <gtest/gtest.h>

#include <sstream>

#include "libs/exec/fill.h"
#include "libs/exec/npy_testing.h"
#include "libs/ir/diagnostic.h"

namespace t2s {
namespace {

// The message read_input_arrays reports for `specs`, each file holding `file_bytes`.
std::string input_error(const std::vector<std::string>& specs, const std::string& file_bytes) {
  try {
    read_input_arrays(
        specs, [&](const std::string&) { return file_bytes; },
        [](const std::string& m) { throw std::runtime_error(m); });
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(ReadInputArrays, ReadsEachNamedFile) {
  const NdArray a = fill_array(Type::Int(32), {2, 3}, FillKind::kRandom, 7, "a");
  std::vector<std::string> paths;
  auto arrays = read_input_arrays(
      {"a=x.npy", "b=y.npy"},
      [&](const std::string& path) {
        paths.push_back(path);
        return write_npy(a);
      },
      [](const std::string& m) { FAIL() << m; });
  EXPECT_EQ(paths, (std::vector<std::string>{"x.npy", "y.npy"}));
  ASSERT_EQ(arrays.size(), 2u);
  EXPECT_EQ(arrays["a"].data, a.data);
  EXPECT_EQ(arrays["b"].shape, a.shape);
}

TEST(ReadInputArrays, ReportsTheUsersErrors) {
  const std::string good = write_npy(fill_array(Type::Bool(), {1}, FillKind::kSequential, 0, "a"));
  EXPECT_EQ(input_error({"a.npy"}, good), "--input expects NAME=FILE.npy, not 'a.npy'");
  EXPECT_EQ(input_error({"=a.npy"}, good), "--input expects NAME=FILE.npy, not '=a.npy'");
  EXPECT_EQ(input_error({"a="}, good), "--input expects NAME=FILE.npy, not 'a='");
  EXPECT_EQ(input_error({"a=x.npy", "a=y.npy"}, good), "--input gives 'a' twice");
  EXPECT_EQ(input_error({"a=x.npy"}, "nonsense"), "x.npy: not a .npy file (bad magic string)");
  EXPECT_EQ(input_error({"a=x.npy"}, npy_with_header("{'descr': '<i4'}", "")),
            "x.npy: malformed .npy header: missing key 'fortran_order'");
}

TEST(PrintArray, LastIndexFastest) {
  NdArray a = fill_array(Type::Float(32), {2, 2}, FillKind::kSequential, 0, "c");
  std::ostringstream out;
  print_array("c", a, out);
  EXPECT_EQ(out.str(), "c(0, 0) = 0.0\nc(0, 1) = 1.0\nc(1, 0) = 2.0\nc(1, 1) = 3.0\n");
  std::ostringstream scalar;
  print_array("s", fill_array(Type::Int(8), {}, FillKind::kSequential, 0, "s"), scalar);
  EXPECT_EQ(scalar.str(), "s() = 0\n");
}

TEST(CheckAgainstReference, PassesOrNamesTheFirstDifference) {
  Program program;
  program.stage = Stage::kStt;
  program.output.func = "c";
  const NdArray expected = fill_array(Type::Int(32), {3, 2}, FillKind::kSequential, 0, "c");
  EXPECT_EQ(check_against_reference(program, expected, expected),
            "check passed: c of the stt stage equals the merged reference (6 elements, bit for "
            "bit)");
  NdArray actual = expected;
  actual.data[4] = 9;  // element (1, 0), the row-major 2
  actual.data[8] = 9;  // element (2, 0)
  try {
    check_against_reference(program, expected, actual);
    FAIL() << "no diagnostic";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "check");
    EXPECT_EQ(d.message(),
              "the stt stage differs from the merged reference at c(1, 0): merged 2, stt 9 (2 "
              "of 6 elements differ)");
  }
  actual.shape = {2, 3};
  try {
    check_against_reference(program, expected, actual);
    FAIL() << "no diagnostic";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.message(),
              "the output differs from the merged reference: the arrays differ in shape: "
              "expected (3, 2), actual (2, 3)");
  }
}

}  // namespace
}  // namespace t2s
