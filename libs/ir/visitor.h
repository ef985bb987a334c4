// Visitor and mutator bases over expressions and statements, in the style of Halide's
// IRVisitor / IRMutator: override the node kinds a pass cares about, call the base for the rest.
#pragma once

#include <map>
#include <string>

#include "libs/ir/expr.h"
#include "libs/ir/program.h"

namespace t2s {

class ExprVisitor {
 public:
  virtual ~ExprVisitor() = default;
  // Dispatches on the kind; the default for every kind visits the operands.
  virtual void visit(const Expr& e);

 protected:
  virtual void visit_int(const Expr& e) {}
  virtual void visit_float(const Expr& e) {}
  virtual void visit_var(const Expr& e) {}
  virtual void visit_call(const Expr& e) { visit_operands(e); }
  virtual void visit_binary(const Expr& e) { visit_operands(e); }
  virtual void visit_unary(const Expr& e) { visit_operands(e); }
  virtual void visit_select(const Expr& e) { visit_operands(e); }
  virtual void visit_cast(const Expr& e) { visit_operands(e); }
  void visit_operands(const Expr& e);
};

class ExprMutator {
 public:
  virtual ~ExprMutator() = default;
  // Returns the rewritten expression; unchanged subtrees are shared, not copied.
  virtual Expr mutate(const Expr& e);

 protected:
  virtual Expr mutate_int(const Expr& e) { return e; }
  virtual Expr mutate_float(const Expr& e) { return e; }
  virtual Expr mutate_var(const Expr& e) { return e; }
  virtual Expr mutate_call(const Expr& e) { return mutate_operands(e); }
  virtual Expr mutate_binary(const Expr& e) { return mutate_operands(e); }
  virtual Expr mutate_unary(const Expr& e) { return mutate_operands(e); }
  virtual Expr mutate_select(const Expr& e) { return mutate_operands(e); }
  virtual Expr mutate_cast(const Expr& e) { return mutate_operands(e); }
  // A copy of `e` with mutated operands (or `e` itself when none changed).
  Expr mutate_operands(const Expr& e);
};

// Applies an ExprMutator to every expression of a statement tree, and lets subclasses rewrite
// statements: one hook per statement kind (its node and the statement holding it), each
// defaulting to mutate_children. Statements are rebuilt only where something changed; a hook
// that returns null drops the statement from its list. mutate_stmt's dispatch is a match_stmt
// (stmt_visitor.h), so a new statement kind does not compile until it has a hook here.
class StmtMutator : public ExprMutator {
 public:
  virtual StmtList mutate_stmts(const StmtList& stmts);
  // Calls the hook of s's kind.
  virtual StmtPtr mutate_stmt(const StmtPtr& s);

 protected:
  virtual StmtPtr mutate_for(const For&, const StmtPtr& s) { return mutate_children(s); }
  virtual StmtPtr mutate_let(const LetStmt&, const StmtPtr& s) { return mutate_children(s); }
  virtual StmtPtr mutate_if(const IfThenElse&, const StmtPtr& s) { return mutate_children(s); }
  virtual StmtPtr mutate_provide(const Provide&, const StmtPtr& s) { return mutate_children(s); }
  virtual StmtPtr mutate_alloc(const Alloc&, const StmtPtr& s) { return mutate_children(s); }
  virtual StmtPtr mutate_write_channel(const WriteChannel&, const StmtPtr& s) {
    return mutate_children(s);
  }
  virtual StmtPtr mutate_realize(const Realize&, const StmtPtr& s) { return mutate_children(s); }
  virtual StmtPtr mutate_shift(const Shift&, const StmtPtr& s) { return mutate_children(s); }
  virtual StmtPtr mutate_push(const Push&, const StmtPtr& s) { return mutate_children(s); }
  // `s` with its operands (through mutate) and its nested lists (through mutate_stmts)
  // rewritten, as a copy; `s` itself when nothing changed (Halide's For::with).
  StmtPtr mutate_children(const StmtPtr& s);
};

// Replaces Vars by name, in expressions and (mutate_stmts) statement trees. Binders (loop and
// let variables) are not renamed: substitute only names that nothing rebinds.
class VarSubstituter : public StmtMutator {
 public:
  explicit VarSubstituter(const std::map<std::string, Expr>& with) : with_(with) {}

 protected:
  Expr mutate_var(const Expr& e) override {
    auto it = with_.find(e->name);
    return it == with_.end() ? e : it->second;
  }

 private:
  const std::map<std::string, Expr>& with_;
};

// Calls `f` on every expression node of `e`, parents before children.
template <typename F>
void for_each_expr(const Expr& e, F&& f) {
  if (!e) return;
  f(e);
  for (const Expr& o : e->operands) for_each_expr(o, f);
}

// Calls `f` on every statement of `list` and of the lists nested in them, parents before
// children, in program order.
template <typename F>
void for_each_stmt(const StmtList& list, F&& f) {
  for (const StmtPtr& s : list) {
    if (!s) continue;
    f(*s);
    for (const StmtList* child : s->children()) for_each_stmt(*child, f);
  }
}

// Calls `f` on every expression node of the statements of `list`, statement by statement in
// program order (each statement's own operands in field order, then its nested statements).
template <typename F>
void for_each_stmt_expr(const StmtList& list, F&& f) {
  for_each_stmt(list, [&](const Stmt& s) {
    for (const Expr* e : s.exprs()) for_each_expr(*e, f);
  });
}

}  // namespace t2s
