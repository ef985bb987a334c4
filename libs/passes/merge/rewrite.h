// Internal to libs/passes/merge: the expression rewriters the lowering uses to inline Funcs and
// isolate values. Not part of the library's interface.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "libs/ir/program.h"
#include "libs/ir/visitor.h"

namespace t2s::merge_internal {

// Replaces every call for which `replace` returns an expression with that expression (calls
// are rewritten bottom-up: their operands first).
class CallInliner : public ExprMutator {
 public:
  explicit CallInliner(const std::function<Expr(const Expr&)>& replace) : replace_(replace) {}

 protected:
  Expr mutate_call(const Expr& e) override;

 private:
  std::function<Expr(const Expr&)> replace_;
};

// Replaces one node (by identity, not by value) with another: the isolated occurrence, which
// may be any expression, not only a call.
class NodeReplacer : public ExprMutator {
 public:
  NodeReplacer(Expr target, Expr with) : target_(std::move(target)), with_(std::move(with)) {}
  Expr mutate(const Expr& e) override;

 private:
  Expr target_, with_;
};

// The definition of `f` with `args` in place of its arguments.
Expr substitute_args(const Func& f, const std::vector<Expr>& args);
// A Var expression per name.
std::vector<Expr> var_exprs(const std::vector<std::string>& names);

}  // namespace t2s::merge_internal
