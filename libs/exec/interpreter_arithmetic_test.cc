// The interpreter's arithmetic: Halide's semantics on every scalar type, casts, deep expressions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "libs/exec/interpreter_testing.h"
#include "libs/testing/ir_edit.h"

namespace t2s {
namespace exec_test {
namespace {

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
  LetStmt& let_x = *testing::edit_as<LetStmt>(p.kernels[0].body[0]);
  LetStmt& let_y = *testing::edit_as<LetStmt>(let_x.body[0]);
  testing::edit_as<Provide>(let_y.body[0])->value = chain.back();
  NdArray r = run_program(p, {});
  EXPECT_EQ(element<int32_t>(r, 0), 200005);
  // Free the chain from the root down, one node at a time (not recursively).
  p.kernels.clear();
  while (!chain.empty()) chain.pop_back();
}

}  // namespace
}  // namespace exec_test
}  // namespace t2s
