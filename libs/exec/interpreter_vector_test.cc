// The interpreter on vector IR (docs/ir.md, "Vector values"): hand-written vectorized-stage
// programs give exactly the values of their scalar (loop) versions.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "libs/exec/interpreter_testing.h"

namespace t2s {
namespace exec_test {
namespace {

// Float inputs x and y of 16 elements, float output c of `n`.
const char kInputsXY[] = R"j([
  {"name": "x", "type": "float32", "dims": 1, "extents": ["16"], "loc": "3:1"},
  {"name": "y", "type": "float32", "dims": 1, "extents": ["16"], "loc": "3:2"}])j";

std::map<std::string, NdArray> xy_data() {
  std::vector<float> x, y;
  for (int i = 0; i < 16; ++i) {
    x.push_back(0.1f * static_cast<float>(i) + 1.0f / 3.0f);
    y.push_back(1.7f - 0.37f * static_cast<float>(i * i % 7));
  }
  return {{"x", make_array<float>(Type::Float(32), {16}, x)},
          {"y", make_array<float>(Type::Float(32), {16}, y)}};
}

Program xy_program(const std::string& kernels, const std::string& channels = "[]",
                   const std::string& stage = "vectorized") {
  return parse(document(kInputsXY, "[" + func("c", "float32", 1) + "]", output_c(4),
                        buffer_c(4, "float32"), kernels, channels, stage));
}

// A 1-D filter: c(i) = a(i) * 3 - min(a(i), 20) + (a(i) > 30 ? 1 : 0), written with gathers,
// broadcasts, a vector let, a vector select and a scatter.
TEST(Vectors, FilterMatchesScalarLoop) {
  Program scalar = one_kernel(R"j([{"for": "i", "min": "0", "extent": "8", "kind": "serial",
    "body": [{"provide": "c", "args": ["i"],
              "value": "a(i) * 3 - min(a(i), 20) + select(a(i) > 30, 1, 0)"}]}])j");
  Program vector = one_kernel(R"j([{"for": "io", "min": "0", "extent": "2", "kind": "serial",
    "body": [{"let": "v", "value": "a(ramp(io * 4, 1, 4))", "body": [
      {"provide": "c", "args": ["ramp(io * 4, 1, 4)"],
       "value": "v * broadcast(3, 4) - min(v, broadcast(20, 4)) + select(v > broadcast(30, 4), broadcast(1, 4), broadcast(0, 4))"}]}]}])j");
  verify_program(vector, "test.json");
  const NdArray expected = run_program(scalar, {{"a", sequence(8)}});
  const NdArray got = run_program(vector, {{"a", sequence(8)}});
  EXPECT_EQ(compare_arrays(expected, got), std::nullopt);
  EXPECT_EQ(elements<int32_t>(got), (std::vector<int32_t>{2, 22, 43, 74, 104, 134, 164, 194}));
}

// A dot product per output (GEMM's inner loop): producer P sends 4-lane vectors of x over a
// vector channel (assembled with concat and slice); consumer C multiplies by a gather of y and
// reduces the lanes in order. Floats: bit for bit equal to the scalar loop.
TEST(Vectors, DotProductOverVectorChannelMatchesScalar) {
  Program scalar = xy_program(R"j([{"name": "K", "place": "host", "loc": "4:1", "body": [
    {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
      {"provide": "c", "args": ["i"], "value":
       "x(i * 4) * y(i * 4) + x(i * 4 + 1) * y(i * 4 + 1) + x(i * 4 + 2) * y(i * 4 + 2) + x(i * 4 + 3) * y(i * 4 + 3)"}]}]}])j",
                              "[]", "merged");
  Program vector = xy_program(
      R"j([{"name": "P", "place": "device", "loc": "5:1", "body": [
    {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
      {"let": "w", "value": "x(ramp(i * 4, 1, 4))", "body": [
        {"write_channel": "ch", "index": [],
         "value": "concat(slice(w, 0, 1), slice(w, 1, 2), slice(w, 3, 1))"}]}]}]},
  {"name": "C", "place": "device", "loc": "6:1", "body": [
    {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
      {"let": "p", "value": "read_channel(ch) * y(ramp(i * 4, 1, 4))", "body": [
        {"provide": "c", "args": ["i"],
         "value": "slice(p, 0, 1) + slice(p, 1, 1) + slice(p, 2, 1) + slice(p, 3, 1)"}]}]}]}])j",
      R"j([{"name": "ch", "type": "float32x4", "dims": [], "depth": 1, "producer": "P",
            "consumer": "C", "loc": "7:1"}])j");
  verify_program(scalar, "test.json");
  verify_program(vector, "test.json");
  const NdArray expected = run_program(scalar, xy_data());
  const NdArray got = run_program(vector, xy_data());
  EXPECT_EQ(compare_arrays(expected, got), std::nullopt);
  EXPECT_EQ(elements<float>(got), elements<float>(expected));
}

