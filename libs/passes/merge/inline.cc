// Halide's inlining in the merge pass: calls of inlined Funcs replaced by their definitions,
// with a call that a statement always evaluates more than once bound once with a `let`.
#include <functional>
#include <map>
#include <set>

#include "libs/ir/expr_printer.h"
#include "libs/passes/merge/plan.h"
#include "libs/passes/merge/rewrite.h"

namespace t2s::merge_internal {

// One inlined call `F(args)`: its definition with the args substituted, in which inner
// inlined calls are placeholders (Vars named `\x01<index>`).
namespace {

struct InlinedCall {
  std::string func;
  Expr body;
  int uses = 0;
  bool always = false;                         // evaluated whenever the statement is
  std::vector<std::pair<size_t, bool>> inner;  // inlined calls in body: index, unconditional
  bool has_effect = false;                     // reads a channel
};

}  // namespace

// Terminates: check_cycles has refused every cycle that is not inside one loop nest, and
// inlined Funcs are in none. Linear in the size of the definitions without repetition: each
// distinct inlined call is expanded once.
Inlined inline_calls(const Program& p, const Plan& plan, const Expr& e,
                     const std::function<bool(const std::string&)>& from_channel) {
  if (!e) return {};
  std::vector<InlinedCall> calls;  // post-order: a call after the calls its body makes
  std::map<std::string, size_t> index;
  std::vector<std::pair<size_t, bool>> root;
  std::function<Expr(const Expr&, bool, std::vector<std::pair<size_t, bool>>&)> expand =
      [&](const Expr& x, bool always, std::vector<std::pair<size_t, bool>>& uses) -> Expr {
    std::vector<Expr> ops;
    bool changed = false;
    for (size_t i = 0; i < x->operands.size(); ++i) {
      bool lazy = (x->kind == ExprKind::kSelect && i > 0) ||
                  (x->kind == ExprKind::kBinary &&
                   (x->binary_op == BinaryOp::kAnd || x->binary_op == BinaryOp::kOr) && i > 0);
      bool inlined_call = x->kind == ExprKind::kCall && x->call_kind == CallKind::kFunc &&
                          plan.inlined.count(x->name);
      // An argument of an inlined call lands wherever the body uses the parameter.
      ops.push_back(expand(x->operands[i], always && !lazy && !inlined_call, uses));
      changed |= ops.back() != x->operands[i];
    }
    Expr y = x;
    if (changed) {
      auto n = std::make_shared<ExprNode>(*x);
      n->operands = ops;
      y = n;
    }
    if (y->kind != ExprKind::kCall || y->call_kind != CallKind::kFunc ||
        !plan.inlined.count(y->name))
      return y;
    std::string key = print_expr(y);
    auto it = index.find(key);
    size_t k;
    if (it != index.end()) {
      k = it->second;
    } else {
      InlinedCall c;
      c.func = y->name;
      std::vector<std::pair<size_t, bool>> inner;
      Expr body = expand(substitute_args(*p.find_func(y->name), y->operands), true, inner);
      c.body = body;
      c.inner = inner;
      for (const std::string& f : called_funcs(body)) c.has_effect |= from_channel(f);
      for (const auto& [i, u] : inner) c.has_effect |= calls[i].has_effect;
      k = calls.size();
      calls.push_back(c);
      index[key] = k;
    }
    uses.push_back({k, always});
    return make_var("\x01" + std::to_string(k), p.find_func(y->name)->type, y->loc);
  };
  Expr value = expand(e, true, root);
  for (const auto& [k, always] : root) {
    ++calls[k].uses;
    calls[k].always |= always;
  }
  for (const InlinedCall& c : calls)
    for (const auto& [k, u] : c.inner) ++calls[k].uses;
  for (size_t k = calls.size(); k-- > 0;)
    if (calls[k].always)
      for (const auto& [i, u] : calls[k].inner) calls[i].always |= u;
  // Names of let-bound values: `F_inl`, unique among the program's names and the other lets.
  std::set<std::string> taken(p.vars.begin(), p.vars.end());
  for (const Func& f : p.funcs) taken.insert(f.name);
  for (const Input& in : p.inputs) taken.insert(in.name);
  for (const Channel& c : p.channels) taken.insert(c.name);
  Inlined result;
  std::map<std::string, Expr> resolved;  // placeholder -> let var or expanded body
  for (size_t k = 0; k < calls.size(); ++k) {
    const InlinedCall& c = calls[k];
    VarSubstituter resolve(resolved);
    Expr body = resolve.mutate(c.body);
    std::string placeholder = "\x01" + std::to_string(k);
    if (c.always && c.uses > 1 && !c.has_effect) {
      std::string name = c.func + "_inl";
      for (int n = 1; taken.count(name); ++n) name = c.func + "_inl_" + std::to_string(n);
      taken.insert(name);
      result.lets.push_back({name, body});
      resolved[placeholder] = make_var(name, body->type, {});
    } else {
      resolved[placeholder] = body;
    }
  }
  VarSubstituter resolve(resolved);
  result.value = resolve.mutate(value);
  return result;
}

}  // namespace t2s::merge_internal
