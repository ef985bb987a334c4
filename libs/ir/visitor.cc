#include "libs/ir/visitor.h"

#include <utility>
#include <vector>

#include "libs/ir/stmt_visitor.h"

namespace t2s {

void ExprVisitor::visit(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kIntImm:
      visit_int(e);
      break;
    case ExprKind::kFloatImm:
      visit_float(e);
      break;
    case ExprKind::kVar:
      visit_var(e);
      break;
    case ExprKind::kCall:
      visit_call(e);
      break;
    case ExprKind::kBinary:
      visit_binary(e);
      break;
    case ExprKind::kUnary:
      visit_unary(e);
      break;
    case ExprKind::kSelect:
      visit_select(e);
      break;
    case ExprKind::kCast:
      visit_cast(e);
      break;
  }
}

void ExprVisitor::visit_operands(const Expr& e) {
  for (const Expr& o : e->operands) visit(o);
}

Expr ExprMutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
    case ExprKind::kIntImm:
      return mutate_int(e);
    case ExprKind::kFloatImm:
      return mutate_float(e);
    case ExprKind::kVar:
      return mutate_var(e);
    case ExprKind::kCall:
      return mutate_call(e);
    case ExprKind::kBinary:
      return mutate_binary(e);
    case ExprKind::kUnary:
      return mutate_unary(e);
    case ExprKind::kSelect:
      return mutate_select(e);
    case ExprKind::kCast:
      return mutate_cast(e);
  }
  return e;
}

Expr ExprMutator::mutate_operands(const Expr& e) {
  std::vector<Expr> operands;
  bool changed = false;
  for (const Expr& o : e->operands) {
    operands.push_back(mutate(o));
    changed = changed || operands.back() != o;
  }
  if (!changed) return e;
  auto copy = std::make_shared<ExprNode>(*e);
  copy->operands = std::move(operands);
  return copy;
}

StmtList StmtMutator::mutate_stmts(const StmtList& stmts) {
  StmtList out;
  for (const StmtPtr& s : stmts)
    if (StmtPtr m = mutate_stmt(s)) out.push_back(m);
  return out;
}

StmtPtr StmtMutator::mutate_stmt(const StmtPtr& s) {
  return match_stmt(
      *s, [&](const For& n) { return mutate_for(n, s); },
      [&](const LetStmt& n) { return mutate_let(n, s); },
      [&](const IfThenElse& n) { return mutate_if(n, s); },
      [&](const Provide& n) { return mutate_provide(n, s); },
      [&](const Alloc& n) { return mutate_alloc(n, s); },
      [&](const WriteChannel& n) { return mutate_write_channel(n, s); },
      [&](const Realize& n) { return mutate_realize(n, s); },
      [&](const Shift& n) { return mutate_shift(n, s); },
      [&](const Push& n) { return mutate_push(n, s); });
}

StmtPtr StmtMutator::mutate_children(const StmtPtr& s) {
  // The operands first, then the nested lists, as a copy would be rewritten; `s` itself when
  // nothing changed (Halide's For::with: unchanged subtrees are shared).
  std::vector<Expr> exprs;
  bool changed = false;
  for (const Expr* e : std::as_const(*s).exprs()) {
    exprs.push_back(mutate(*e));
    changed = changed || exprs.back() != *e;
  }
  std::vector<StmtList> lists;
  for (const StmtList* child : std::as_const(*s).children()) {
    lists.push_back(mutate_stmts(*child));
    changed = changed || lists.back() != *child;
  }
  if (!changed) return s;
  auto copy = std::make_shared<Stmt>(*s);
  size_t i = 0;
  for (Expr* e : copy->exprs()) *e = std::move(exprs[i++]);
  i = 0;
  for (StmtList* child : copy->children()) *child = std::move(lists[i++]);
  return copy;
}

}  // namespace t2s
