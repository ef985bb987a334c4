#include "libs/exec/interpreter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "libs/exec/compare.h"
#include "libs/exec/fill.h"
#include "libs/ir/ir_json.h"

namespace t2s {
namespace {

// ---------------------------------------------------------------------------------------------
// Building test programs: merged-stage documents written by hand, in compact JSON (the reader
// takes any layout). `@NAME` placeholders are replaced by subst().

std::string subst(std::string text, std::vector<std::pair<std::string, std::string>> vs) {
  // Longer keys first, so that @W does not eat the start of @WIDX.
  std::stable_sort(vs.begin(), vs.end(),
                   [](const auto& x, const auto& y) { return x.first.size() > y.first.size(); });
  for (const auto& [key, value] : vs) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
      text.replace(at, key.size(), value);
      at += value.size();
    }
  }
  return text;
}

// A Func record, needed so that calls of the Func type-check.
std::string func(const std::string& name, const std::string& type, int dims) {
  std::string args;
  for (int d = 0; d < dims; ++d) args += (d ? ", \"_" : "\"_") + std::to_string(d) + "\"";
  return R"j({"name": ")j" + name + R"j(", "type": ")j" + type + R"j(", "args": [)j" + args +
         R"j(], "place": "host", "declared": true, "definition": null, "loc": null,
            "decl_loc": null})j";
}

std::string document(const std::string& inputs, const std::string& funcs, const std::string& output,
                     const std::string& buffers, const std::string& kernels,
                     const std::string& channels = "[]", const std::string& stage = "merged",
                     const std::string& registers = "[]") {
  return R"j({"t2s_ir": 1, "stage": ")j" + stage + R"j(", "vars": [], "inputs": )j" + inputs +
         R"j(, "funcs": )j" + funcs + R"j(, "directives": [], "output": )j" + output +
         R"j(, "buffers": )j" + buffers + R"j(, "kernels": )j" + kernels + R"j(, "channels": )j" +
         channels + R"j(, "registers": )j" + registers + "}";
}

Program parse(const std::string& text) { return read_program(text, "test.json"); }

template <typename T>
NdArray make_array(Type type, std::vector<int64_t> shape, const std::vector<T>& values) {
  NdArray a;
  a.type = type;
  a.shape = std::move(shape);
  a.data.resize(values.size() * sizeof(T));
  std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

template <typename T>
T element(const NdArray& a, int64_t i) {
  T v;
  std::memcpy(&v, &a.data.at(static_cast<size_t>(i) * sizeof(T)), sizeof(T));
  return v;
}

template <typename T>
std::vector<T> elements(const NdArray& a) {
  std::vector<T> out;
  for (int64_t i = 0; i < a.num_elements(); ++i) out.push_back(element<T>(a, i));
  return out;
}

std::string f32(float v) { return format_element(make_array<float>(Type::Float(32), {}, {v}), 0); }
std::string f64(double v) {
  return format_element(make_array<double>(Type::Float(64), {}, {v}), 0);
}

// Runs `f` and checks that it throws exactly this Diagnostic.
template <typename F>
void expect_diagnostic(F f, const std::string& loc, const std::string& message,
                       const std::string& rule) {
  try {
    f();
    ADD_FAILURE() << "expected [" << rule << "] " << message;
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.loc().str(), loc);
    EXPECT_EQ(d.message(), message);
    EXPECT_EQ(d.rule(), rule);
  }
}

template <typename F>
void expect_internal_error(F f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "expected an internal error containing: " << part;
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

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

// ---------------------------------------------------------------------------------------------
// Small programs around one 1-D input `a` and output `c`.

const char kInputA[] =
    R"j([{"name": "a", "type": "int32", "dims": 1, "extents": ["8"], "loc": "3:1"}])j";

std::string output_c(int n) {
  return R"j({"func": "c", "extents": [")j" + std::to_string(n) + R"j("], "loc": "20:1"})j";
}
std::string buffer_c(int n, const std::string& type = "int32") {
  return R"j([{"name": "c", "type": ")j" + type + R"j(", "bounds": [["0", ")j" + std::to_string(n) +
         R"j("]], "loc": "9:1"}])j";
}

// One host kernel `K` around `body` (a statement list).
std::string host_kernel(const std::string& body) {
  return R"j([{"name": "K", "place": "host", "loc": "4:1", "body": )j" + body + "}]";
}

Program one_kernel(const std::string& body, int n = 8) {
  return parse(document(kInputA, "[" + func("c", "int32", 1) + "]", output_c(n), buffer_c(n),
                        host_kernel(body)));
}

NdArray sequence(int n) {
  std::vector<int32_t> v;
  for (int i = 0; i < n; ++i) v.push_back(10 * i + 1);
  return make_array<int32_t>(Type::Int(32), {n}, v);
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
// Arithmetic: `r(0) = EXPR` with int32 lets x and y, so that nothing is constant-folded by the
// IR reader; the result printed by format_element.

Program scalar_program(const std::string& type, const std::string& expr, int32_t x, int32_t y) {
  const std::string body = R"j([{"let": "x", "value": ")j" + std::to_string(x) +
                           R"j(", "body": [{"let": "y", "value": ")j" + std::to_string(y) +
                           R"j(", "body": [{"provide": "r", "args": ["0"], "value": ")j" + expr +
                           R"j("}]}]}])j";
  return parse(document(
      "[]", "[" + func("r", type, 1) + "]", R"j({"func": "r", "extents": ["1"], "loc": null})j",
      R"j([{"name": "r", "type": ")j" + type + R"j(", "bounds": [["0", "1"]], "loc": null}])j",
      host_kernel(body)));
}

std::string eval_text(const std::string& type, const std::string& expr, int32_t x = 0,
                      int32_t y = 0) {
  NdArray r = run_program(scalar_program(type, expr, x, y), {});
  EXPECT_EQ(r.type.name(), type);
  return format_element(r, 0);
}

TEST(Arithmetic, IntegerDivisionAndModulo) {
  EXPECT_EQ(eval_text("int32", "x / 2", -7), "-4");  // rounds towards negative infinity
  EXPECT_EQ(eval_text("int32", "x % 2", -7), "1");   // never negative
  EXPECT_EQ(eval_text("int32", "x / y", -7, -2), std::to_string(halide_div(-7, -2)));
  EXPECT_EQ(eval_text("int32", "x % y", -7, -2), "1");
  EXPECT_EQ(eval_text("int32", "x / y", 7, 2), "3");
  EXPECT_EQ(eval_text("int32", "x / y", -7, 0), "0");  // division by zero gives 0
  EXPECT_EQ(eval_text("int32", "x % y", -7, 0), "0");
  EXPECT_EQ(eval_text("int32", "x / y", std::numeric_limits<int32_t>::min(), -1),
            "-2147483648");  // wraps
  EXPECT_EQ(eval_text("int16", "cast(Int(16), x) / cast(Int(16), y)", -32768, -1), "-32768");
  EXPECT_EQ(eval_text("int64", "cast(Int(64), x) % 3l", -7), "2");
  EXPECT_EQ(eval_text("int64", "cast(Int(64), x) / 3l", -7), "-3");
  EXPECT_EQ(eval_text("uint32", "cast(UInt(32), x) / 2u", -1), "2147483647");
  EXPECT_EQ(eval_text("uint64", "cast(UInt(64), x) / 3ul", -1), "6148914691236517205");
  EXPECT_EQ(eval_text("uint64", "cast(UInt(64), x) % 10ul", -1), "5");
  EXPECT_EQ(eval_text("uint8", "cast(UInt(8), x) % cast(UInt(8), y)", 7, 0), "0");
}