// A scatter stores lane 0 first: where lanes name one element, the last lane's value stays.
// Ramp arithmetic wraps as int32 does; casts and comparisons are lane-wise.
TEST(Vectors, ScatterOrderRampWrapAndCasts) {
  Program p = one_kernel(R"j([
    {"provide": "c", "args": ["ramp(0, 1, 8)"], "value": "broadcast(0, 8)"},
    {"provide": "c", "args": ["broadcast(1, 4)"], "value": "ramp(5, 1, 4)"},
    {"provide": "c", "args": ["ramp(2, 1, 2)"],
     "value": "slice(ramp(2147483646, 1, 4), 1, 2) % broadcast(1000, 2)"},
    {"provide": "c", "args": ["ramp(4, 2, 2)"],
     "value": "cast(Int(32, 2), cast(Float(32, 2), ramp(7, -3, 2)) * broadcast(1.5f, 2))"},
    {"provide": "c", "args": ["slice(ramp(5, 2, 3), 0, 1)"],
     "value": "slice(select(ramp(0, 1, 4) < broadcast(2, 4), broadcast(-1, 4), ramp(10, 10, 4)), 3, 1)"}])j");
  verify_program(p, "test.json");
  const NdArray got = run_program(p, {{"a", sequence(8)}});
  // c(2) = 2147483647 % 1000, c(3) = -2147483648 % 1000 (Euclidean), c(4) = 10, c(6) = 6.
  EXPECT_EQ(elements<int32_t>(got), (std::vector<int32_t>{0, 8, 647, 352, 10, 40, 6, 0}));
}

// A select with a scalar condition and vector values is lazy: the untaken gather would read
// a(8) .. a(11), outside the input (sequence(8) is 1, 11, 21, ...).
TEST(Vectors, ScalarConditionSelectIsLazy) {
  Program p = one_kernel(R"j([
    {"provide": "c", "args": ["ramp(0, 1, 4)"],
     "value": "select(1 < 2, a(ramp(0, 1, 4)), a(ramp(8, 1, 4)))"},
    {"provide": "c", "args": ["ramp(4, 1, 4)"],
     "value": "select(2 < 1, a(ramp(8, 1, 4)), a(ramp(1, 1, 4)) * broadcast(2, 4))"}])j");
  verify_program(p, "test.json");
  const NdArray got = run_program(p, {{"a", sequence(8)}});
  EXPECT_EQ(elements<int32_t>(got), (std::vector<int32_t>{1, 11, 21, 31, 22, 42, 62, 82}));
}

// A vector shift register: lanes (a(t) + p, a(t) * p) travel together; the scalar version uses
// two registers.
const char kVectorShift[] = R"j([
  {"for": "t", "min": "0", "extent": "8", "kind": "serial", "body": [
    {"for": "p", "min": "0", "extent": "2", "kind": "unrolled", "body": [
      @BODY]},
    {"provide": "c", "args": ["t"], "value": "@READ"}]}])j";

std::string reg_record(const std::string& name, const std::string& type) {
  return R"j({"name": ")j" + name + R"j(", "func": "c", "kernel": "K", "type": ")j" + type +
         R"j(", "kind": "shift", "shape": [2], "depth": 3, "distance": [1], "pe_offset": [0],
         "time_distance": 1, "period": 1, "naive": 2, "loc": "12:1"})j";
}

