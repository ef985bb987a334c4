#include "libs/ir/expr_printer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "libs/runtime/array.h"

namespace t2s {

namespace {

// Binding strength, higher binds tighter (C's order).
enum Precedence {
  kOr = 1,
  kAnd,
  kEquality,
  kRelational,
  kAdditive,
  kMultiplicative,
  kUnary,
  kPrimary
};

int precedence_of(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr:
      return kOr;
    case BinaryOp::kAnd:
      return kAnd;
    case BinaryOp::kEQ:
    case BinaryOp::kNE:
      return kEquality;
    case BinaryOp::kLT:
    case BinaryOp::kLE:
    case BinaryOp::kGT:
    case BinaryOp::kGE:
      return kRelational;
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
      return kAdditive;
    case BinaryOp::kMul:
    case BinaryOp::kDiv:
    case BinaryOp::kMod:
      return kMultiplicative;
  }
  return kPrimary;
}

int precedence_of(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kBinary:
      return precedence_of(e->binary_op);
    case ExprKind::kUnary:
      return kUnary;
    case ExprKind::kIntImm:
      // A negative literal prints with a leading '-', which parses as a unary minus.
      return e->int_value < 0 && !e->type.is_bool() ? kUnary : kPrimary;
    case ExprKind::kFloatImm:
      return std::signbit(e->float_value) ? kUnary : kPrimary;
    default:
      return kPrimary;
  }
}

class Printer {
 public:
  std::string str() const { return out_.str(); }

  void print(const Expr& e, int context_precedence) {
    bool parens = precedence_of(e) < context_precedence;
    if (parens) out_ << '(';
    print_bare(e);
    if (parens) out_ << ')';
  }

 private:
  void print_args(const std::vector<Expr>& args) {
    out_ << '(';
    for (size_t i = 0; i < args.size(); ++i) {
      if (i) out_ << ", ";
      print(args[i], kOr);
    }
    out_ << ')';
  }

  void print_bare(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kIntImm:
        out_ << print_int_literal(e->int_value, e->type);
        break;
      case ExprKind::kFloatImm:
        out_ << print_float_literal(e->float_value, e->type);
        break;
      case ExprKind::kVar:
        out_ << e->name;
        break;
      case ExprKind::kCall:
        out_ << e->name;
        print_args(e->operands);
        break;
      case ExprKind::kSelect:
        out_ << "select";
        print_args(e->operands);
        break;
      case ExprKind::kCast:
        out_ << "cast(" << e->type.spec_name() << ", ";
        print(e->operands[0], kOr);
        out_ << ')';
        break;
      case ExprKind::kUnary: {
        out_ << (e->unary_op == UnaryOp::kNeg ? "-" : "!");
        const Expr& a = e->operands[0];
        // "- -x" would lex as "--x" in C; keep operands of unary ops primary when they would
        // start with a sign themselves.
        print(a, precedence_of(a) == kUnary ? kPrimary : kUnary);
        break;
      }
      case ExprKind::kBinary: {
        int p = precedence_of(e->binary_op);
        print(e->operands[0], p);  // left associative: same precedence needs no parentheses
        out_ << ' ' << binary_op_spelling(e->binary_op) << ' ';
        print(e->operands[1], p + 1);
        break;
      }
    }
  }

  std::ostringstream out_;
};

}  // namespace

std::string print_int_literal(int64_t value, Type t) {
  if (t.is_bool()) return value ? "true" : "false";
  std::string digits = std::to_string(value);
  if (t.is_uint() && t.bits == 64) digits = std::to_string(static_cast<uint64_t>(value));
  if (t == Type::Int(32)) return digits;
  if (t == Type::Int(64)) return digits + "l";
  if (t == Type::UInt(32)) return digits + "u";
  if (t == Type::UInt(64)) return digits + "ul";
  return "cast(" + t.spec_name() + ", " + digits + ")";
}

std::string print_float_literal(double value, Type t) {
  if (std::isnan(value) || std::isinf(value)) {
    // Not expressible as a literal; these only arise from hand-written IR (the parser refuses
    // such literals), so spell them as the division Halide would fold them from.
    std::string one = t.bits == 32 ? "1.0f" : "1.0";
    std::string zero = t.bits == 32 ? "0.0f" : "0.0";
    if (std::isnan(value)) return "(" + zero + " / " + zero + ")";
    return std::string(value < 0 ? "(-" : "(") + one + " / " + zero + ")";
  }
  // The shortest decimal that reads back to the same value at the literal's precision, spelled
  // as the runtime of generated programs prints elements (one rule for both).
  std::string text = t2s_rt::format_float(value, t.bits == 32);
  if (t.bits == 32) text += "f";
  return text;
}

std::string print_expr(const Expr& e) {
  Printer p;
  p.print(e, kOr);
  return p.str();
}

}  // namespace t2s
