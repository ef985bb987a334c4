#include "libs/passes/merge/rewrite.h"

namespace t2s::merge_internal {

Expr CallInliner::mutate_call(const Expr& e) {
  Expr m = mutate_operands(e);
  if (Expr r = replace_(m)) return r;
  return m;
}

Expr NodeReplacer::mutate(const Expr& e) { return e == target_ ? with_ : ExprMutator::mutate(e); }

Expr substitute_args(const Func& f, const std::vector<Expr>& args) {
  std::map<std::string, Expr> with;
  for (size_t i = 0; i < f.args.size(); ++i) with[f.args[i]] = args[i];
  VarSubstituter s(with);
  return s.mutate(f.definition);
}

std::vector<Expr> var_exprs(const std::vector<std::string>& names) {
  std::vector<Expr> out;
  for (const std::string& n : names) out.push_back(make_var(n));
  return out;
}

}  // namespace t2s::merge_internal
