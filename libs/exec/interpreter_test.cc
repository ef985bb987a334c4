// The interpreter as a whole (GEMM, control flow), its inputs and limits, compare_arrays.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "libs/exec/input_fill.h"
#include "libs/exec/interpreter_testing.h"

namespace t2s {
namespace exec_test {
namespace {

// ---------------------------------------------------------------------------------------------
// GEMM as t2s-merge lowers it: three UREs (A and B propagate inputs, C accumulates) realized
// over the whole iteration space, and the output c written when k is last.

const char kGemm[] = R"j({
  "t2s_ir": 1, "stage": "merged", "vars": ["i", "j", "k"],
  "inputs": [
    {"name": "a", "type": "float32", "dims": 2, "extents": ["@I", "@K"], "loc": "3:1"},
    {"name": "b", "type": "float32", "dims": 2, "extents": ["@K", "@J"], "loc": "4:1"}],
  "funcs": [@FUNCS],
  "directives": [],
  "output": {"func": "c", "extents": ["@I", "@J"], "loc": "20:1"},
  "buffers": [{"name": "c", "type": "float32", "bounds": [["0", "@I"], ["0", "@J"]],
               "loc": "13:1"}],
  "kernels": [{"name": "A", "place": "@PLACE", "loc": "10:1", "body": [
    {"realize": "A", "type": "float32", "bounds": [["0", "@I"], ["0", "@J"], ["0", "@K"]],
     "loc": "10:1", "body": [
    {"realize": "B", "type": "float32", "bounds": [["0", "@I"], ["0", "@J"], ["0", "@K"]],
     "loc": "11:1", "body": [
    {"realize": "C", "type": "float32", "bounds": [["0", "@I"], ["0", "@J"], ["0", "@K"]],
     "loc": "12:1", "body": [
    {"for": "k", "min": "0", "extent": "@K", "kind": "serial", "loc": "15:1", "body": [
     {"for": "j", "min": "0", "extent": "@J", "kind": "serial", "loc": "15:1", "body": [
      {"for": "i", "min": "0", "extent": "@I", "kind": "serial", "loc": "15:1", "body": [
       {"provide": "A", "args": ["i", "j", "k"],
        "value": "select(j == 0, a(i, k), A(i, j - 1, k))", "loc": "10:1"},
       {"provide": "B", "args": ["i", "j", "k"],
        "value": "select(i == 0, b(k, j), B(i - 1, j, k))", "loc": "11:1"},
       {"provide": "C", "args": ["i", "j", "k"],
        "value": "select(k == 0, 0.0f, C(i, j, k - 1)) + A(i, j, k) * B(i, j, k)",
        "loc": "12:1"},
       {"if": "k == @K - 1", "loc": "13:1",
        "then": [{"provide": "c", "args": ["i", "j"], "value": "C(i, j, k)", "loc": "13:1"}],
        "else": []}]}]}]}]}]}]}]}],
  "channels": [],
  "registers": []
})j";

Program gemm(int I, int J, int K, const std::string& place = "host") {
  const std::string funcs = func("A", "float32", 3) + ", " + func("B", "float32", 3) + ", " +
                            func("C", "float32", 3) + ", " + func("c", "float32", 2);
  return parse(subst(kGemm, {{"@FUNCS", funcs},
                             {"@PLACE", place},
                             {"@I", std::to_string(I)},
                             {"@J", std::to_string(J)},
                             {"@K", std::to_string(K)}}));
}

// The same product as plain C++ float code (Fortran order: a(i, k) is at i + I * k).
std::vector<float> gemm_reference(const NdArray& a, const NdArray& b, int I, int J, int K) {
  std::vector<float> c(static_cast<size_t>(I * J));
  for (int j = 0; j < J; ++j)
    for (int i = 0; i < I; ++i) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k)
        acc = (k == 0 ? 0.0f : acc) + element<float>(a, i + I * k) * element<float>(b, k + K * j);
      c[static_cast<size_t>(i + I * j)] = acc;
    }
  return c;
}

