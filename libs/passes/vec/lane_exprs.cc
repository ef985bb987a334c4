// Expression builders and the folder of t2s-vec's lane-by-lane code.
#include "libs/ir/typing.h"
#include "libs/ir/visitor.h"
#include "libs/passes/vec/vec_internal.h"

namespace t2s::vec_internal {

namespace {

bool is_int_literal(const Expr& e) { return e && e->kind == ExprKind::kIntImm; }

// Folds what substituting a lane's loop values makes constant: integer operations on literals
// (Halide semantics, via resolve_types), selects, && and || with a literal condition, so that
// `select(0 == 0, init, C(-1))` leaves `init` and no read of lane -1.
class Folder : public ExprMutator {
 protected:
  Expr mutate_binary(const Expr& e) override {
    Expr a = mutate(e->operands[0]);
    const bool logical = e->binary_op == BinaryOp::kAnd || e->binary_op == BinaryOp::kOr;
    if (logical && is_int_literal(a) && a->type.lanes == 1) {
      const bool and_op = e->binary_op == BinaryOp::kAnd;
      if ((a->int_value != 0) == and_op) return mutate(e->operands[1]);
      return a;  // false && x, true || x: x is not evaluated
    }
    Expr b = mutate(e->operands[1]);
    if (is_int_literal(a) && is_int_literal(b) && a->type.lanes == 1 && b->type.lanes == 1) {
      return fold_literals(make_binary(e->binary_op, a, b, Type(), e->loc));
    }
    if ((e->binary_op == BinaryOp::kAdd || e->binary_op == BinaryOp::kSub) && is_int_literal(b) &&
        b->int_value == 0 && a->type == e->type)
      return a;  // k * 4 + 0 for lane 0
    if (e->binary_op == BinaryOp::kAdd && is_int_literal(a) && a->int_value == 0 &&
        b->type == e->type)
      return b;  // 0 + 4 * ko for lane 0
    if (a == e->operands[0] && b == e->operands[1]) return e;
    return make_binary(e->binary_op, a, b, e->type, e->loc);
  }
  Expr mutate_unary(const Expr& e) override {
    Expr a = mutate(e->operands[0]);
    if (is_int_literal(a) && a->type.lanes == 1) {
      return fold_literals(make_unary(e->unary_op, a, Type(), e->loc));
    }
    return a == e->operands[0] ? e : make_unary(e->unary_op, a, e->type, e->loc);
  }
  Expr mutate_select(const Expr& e) override {
    Expr c = mutate(e->operands[0]);
    if (is_int_literal(c) && c->type.lanes == 1 && e->operands.size() == 3)
      return mutate(e->operands[c->int_value != 0 ? 1 : 2]);
    std::vector<Expr> ops{c};
    for (size_t i = 1; i < e->operands.size(); ++i) ops.push_back(mutate(e->operands[i]));
    return make_select(ops[0], ops[1], ops.size() > 2 ? ops[2] : nullptr, e->type, e->loc);
  }
};

}  // namespace

Expr lit32(int64_t v) { return make_int(Type::Int(32), v); }

Expr typed_zero(Type t) {
  if (t.is_float()) return make_float(t, 0.0);
  return make_int(t, 0);
}

Expr fold(const Expr& e) {
  Folder f;
  return f.mutate(e);
}

Expr broadcast(const Expr& x, int lanes) {
  return make_call("broadcast", CallKind::kIntrinsic, x->type.with_lanes(lanes), {x, lit32(lanes)},
                   x->loc);
}

Expr broadcast_to(const Expr& x, Type t) {
  Expr cur = x;
  for (int d : t.shape())
    cur = make_call("broadcast", CallKind::kIntrinsic, cur->type.with_outer(d), {cur, lit32(d)},
                    x->loc);
  return cur;
}

Expr reshaped(const Expr& v, Type t) {
  if (v->type == t) return v;
  std::vector<Expr> args{v};
  for (int d : t.shape()) args.push_back(lit32(d));
  return make_call("reshape", CallKind::kIntrinsic, t, args, v->loc);
}

Expr lane_of(const Expr& v, int lane) {
  return make_call("slice", CallKind::kIntrinsic, v->type.element_of(), {v, lit32(lane), lit32(1)},
                   v->loc);
}

}  // namespace t2s::vec_internal
