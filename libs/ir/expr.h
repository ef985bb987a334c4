// Expressions: an immutable tree with Halide semantics (LANGUAGE.md section 4).
//
// Every node carries its type. Trees built by the parsers start with unresolved calls and
// unknown types; libs/ir/typing (resolve_types) resolves names, coerces operand types the way
// Halide does and folds integer constants, giving the canonical form the printer writes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "libs/ir/diagnostic.h"
#include "libs/ir/type.h"

namespace t2s {

enum class ExprKind {
  kIntImm,    // int_value; integer, unsigned or bool type
  kFloatImm,  // float_value; float type
  kVar,       // name; a loop variable (int32) or a let-bound value (the let value's type)
  kCall,      // name(operands...); see CallKind
  kBinary,    // operands[0] op operands[1]
  kUnary,     // op operands[0]
  kSelect,    // select(operands[0], operands[1] [, operands[2]])
  kCast,      // cast(type, operands[0])
};

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kMod, kEQ, kNE, kLT, kLE, kGT, kGE, kAnd, kOr };
enum class UnaryOp { kNeg, kNot };

enum class CallKind {
  kUnresolved,  // not yet looked up (straight out of a parser)
  kFunc,        // a Func of the program
  kImage,       // an ImageParam (program input)
  kIntrinsic,   // min max abs sqrt exp log pow floor ceil round
  kChannel,     // read_channel(ch, index...): operands[0] is a Var naming the channel; reads
                // (and removes) the next value of that FIFO. Only in kernels, never in a spec.
  kRegister,    // R(pe index..., slot): a slot of shift register R (stt stage on)
  kFifo,        // pop(R, pe index...): removes and returns the oldest value of FIFO R of that
                // PE (stt stage on); operands[0] is a Var naming the FIFO
};

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

struct ExprNode {
  ExprKind kind;
  Type type;
  int64_t int_value = 0;
  double float_value = 0;
  std::string name;  // Var or callee name
  BinaryOp binary_op = BinaryOp::kAdd;
  UnaryOp unary_op = UnaryOp::kNeg;
  CallKind call_kind = CallKind::kUnresolved;
  std::vector<Expr> operands;
  SourceLoc loc;  // where the user wrote it (not part of the IR text)
};

// Constructors. They check their operands (none missing, no empty name, an integer literal of
// a non-float type and a float literal of a float type; InternalError otherwise) but do not
// coerce types: they record what they are given, and typing (libs/ir/typing) or the verifier
// (libs/ir/verify) judges the types.
Expr make_int(Type type, int64_t value, SourceLoc loc = {});
Expr make_float(Type type, double value, SourceLoc loc = {});
Expr make_bool(bool value, SourceLoc loc = {});
Expr make_var(const std::string& name, SourceLoc loc = {});
// A let-bound value of type `type`.
Expr make_var(const std::string& name, Type type, SourceLoc loc);
Expr make_call(const std::string& name, CallKind kind, Type type, std::vector<Expr> args,
               SourceLoc loc = {});
Expr make_binary(BinaryOp op, Expr a, Expr b, Type type, SourceLoc loc = {});
Expr make_unary(UnaryOp op, Expr a, Type type, SourceLoc loc = {});
Expr make_select(Expr cond, Expr t, Expr f /* may be null */, Type type, SourceLoc loc = {});
Expr make_cast(Type type, Expr value, SourceLoc loc = {});

bool is_comparison(BinaryOp op);
const char* binary_op_spelling(BinaryOp op);
// Intrinsic functions and their argument counts; 0 when `name` is not an intrinsic.
int intrinsic_arity(const std::string& name);
// Whether `name` is a vector operation (ramp, broadcast, slice, concat): calls of kind
// kIntrinsic in IR of the vectorized stage, never in a spec (docs/ir.md, "Vector values").
bool is_vector_op(const std::string& name);
// The most lanes a vector type has (Type::valid, the parser's Float(32, lanes)).
constexpr int kMaxLanes = 64;

// Structural equality (types and values; locations ignored).
bool equal(const Expr& a, const Expr& b);

// Halide integer arithmetic: Euclidean division and modulo (the remainder is never negative, so
// division rounds down for a positive divisor and up for a negative one: -7 / 2 == -4,
// -7 / -2 == 4), and both give 0 for a zero divisor. Shared by constant folding, the
// interpreter and (as emitted code) every backend.
int64_t halide_div(int64_t a, int64_t b);
int64_t halide_mod(int64_t a, int64_t b);
// Wraps `value` to the range of the integer type `t` (two's complement, as a cast does).
int64_t wrap_to_type(int64_t value, Type t);
// Whether `value` is representable in integer type `t` without wrapping.
bool fits_in_type(int64_t value, Type t);

}  // namespace t2s
