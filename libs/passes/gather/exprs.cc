// t2s-gather: expression helpers and fresh names.
#include "libs/ir/visitor.h"
#include "libs/passes/gather/gather_internal.h"

namespace t2s {
namespace gather_internal {

Expr lit32(int64_t v) { return make_int(Type::Int(32), v); }

Loop as_loop(const For& f) {
  Loop l;
  l.var = f.var;
  l.kind = f.loop_kind;
  l.constant = f.min->kind == ExprKind::kIntImm && f.extent->kind == ExprKind::kIntImm;
  if (l.constant) {
    l.min = f.min->int_value;
    l.extent = f.extent->int_value;
  }
  return l;
}

Expr plus(const Expr& e, int64_t c) {
  if (c == 0) return e;
  if (e->kind == ExprKind::kIntImm) return lit32(e->int_value + c);
  if (c > 0) return make_binary(BinaryOp::kAdd, e, lit32(c), Type::Int(32));
  return make_binary(BinaryOp::kSub, e, lit32(-c), Type::Int(32));
}

Expr inline_lets(const Expr& e, const std::vector<std::pair<std::string, Expr>>& lets) {
  Expr out = e;
  for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
    std::map<std::string, Expr> with{{it->first, it->second}};
    VarSubstituter sub(with);
    out = sub.mutate(out);
  }
  return out;
}

std::optional<size_t> index_loop(const Expr& e, const std::vector<Loop>& loops) {
  for (size_t l = 0; l < loops.size(); ++l) {
    const Loop& loop = loops[l];
    if (e->kind == ExprKind::kVar && e->name == loop.var && loop.min == 0) return l;
    if (e->kind == ExprKind::kBinary && e->binary_op == BinaryOp::kSub &&
        e->operands[0]->kind == ExprKind::kVar && e->operands[0]->name == loop.var &&
        e->operands[1]->kind == ExprKind::kIntImm && e->operands[1]->int_value == loop.min)
      return l;
  }
  return std::nullopt;
}

bool mentions(const Expr& e, const std::string& var) {
  bool found = false;
  for_each_expr(
      e, [&](const Expr& x) { found = found || (x->kind == ExprKind::kVar && x->name == var); });
  return found;
}

bool is_read_of(const Expr& e, const std::string& channel) {
  return e && e->kind == ExprKind::kCall && e->call_kind == CallKind::kChannel &&
         !e->operands.empty() && e->operands[0]->name == channel;
}

bool is_lane_reads_of(const Expr& e, const std::string& channel) {
  if (!e || e->kind != ExprKind::kCall || e->call_kind != CallKind::kIntrinsic ||
      e->name != "concat" || e->operands.size() < 2)
    return false;
  for (const Expr& part : e->operands)
    if (!is_read_of(part, channel) || part->type.lanes != 1) return false;
  return true;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

}  // namespace gather_internal
}  // namespace t2s
