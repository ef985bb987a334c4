// Copy-on-write editing of statements, for tests that build a variant of a program they read
// (a golden IR, a JSON literal): statements are immutable once built (libs/ir/program.h), so
// `edit(slot)` puts in `slot` a copy of its statement that only `slot` holds, and returns that
// copy to change. Statements shared with other lists or programs never change.
#pragma once

#include <memory>
#include <utility>

#include "libs/ir/program.h"

namespace t2s::testing {

inline Stmt& edit(StmtPtr& slot) {
  auto copy = std::make_shared<Stmt>(*slot);
  Stmt& s = *copy;
  slot = std::move(copy);
  return s;
}

// The node of kind T of the statement in `slot`, made editable as `edit` does (null when the
// statement is of another kind).
template <typename T>
T* edit_as(StmtPtr& slot) {
  return edit(slot).as<T>();
}

}  // namespace t2s::testing