TEST(Arithmetic, IntegersWrapToTheirWidth) {
  EXPECT_EQ(eval_text("int8", "cast(Int(8), x) + cast(Int(8), y)", 100, 100), "-56");
  EXPECT_EQ(eval_text("int8", "cast(Int(8), x) * cast(Int(8), y)", 16, 16), "0");
  EXPECT_EQ(eval_text("int8", "-cast(Int(8), x)", -128), "-128");
  EXPECT_EQ(eval_text("int16", "cast(Int(16), x) - cast(Int(16), y)", -32768, 1), "32767");
  EXPECT_EQ(eval_text("int32", "x + y", 2147483647, 1), "-2147483648");
  EXPECT_EQ(eval_text("int32", "x * y", 65536, 65536), "0");
  const int64_t big = static_cast<int64_t>(uint64_t{65535} * 65535 * 65535 * 65535);
  EXPECT_EQ(
      eval_text("int64",
                "cast(Int(64), x) * cast(Int(64), x) * cast(Int(64), x) * cast(Int(64), x)", 65535),
      std::to_string(big));
  EXPECT_EQ(eval_text("uint8", "cast(UInt(8), x) - cast(UInt(8), y)", 0, 1), "255");
  EXPECT_EQ(eval_text("uint8", "-cast(UInt(8), x)", 1), "255");
  EXPECT_EQ(eval_text("uint16", "cast(UInt(16), x) * cast(UInt(16), y)", 256, 256), "0");
  EXPECT_EQ(eval_text("uint64", "cast(UInt(64), x) + 2ul", -1), "1");
}

TEST(Arithmetic, ComparisonsAndLogic) {
  EXPECT_EQ(eval_text("bool", "cast(UInt(64), x) > cast(UInt(64), y)", -1, 1), "true");
  EXPECT_EQ(eval_text("bool", "cast(UInt(32), x) < cast(UInt(32), y)", -1, 1), "false");
  EXPECT_EQ(eval_text("bool", "x < y", -1, 1), "true");
  EXPECT_EQ(eval_text("bool", "cast(Int(64), x) >= cast(Int(64), y)", 5, 5), "true");
  EXPECT_EQ(eval_text("bool", "x != y && !(x > y)", 1, 2), "true");
  EXPECT_EQ(eval_text("bool", "x == y || y <= 0", 1, 2), "false");
  EXPECT_EQ(eval_text("bool", "cast(Float(32), x) / 0.0f != cast(Float(32), x) / 0.0f", 0),
            "true");  // NaN
  EXPECT_EQ(eval_text("bool", "cast(Float(64), x) <= cast(Float(64), y)", -3, -3), "true");
}

TEST(Arithmetic, AbsMinMax) {
  EXPECT_EQ(eval_text("uint8", "abs(cast(Int(8), x))", -128), "128");  // unsigned result
  EXPECT_EQ(eval_text("uint32", "abs(x)", std::numeric_limits<int32_t>::min()), "2147483648");
  EXPECT_EQ(eval_text("uint32", "abs(x)", 5), "5");
  EXPECT_EQ(eval_text("uint16", "abs(cast(UInt(16), x))", 7), "7");
  EXPECT_EQ(eval_text("float32", "abs(cast(Float(32), x) / 4.0f)", -1), "0.25");
  EXPECT_EQ(eval_text("int32", "min(x, y)", -1, 1), "-1");
  EXPECT_EQ(eval_text("int32", "max(x, y)", -1, 1), "1");
  EXPECT_EQ(eval_text("uint8", "max(cast(UInt(8), x), cast(UInt(8), y))", -1, 1), "255");
  EXPECT_EQ(eval_text("float64", "min(cast(Float(64), x), cast(Float(64), y) / 2.0)", 1, 1), "0.5");
  EXPECT_EQ(eval_text("float32", "max(cast(Float(32), x), cast(Float(32), y))", -1, -2), "-1.0");
}

TEST(Arithmetic, Float32IsComputedInFloat) {
  EXPECT_EQ(eval_text("float32", "cast(Float(32), x) / 3.0f", 1), "0.33333334");
  EXPECT_EQ(eval_text("float64", "cast(Float(64), x) / 3.0", 1), "0.3333333333333333");
  // 1e8 + 1 is 1e8 in float32 (spacing 8) but not in float64.
  EXPECT_EQ(eval_text("float32", "cast(Float(32), x) + 1.0f - cast(Float(32), x)", 100000000),
            "0.0");
  EXPECT_EQ(eval_text("float64", "cast(Float(64), x) + 1.0 - cast(Float(64), x)", 100000000),
            "1.0");
  EXPECT_EQ(eval_text("float32", "cast(Float(32), x) * 0.1f", 3), f32(3.0f * 0.1f));
  EXPECT_EQ(eval_text("float64", "cast(Float(64), x) * 0.1", 3), f64(3.0 * 0.1));
  EXPECT_EQ(eval_text("float32", "-cast(Float(32), x)", 0), "-0.0");
}

TEST(Arithmetic, FloatModuloAndRounding) {
  EXPECT_EQ(eval_text("float32", "cast(Float(32), x) % 3.0f", -7), "2.0");
  EXPECT_EQ(eval_text("float64", "cast(Float(64), x) % -3.0", -7), "-1.0");
  EXPECT_EQ(eval_text("float32", "cast(Float(32), x) / 10.0f % 0.3f", 7),
            f32(0.7f - 0.3f * std::floor(0.7f / 0.3f)));
  EXPECT_EQ(eval_text("float32", "round(cast(Float(32), x) / 2.0f)", 5), "2.0");  // half to even
  EXPECT_EQ(eval_text("float32", "round(cast(Float(32), x) / 2.0f)", 7), "4.0");
  EXPECT_EQ(eval_text("float32", "round(cast(Float(32), x) / 2.0f)", -1), "-0.0");
  EXPECT_EQ(eval_text("float32", "round(cast(Float(32), x) / 2.0f)", -5), "-2.0");
  EXPECT_EQ(eval_text("float64", "round(cast(Float(64), x) / 2.0)", 5), "2.0");
  EXPECT_EQ(eval_text("float64", "round(cast(Float(64), x) / 4.0)", 7), "2.0");
  EXPECT_EQ(eval_text("float32", "floor(cast(Float(32), x) / 2.0f)", -1), "-1.0");
  EXPECT_EQ(eval_text("float32", "ceil(cast(Float(32), x) / 2.0f)", -1), "-0.0");
  EXPECT_EQ(eval_text("float64", "ceil(cast(Float(64), x) / 2.0)", 3), "2.0");
  EXPECT_EQ(eval_text("float32", "round(x)", 3), "3.0");  // ints convert to Float(32)
}