TEST(Vectors, VectorShiftRegisterMatchesScalar) {
  auto program = [](const std::string& body, const std::string& read, const std::string& regs) {
    return parse(document(kInputA, "[" + func("c", "int32", 1) + "]", output_c(8), buffer_c(8),
                          host_kernel(subst(kVectorShift, {{"@BODY", body}, {"@READ", read}})),
                          "[]", "vectorized", "[" + regs + "]"));
  };
  Program scalar = program(
      R"j({"shift": "S0", "args": ["p"]}, {"shift": "S1", "args": ["p"]},
      {"provide": "S0", "args": ["p", "0"], "value": "a(t) + p"},
      {"provide": "S1", "args": ["p", "0"], "value": "a(t) * p"})j",
      "select(t >= 2, S0(1, 2) + S1(1, 2) * 1000 + S1(0, 1), -1)",
      reg_record("S0", "int32") + ", " + reg_record("S1", "int32"));
  Program vector = program(
      R"j({"shift": "V", "args": ["p"]},
      {"provide": "V", "args": ["p", "0"],
       "value": "broadcast(a(t), 2) * concat(1, p) + concat(p, 0)"})j",
      "select(t >= 2, slice(V(1, 2), 0, 1) + slice(V(1, 2), 1, 1) * 1000 + slice(V(0, 1), 1, 1), "
      "-1)",
      reg_record("V", "int32x2"));
  verify_program(scalar, "test.json");
  verify_program(vector, "test.json");
  const NdArray expected = run_program(scalar, {{"a", sequence(8)}});
  EXPECT_EQ(compare_arrays(expected, run_program(vector, {{"a", sequence(8)}})), std::nullopt);
}

// testdata/ir/vector_dot.json (the hand-written vectorized-stage program of the IR tests)
// against its scalar version: c(i) = sum over l of +-x(4i + l) * y(4i + 3 - l) (lane 2 negated
// where i >= 2), e(i) = c(i) * 2 + i.
TEST(Vectors, VectorDotDocumentMatchesScalar) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  std::ifstream in(std::string(srcdir ? srcdir : ".") + "/t2s/testdata/ir/vector_dot.json");
  std::ostringstream text;
  text << in.rdbuf();
  Program vector = read_program(text.str(), "vector_dot.json");
  verify_program(vector, "vector_dot.json");
  Program scalar = parse(
      document(kInputsXY, "[" + func("c", "float32", 1) + ", " + func("e", "float32", 1) + "]",
               R"j({"func": "e", "extents": ["4"], "loc": "20:1"})j",
               R"j([{"name": "c", "type": "float32", "bounds": [["0", "4"]], "loc": "9:1"},
           {"name": "e", "type": "float32", "bounds": [["0", "4"]], "loc": "9:1"}])j",
               R"j([{"name": "K", "place": "host", "loc": "4:1", "body": [
    {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
      {"provide": "c", "args": ["i"], "value":
       "x(i * 4) * y(i * 4 + 3) + x(i * 4 + 1) * y(i * 4 + 2) + select(i < 2, x(i * 4 + 2) * y(i * 4 + 1), -(x(i * 4 + 2) * y(i * 4 + 1))) + x(i * 4 + 3) * y(i * 4)"},
      {"provide": "e", "args": ["i"], "value": "c(i) * 2.0f + cast(Float(32), i)"}]}]}])j"));
  const NdArray expected = run_program(scalar, xy_data());
  const NdArray got = run_program(vector, xy_data());
  EXPECT_EQ(compare_arrays(expected, got), std::nullopt);
  EXPECT_EQ(elements<float>(got), elements<float>(expected));
}

// A gather reads every lane's element; an out-of-bounds lane is located.
TEST(Vectors, GatherOutOfBounds) {
  Program p = one_kernel(R"j([{"provide": "c", "args": ["ramp(0, 1, 2)"],
    "value": "a(ramp(6, 1, 2)) + a(ramp(7, 1, 2))", "loc": "9:2"}])j");
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", sequence(8)}});
      },
      "9:2", "read of input 'a' at (8) is outside its extents (8)", "run-input-bounds");
}

}  // namespace
}  // namespace exec_test
}  // namespace t2s
