// stmt_visitor.h: exhaustive dispatch on statement kinds (the visitor layer, with visitor.h).
//
// match_stmt(s, cases...) calls the one case that takes the node of `s`: a lambda per kind
// (const For&, const LetStmt&, const IfThenElse&, const Provide&, const Alloc&,
// const WriteChannel&, const Realize&, const Shift&, const Push&). A kind without a case is a
// compile error (std::visit over Stmt::Node), so adding a statement kind fails to compile until
// every dispatch handles it. Write every kind out: a generic `[](const auto&)` case would take
// the kinds it was not written for.
//
// StmtVisitor walks a statement tree with one hook per kind, each defaulting to visiting the
// nested statement lists; its dispatch is a match_stmt, so it too stops compiling when a kind
// has no hook.
#pragma once

#include <type_traits>
#include <utility>
#include <variant>

#include "libs/ir/program.h"

namespace t2s {

// A callable whose overloads are those of `Cases` (C++17's "overloaded" idiom).
template <typename... Cases>
struct StmtCases : Cases... {
  using Cases::operator()...;
};

template <typename... Cases>
decltype(auto) match_stmt(const Stmt& s, Cases&&... cases) {
  return std::visit(StmtCases<std::decay_t<Cases>...>{std::forward<Cases>(cases)...}, s.node);
}

class StmtVisitor {
 public:
  virtual ~StmtVisitor() = default;
  // Visits each statement of `list` (null entries are skipped), in order.
  void visit_stmts(const StmtList& list) {
    for (const StmtPtr& s : list)
      if (s) visit_stmt(*s);
  }
  // Calls the hook of s's kind.
  virtual void visit_stmt(const Stmt& s) {
    match_stmt(
        s, [&](const For& n) { visit_for(n, s); }, [&](const LetStmt& n) { visit_let(n, s); },
        [&](const IfThenElse& n) { visit_if(n, s); },
        [&](const Provide& n) { visit_provide(n, s); }, [&](const Alloc& n) { visit_alloc(n, s); },
        [&](const WriteChannel& n) { visit_write_channel(n, s); },
        [&](const Realize& n) { visit_realize(n, s); }, [&](const Shift& n) { visit_shift(n, s); },
        [&](const Push& n) { visit_push(n, s); });
  }

 protected:
  // One hook per kind: the node and the statement that holds it (its location).
  virtual void visit_for(const For& n, const Stmt&) { visit_stmts(n.body); }
  virtual void visit_let(const LetStmt& n, const Stmt&) { visit_stmts(n.body); }
  virtual void visit_if(const IfThenElse& n, const Stmt&) {
    visit_stmts(n.then_body);
    visit_stmts(n.else_body);
  }
  virtual void visit_provide(const Provide&, const Stmt&) {}
  virtual void visit_alloc(const Alloc&, const Stmt&) {}
  virtual void visit_write_channel(const WriteChannel&, const Stmt&) {}
  virtual void visit_realize(const Realize& n, const Stmt&) { visit_stmts(n.body); }
  virtual void visit_shift(const Shift&, const Stmt&) {}
  virtual void visit_push(const Push&, const Stmt&) {}
};

}  // namespace t2s