TEST(Arithmetic, FloatFunctionsUseTheOperandTypesLibm) {
  EXPECT_EQ(eval_text("float32", "sqrt(x)", 2), f32(std::sqrt(2.0f)));
  EXPECT_EQ(eval_text("float64", "sqrt(cast(Float(64), x))", 2), f64(std::sqrt(2.0)));
  EXPECT_EQ(eval_text("float32", "exp(cast(Float(32), x) / 3.0f)", 1), f32(std::exp(1.0f / 3)));
  EXPECT_EQ(eval_text("float64", "exp(cast(Float(64), x) / 3.0)", 1), f64(std::exp(1.0 / 3)));
  EXPECT_EQ(eval_text("float32", "log(cast(Float(32), x))", 10), f32(std::log(10.0f)));
  EXPECT_EQ(eval_text("float64", "log(cast(Float(64), x))", 10), f64(std::log(10.0)));
  EXPECT_EQ(eval_text("float32", "pow(cast(Float(32), x) / 3.0f, 2.5f)", 1),
            f32(std::pow(1.0f / 3, 2.5f)));
  EXPECT_EQ(eval_text("float64", "pow(cast(Float(64), x), cast(Float(64), y) / 10.0)", 3, 5),
            f64(std::pow(3.0, 0.5)));
  EXPECT_EQ(eval_text("float32", "sqrt(x)", -1), "nan");
}

TEST(Arithmetic, Casts) {
  // Integer to integer wraps.
  EXPECT_EQ(eval_text("uint8", "cast(UInt(8), x)", 300), "44");
  EXPECT_EQ(eval_text("int8", "cast(Int(8), x)", 200), "-56");
  EXPECT_EQ(eval_text("uint64", "cast(UInt(64), x)", -1), "18446744073709551615");
  EXPECT_EQ(eval_text("int32", "cast(Int(32), cast(UInt(64), x) + 5ul)", -1), "4");
  EXPECT_EQ(eval_text("uint16", "cast(UInt(16), cast(Int(8), x))", -1), "65535");
  // Float to integer truncates toward zero and saturates; NaN gives 0.
  EXPECT_EQ(eval_text("int32", "cast(Int(32), cast(Float(32), x) / 2.0f)", -7), "-3");
  EXPECT_EQ(eval_text("int32", "cast(Int(32), cast(Float(64), x) / 2.0)", 7), "3");
  EXPECT_EQ(eval_text("int8", "cast(Int(8), cast(Float(32), x))", 1000), "127");
  EXPECT_EQ(eval_text("int8", "cast(Int(8), cast(Float(32), x))", -1000), "-128");
  EXPECT_EQ(eval_text("uint8", "cast(UInt(8), cast(Float(32), x))", 300), "255");
  EXPECT_EQ(eval_text("uint8", "cast(UInt(8), cast(Float(32), x))", -5), "0");
  EXPECT_EQ(eval_text("uint8", "cast(UInt(8), cast(Float(32), x) / 2.0f)", -1), "0");
  EXPECT_EQ(eval_text("int32", "cast(Int(32), cast(Float(32), x) * 1e30f)", -1), "-2147483648");
  EXPECT_EQ(eval_text("int32", "cast(Int(32), cast(Float(64), x) * 1e30)", 1), "2147483647");
  EXPECT_EQ(eval_text("int64", "cast(Int(64), cast(Float(64), x) * 1e30)", 1),
            "9223372036854775807");
  EXPECT_EQ(eval_text("int64", "cast(Int(64), cast(Float(64), x) * 1e30)", -1),
            "-9223372036854775808");
  EXPECT_EQ(eval_text("uint64", "cast(UInt(64), cast(Float(64), x) * 1e30)", 1),
            "18446744073709551615");
  EXPECT_EQ(eval_text("uint32", "cast(UInt(32), cast(Float(64), x) * 1e30)", 1), "4294967295");
  EXPECT_EQ(eval_text("int32", "cast(Int(32), sqrt(cast(Float(32), x)))", -1), "0");
  EXPECT_EQ(eval_text("uint64", "cast(UInt(64), sqrt(cast(Float(64), x)))", -1), "0");
  // Integer to float as C; float to float.
  EXPECT_EQ(eval_text("float32", "cast(Float(32), x)", 16777217), "16777216.0");
  EXPECT_EQ(eval_text("float64", "cast(Float(64), cast(UInt(64), x))", -1),
            f64(18446744073709551615.0));
  EXPECT_EQ(eval_text("float32", "cast(Float(32), cast(UInt(64), x))", -1),
            f32(18446744073709551615.0f));
  EXPECT_EQ(eval_text("float32", "cast(Float(32), cast(Float(64), x) / 3.0)", 1),
            f32(static_cast<float>(1.0 / 3.0)));
  EXPECT_EQ(eval_text("float64", "cast(Float(64), cast(Float(32), x) / 3.0f)", 1),
            f64(static_cast<double>(1.0f / 3.0f)));
  // To bool: != 0 (NaN is true); from bool: 0 or 1.
  EXPECT_EQ(eval_text("bool", "cast(Bool(), x)", 2), "true");
  EXPECT_EQ(eval_text("bool", "cast(Bool(), x)", 0), "false");
  EXPECT_EQ(eval_text("bool", "cast(Bool(), cast(Float(32), x) / 4.0f)", 1), "true");
  EXPECT_EQ(eval_text("bool", "cast(Bool(), cast(Float(64), x) / 4.0)", 0), "false");
  EXPECT_EQ(eval_text("bool", "cast(Bool(), sqrt(cast(Float(32), x)))", -1), "true");
  EXPECT_EQ(eval_text("int32", "cast(Int(32), x > y)", 1, 0), "1");
  EXPECT_EQ(eval_text("uint8", "cast(UInt(8), x > y)", 0, 1), "0");
  EXPECT_EQ(eval_text("float32", "cast(Float(32), x > y)", 1, 0), "1.0");
  EXPECT_EQ(eval_text("float64", "cast(Float(64), x < y)", 1, 0), "0.0");
}

TEST(Arithmetic, DeepExpressions) {
  // 100000 nested operations (built in C++: the IR reader caps nesting) are compiled and
  // evaluated recursively on the interpreter's large stack.
  Program p = scalar_program("int32", "0", 5, 2);
  std::vector<Expr> chain{make_var("x")};
  for (int i = 0; i < 100000; ++i)
    chain.push_back(make_binary(BinaryOp::kAdd, chain.back(), make_var("y"), Type::Int(32)));
  LetStmt& let_x = *p.kernels[0].body[0]->as<LetStmt>();
  LetStmt& let_y = *let_x.body[0]->as<LetStmt>();
  let_y.body[0]->as<Provide>()->value = chain.back();
  NdArray r = run_program(p, {});
  EXPECT_EQ(element<int32_t>(r, 0), 200005);
  // Free the chain from the root down, one node at a time (not recursively).
  p.kernels.clear();
  while (!chain.empty()) chain.pop_back();
}

// ---------------------------------------------------------------------------------------------
// Storage

