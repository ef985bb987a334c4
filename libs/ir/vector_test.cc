// Vector values in the IR (docs/ir.md, "Vector values (the vectorized stage)"): canonical text,
// typing rules and their messages, the JSON round trip of a hand-written vectorized-stage
// program, and the verifier's ir-type rules for vectors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "libs/ir/expr_parser.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/typing.h"
#include "libs/ir/verify.h"

namespace t2s {
namespace {

// f: float32 Func of 2 args; a: int32 input; R: float32x4 shift register; v4/f4/b4: let-bound
// int32x4, float32x4 and boolx4 values. Vector operations are allowed unless `spec`.
class VectorResolver : public NameResolver {
 public:
  explicit VectorResolver(bool spec = false) : spec_(spec) {}
  Expr identifier(const std::string& name, const SourceLoc& loc) override {
    if (name == "v4") return make_var(name, Type::Int(32, 4), loc);
    if (name == "f4") return make_var(name, Type::Float(32, 4), loc);
    if (name == "b4") return make_var(name, Type::Bool(4), loc);
    if (name == "t44") return make_var(name, Type::Float(32).with_shape({4, 4}), loc);
    if (name == "v44") return make_var(name, Type::Int(32).with_shape({4, 4}), loc);
    if (name == "v16") return make_var(name, Type::Int(32, 16), loc);
    if (name == "x") return make_var(name, Type::Float(32), loc);
    return make_var(name, loc);
  }
  CallTarget call(const std::string& name, size_t, const SourceLoc& loc) override {
    if (name == "a") return {CallKind::kImage, Type::Int(32)};
    if (name == "R") return {CallKind::kRegister, Type::Float(32, 4)};
    if (name == "f") return {CallKind::kFunc, Type::Float(32)};
    throw Diagnostic(loc, "unknown Func '" + name + "'", "unknown");
  }
  bool vector_op(const std::string&) override { return !spec_; }

