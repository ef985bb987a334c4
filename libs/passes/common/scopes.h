// What surrounds a statement of a kernel's body, for the passes that rewrite one read or store
// (remove's keeping, buffer's double buffer): the conjuncts of a condition, the loop a conjunct
// fixes, and a StmtMutator that keeps the loops, lets and conditions around what it visits.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "libs/ir/visitor.h"

namespace t2s {

// The conjuncts of `e` (`a && b && c` is a, b, c).
std::vector<Expr> conjuncts(const Expr& e);

// `a && b && ...` of `terms` (at least one).
Expr conjunction(const std::vector<Expr>& terms);

// The variable and constant of `e` when it is `v == c` or `c == v` for an integer constant c.
std::optional<std::pair<std::string, int64_t>> fixed_var(const Expr& e);

// A condition around a statement: `negated` when the statement is in the else branch.
struct Guard {
  Expr condition;
  bool negated = false;
};

// A StmtMutator that knows, at each statement, the loops, lets and conditions around it
// (outermost first). Subclasses overriding these hooks call the base's.
class ScopedMutator : public StmtMutator {
 protected:
  StmtPtr mutate_for(const For& f, const StmtPtr& s) override;
  StmtPtr mutate_let(const LetStmt& l, const StmtPtr& s) override;
  StmtPtr mutate_if(const IfThenElse& i, const StmtPtr& s) override;

  std::vector<const For*> loops_;
  std::vector<std::string> lets_;
  std::vector<Guard> guards_;
};

}  // namespace t2s