TEST(Interpreter, GemmMatchesPlainLoops) {
  for (const char* place : {"host", "device"}) {
    const int I = 4, J = 5, K = 3;
    Program p = gemm(I, J, K, place);
    auto inputs = complete_inputs(p, {}, FillKind::kRandom, 7);
    ASSERT_EQ(inputs.size(), 2u);
    EXPECT_EQ(inputs["a"].shape, (std::vector<int64_t>{I, K}));
    NdArray c = run_program(p, inputs);
    EXPECT_EQ(c.type, Type::Float(32));
    EXPECT_EQ(c.shape, (std::vector<int64_t>{I, J}));
    EXPECT_EQ(elements<float>(c), gemm_reference(inputs["a"], inputs["b"], I, J, K)) << place;
  }
}

// 64 x 64 x 64: about 262k iterations of four statements; must run quickly (no timing here:
// `bazel test -c opt` shows it takes well under a second).
TEST(Interpreter, Gemm64Completes) {
  Program p = gemm(64, 64, 64);
  auto inputs = complete_inputs(p, {}, FillKind::kSequential, 0);
  NdArray c = run_program(p, inputs);
  EXPECT_EQ(elements<float>(c), gemm_reference(inputs["a"], inputs["b"], 64, 64, 64));
}

TEST(Interpreter, CompleteInputsKeepsGivenArrays) {
  Program p = gemm(2, 2, 2);
  NdArray a = make_array<float>(Type::Float(32), {2, 2}, {1, 2, 3, 4});
  auto inputs = complete_inputs(p, {{"a", a}}, FillKind::kSequential, 0);
  EXPECT_EQ(inputs["a"].data, a.data);
  EXPECT_EQ(elements<float>(inputs["b"]), (std::vector<float>{0, 2, 1, 3}));  // row-major fill
  // c = a * b with a = [[1, 3], [2, 4]] and b = [[0, 1], [2, 3]] (rows).
  EXPECT_EQ(elements<float>(run_program(p, inputs)), (std::vector<float>{6, 8, 10, 14}));
}

TEST(Interpreter, SelectIsLazy) {
  // select(i == 0, a(i), a(i - 1) + a(i)): evaluating both branches would read a(-1).
  Program p = one_kernel(R"j([{"for": "i", "min": "0", "extent": "8", "kind": "unrolled",
    "body": [{"provide": "c", "args": ["i"], "value": "select(i == 0, a(i), a(i - 1) + a(i))",
              "loc": "5:1"}]}])j");
  NdArray c = run_program(p, {{"a", sequence(8)}});
  EXPECT_EQ(elements<int32_t>(c), (std::vector<int32_t>{1, 12, 32, 52, 72, 92, 112, 132}));

  // The taken branch is evaluated, with its errors.
  Program q = one_kernel(R"j([{"for": "i", "min": "0", "extent": "8", "kind": "serial",
    "body": [{"provide": "c", "args": ["i"], "value": "select(i == 0, a(i - 1), a(i))",
              "loc": "5:1"}]}])j");
  expect_diagnostic(
      [&] {
        run_program(q, {{"a", sequence(8)}});
      },
      "5:1", "read of input 'a' at (-1) is outside its extents (8)", "run-input-bounds");
}

TEST(Interpreter, LetIfAndLoopBounds) {
  // Loop bounds are evaluated once at entry; lets shadow; if/else both run.
  Program p = one_kernel(R"j([{"let": "n", "value": "4", "body": [
    {"for": "i", "min": "n - 4", "extent": "n * 2", "kind": "vectorized", "body": [
      {"let": "n", "value": "i * 100", "body": [
        {"if": "i % 2 == 0",
         "then": [{"provide": "c", "args": ["i"], "value": "n + a(i)"}],
         "else": [{"provide": "c", "args": ["i"], "value": "-n"}]}]}]}]}])j");
  NdArray c = run_program(p, {{"a", sequence(8)}});
  EXPECT_EQ(elements<int32_t>(c), (std::vector<int32_t>{1, -100, 221, -300, 441, -500, 661, -700}));
}
// ---------------------------------------------------------------------------------------------
// Inputs and limits