TEST(Storage, RealizeBoundsAndUncomputedReads) {
  // Realize with a negative min; a read below it.
  Program p = parse(document(
      kInputA, "[" + func("c", "int32", 1) + ", " + func("T", "int32", 1) + "]", output_c(4),
      buffer_c(4), host_kernel(R"j([{"realize": "T", "type": "int32", "bounds": [["-1", "3"]],
        "loc": "6:1", "body": [
        {"for": "i", "min": "-1", "extent": "3", "kind": "serial", "body": [
          {"provide": "T", "args": ["i"], "value": "a(i + 1)", "loc": "6:1"}]},
        {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
          {"provide": "c", "args": ["i"], "value": "T(i - 2)", "loc": "7:1"}]}]}])j")));
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", sequence(8)}});
      },
      "7:1", "read of 'T' at (-2) is outside its bounds [-1, 2)", "run-func-bounds");

  Program q =
      parse(document(kInputA, "[" + func("c", "int32", 1) + ", " + func("A", "int32", 3) + "]",
                     output_c(4), buffer_c(4), host_kernel(R"j([{"realize": "A", "type": "int32",
        "bounds": [["0", "2"], ["-1", "3"], ["0", "3"]], "loc": "6:1", "body": [
        {"for": "k", "min": "0", "extent": "3", "kind": "serial", "body": [
        {"for": "j", "min": "0", "extent": "2", "kind": "serial", "body": [
        {"for": "i", "min": "0", "extent": "2", "kind": "serial", "body": [
          {"provide": "A", "args": ["i", "j", "k"], "value": "select(k < 2, 0, A(i, j - 1, k))",
           "loc": "8:3"}]}]}]}]}])j")));
  expect_diagnostic(
      [&] {
        run_program(q, {{"a", sequence(8)}});
      },
      "8:3", "read of 'A' at (0, -1, 2) before it was computed", "run-uncomputed");
}

TEST(Storage, WriteOutsideABuffer) {
  Program p = parse(document(
      "[]", "[" + func("c", "int32", 2) + "]",
      R"j({"func": "c", "extents": ["4", "4"], "loc": "20:1"})j",
      R"j([{"name": "c", "type": "int32", "bounds": [["0", "4"], ["0", "4"]], "loc": "9:1"}])j",
      host_kernel(R"j([{"for": "j", "min": "0", "extent": "4", "kind": "serial", "body": [
        {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
          {"provide": "c", "args": ["i + j", "j"], "value": "i", "loc": "5:7"}]}]}])j")));
  expect_diagnostic([&] { run_program(p, {}); }, "5:7",
                    "write of 'c' at (4, 1) is outside its bounds [0, 4) x [0, 4)",
                    "run-func-bounds");
}

TEST(Storage, RealizeStartsEmptyEachTime) {
  // T is realized anew for every k, so T(0) written when k == 0 is gone when k == 1.
  Program p = parse(document(
      kInputA, "[" + func("c", "int32", 1) + ", " + func("T", "int32", 1) + "]", output_c(2),
      buffer_c(2), host_kernel(R"j([{"for": "k", "min": "0", "extent": "2", "kind": "serial",
        "body": [{"realize": "T", "type": "int32", "bounds": [["0", "1"]], "loc": "6:1", "body": [
          {"if": "k == 0", "then": [{"provide": "T", "args": ["0"], "value": "a(k)"}],
           "else": []},
          {"provide": "c", "args": ["k"], "value": "T(0)", "loc": "7:2"}]}]}])j")));
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", sequence(8)}});
      },
      "7:2", "read of 'T' at (0) before it was computed", "run-uncomputed");
}

TEST(Storage, OutputUnwritten) {
  Program p = parse(document(
      "[]", "[" + func("c", "int32", 2) + "]",
      R"j({"func": "c", "extents": ["4", "4"], "loc": "20:1"})j",
      R"j([{"name": "c", "type": "int32", "bounds": [["0", "4"], ["0", "4"]], "loc": "9:1"}])j",
      host_kernel(R"j([{"for": "j", "min": "0", "extent": "4", "kind": "serial", "body": [
        {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
          {"if": "i != 1", "then": [{"provide": "c", "args": ["i", "j"], "value": "i"}],
           "else": []}]}]}])j")));
  expect_diagnostic([&] { run_program(p, {}); }, "20:1",
                    "4 of the 16 elements of output 'c' were never computed; the first is at "
                    "(1, 0)",
                    "run-output-unwritten");
}

TEST(Storage, BuffersCarryValuesBetweenKernels) {
  // Host kernel T fills buffer t; device kernels P and C pass it over a channel into c.
  Program p = parse(document(
      kInputA, "[" + func("c", "int32", 1) + ", " + func("t", "int32", 1) + "]", output_c(8),
      R"j([{"name": "c", "type": "int32", "bounds": [["0", "8"]], "loc": "9:1"},
          {"name": "t", "type": "int32", "bounds": [["1", "8"]], "loc": "8:1"}])j",
      R"j([{"name": "T", "place": "host", "loc": null, "body": [
            {"for": "i", "min": "1", "extent": "8", "kind": "serial", "body": [
              {"provide": "t", "args": ["i"], "value": "a(i - 1) * 3"}]}]},
          {"name": "P", "place": "device", "loc": null, "body": [
            {"for": "i", "min": "1", "extent": "8", "kind": "serial", "body": [
              {"write_channel": "ch", "index": [], "value": "t(i)"}]}]},
          {"name": "C", "place": "device", "loc": null, "body": [
            {"for": "i", "min": "0", "extent": "8", "kind": "serial", "body": [
              {"provide": "c", "args": ["i"], "value": "read_channel(ch) - 1"}]}]}])j",
      R"j([{"name": "ch", "type": "int32", "dims": [], "depth": 0, "producer": "P",
           "consumer": "C", "loc": null}])j"));
  NdArray c = run_program(p, {{"a", sequence(8)}});
  EXPECT_EQ(elements<int32_t>(c), (std::vector<int32_t>{2, 32, 62, 92, 122, 152, 182, 212}));
}

// ---------------------------------------------------------------------------------------------
// Channels and concurrency

const char kFuncC[] = R"j([{"name": "c", "type": "int32", "args": ["_0"], "place": "host",
  "declared": true, "definition": null, "loc": null, "decl_loc": null}])j";

// Producer P writes `@W` values a(i) * 2 to channel ch (dims @DIMS, depth @DEPTH; @WIDX the
// write index); consumer C computes c(i) = read_channel(ch@RIDX) + 1 for `@R` values of i.
const char kPipeKernels[] = R"j([
  {"name": "P", "place": "device", "loc": "5:1", "body": [
    {"for": "i", "min": "0", "extent": "@W", "kind": "serial", "loc": "5:1", "body": [
      {"write_channel": "ch", "index": [@WIDX], "value": "a(i) * 2", "loc": "5:3"}]}]},
  {"name": "C", "place": "device", "loc": "6:1", "body": [
    {"for": "i", "min": "0", "extent": "@R", "kind": "serial", "loc": "6:1", "body": [
      {"provide": "c", "args": ["i"], "value": "read_channel(ch@RIDX) + 1", "loc": "6:3"}]}]}])j";
const char kPipeChannel[] = R"j([{"name": "ch", "type": "int32", "dims": [@DIMS],
  "depth": @DEPTH, "producer": "P", "consumer": "C", "loc": "7:1"}])j";

