#include <gtest/gtest.h>

#include "libs/ir/expr_parser.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/typing.h"

namespace t2s {
namespace {

// Resolves f/g/h as float32 Funcs of 2 args, a as an int32 image, u8 as a uint8 Func of 1 arg.
class TestResolver : public NameResolver {
 public:
  Expr identifier(const std::string& name, const SourceLoc& loc) override {
    if (name == "N") return make_int(Type::Int(32), 10, loc);
    return make_var(name, loc);
  }
  CallTarget call(const std::string& name, size_t nargs, const SourceLoc& loc) override {
    if (name == "a") return {CallKind::kImage, Type::Int(32)};
    if (name == "u8") return {CallKind::kFunc, Type::UInt(8)};
    if (name == "d") return {CallKind::kFunc, Type::Float(64)};
    if (name == "b") return {CallKind::kFunc, Type::Bool()};
    return {CallKind::kFunc, Type::Float(32)};
  }
};

std::string canonical(const std::string& text) {
  TestResolver r;
  return print_expr(resolve_types(parse_expr_text(text, {}), r));
}

TEST(ExprTest, CanonicalFormsRoundTrip) {
  const char* cases[] = {
      "select(i == 0, cast(Float(32), a(i, k)), f(i, j - 1))",
      "f(i, j) + f(i, j) * f(i, j)",
      "(f(i, j) + f(i, j)) * f(i, j)",
      "i - (j - k)",
      "i - j - k",
      "i / 2 % 3",
      "-i * 3",
      "-(i * 3)",
      "!(i < j) && j >= 2 || k != 1",
      "cast(Float(32), i) * 1.5f",
      "cast(UInt(8), 3)",
      "min(i, j) + max(i, 2)",
      "select(i == 0, 0.0f, f(i - 1, j))",
      "-2147483648",
      "9223372036854775807l",
      "4000000000u",
      "1e+30f",
      "0.1",
      "-0.0f",
      "i + -5",
      "a(i - 1, j + 1) / -3",
      "true && b(i)",
      "abs(i) + 1u",
      "sqrt(cast(Float(32), i))",
  };
  for (const char* c : cases) {
    EXPECT_EQ(canonical(c), c) << c;
    EXPECT_EQ(canonical(canonical(c)), canonical(c)) << c;
  }
}

TEST(ExprTest, HalideCoercion) {
  EXPECT_EQ(canonical("f(i, j) + 1"), "f(i, j) + 1.0f");
  EXPECT_EQ(canonical("select(i == 0, 0, f(i, j))"), "select(i == 0, 0.0f, f(i, j))");
  EXPECT_EQ(canonical("f(i, j) + i"), "f(i, j) + cast(Float(32), i)");
  EXPECT_EQ(canonical("f(i, j) + d(i, j)"), "cast(Float(64), f(i, j)) + d(i, j)");
  EXPECT_EQ(canonical("u8(i) + 3"), "u8(i) + cast(UInt(8), 3)");
  EXPECT_EQ(canonical("u8(i) + i"), "cast(Int(32), u8(i)) + i");
  EXPECT_EQ(canonical("f(i, j) * 2.0"), "cast(Float(64), f(i, j)) * 2.0");
  EXPECT_EQ(canonical("cast<int>(f(i, j))"), "cast(Int(32), f(i, j))");
  EXPECT_EQ(canonical("sqrt(i)"), "sqrt(cast(Float(32), i))");
  EXPECT_EQ(canonical("abs(i)"), "abs(i)");
}

TEST(ExprTest, IntegerFoldingUsesHalideSemantics) {
  EXPECT_EQ(canonical("8 / 2 / 2"), "2");
  EXPECT_EQ(canonical("010 + 0x10"), "24");  // octal and hex, as in C++
  EXPECT_EQ(canonical("-7 / 2"), "-4");
  EXPECT_EQ(canonical("-7 % 2"), "1");
  EXPECT_EQ(canonical("7 % -2"), "1");
  EXPECT_EQ(canonical("7 / 0"), "0");
  EXPECT_EQ(canonical("N - 1"), "9");
  EXPECT_EQ(canonical("i == N - 1"), "i == 9");
  EXPECT_EQ(canonical("2147483647 + 1"), "2147483647 + 1");  // overflow is not folded
  EXPECT_EQ(canonical("cast(UInt(8), 300)"), "cast(UInt(8), 44)");
}

TEST(ExprTest, HalideDivisionAndModulo) {
  EXPECT_EQ(halide_div(7, 2), 3);
  EXPECT_EQ(halide_div(-7, 2), -4);
  EXPECT_EQ(halide_div(7, -2), -3);
  EXPECT_EQ(halide_div(-7, -2), 4);
  EXPECT_EQ(halide_mod(-7, 2), 1);
  EXPECT_EQ(halide_mod(7, -2), 1);
  EXPECT_EQ(halide_mod(-7, -2), 1);
  EXPECT_EQ(halide_div(5, 0), 0);
  EXPECT_EQ(halide_mod(5, 0), 0);
  for (int a = -20; a <= 20; ++a)
    for (int b = -5; b <= 5; ++b)
      if (b != 0) {
        EXPECT_EQ(halide_div(a, b) * b + halide_mod(a, b), a);
        EXPECT_GE(halide_mod(a, b), 0);
      }
}

TEST(ExprTest, TypeErrors) {
  TestResolver r;
  auto error_of = [&](const std::string& text) {
    try {
      resolve_types(parse_expr_text(text, {"", 3, 5}), r);
    } catch (const Diagnostic& d) {
      return d.rule() + ": " + d.message();
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("select(i, 1, 2)"), "type: condition of select must be Bool, not Int(32)");
  EXPECT_EQ(error_of("i && j"), "type: operands of '&&' must be Bool, not Int(32) and Int(32)");
  EXPECT_EQ(error_of("u8(i) + 300"),
            "type: integer constant 300 cannot be implicitly converted to UInt(8) without "
            "changing its value");
  EXPECT_EQ(error_of("f(1.5f, j)"), "type: argument 1 of 'f' must be an integer, not Float(32)");
}

TEST(ExprTest, SyntaxErrors) {
  auto error_of = [](const std::string& text) {
    try {
      parse_expr_text(text, {});
    } catch (const Diagnostic& d) {
      return d.rule() + ": " + d.message();
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("f(i,"), "syntax: expected an expression, found end of input");
  EXPECT_EQ(error_of("(i + 1"), "syntax: expected ')' to close '(', found end of input");
  EXPECT_EQ(error_of("i + 1)"), "syntax: unexpected ')' after the expression 'i + 1)'");
  EXPECT_EQ(error_of("4294967296"),
            "lex: integer literal '4294967296' does not fit in int32 (add an 'l' suffix for "
            "int64)");
  EXPECT_EQ(error_of("select(i)"), "arguments: select takes 2 or 3 arguments, got 1");
  EXPECT_EQ(error_of("min(i)"), "arguments: 'min' takes 2 arguments, got 1");
  std::string deep(1000, '(');
  EXPECT_EQ(error_of(deep + "1"), "syntax: expression nested too deeply");
  std::string chain = "i";
  for (int n = 0; n < 10001; ++n) chain += " + i";
  EXPECT_EQ(error_of(chain), "syntax: expression too deep (more than 10000 nested operations)");
}

}  // namespace
}  // namespace t2s