TEST(Inputs, Checks) {
  Program p = one_kernel(R"j([{"for": "i", "min": "0", "extent": "8", "kind": "serial",
    "body": [{"provide": "c", "args": ["i"], "value": "a(i)", "loc": "5:1"}]}])j");
  const NdArray floats = make_array<float>(Type::Float(32), {8}, std::vector<float>(8));
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", floats}});
      },
      "3:1", "input 'a' has type int32, but the array given for it holds float32",
      "run-input-type");
  const NdArray matrix = make_array<int32_t>(Type::Int(32), {2, 4}, std::vector<int32_t>(8));
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", matrix}});
      },
      "3:1", "input 'a' has 1 dimensions, but the array given for it has 2", "run-input-shape");
  expect_diagnostic([&] { run_program(p, {}); }, "3:1", "no array is given for input 'a'",
                    "run-input-missing");
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", sequence(8)}, {"z", sequence(1)}});
      },
      "", "an array is given for 'z', which is not an input", "run-input-unknown");
  // An array smaller than the region read (the input's extents) is refused before anything
  // runs; a larger one is accepted, indexed with its own shape, its extra elements not read.
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", sequence(5)}});
      },
      "3:1", "input 'a' is read over [0, 8), but the array given for it has shape (5)",
      "run-input-shape");
  EXPECT_EQ(elements<int32_t>(run_program(p, {{"a", sequence(9)}})),
            elements<int32_t>(run_program(p, {{"a", sequence(8)}})));
}

TEST(Inputs, TwoDimensionalBounds) {
  Program p = parse(document(
      R"j([{"name": "a", "type": "uint8", "dims": 2, "extents": ["5", "8"], "loc": "3:1"}])j",
      "[" + func("c", "uint8", 1) + "]", output_c(8), buffer_c(8, "uint8"),
      host_kernel(R"j([{"for": "i", "min": "0", "extent": "8", "kind": "serial", "body": [
        {"provide": "c", "args": ["i"], "value": "a(i, 0)", "loc": "5:1"}]}])j")));
  auto inputs = complete_inputs(p, {}, FillKind::kSequential, 0);
  EXPECT_EQ(inputs["a"].shape, (std::vector<int64_t>{5, 8}));
  NdArray small = fill_array(Type::UInt(8), {4, 8}, FillKind::kSequential, 0, "a");
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", small}});
      },
      "3:1", "input 'a' is read over [0, 5) x [0, 8), but the array given for it has shape (4, 8)",
      "run-input-shape");
  // A larger array is indexed with its own shape (element (i, 0) at i, whatever the extents).
  NdArray large = fill_array(Type::UInt(8), {9, 8}, FillKind::kSequential, 0, "a");
  NdArray c = run_program(p, {{"a", large}});
  for (int64_t i = 0; i < 8; ++i)
    EXPECT_EQ(element<uint8_t>(c, i), element<uint8_t>(large, i)) << i;
  // Extents smaller than the region the kernels read (an IR that lies about them): a read
  // outside the array given still fails.
  Program q = parse(document(
      R"j([{"name": "a", "type": "uint8", "dims": 2, "extents": ["4", "8"], "loc": "3:1"}])j",
      "[" + func("c", "uint8", 1) + "]", output_c(8), buffer_c(8, "uint8"),
      host_kernel(R"j([{"for": "i", "min": "0", "extent": "8", "kind": "serial", "body": [
        {"provide": "c", "args": ["i"], "value": "a(i, 0)", "loc": "5:1"}]}])j")));
  expect_diagnostic(
      [&] {
        run_program(q, {{"a", small}});
      },
      "5:1", "read of input 'a' at (4, 0) is outside its extents (4, 8)", "run-input-bounds");
}

TEST(Inputs, CompleteInputsNeedsExtents) {
  Program p = parse(document(R"j([{"name": "a", "type": "int32", "dims": 1, "loc": "3:1"}])j",
                             "[" + func("c", "int32", 1) + "]", output_c(8), buffer_c(8),
                             host_kernel("[]")));
  expect_diagnostic([&] { complete_inputs(p, {}, FillKind::kRandom, 1); }, "3:1",
                    "input 'a' has no extents to generate data from (a parsed-stage program?); "
                    "give an array for it",
                    "run-input-extents");
  EXPECT_EQ(complete_inputs(p, {{"a", sequence(2)}}, FillKind::kRandom, 1).size(), 1u);
  // Extents that are not non-negative integers never reach the interpreter: the IR reader
  // refuses them.
  try {
    parse(
        document(R"j([{"name": "a", "type": "int32", "dims": 1, "extents": ["n"], "loc": "3:1"}])j",
                 "[" + func("c", "int32", 1) + "]", output_c(8), buffer_c(8), host_kernel("[]")));
    ADD_FAILURE() << "an input extent 'n' was accepted";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.message(),
              "inputs[0]: 'extents' must hold non-negative decimal integers such as \"4\", not "
              "\"n\"");
    EXPECT_EQ(d.rule(), "ir");
  }
}