Program pipe(int writes, int reads, int depth, bool array = false, int n = 8) {
  std::vector<std::pair<std::string, std::string>> vs = {
      {"@W", std::to_string(writes)},      {"@R", std::to_string(reads)},
      {"@DEPTH", std::to_string(depth)},   {"@DIMS", array ? "2" : ""},
      {"@WIDX", array ? "\"i % 2\"" : ""}, {"@RIDX", array ? ", i % 2" : ""}};
  return parse(document(kInputA, kFuncC, output_c(n), buffer_c(n), subst(kPipeKernels, vs),
                        subst(kPipeChannel, vs)));
}

TEST(Channels, TwoKernelsMatchOne) {
  Program one = one_kernel(R"j([{"for": "i", "min": "0", "extent": "8", "kind": "serial",
    "body": [{"provide": "c", "args": ["i"], "value": "a(i) * 2 + 1"}]}])j");
  const NdArray expected = run_program(one, {{"a", sequence(8)}});
  for (int depth : {0, 1, 3, 100}) {
    for (bool array : {false, true}) {
      NdArray c = run_program(pipe(8, 8, depth, array), {{"a", sequence(8)}});
      EXPECT_EQ(compare_arrays(expected, c), std::nullopt) << depth << " " << array;
    }
  }
}

TEST(Channels, ReadingMoreThanWrittenIsADeadlock) {
  expect_diagnostic(
      [&] {
        run_program(pipe(4, 8, 2), {{"a", sequence(8)}});
      },
      "6:3",
      "deadlock: every unfinished kernel is blocked: kernel 'C' waits to read from "
      "channel 'ch' (empty)",
      "run-deadlock");
  expect_diagnostic(
      [&] {
        run_program(pipe(6, 8, 2, true), {{"a", sequence(8)}});
      },
      "6:3",
      "deadlock: every unfinished kernel is blocked: kernel 'C' waits to read from "
      "channel 'ch' at (0) (empty)",
      "run-deadlock");
}

TEST(Channels, BothKernelsBlocked) {
  // P fills ch (depth 1) before writing ch2; C reads ch2 first.
  Program p =
      parse(document(kInputA, kFuncC, output_c(8), buffer_c(8),
                     R"j([{"name": "P", "place": "device", "loc": null, "body": [
            {"for": "i", "min": "0", "extent": "8", "kind": "serial", "body": [
              {"write_channel": "ch", "index": [], "value": "a(i)", "loc": "5:1"}]},
            {"for": "i", "min": "0", "extent": "8", "kind": "serial", "body": [
              {"write_channel": "ch2", "index": [], "value": "i", "loc": "5:2"}]}]},
          {"name": "C", "place": "device", "loc": null, "body": [
            {"for": "i", "min": "0", "extent": "8", "kind": "serial", "body": [
              {"provide": "c", "args": ["i"], "value": "read_channel(ch2) + read_channel(ch)",
               "loc": "6:1"}]}]}])j",
                     R"j([{"name": "ch", "type": "int32", "dims": [], "depth": 1, "producer": "P",
           "consumer": "C", "loc": null},
          {"name": "ch2", "type": "int32", "dims": [], "depth": 1, "producer": "P",
           "consumer": "C", "loc": null}])j"));
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", sequence(8)}});
      },
      "5:1",
      "deadlock: every unfinished kernel is blocked: kernel 'P' waits to write to "
      "channel 'ch' (full); kernel 'C' waits to read from channel 'ch2' (empty)",
      "run-deadlock");
}

TEST(Channels, Leftover) {
  // C reads 5 of 8 values and stops; the deep channel lets P finish.
  expect_diagnostic(
      [&] {
        run_program(pipe(8, 5, 8), {{"a", sequence(8)}});
      },
      "7:1", "channel 'ch' still holds 3 unread values after its kernels finished",
      "run-channel-leftover");
  expect_diagnostic(
      [&] {
        run_program(pipe(8, 7, 8, true), {{"a", sequence(8)}});
      },
      "7:1",
      "channel 'ch' still holds 1 unread value after its kernels finished, the "
      "first at (1)",
      "run-channel-leftover");
}

TEST(Channels, AnErrorStopsBlockedKernels) {
  // P fails (reads a(8)) while C waits for its ninth value.
  expect_diagnostic(
      [&] {
        run_program(pipe(9, 9, 4, false, 9), {{"a", sequence(8)}});
      },
      "5:3", "read of input 'a' at (8) is outside its extents (8)", "run-input-bounds");
  // C fails (writes c(8) of 8) while P waits for room in the channel.
  expect_diagnostic(
      [&] {
        run_program(pipe(100, 100, 1), {{"a", sequence(100)}});
      },
      "6:3", "write of 'c' at (8) is outside its bounds [0, 8)", "run-func-bounds");
}

TEST(Channels, AnErrorStopsRunningKernels) {
  // P would loop for about 10^18 steps; C fails at once and P must stop promptly.
  Program p = parse(document(kInputA, kFuncC, output_c(8), buffer_c(8),
                             R"j([{"name": "P", "place": "device", "loc": null, "body": [
            {"for": "i", "min": "0", "extent": "1000000000", "kind": "serial", "body": [
              {"for": "j", "min": "0", "extent": "1000000000", "kind": "serial", "body": []}]}]},
          {"name": "C", "place": "device", "loc": null, "body": [
            {"provide": "c", "args": ["0"], "value": "a(9)", "loc": "6:1"}]}])j"));
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", sequence(8)}});
      },
      "6:1", "read of input 'a' at (9) is outside its extents (8)", "run-input-bounds");
}

// ---------------------------------------------------------------------------------------------
// Registers (stt stage): shift registers and FIFOs of one kernel

// A register record for kernel `kernel` (`kind` shift or fifo; `shape` a JSON list body).
std::string reg(const std::string& name, const std::string& kind, const std::string& shape,
                int depth, const std::string& kernel = "K", const std::string& type = "int32") {
  return R"j({"name": ")j" + name + R"j(", "func": "R", "kernel": ")j" + kernel +
         R"j(", "type": ")j" + type + R"j(", "kind": ")j" + kind + R"j(", "shape": [)j" + shape +
         R"j(], "depth": )j" + std::to_string(depth) +
         R"j(, "distance": [1], "time_distance": 1, "period": 1, "naive": 2, "loc": "12:1"})j";
}

// Host kernel K (output c of `n` int32, input a) with `registers` (a JSON list body).
Program stt_kernel(const std::string& body, const std::string& registers, int n = 8,
                   const std::string& kernel = "K") {
  return parse(document(kInputA, "[" + func("c", "int32", 1) + "]", output_c(n), buffer_c(n),
                        R"j([{"name": ")j" + kernel + R"j(", "place": "host", "loc": "4:1",
                          "body": )j" +
                            body + "}]",
                        "[]", "stt", "[" + registers + "]"));
}

// Two PEs p write a(t) + p to slot 0 of R_shreg (depth 3) every step t, after a shift, when
// @COND holds (only shifting otherwise); c(t) reads @READ after the PEs ran.
const char kShiftBody[] = R"j([
  {"for": "t", "min": "0", "extent": "8", "kind": "serial", "loc": "5:1", "body": [
    {"for": "p", "min": "0", "extent": "2", "kind": "unrolled", "loc": "5:2", "body": [
      {"shift": "R_shreg", "args": ["@SHIFTPE"], "loc": "6:1"},
      {"if": "@COND", "loc": "7:1", "then": [
        {"provide": "R_shreg", "args": ["p", "@WSLOT"], "value": "a(t) + p", "loc": "7:2"}],
       "else": []}]},
    {"provide": "c", "args": ["t"], "value": "@READ", "loc": "8:1"}]}])j";

