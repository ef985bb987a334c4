#include "libs/ir/linear.h"

namespace t2s {

bool linear_form(const Expr& e, std::map<std::string, int64_t>* coeffs, int64_t* constant,
                 int64_t scale) {
  switch (e->kind) {
    case ExprKind::kIntImm:
      *constant += scale * e->int_value;
      return true;
    case ExprKind::kVar:
      (*coeffs)[e->name] += scale;
      return true;
    case ExprKind::kUnary:
      return e->unary_op == UnaryOp::kNeg && linear_form(e->operands[0], coeffs, constant, -scale);
    case ExprKind::kBinary: {
      const Expr& a = e->operands[0];
      const Expr& b = e->operands[1];
      if (e->binary_op == BinaryOp::kAdd || e->binary_op == BinaryOp::kSub)
        return linear_form(a, coeffs, constant, scale) &&
               linear_form(b, coeffs, constant, e->binary_op == BinaryOp::kAdd ? scale : -scale);
      if (e->binary_op != BinaryOp::kMul) return false;
      if (b->kind == ExprKind::kIntImm)
        return linear_form(a, coeffs, constant, scale * b->int_value);
      if (a->kind == ExprKind::kIntImm)
        return linear_form(b, coeffs, constant, scale * a->int_value);
      return false;
    }
    default:
      return false;
  }
}

bool simple_arg(const Expr& e, std::string* var, int64_t* offset) {
  std::map<std::string, int64_t> coeffs;
  int64_t constant = 0;
  if (!linear_form(e, &coeffs, &constant)) return false;
  var->clear();
  for (const auto& [v, c] : coeffs) {
    if (c == 0) continue;
    if (c != 1 || !var->empty()) return false;
    *var = v;
  }
  *offset = constant;
  return !var->empty();
}

}  // namespace t2s
