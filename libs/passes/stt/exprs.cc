// Expression builders for the trees the stt pass adds: each builds the typed tree that the
// expression reader (parser and resolve_types) makes of the canonical text, with the same
// literals, operand order and constant folding, so the printed IR does not depend on which one
// built it.
#include "libs/ir/typing.h"
#include "libs/passes/stt/stt_internal.h"

namespace t2s::stt_internal {

Expr int_lit(int64_t value) {
  // The reader takes a literal as int32 (no suffix) and refuses one that does not fit.
  if (!fits_in_type(value, Type::Int(32)))
    throw Diagnostic({},
                     "integer literal '" + std::to_string(value) +
                         "' does not fit in int32 (add an 'l' suffix for int64)",
                     "lex");
  return make_int(Type::Int(32), value);
}

Expr loop_var(const std::string& name) { return make_var(name); }

Expr binop(BinaryOp op, const Expr& a, const Expr& b) {
  if (a->type != b->type) throw InternalError("stt: operands of different types");
  if (a->kind == ExprKind::kIntImm && b->kind == ExprKind::kIntImm) {
    return fold_literals(make_binary(op, a, b, Type()));
  }
  return make_binary(op, a, b, is_comparison(op) ? Type::Bool(a->type.lanes) : a->type);
}

Expr all_of(const std::vector<Expr>& conds) {
  Expr all;
  for (const Expr& c : conds) all = all ? binop(BinaryOp::kAnd, all, c) : c;
  return all;
}

Expr sum_of(const std::vector<Expr>& terms) {
  Expr sum;
  for (const Expr& t : terms) sum = sum ? binop(BinaryOp::kAdd, sum, t) : t;
  return sum;
}

Expr linear_term(int64_t c, const std::string& name) {
  if (c == 1) return loop_var(name);
  if (c == -1) return make_unary(UnaryOp::kNeg, loop_var(name), Type::Int(32));
  return binop(BinaryOp::kMul, int_lit(c), loop_var(name));
}

Expr linear(const std::vector<int64_t>& coeff, const std::vector<std::string>& names,
            int64_t constant) {
  Expr s;
  for (size_t i = 0; i < coeff.size(); ++i) {
    const int64_t c = coeff[i];
    if (c == 0) continue;
    // A leading term carries its sign; later ones are added or subtracted.
    s = s ? binop(c < 0 ? BinaryOp::kSub : BinaryOp::kAdd, s, linear_term(c < 0 ? -c : c, names[i]))
          : linear_term(c, names[i]);
  }
  if (!s) return int_lit(constant);
  if (constant > 0) s = binop(BinaryOp::kAdd, s, int_lit(constant));
  if (constant < 0) s = binop(BinaryOp::kSub, s, int_lit(-constant));
  return s;
}

}  // namespace t2s::stt_internal