Program shift_program(const std::string& read, const std::string& cond = "t != 3",
                      const std::string& wslot = "0", const std::string& shift_pe = "p",
                      const std::string& extra_registers = "") {
  return stt_kernel(
      subst(kShiftBody,
            {{"@READ", read}, {"@COND", cond}, {"@WSLOT", wslot}, {"@SHIFTPE", shift_pe}}),
      reg("R_shreg", "shift", "2", 3) + extra_registers);
}

TEST(Registers, ShiftRegisterSlots) {
  // PE 1 writes v_t = a(t) + 1 = 10 t + 2, except at t == 3, where it only shifts (slot 0
  // keeps v_2). Slot 2 after step t: t = 2: v_0; 3: v_1; 4: v_2 (twice: slots 1 and 2 held it
  // after step 3); 5: v_2; 6: v_4; 7: v_5.
  NdArray c = run_program(shift_program("select(t >= 2, R_shreg(1, 2), -1)"), {{"a", sequence(8)}});
  EXPECT_EQ(elements<int32_t>(c), (std::vector<int32_t>{-1, -1, 2, 12, 22, 22, 42, 52}));
  // PE 0's slot 0 and slot 1.
  c = run_program(shift_program("R_shreg(0, 0) * 100 + select(t >= 1, R_shreg(0, 1), 0)"),
                  {{"a", sequence(8)}});
  EXPECT_EQ(elements<int32_t>(c),
            (std::vector<int32_t>{100, 1101, 2111, 2121, 4121, 5141, 6151, 7161}));
}

TEST(Registers, ShiftRegisterErrors) {
  const std::map<std::string, NdArray> inputs = {{"a", sequence(8)}};
  // At t == 1, slot 2 of PE 1 has not received a value yet (the shift moved slot 1's "none").
  expect_diagnostic(
      [&] { run_program(shift_program("select(t >= 1, R_shreg(1, 2), -1)"), inputs); }, "8:1",
      "read of slot 2 of shift register 'R_shreg' of PE (1) before any value reached it",
      "run-register-unwritten");
  expect_diagnostic(
      [&] { run_program(shift_program("R_shreg(2, 0)"), inputs); }, "8:1",
      "read of shift register 'R_shreg' at (2, 0) is outside its PE array (2) x 3 slots",
      "run-register-bounds");
  expect_diagnostic(
      [&] { run_program(shift_program("R_shreg(0, 3)"), inputs); }, "8:1",
      "read of shift register 'R_shreg' at (0, 3) is outside its PE array (2) x 3 slots",
      "run-register-bounds");
  expect_diagnostic(
      [&] { run_program(shift_program("R_shreg(0, -1)"), inputs); }, "8:1",
      "read of shift register 'R_shreg' at (0, -1) is outside its PE array (2) x 3 slots",
      "run-register-bounds");
  expect_diagnostic(
      [&] { run_program(shift_program("0", "true", "t"), inputs); }, "7:2",
      "write of shift register 'R_shreg' at (0, 3) is outside its PE array (2) x 3 slots",
      "run-register-bounds");
  expect_diagnostic([&] { run_program(shift_program("0", "true", "0", "p + 1"), inputs); }, "6:1",
                    "shift of shift register 'R_shreg' at (2) is outside its PE array (2)",
                    "run-register-bounds");
}

// Two PEs: F_fifo(t % 2) receives a(t) for t in [0, 8) (@PUSHPE is the PE); @POPS pops follow,
// c(t) = select(@COND, pop(F_fifo, @POPPE), 0).
const char kFifoBody[] = R"j([
  {"for": "t", "min": "0", "extent": "8", "kind": "serial", "loc": "5:1", "body": [
    {"push": "F_fifo", "args": ["@PUSHPE"], "value": "a(t)", "loc": "6:1"}]},
  {"for": "t", "min": "0", "extent": "8", "kind": "serial", "loc": "7:1", "body": [
    {"provide": "c", "args": ["t"], "value": "select(@COND, pop(F_fifo, @POPPE), 0)",
     "loc": "8:1"}]}])j";

Program fifo_program(int depth, const std::string& pop_pe = "t / 4",
                     const std::string& cond = "true", const std::string& push_pe = "t % 2") {
  return stt_kernel(subst(kFifoBody, {{"@PUSHPE", push_pe}, {"@COND", cond}, {"@POPPE", pop_pe}}),
                    reg("F_fifo", "fifo", "2", depth));
}

TEST(Registers, FifoOrder) {
  // PE 0 holds a(0), a(2), a(4), a(6) in that order; PE 1 the odd ones.
  NdArray c = run_program(fifo_program(4), {{"a", sequence(8)}});
  EXPECT_EQ(elements<int32_t>(c), (std::vector<int32_t>{1, 21, 41, 61, 11, 31, 51, 71}));
}

TEST(Registers, FifoErrors) {
  const std::map<std::string, NdArray> inputs = {{"a", sequence(8)}};
  expect_diagnostic([&] { run_program(fifo_program(3), inputs); }, "6:1",
                    "FIFO 'F_fifo' of PE (0) overflows: it already holds its depth of 3 values",
                    "run-fifo-overflow");
  expect_diagnostic([&] { run_program(fifo_program(1, "t / 4", "true", "0"), inputs); }, "6:1",
                    "FIFO 'F_fifo' of PE (0) overflows: it already holds its depth of 1 value",
                    "run-fifo-overflow");
  expect_diagnostic([&] { run_program(fifo_program(4, "0"), inputs); }, "8:1",
                    "pop from FIFO 'F_fifo' of PE (0), which is empty", "run-fifo-empty");
  expect_diagnostic([&] { run_program(fifo_program(4, "t / 4", "t < 7"), inputs); }, "12:1",
                    "FIFO 'F_fifo' of PE (1) still holds 1 value after kernel 'K' finished",
                    "run-fifo-leftover");
  expect_diagnostic([&] { run_program(fifo_program(4, "t / 4", "t < 3"), inputs); }, "12:1",
                    "FIFO 'F_fifo' of PE (0) still holds 1 value after kernel 'K' finished",
                    "run-fifo-leftover");
  expect_diagnostic([&] { run_program(fifo_program(4, "t / 4", "false"), inputs); }, "12:1",
                    "FIFO 'F_fifo' of PE (0) still holds 4 values after kernel 'K' finished",
                    "run-fifo-leftover");
  expect_diagnostic([&] { run_program(fifo_program(4, "t / 2"), inputs); }, "8:1",
                    "pop from FIFO 'F_fifo' at (2) is outside its PE array (2)",
                    "run-register-bounds");
  expect_diagnostic([&] { run_program(fifo_program(4, "t / 4", "true", "t % 3"), inputs); }, "6:1",
                    "push to FIFO 'F_fifo' at (2) is outside its PE array (2)",
                    "run-register-bounds");
}

