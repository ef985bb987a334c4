// loop_walk.h: walks over the loops of a statement tree, for the code that looks at loops only
// (the profiler's PE variables, the performance model's). Its own target, //libs/ir:loop_walk,
// so that adding it did not change what every user of //libs/ir compiles; it may join
// stmt_visitor.h with the next change to //libs/ir's headers.
#pragma once

#include "libs/ir/stmt_visitor.h"

namespace t2s {

// Calls `f(loop, stmt)` on every loop of `list` and of the lists nested in it, outermost first
// (a StmtVisitor with a hook for loops only).
template <typename F>
void for_each_loop(const StmtList& list, F&& f) {
  class LoopVisitor : public StmtVisitor {
   public:
    explicit LoopVisitor(F& f) : f_(f) {}

   protected:
    void visit_for(const For& loop, const Stmt& s) override {
      f_(loop, s);
      visit_stmts(loop.body);
    }

   private:
    F& f_;
  };
  LoopVisitor(f).visit_stmts(list);
}

// Whether `list` holds a serial loop at any depth.
inline bool contains_serial_loop(const StmtList& list) {
  bool found = false;
  for_each_loop(list, [&](const For& f, const Stmt&) {
    if (f.loop_kind == LoopKind::kSerial) found = true;
  });
  return found;
}

}  // namespace t2s
