#include "libs/passes/common/scopes.h"

namespace t2s {

namespace {

void collect_conjuncts(const Expr& e, std::vector<Expr>* out) {
  if (e->kind == ExprKind::kBinary && e->binary_op == BinaryOp::kAnd) {
    collect_conjuncts(e->operands[0], out);
    collect_conjuncts(e->operands[1], out);
    return;
  }
  out->push_back(e);
}

}  // namespace

std::vector<Expr> conjuncts(const Expr& e) {
  std::vector<Expr> out;
  collect_conjuncts(e, &out);
  return out;
}

Expr conjunction(const std::vector<Expr>& terms) {
  Expr e = terms[0];
  for (size_t i = 1; i < terms.size(); ++i)
    e = make_binary(BinaryOp::kAnd, e, terms[i], Type::Bool(), terms[i]->loc);
  return e;
}

std::optional<std::pair<std::string, int64_t>> fixed_var(const Expr& e) {
  if (e->kind != ExprKind::kBinary || e->binary_op != BinaryOp::kEQ) return std::nullopt;
  const Expr& a = e->operands[0];
  const Expr& b = e->operands[1];
  if (a->kind == ExprKind::kVar && b->kind == ExprKind::kIntImm)
    return std::make_pair(a->name, b->int_value);
  if (a->kind == ExprKind::kIntImm && b->kind == ExprKind::kVar)
    return std::make_pair(b->name, a->int_value);
  return std::nullopt;
}

StmtPtr ScopedMutator::mutate_for(const For& f, const StmtPtr& s) {
  loops_.push_back(&f);
  StmtPtr out = mutate_children(s);
  loops_.pop_back();
  return out;
}

StmtPtr ScopedMutator::mutate_let(const LetStmt& l, const StmtPtr& s) {
  lets_.push_back(l.var);
  StmtPtr out = mutate_children(s);
  lets_.pop_back();
  return out;
}

StmtPtr ScopedMutator::mutate_if(const IfThenElse& i, const StmtPtr& s) {
  const Expr condition = mutate(i.condition);
  guards_.push_back({i.condition, false});
  StmtList then_body = mutate_stmts(i.then_body);
  guards_.back().negated = true;
  StmtList else_body = mutate_stmts(i.else_body);
  guards_.pop_back();
  if (then_body.empty() && else_body.empty()) return nullptr;
  if (condition == i.condition && then_body == i.then_body && else_body == i.else_body) return s;
  IfThenElse copy = i;
  copy.condition = condition;
  copy.then_body = std::move(then_body);
  copy.else_body = std::move(else_body);
  return with_node(*s, copy);
}

}  // namespace t2s
