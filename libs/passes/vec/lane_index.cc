// Index vectors of t2s-vec: the lanes' values of a vectorized loop (a ramp, or nested ramps and
// broadcasts for a tensor), and arithmetic on them that keeps an index a ramp, so that the
// backends load and store contiguous vectors.
#include "libs/passes/vec/vec_internal.h"

namespace t2s::vec_internal {
namespace {

bool is_call_of(const Expr& e, const char* name) {
  return e->kind == ExprKind::kCall && e->call_kind == CallKind::kIntrinsic && e->name == name;
}

// The same folding on nested ramps and broadcasts of one int32 type (a tensor or the vector
// inside one): broadcast(x, n) + ramp(b, s, n) is ramp(x + b, s, n), ramp(b, s, n) *
// broadcast(x, n) is ramp(b * x, s * x, n), ..., level by level, so the rows of a tensor
// index stay ramps. Returns nullptr at the top level (`top`) when no rule applies.
Expr nested_arithmetic(BinaryOp op, const Expr& a, const Expr& b, bool top) {
  const Type t = a->type;
  if (t.element_of() != Type::Int(32) || b->type != t) return nullptr;
  if (t.lanes == 1) return fold(make_binary(op, a, b, t, a->loc));
  const bool ra = is_call_of(a, "ramp"), rb = is_call_of(b, "ramp");
  const bool ba = is_call_of(a, "broadcast"), bb = is_call_of(b, "broadcast");
  auto inner = [&](BinaryOp o, const Expr& x, const Expr& y) {
    Expr r = nested_arithmetic(o, x, y, false);
    return r ? r : make_binary(o, x, y, x->type, a->loc);
  };
  auto nest = [&](const char* name, std::vector<Expr> ops) {
    ops.push_back(a->operands.back());  // the lane count
    return make_call(name, CallKind::kIntrinsic, t, ops, a->loc);
  };
  Expr r;
  if ((ra || ba) && (rb || bb) && (op == BinaryOp::kAdd || op == BinaryOp::kSub)) {
    const Expr base = inner(op, a->operands[0], b->operands[0]);
    if (ba && bb) {
      r = nest("broadcast", {base});
    } else if (ra && rb) {
      r = nest("ramp", {base, inner(op, a->operands[1], b->operands[1])});
    } else if (ra) {
      r = nest("ramp", {base, a->operands[1]});
    } else if (op == BinaryOp::kAdd) {
      r = nest("ramp", {base, b->operands[1]});
    }
  } else if (op == BinaryOp::kMul && ((ra && bb) || (ba && rb) || (ba && bb))) {
    const Expr& x = bb ? b : a;  // a broadcast
    const Expr& y = bb ? a : b;
    const Expr base = inner(op, y->operands[0], x->operands[0]);
    r = is_call_of(y, "ramp") ? nest("ramp", {base, inner(op, y->operands[1], x->operands[0])})
                              : nest("broadcast", {base});
  }
  if (r || top) return r;
  return nullptr;
}

}  // namespace

Expr lane_ramp(const Lanes& lanes, size_t i) {
  const int n = lanes.n;
  if (lanes.vars.size() > 1) {
    // Halide's nesting, innermost loop first: loop i's dimension is a ramp of the dimensions
    // inside it (broadcasts of its minimum), the dimensions outside broadcast that.
    Expr cur = lit32(lanes.mins[i]);
    for (size_t j = 0; j < lanes.vars.size(); ++j) {
      const int e = static_cast<int>(lanes.extents[j]);
      if (e == 1) continue;
      const Type t = cur->type.with_outer(e);
      if (j == i)
        cur = make_call(
            "ramp", CallKind::kIntrinsic, t,
            {cur, cur->type.lanes == 1 ? lit32(1) : broadcast_to(lit32(1), cur->type), lit32(e)});
      else
        cur = make_call("broadcast", CallKind::kIntrinsic, t, {cur, lit32(e)});
    }
    return cur->type.lanes == 1 ? broadcast_to(cur, lanes.typed(Type::Int(32))) : cur;
  }
  Expr r =
      make_call("ramp", CallKind::kIntrinsic, Type::Int(32, n), {lit32(0), lit32(1), lit32(n)});
  const Type t = Type::Int(32, n);
  if (lanes.strides[i] != 1)
    r = make_binary(BinaryOp::kDiv, r, broadcast(lit32(lanes.strides[i]), n), t);
  if (lanes.strides[i] * lanes.extents[i] != n)
    r = make_binary(BinaryOp::kMod, r, broadcast(lit32(lanes.extents[i]), n), t);
  if (lanes.vars.size() == 1)  // ramp(min, 1, n): the common case, spelled as Halide does
    return make_call("ramp", CallKind::kIntrinsic, t, {lit32(lanes.mins[0]), lit32(1), lit32(n)});
  if (lanes.mins[i] != 0) r = make_binary(BinaryOp::kAdd, r, broadcast(lit32(lanes.mins[i]), n), t);
  return r;
}

// broadcast(x) + ramp(b, s) is ramp(x + b, s) (also -, and * by a broadcast): an index stays
// a ramp, which the backends load and store as one contiguous vector when s is 1. int32
// arithmetic wraps alike both ways.
Expr ramp_arithmetic(const Lanes& lanes, BinaryOp op, const Expr& a, const Expr& b) {
  if (a->type.is_tensor()) return nested_arithmetic(op, a, b, true);
  if (a->type != Type::Int(32, lanes.n)) return nullptr;
  const bool ra = is_call_of(a, "ramp"), rb = is_call_of(b, "ramp");
  const bool ba = is_call_of(a, "broadcast"), bb = is_call_of(b, "broadcast");
  const Type i32 = Type::Int(32);
  auto ramp = [&](const Expr& base, const Expr& stride) {
    return make_call("ramp", CallKind::kIntrinsic, a->type,
                     {fold(base), fold(stride), lit32(lanes.n)}, a->loc);
  };
  if (op == BinaryOp::kAdd && ((ra && bb) || (ba && rb))) {
    const Expr& r = ra ? a : b;
    const Expr& x = ra ? b : a;
    return ramp(make_binary(BinaryOp::kAdd, x->operands[0], r->operands[0], i32), r->operands[1]);
  }
  if (op == BinaryOp::kSub && ra && bb)
    return ramp(make_binary(BinaryOp::kSub, a->operands[0], b->operands[0], i32), a->operands[1]);
  if (op == BinaryOp::kMul && ((ra && bb) || (ba && rb))) {
    const Expr& r = ra ? a : b;
    const Expr& x = ra ? b : a;
    return ramp(make_binary(BinaryOp::kMul, r->operands[0], x->operands[0], i32),
                make_binary(BinaryOp::kMul, r->operands[1], x->operands[0], i32));
  }
  return nullptr;
}

}  // namespace t2s::vec_internal