TEST(Registers, MalformedRegistersAreInternalErrors) {
  const std::map<std::string, NdArray> inputs = {{"a", sequence(8)}};
  const std::string read = R"j([{"provide": "c", "args": ["0"], "value": "R_shreg(0, 0)"}])j";
  expect_internal_error(
      [&] { run_program(stt_kernel(read, reg("R_shreg", "shift", "2", 3, "Q")), inputs); },
      "interpreter: register 'R_shreg' belongs to kernel 'Q', which is not in the program");
  expect_internal_error(
      [&] {
        run_program(stt_kernel(R"j([{"push": "R_shreg", "args": ["0"], "value": "1"}])j",
                               reg("R_shreg", "shift", "2", 3)),
                    inputs);
      },
      "push of 'R_shreg', which is a shift register");
  expect_internal_error(
      [&] {
        run_program(
            stt_kernel(R"j([{"shift": "R_shreg", "args": []}])j", reg("R_shreg", "shift", "2", 3)),
            inputs);
      },
      "shift of 'R_shreg' with 0 indices; it takes 1 (the PE index)");
  Program p = shift_program("0");
  RunOptions options;
  options.track_registers = true;
  expect_internal_error([&] { run_program(p, inputs, options); },
                        "RunOptions::track_registers needs RunOptions::max_live");
}

TEST(Registers, LetsOfAnyScalarType) {
  // A float32 let, an int64 let and a bool let; an inner let shadows with another type.
  Program p = one_kernel(R"j([{"for": "i", "min": "0", "extent": "8", "kind": "serial",
    "body": [{"let": "x", "value": "cast(Float(32), a(i)) * 0.5f", "body": [
      {"let": "w", "value": "cast(Int(64), a(i)) * 4294967296l", "body": [
        {"let": "b", "value": "i % 2 == 0", "body": [
          {"let": "x", "value": "x + 0.25f", "body": [
            {"provide": "c", "args": ["i"],
             "value": "select(b, cast(Int(32), x * 4.0f), cast(Int(32), w / 4294967296l))"}]}]}]}]}]}])j");
  NdArray c = run_program(p, {{"a", sequence(8)}});
  // Even i: (a / 2 + 1 / 4) * 4 = 2 a + 1; odd i: a.
  EXPECT_EQ(elements<int32_t>(c), (std::vector<int32_t>{3, 11, 43, 31, 83, 51, 123, 71}));
}

// Runs `p` with register tracking and returns max_live.
std::map<std::string, int64_t> max_live(const Program& p, NdArray* out = nullptr) {
  std::map<std::string, int64_t> live;
  RunOptions options;
  options.track_registers = true;
  options.max_live = &live;
  NdArray c = run_program(p, {{"a", sequence(8)}}, options);
  if (out) *out = c;
  return live;
}

TEST(Registers, MaxLiveOfAFifo) {
  // Each PE p receives a(t) at t % 2 == p, and the value pushed at t is popped at t + 5 (or
  // after the loop): PE 0 holds a(0), a(2), a(4) when a(4) arrives, a(0) leaves at t = 5. At
  // most 3 values per PE (6 in both PEs together: max_live is per PE).
  Program p = stt_kernel(R"j([
    {"for": "t", "min": "0", "extent": "8", "kind": "serial", "body": [
      {"push": "F_fifo", "args": ["t % 2"], "value": "a(t)"},
      {"if": "t >= 5", "then": [
        {"provide": "c", "args": ["t - 5"], "value": "pop(F_fifo, (t - 5) % 2)"}],
       "else": []}]},
    {"for": "t", "min": "3", "extent": "5", "kind": "serial", "body": [
      {"provide": "c", "args": ["t"], "value": "pop(F_fifo, t % 2)"}]}])j",
                         reg("F_fifo", "fifo", "2", 3));
  NdArray c;
  EXPECT_EQ(max_live(p, &c), (std::map<std::string, int64_t>{{"F_fifo", 3}}));
  EXPECT_EQ(elements<int32_t>(c), elements<int32_t>(sequence(8)));

  // Push two, pop one, repeatedly: the FIFO of PE (0) holds 5 values after the last push.
  Program q = stt_kernel(R"j([
    {"for": "t", "min": "0", "extent": "4", "kind": "serial", "body": [
      {"push": "F_fifo", "args": ["0"], "value": "a(2 * t)"},
      {"push": "F_fifo", "args": ["0"], "value": "a(2 * t + 1)"},
      {"provide": "c", "args": ["t"], "value": "pop(F_fifo, 0)"}]},
    {"for": "t", "min": "4", "extent": "4", "kind": "serial", "body": [
      {"provide": "c", "args": ["t"], "value": "pop(F_fifo, 0)"}]}])j",
                         reg("F_fifo", "fifo", "2", 5));
  EXPECT_EQ(max_live(q, &c), (std::map<std::string, int64_t>{{"F_fifo", 5}}));
  EXPECT_EQ(elements<int32_t>(c), elements<int32_t>(sequence(8)));
}

TEST(Registers, MaxLiveOfAPlainRegister) {
  // GEMM's C: a depth-1 register read and overwritten by the same statement (it reads before
  // it writes, so the old value is dead when the new one arrives).
  Program p = stt_kernel(R"j([
    {"for": "k", "min": "0", "extent": "4", "kind": "serial", "body": [
      {"provide": "C_shreg", "args": ["0", "0"],
       "value": "select(k == 0, 0, C_shreg(0, 0)) + a(k)"}]},
    {"provide": "c", "args": ["0"], "value": "C_shreg(0, 0)"}])j",
                         reg("C_shreg", "shift", "1", 1), 1);
  NdArray c;
  EXPECT_EQ(max_live(p, &c), (std::map<std::string, int64_t>{{"C_shreg", 1}}));
  EXPECT_EQ(elements<int32_t>(c), (std::vector<int32_t>{1 + 11 + 21 + 31}));
}

TEST(Registers, MaxLiveOfAShiftRegister) {
  // Read at slot k right after the write: k + 1 values live (the one read, the ones written
  // since). A register never read counts 0; the PE that is not read counts 0 too.
  const std::string unused = ", " + reg("U_shreg", "shift", "4", 2);
  EXPECT_EQ(max_live(shift_program("select(t >= 2, R_shreg(1, 2), -1)", "true", "0", "p", unused)),
            (std::map<std::string, int64_t>{{"R_shreg", 3}, {"U_shreg", 0}}));
  EXPECT_EQ(max_live(shift_program("select(t >= 1, R_shreg(0, 1), -1)", "true")),
            (std::map<std::string, int64_t>{{"R_shreg", 2}}));
  EXPECT_EQ(max_live(shift_program("R_shreg(1, 0)", "true")),
            (std::map<std::string, int64_t>{{"R_shreg", 1}}));
  // With the write skipped at t == 3, v_2 stays in the register for longer (read at t = 4 and
  // t = 5): at the write of v_5, v_2, v_4 and v_5 are live.
  EXPECT_EQ(max_live(shift_program("select(t >= 2, R_shreg(1, 2), -1)")),
            (std::map<std::string, int64_t>{{"R_shreg", 3}}));
  // Existing entries of other names are kept.
  std::map<std::string, int64_t> live = {{"other", 7}};
  RunOptions options;
  options.track_registers = true;
  options.max_live = &live;
  run_program(shift_program("R_shreg(1, 0)", "true"), {{"a", sequence(8)}}, options);
  EXPECT_EQ(live, (std::map<std::string, int64_t>{{"R_shreg", 1}, {"other", 7}}));
}

