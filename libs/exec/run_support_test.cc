// t2s-run's helpers: --input values and files, the printed output, the --check diagnostic.
#include "libs/exec/run_support.h"

#include <gtest/gtest.h>

#include <sstream>

#include "libs/exec/input_fill.h"
#include "libs/exec/npy_files_testing.h"
#include "libs/ir/diagnostic.h"
#include "libs/ir/ir_json.h"

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

// A kernel's realizes: `big` (10 x 100) holding `inner` (10), then `small` (7) after it; a
// second kernel's `other` (5 x 5) runs at the same time.
const char kRealizes[] = R"x({
  "t2s_ir": 1, "stage": "merged", "vars": ["i", "j"],
  "inputs": [{"name": "a", "type": "int32", "dims": 1, "extents": ["4"]}],
  "funcs": [{"name": "big", "type": "int32", "args": ["i", "j"], "place": "host",
             "declared": false, "definition": "a(0)"},
            {"name": "inner", "type": "int32", "args": ["i"], "place": "host",
             "declared": false, "definition": "a(0)"},
            {"name": "small", "type": "int32", "args": ["i"], "place": "host",
             "declared": false, "definition": "a(0)"},
            {"name": "other", "type": "int32", "args": ["i", "j"], "place": "host",
             "declared": false, "definition": "a(0)"},
            {"name": "g", "type": "int32", "args": ["i"], "place": "host",
             "declared": false, "definition": "a(i)"}],
  "directives": [],
  "output": {"func": "g", "extents": ["4"]},
  "buffers": [{"name": "g", "type": "int32", "bounds": [["0", "4"]]}],
  "kernels": [
    {"name": "g", "place": "host", "body": [
      {"realize": "big", "type": "int32", "bounds": [["0", "10"], ["0", "100"]], "body": [
        {"realize": "inner", "type": "int32", "bounds": [["0", "10"]], "body": []}]},
      {"realize": "small", "type": "int32", "bounds": [["0", "7"]], "body": [
        {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
          {"provide": "g", "args": ["i"], "value": "a(i)"}]}]}]},
    {"name": "h", "place": "host", "body": [
      {"realize": "other", "type": "int32", "bounds": [["0", "5"], ["0", "5"]], "body": []}]}],
  "channels": [], "registers": []
})x";

TEST(DeclaredRunMemory, CountsTheRealizesLiveAtOnce) {
  const Program p = read_program(kRealizes, "realizes.json");
  // Input a: 4 x 4 bytes; buffer g: 4 x 9; big and inner (live together, more than small):
  // (1000 + 10) x 9; other: 25 x 9.
  EXPECT_EQ(declared_run_memory(p), 16 + 36 + 1010 * 9 + 25 * 9);
  // The JIT's emulation folds big to 10 x 2.
  const Realize* big = p.kernels[0].body[0]->as<Realize>();
  ASSERT_NE(big, nullptr);
  RealizeExtents folded{{big, {10, 2}}};
  EXPECT_EQ(declared_run_memory(p, &folded), 16 + 36 + 30 * 9 + 25 * 9);
  try {
    check_run_memory(p, 1000);
    FAIL() << "no refusal";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "run-memory");
    EXPECT_EQ(d.message(),
              "the run needs 9367 bytes of storage (the largest, realize of 'big': 9000 bytes), "
              "more than the limit of 1000 bytes (t2s-run --max-memory)");
  }
  EXPECT_NO_THROW(check_run_memory(p, 16 + 36 + 30 * 9 + 25 * 9, &folded));
}

}  // namespace
}  // namespace t2s