TEST(Limits, StepLimit) {
  // 1 (the loop) + 8 (iterations) + 8 (provides) = 17 steps.
  Program p = parse(document(
      "[]", "[" + func("c", "int32", 1) + "]", output_c(8), buffer_c(8),
      host_kernel(R"j([{"for": "i", "min": "0", "extent": "8", "kind": "serial", "loc": "4:1",
        "body": [{"provide": "c", "args": ["i"], "value": "i", "loc": "5:1"}]}])j")));
  RunOptions options;
  options.max_steps = 17;
  EXPECT_EQ(run_program(p, {}, options).num_elements(), 8);
  options.max_steps = 16;
  expect_diagnostic([&] { run_program(p, {}, options); }, "5:1",
                    "the run exceeded its limit of 16 steps (statement executions)",
                    "run-step-limit");
  // Endless loops, also in a concurrent run whose other kernel is blocked.
  Program endless =
      parse(document(kInputA, kFuncC, output_c(8), buffer_c(8),
                     R"j([{"name": "P", "place": "device", "loc": null, "body": [
            {"for": "i", "min": "0", "extent": "2147483647", "kind": "serial", "loc": "4:1",
             "body": [{"for": "j", "min": "0", "extent": "2147483647", "kind": "serial",
                       "loc": "4:2", "body": []}]},
            {"write_channel": "ch", "index": [], "value": "1", "loc": "4:3"}]},
          {"name": "C", "place": "device", "loc": null, "body": [
            {"provide": "c", "args": ["0"], "value": "read_channel(ch)", "loc": "6:1"}]}])j",
                     R"j([{"name": "ch", "type": "int32", "dims": [], "depth": 1, "producer": "P",
           "consumer": "C", "loc": null}])j"));
  options.max_steps = 1000000;
  expect_diagnostic(
      [&] {
        run_program(endless, {{"a", sequence(8)}}, options);
      },
      "4:2", "the run exceeded its limit of 1000000 steps (statement executions)",
      "run-step-limit");
}

// IR the interpreter cannot run is an internal error; malformed IR is the verifier's to reject.
TEST(Limits, MalformedIrIsAnInternalError) {
  const std::map<std::string, NdArray> inputs = {{"a", sequence(8)}};
  expect_internal_error(
      [&] {
        run_program(one_kernel(R"j([{"alloc": "r", "type": "float32", "shape": ["4"]}])j"), inputs);
      },
      "interpreter: alloc statements are not supported yet");
  expect_verifier_error(
      one_kernel(R"j([{"for": "i", "min": "0", "extent": "8", "kind": "serial",
          "body": [{"provide": "c", "args": ["i"], "value": "select(i > 2, a(i))"}]}])j"),
      "kernels[0].body[0].body[0]: a select without a false value in a kernel (t2s-merge makes "
      "it an if)",
      "ir-type");
  expect_internal_error(
      [&] {
        run_program(one_kernel(R"j([{"realize": "v", "type": "float32x4", "bounds": [],
          "body": []}])j"),
                    inputs);
      },
      "storage of vector type float32x4 is not supported yet");
  expect_verifier_error(
      one_kernel(R"j([{"provide": "c", "args": ["0"], "value": "q"}])j"),
      "kernels[0].body[0]: variable 'q' is used outside any loop or let that binds it",
      "ir-unbound");
  expect_verifier_error(one_kernel(R"j([{"provide": "d", "args": ["0"], "value": "1"}])j"),
                        "kernels[0].body[0]: provide of Func 'd', which has neither an enclosing "
                        "realize nor a buffer",
                        "ir-storage");
}

TEST(Limits, ParsedStageIsRefused) {
  Program p = parse(document(kInputA, "[]", output_c(8), "[]", "[]", "[]", "parsed"));
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", sequence(8)}});
      },
      "",
      "the interpreter runs programs from the merged stage on; this one is at "
      "stage 'parsed'",
      "run-stage");
}