TEST(Registers, ConcurrentKernels) {
  // Device kernels P and C, each with its own registers, connected by channel ch: P delays a(i)
  // by two steps in P_shreg; C passes what it receives through C_fifo, one step late.
  const std::string kernels = R"j([
    {"name": "P", "place": "device", "loc": "4:1", "body": [
      {"for": "t", "min": "0", "extent": "10", "kind": "serial", "body": [
        {"shift": "P_shreg", "args": []},
        {"if": "t < 8", "then": [{"provide": "P_shreg", "args": ["0"], "value": "a(t)"}],
         "else": []},
        {"if": "t >= 2", "then": [
          {"write_channel": "ch", "index": [], "value": "P_shreg(2)"}], "else": []}]}]},
    {"name": "C", "place": "device", "loc": "5:1", "body": [
      {"for": "t", "min": "0", "extent": "9", "kind": "serial", "body": [
        {"if": "t < 8", "then": [
          {"push": "C_fifo", "args": [], "value": "read_channel(ch) * 2"}], "else": []},
        {"if": "t >= 1", "then": [
          {"provide": "c", "args": ["t - 1"], "value": "pop(C_fifo)"}], "else": []}]}]}])j";
  const std::string channels = R"j([{"name": "ch", "type": "int32", "dims": [], "depth": 1,
    "producer": "P", "consumer": "C", "loc": "7:1"}])j";
  Program p = parse(document(
      kInputA, "[" + func("c", "int32", 1) + "]", output_c(8), buffer_c(8), kernels, channels,
      "stt",
      R"j([{"name": "P_shreg", "func": "P", "kernel": "P", "type": "int32", "kind": "shift",
              "shape": [], "depth": 3, "distance": [2], "time_distance": 2, "period": 1,
              "naive": 3, "loc": "10:1"},
             {"name": "C_fifo", "func": "C", "kernel": "C", "type": "int32", "kind": "fifo",
              "shape": [], "depth": 2, "distance": [1], "time_distance": 1, "period": 1,
              "naive": 2, "loc": "11:1"}])j"));
  NdArray c;
  EXPECT_EQ(max_live(p, &c), (std::map<std::string, int64_t>{{"C_fifo", 2}, {"P_shreg", 3}}));
  EXPECT_EQ(elements<int32_t>(c), (std::vector<int32_t>{2, 22, 42, 62, 82, 102, 122, 142}));

  // A kernel cannot use another kernel's register.
  Program q = parse(document(
      kInputA, "[" + func("c", "int32", 1) + "]", output_c(8), buffer_c(8),
      R"j([{"name": "P", "place": "host", "loc": null, "body": []},
           {"name": "C", "place": "host", "loc": null, "body": [
             {"provide": "c", "args": ["0"], "value": "P_shreg(0)"}]}])j",
      "[]", "stt",
      R"j([{"name": "P_shreg", "func": "P", "kernel": "P", "type": "int32", "kind": "shift",
            "shape": [], "depth": 3, "distance": [2], "time_distance": 2, "period": 1,
            "naive": 3, "loc": "10:1"}])j"));
  expect_internal_error(
      [&] {
        run_program(q, {{"a", sequence(8)}});
      },
      "read of register 'P_shreg', which belongs to kernel 'P'");
}

// About 1.6 million register events: tracking must stay fast (see Gemm64Completes).
TEST(Registers, MaxLiveOfALongRun) {
  const char body[] = R"j([
    {"for": "t", "min": "0", "extent": "200000", "kind": "serial", "body": [
      {"for": "p", "min": "0", "extent": "4", "kind": "unrolled", "body": [
        {"shift": "R_shreg", "args": ["p"]},
        {"provide": "R_shreg", "args": ["p", "0"], "value": "t + p"}]},
      {"if": "t >= 5", "then": [
        {"provide": "c", "args": ["t % 8"], "value": "R_shreg(t % 4, 5)"}], "else": []}]},
    {"for": "i", "min": "0", "extent": "@FINAL", "kind": "serial", "body": [
      {"provide": "c", "args": ["i"], "value": "R_shreg(i % 4, 5)"}]}])j";
  // At step t, PE t % 4 reads the value it wrote at step t - 5 (after this step's writes), so
  // only every fourth value of a PE is read: at the write of value s + 4, value s (read at step
  // s + 5) is still live, and nothing else.
  NdArray c;
  EXPECT_EQ(
      max_live(stt_kernel(subst(body, {{"@FINAL", "0"}}), reg("R_shreg", "shift", "4", 6)), &c),
      (std::map<std::string, int64_t>{{"R_shreg", 2}}));
  std::vector<int32_t> expected;
  for (int32_t k = 0; k < 8; ++k) expected.push_back(199992 + k - 5 + k % 4);
  EXPECT_EQ(elements<int32_t>(c), expected);
  // Reading every PE's slot 5 after the loop keeps the values of step 199994 live to the end:
  // PE 2 writes its value of step 199994 while those of steps 199989 (read later in that step)
  // and 199993 (read at step 199998) are live.
  EXPECT_EQ(max_live(stt_kernel(subst(body, {{"@FINAL", "8"}}), reg("R_shreg", "shift", "4", 6))),
            (std::map<std::string, int64_t>{{"R_shreg", 3}}));
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
  // A smaller array is fine until a read falls outside it; a larger one is fine.
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", sequence(5)}});
      },
      "5:1", "read of input 'a' at (5) is outside its extents (5)", "run-input-bounds");
  EXPECT_EQ(elements<int32_t>(run_program(p, {{"a", sequence(9)}}))[7], 71);
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

TEST(Limits, MalformedIrIsAnInternalError) {
  const std::map<std::string, NdArray> inputs = {{"a", sequence(8)}};
  expect_internal_error(
      [&] {
        run_program(one_kernel(R"j([{"alloc": "r", "type": "float32", "shape": ["4"]}])j"), inputs);
      },
      "interpreter: alloc statements are not supported yet");
  expect_internal_error(
      [&] {
        run_program(one_kernel(R"j([{"for": "i", "min": "0", "extent": "8", "kind": "serial",
          "body": [{"provide": "c", "args": ["i"], "value": "select(i > 2, a(i))"}]}])j"),
                    inputs);
      },
      "select without a false value");
  expect_internal_error(
      [&] {
        run_program(one_kernel(R"j([{"realize": "v", "type": "float32x4", "bounds": [],
          "body": []}])j"),
                    inputs);
      },
      "vector type float32x4 is not supported yet");
  expect_internal_error(
      [&] {
        run_program(one_kernel(R"j([{"provide": "c", "args": ["0"], "value": "q"}])j"), inputs);
      },
      "variable 'q' is used outside any loop or let binding it");
  expect_internal_error(
      [&] {
        run_program(one_kernel(R"j([{"provide": "d", "args": ["0"], "value": "1"}])j"), inputs);
      },
      "Func 'd' has neither an enclosing realize nor a buffer");
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
}  // namespace t2s