 private:
  bool spec_;
};

std::string canonical(const std::string& text, bool spec = false) {
  VectorResolver r(spec);
  try {
    Expr e = resolve_types(parse_expr_text(text, {}), r);
    return e->type.name() + " " + print_expr(e);
  } catch (const Diagnostic& d) {
    return d.rule() + ": " + d.message();
  }
}

TEST(VectorIr, CanonicalTextAndTypes) {
  EXPECT_EQ(canonical("ramp(i * 4, 1, 4)"), "int32x4 ramp(i * 4, 1, 4)");
  EXPECT_EQ(canonical("broadcast(1.5f, 8)"), "float32x8 broadcast(1.5f, 8)");
  EXPECT_EQ(canonical("slice(f4, 1, 2)"), "float32x2 slice(f4, 1, 2)");
  EXPECT_EQ(canonical("slice(f4, 3, 1)"), "float32 slice(f4, 3, 1)");  // one lane: a scalar
  EXPECT_EQ(canonical("concat(x, slice(f4, 0, 2), x)"), "float32x4 concat(x, slice(f4, 0, 2), x)");
  EXPECT_EQ(canonical("f4 * f4 + f4"), "float32x4 f4 * f4 + f4");
  EXPECT_EQ(canonical("cast(Float(32, 4), v4)"), "float32x4 cast(Float(32, 4), v4)");
  EXPECT_EQ(canonical("select(v4 < broadcast(3, 4), f4, -f4)"),
            "float32x4 select(v4 < broadcast(3, 4), f4, -f4)");
  EXPECT_EQ(canonical("min(v4, v4)"), "int32x4 min(v4, v4)");
  EXPECT_EQ(canonical("!b4 && b4"), "boolx4 !b4 && b4");
  EXPECT_EQ(canonical("sqrt(v4)"), "float32x4 sqrt(cast(Float(32, 4), v4))");
  // Gathers: vector indices (scalars mixed in) give a vector of the element type.
  EXPECT_EQ(canonical("f(ramp(0, 2, 4), j)"), "float32x4 f(ramp(0, 2, 4), j)");
  EXPECT_EQ(canonical("a(v4)"), "int32x4 a(v4)");
  EXPECT_EQ(canonical("R(0, 1) * f4"), "float32x4 R(0, 1) * f4");
}

TEST(VectorIr, TypeErrors) {
  EXPECT_EQ(canonical("ramp(i, 1, n)"),
            "type: the lane count of 'ramp' must be an integer literal, not 'n'");
  EXPECT_EQ(canonical("ramp(i, 1, 1)"),
            "type: the lane count of 'ramp' is 1; it must be in [2, 64]");
  EXPECT_EQ(canonical("ramp(x, 1, 4)"),
            "type: the base of 'ramp' must be a scalar integer, not Float(32)");
  EXPECT_EQ(canonical("ramp(0, v4, 4)"),
            "type: the base and stride of 'ramp' must both be scalar integers or both int32 "
            "vectors of one type, not Int(32) and Int(32, 4)");
  EXPECT_EQ(canonical("ramp(0, 1)"), "type: 'ramp' takes 3 arguments, got 2");
  EXPECT_EQ(canonical("broadcast(x, 65)"),
            "type: the lane count of 'broadcast' is 65; it must be in [2, 64]");
  EXPECT_EQ(canonical("slice(x, 0, 1)"),
            "type: the operand of 'slice' must be a vector, not Float(32)");
  EXPECT_EQ(canonical("slice(f4, 4, 1)"),
            "type: the first lane of 'slice' is 4; it must be in [0, 3]");
  EXPECT_EQ(canonical("slice(f4, 2, 3)"),
            "type: the lane count of 'slice' is 3; it must be in [1, 2]");
  EXPECT_EQ(canonical("concat(f4)"), "type: 'concat' takes at least 2 arguments, got 1");
  EXPECT_EQ(canonical("concat(f4, v4)"),
            "type: the operands of 'concat' must have one element type, not Float(32, 4) and "
            "Int(32, 4)");
  EXPECT_EQ(canonical("concat(broadcast(x, 40), broadcast(x, 40))"),
            "type: 'concat' gives 80 lanes; a vector has at most 64");
  EXPECT_EQ(canonical("f4 + slice(f4, 0, 2)"),
            "type: operands have different lane counts (Float(32, 4) and Float(32, 2))");
  EXPECT_EQ(canonical("v4 + 1"),
            "type: integer constant 1 cannot be implicitly converted to vector type Int(32, 4) "
            "(write broadcast(1, 4))");
  EXPECT_EQ(canonical("select(b4, x, x)"),
            "type: condition of select has type Bool(4), but its values have 1 lane (Float(32))");
  // A scalar condition with vector values is a lazy select.
  EXPECT_EQ(canonical("select(i < 2, f4, f4)"), "float32x4 select(i < 2, f4, f4)");
  EXPECT_EQ(canonical("select(b4, f4, slice(f4, 0, 2))"),
            "type: operands have different lane counts (Float(32, 4) and Float(32, 2))");
  EXPECT_EQ(canonical("cast(Float(32), v4)"),
            "type: cannot cast Int(32, 4) to Float(32): lane counts differ");
  EXPECT_EQ(canonical("f(v4, slice(v4, 0, 2))"),
            "type: the indices of 'f' have different lane counts (4 and 2)");
  EXPECT_EQ(canonical("f(f4, 0)"), "type: argument 1 of 'f' must be an integer, not Float(32, 4)");
  EXPECT_EQ(canonical("R(v4, 0)"), "type: the indices of register 'R' must be scalars");
  // Without vector operations (a spec), ramp is an ordinary call: the resolver's error.
  EXPECT_EQ(canonical("ramp(i, 1, 4)", true), "unknown: unknown Func 'ramp'");
}

std::string read_text(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  std::ifstream in(srcdir && *srcdir ? std::string(srcdir) + "/t2s/" + path : path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const char kVectorDot[] = "testdata/ir/vector_dot.json";

TEST(VectorIr, JsonRoundTrip) {
  const std::string text = read_text(kVectorDot);
  ASSERT_FALSE(text.empty());
  Program p = read_program(text, kVectorDot);
  verify_program(p, kVectorDot);
  EXPECT_EQ(write_program(p), text);
  EXPECT_EQ(p.channels.at(0).type, Type::Float(32, 4));
  EXPECT_EQ(p.registers.at(0).type, Type::Float(32, 4));
}

// Tensors: lanes per dimension, innermost first (float32x4x8: 8 rows of 4 lanes).
TEST(VectorIr, TensorTypes) {
  const Type t48 = Type::Float(32).with_shape({4, 8});
  EXPECT_EQ(t48.lanes, 32);
  EXPECT_EQ(t48.row_lanes(), 4);
  EXPECT_EQ(t48.dims(), 2);
  EXPECT_EQ(t48.shape(), (std::vector<int>{4, 8}));
  EXPECT_EQ(t48.name(), "float32x4x8");
  EXPECT_EQ(t48.spec_name(), "Float(32, 4, 8)");
  EXPECT_EQ(Type::from_name("float32x4x8"), t48);
  EXPECT_EQ(Type::from_name("boolx2x3x4")->spec_name(), "Bool(2, 3, 4)");
  EXPECT_EQ(Type::from_name("float32x4x1"), std::nullopt);     // dimensions have 2 lanes at least
  EXPECT_EQ(Type::from_name("float32x16x8"), std::nullopt);    // 128 lanes
  EXPECT_EQ(Type::from_name("int8x2x2x2x2x2"), std::nullopt);  // 5 dimensions: at most 4
  EXPECT_NE(t48, Type::Float(32, 32));                         // the shape is part of the type
  EXPECT_EQ(Type::Float(32, 4).with_outer(8), t48);
  EXPECT_EQ(t48.with_element(Type::Bool()).name(), "boolx4x8");
  EXPECT_EQ(Type::Float(32).with_shape({1, 8}), Type::Float(32, 8));  // 1-lane dims dropped
  EXPECT_EQ(t48.with_outer(2).name(), "float32x4x8x2");
}

TEST(VectorIr, TensorOperations) {
  // Halide's nesting: a ramp or broadcast of a vector adds an outer dimension.
  EXPECT_EQ(canonical("broadcast(ramp(0, 1, 4), 4)"), "int32x4x4 broadcast(ramp(0, 1, 4), 4)");
  EXPECT_EQ(canonical("ramp(broadcast(0, 4), broadcast(1, 4), 4)"),
            "int32x4x4 ramp(broadcast(0, 4), broadcast(1, 4), 4)");
  EXPECT_EQ(canonical("broadcast(f4, 2)"), "float32x4x2 broadcast(f4, 2)");
  EXPECT_EQ(canonical("broadcast(t44, 2)"), "float32x4x4x2 broadcast(t44, 2)");
  EXPECT_EQ(canonical("t44 * t44 + t44"), "float32x4x4 t44 * t44 + t44");
  EXPECT_EQ(canonical("v44 < v44"), "boolx4x4 v44 < v44");
  EXPECT_EQ(canonical("cast(Float(32, 4, 4), v44)"), "float32x4x4 cast(Float(32, 4, 4), v44)");
  EXPECT_EQ(canonical("select(v44 < v44, t44, t44)"), "float32x4x4 select(v44 < v44, t44, t44)");
  EXPECT_EQ(canonical("reshape(v16, 4, 4)"), "int32x4x4 reshape(v16, 4, 4)");
  EXPECT_EQ(canonical("reshape(v44, 2, 8)"), "int32x2x8 reshape(v44, 2, 8)");
  // slice and concat work on the flat lanes and give flat vectors.
  EXPECT_EQ(canonical("slice(t44, 4, 4)"), "float32x4 slice(t44, 4, 4)");
  EXPECT_EQ(canonical("concat(t44, t44)"), "float32x32 concat(t44, t44)");
  // A gather with tensor indices has their shape.
  EXPECT_EQ(
      canonical("f(broadcast(ramp(0, 1, 4), 4), ramp(broadcast(0, 4), broadcast(1, 4), 4))"),
      "float32x4x4 f(broadcast(ramp(0, 1, 4), 4), ramp(broadcast(0, 4), broadcast(1, 4), 4))");
  // Errors.
  EXPECT_EQ(canonical("t44 + cast(Float(32, 16), v16)"),
            "type: operands have different shapes (Float(32, 4, 4) and Float(32, 16)); broadcast "
            "or reshape one explicitly");
  EXPECT_EQ(canonical("t44 + reshape(cast(Float(32, 16), v16), 8, 2)"),
            "type: operands have different shapes (Float(32, 4, 4) and Float(32, 8, 2)); "
            "broadcast or reshape one explicitly");
  EXPECT_EQ(canonical("cast(Float(32, 16), v44)"),
            "type: cannot cast Int(32, 4, 4) to Float(32, 16): shapes differ (write reshape)");
  EXPECT_EQ(canonical("select(v44 < v44, cast(Float(32, 16), v16), cast(Float(32, 16), v16))"),
            "type: condition of select has type Bool(4, 4), but its values have another shape "
            "(Float(32, 16))");
  EXPECT_EQ(canonical("f(v44, v16)"),
            "type: the indices of 'f' have different shapes (Int(32, 4, 4) and Int(32, 16))");
  EXPECT_EQ(canonical("ramp(v4, broadcast(1, 2), 4)"),
            "type: the base and stride of a nested 'ramp' have different types (Int(32, 4) and "
            "Int(32, 2))");
  EXPECT_EQ(canonical("ramp(f4, f4, 4)"),
            "type: the base of a nested 'ramp' must be an int32 vector, not Float(32, 4)");
  EXPECT_EQ(canonical("broadcast(broadcast(x, 16), 8)"),
            "type: 'broadcast' of Float(32, 16) by 8 gives 128 lanes in 2 dimensions; a vector "
            "has at most 64 lanes in 4");
  EXPECT_EQ(canonical("reshape(v16, 4, 2)"),
            "type: cannot reshape Int(32, 16) (16 lanes) to Int(32, 4, 2)");
  EXPECT_EQ(canonical("reshape(v44, 16)"), "int32x16 reshape(v44, 16)");  // flat
  EXPECT_EQ(canonical("reshape(v16)"),
            "type: 'reshape' takes a value and 1 or more dimensions, got 1 arguments");
  EXPECT_EQ(canonical("reshape(v16, 1, 16)"),
            "type: the dimension of 'reshape' is 1; it must be in [2, 64]");
  EXPECT_EQ(canonical("cast(Float(32, 4, 1), v4)"),
            "type: a tensor type's dimensions have 2 lanes at least, not 1");
}

// The verifier on IR a pass could build (not through typing): `value` replaces the value of
// kernel E's scatter (e(ramp(0, 1, 4)) = ...); `args` its index when given.
std::string verify_error(const Expr& value, std::vector<Expr> args = {}) {
  Program p = read_program(read_text(kVectorDot), kVectorDot);
  Provide* provide = const_cast<Provide*>(p.kernels.at(2).body.at(0)->as<Provide>());
  provide->value = value;
  if (!args.empty()) provide->args = args;
  try {
    verify_program(p, "v.json");
  } catch (const Diagnostic& d) {
    return d.rule() + ": " + d.message();
  }
  return "no error";
}

TEST(VectorIr, VerifierRejects) {
  const Type i32 = Type::Int(32), f32 = Type::Float(32);
  const Expr zero = make_int(i32, 0), one = make_int(i32, 1), four = make_int(i32, 4);
  const Expr ramp4 = make_call("ramp", CallKind::kIntrinsic, Type::Int(32, 4), {zero, one, four});
  const Expr fb4 =
      make_call("broadcast", CallKind::kIntrinsic, Type::Float(32, 4), {make_float(f32, 1), four});
  EXPECT_EQ(verify_error(fb4), "no error");
  const std::string at = "ir-type: kernels[2].body[0]: ";
  // Wrong lanes: a 2-lane value scattered with 4-lane indices.
  const Expr fb2 = make_call("broadcast", CallKind::kIntrinsic, Type::Float(32, 2),
                             {make_float(f32, 1), make_int(i32, 2)});
  EXPECT_EQ(verify_error(fb2),
            at + "the value scattered to 'e' (4-lane indices) has type float32x2, not float32x4");
  // A vector value provided at a scalar index.
  EXPECT_EQ(verify_error(fb4, {zero}),
            at + "the value provided to 'e' has type float32x4, not float32");
  // Ramp with a lane count that is not a literal.
  const Expr bad_ramp =
      make_call("ramp", CallKind::kIntrinsic, Type::Int(32, 4),
                {zero, one, make_binary(BinaryOp::kAdd, one, make_int(i32, 3), i32)});
  EXPECT_EQ(verify_error(make_cast(Type::Float(32, 4), bad_ramp)),
            at + "'ramp' of type int32x4: its lane count is not an int32 literal");
  // A ramp whose type does not have its lanes.
  const Expr ramp8 = make_call("ramp", CallKind::kIntrinsic, Type::Int(32, 8), {zero, one, four});
  EXPECT_EQ(verify_error(fb4, {ramp8}),
            at + "'ramp' of type int32x8: the type must be int32 with its lane count (at least 2)");
  // Slice out of range.
  const Expr slice =
      make_call("slice", CallKind::kIntrinsic, Type::Float(32, 4), {fb4, make_int(i32, 2), four});
  EXPECT_EQ(verify_error(slice),
            at + "'slice' of type float32x4: lanes [2, 6) are outside its operand's 4");
  // Concat of different element types.
  const Expr cat = make_call("concat", CallKind::kIntrinsic, Type::Float(32, 8), {fb4, ramp4});
  EXPECT_EQ(verify_error(cat),
            at + "'concat' of type float32x8: an operand of type int32x4 (another element type)");
  // Gather indices of different lanes.
  const Expr ramp2 =
      make_call("ramp", CallKind::kIntrinsic, Type::Int(32, 2), {zero, one, make_int(i32, 2)});
  EXPECT_EQ(verify_error(make_call("x", CallKind::kImage, Type::Float(32, 4), {ramp2}), {ramp4}),
            at + "the read of input 'x' has type float32x4, not float32x2");
  // A select whose condition has other lanes; a comparison's result lanes.
  const Expr lt = make_binary(BinaryOp::kLT, ramp4, ramp4, Type::Bool());
  EXPECT_EQ(verify_error(make_select(lt, fb4, fb4, Type::Float(32, 4))),
            at + "operator < on int32x4 and int32x4 giving bool");
  const Expr lt2 = make_binary(BinaryOp::kLT, ramp2, ramp2, Type::Bool(2));
  EXPECT_EQ(verify_error(make_select(lt2, fb4, fb4, Type::Float(32, 4))),
            at + "a select whose condition has type boolx2 and whose values have type float32x4 "
                 "(lane counts differ)");
  // An index that is not an integer vector.
  EXPECT_EQ(verify_error(fb4, {make_call("x", CallKind::kImage, Type::Float(32, 4), {ramp4})}),
            at + "an index of Func 'e' has type float32x4, not an integer type or an int32 vector");
  // Tensors: a nested ramp's and a reshape's types; elementwise operands of one shape.
  const Type i44 = Type::Int(32).with_shape({4, 4});
  const Expr ramp16 = make_call("ramp", CallKind::kIntrinsic, Type::Int(32, 16),
                                {make_int(i32, 0), one, make_int(i32, 16)});
  const Expr bad_nest =
      make_call("broadcast", CallKind::kIntrinsic, Type::Int(32, 16), {ramp4, four});
  EXPECT_EQ(verify_error(fb4, {bad_nest}),
            at + "'broadcast' of type int32x16: the type must be its value's with an outer "
                 "dimension of its lane count (at least 2)");
  const Expr bad_reshape =
      make_call("reshape", CallKind::kIntrinsic, i44, {ramp16, make_int(i32, 2), make_int(i32, 8)});
  EXPECT_EQ(verify_error(fb4, {bad_reshape}),
            at + "'reshape' of type int32x4x4: the type must be its operand's element type with "
                 "the shape given, of as many lanes");
  const Expr nest = make_call("broadcast", CallKind::kIntrinsic, i44, {ramp4, four});
  const Expr flat_plus_tensor = make_binary(BinaryOp::kAdd, ramp16, nest, Type::Int(32, 16));
  EXPECT_EQ(verify_error(fb4, {flat_plus_tensor}),
            at + "operator + on int32x16 and int32x4x4 giving int32x16");
  // If conditions stay scalar.
  Program p = read_program(read_text(kVectorDot), kVectorDot);
  const Stmt& loop = *p.kernels.at(1).body.at(0);
  auto* branch = const_cast<IfThenElse*>(loop.as<For>()->body.at(2)->as<IfThenElse>());
  branch->condition = make_binary(BinaryOp::kLT, ramp4, ramp4, Type::Bool(4));
  try {
    verify_program(p, "v.json");
    ADD_FAILURE() << "no error";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.message(), "kernels[1].body[0].body[2]: an if condition of type boolx4");
  }
}

}  // namespace
}  // namespace t2s