// ---------------------------------------------------------------------------------------------
// compare_arrays and format_element

TEST(Compare, EqualAndMismatching) {
  const float nan1 = std::numeric_limits<float>::quiet_NaN();
  float nan2;
  const uint32_t bits = 0x7fc00001;  // another NaN payload
  std::memcpy(&nan2, &bits, sizeof bits);
  NdArray e = make_array<float>(Type::Float(32), {2, 3}, {1, 2, nan1, 4, 0.0f, 6});
  NdArray a = make_array<float>(Type::Float(32), {2, 3}, {1, 2, nan2, 4, 0.0f, 6});
  EXPECT_EQ(compare_arrays(e, a), std::nullopt);
  a = make_array<float>(Type::Float(32), {2, 3}, {1, 2, nan2, 4.5f, -0.0f, 6});
  std::optional<Mismatch> m = compare_arrays(e, a);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->index, (std::vector<int64_t>{1, 1}));  // linear 3, Fortran order
  EXPECT_EQ(m->expected, "4.0");
  EXPECT_EQ(m->actual, "4.5");
  EXPECT_EQ(m->count, 2);  // -0.0 differs from 0.0

  NdArray i = make_array<int32_t>(Type::Int(32), {2, 3}, {1, 2, 3, 4, 5, 6});
  try {
    compare_arrays(e, i);
    ADD_FAILURE();
  } catch (const std::runtime_error& err) {
    EXPECT_STREQ(err.what(), "the arrays differ in type: expected float32, actual int32");
  }
  try {
    compare_arrays(i, make_array<int32_t>(Type::Int(32), {3, 2}, {1, 2, 3, 4, 5, 6}));
    ADD_FAILURE();
  } catch (const std::runtime_error& err) {
    EXPECT_STREQ(err.what(), "the arrays differ in shape: expected (2, 3), actual (3, 2)");
  }
  NdArray b1 = make_array<uint8_t>(Type::Bool(), {3}, {1, 0, 1});
  NdArray b2 = make_array<uint8_t>(Type::Bool(), {3}, {1, 0, 0});
  m = compare_arrays(b1, b2);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->index, (std::vector<int64_t>{2}));
  EXPECT_EQ(m->expected, "true");
  EXPECT_EQ(m->actual, "false");
  EXPECT_EQ(m->count, 1);
}

TEST(Compare, FormatElement) {
  EXPECT_EQ(format_element(make_array<int8_t>(Type::Int(8), {1}, {-5}), 0), "-5");
  EXPECT_EQ(format_element(make_array<int16_t>(Type::Int(16), {1}, {-32768}), 0), "-32768");
  EXPECT_EQ(format_element(make_array<uint16_t>(Type::UInt(16), {1}, {65535}), 0), "65535");
  EXPECT_EQ(format_element(
                make_array<int64_t>(Type::Int(64), {1}, {std::numeric_limits<int64_t>::min()}), 0),
            "-9223372036854775808");
  EXPECT_EQ(
      format_element(
          make_array<uint64_t>(Type::UInt(64), {1}, {std::numeric_limits<uint64_t>::max()}), 0),
      "18446744073709551615");
  EXPECT_EQ(format_element(make_array<uint8_t>(Type::Bool(), {2}, {0, 1}), 1), "true");
  EXPECT_EQ(f32(0.1f), "0.1");
  EXPECT_EQ(f64(0.1), "0.1");
  EXPECT_EQ(f32(1.0f), "1.0");
  EXPECT_EQ(f32(1e20f), "1e+20");
  EXPECT_EQ(f32(16777216.0f), "16777216.0");
  EXPECT_EQ(f64(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(f32(-0.0f), "-0.0");
  EXPECT_EQ(f32(std::numeric_limits<float>::quiet_NaN()), "nan");
  EXPECT_EQ(f64(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(f32(std::numeric_limits<float>::infinity()), "inf");
  EXPECT_EQ(format_index({}), "()");
  EXPECT_EQ(format_index({4, 0}), "(4, 0)");
}

}  // namespace
}  // namespace exec_test
}  // namespace t2s
