// Aff and Cond: typed quasi-affine expressions and conditions over named dims, built by the
// passes and read from t2s IR expressions (poly.h).
#include "libs/poly/poly_internal.h"

namespace t2s::poly {

namespace {

std::shared_ptr<Aff::Node> aff_node(Aff::Node::Kind kind, std::vector<Aff> ops = {},
                                    int64_t value = 0) {
  auto n = std::make_shared<Aff::Node>();
  n->kind = kind;
  n->ops = std::move(ops);
  n->value = value;
  return n;
}

std::shared_ptr<Cond::Node> cond_node(Cond::Node::Kind kind, std::vector<Aff> affs,
                                      std::vector<Cond> ops = {}) {
  auto n = std::make_shared<Cond::Node>();
  n->kind = kind;
  n->affs = std::move(affs);
  n->ops = std::move(ops);
  return n;
}

}  // namespace

Aff::Aff(int64_t constant) : node_(aff_node(Node::kConst, {}, constant)) {}

Aff Aff::dim(const std::string& name) {
  auto n = aff_node(Node::kDim);
  n->name = name;
  return Aff(n);
}

Aff Aff::linear(const std::vector<int64_t>& coeff, const std::vector<std::string>& dims,
                int64_t constant) {
  if (coeff.size() != dims.size()) throw InternalError("poly: linear form of the wrong size");
  auto n = aff_node(Node::kLinear, {}, constant);
  n->coeff = coeff;
  n->dims = dims;
  return Aff(n);
}

Aff operator+(const Aff& a, const Aff& b) { return Aff(aff_node(Aff::Node::kAdd, {a, b})); }
Aff operator-(const Aff& a, const Aff& b) { return Aff(aff_node(Aff::Node::kSub, {a, b})); }
Aff operator-(const Aff& a) { return Aff(aff_node(Aff::Node::kNeg, {a})); }
Aff operator*(const Aff& a, int64_t c) { return Aff(aff_node(Aff::Node::kMul, {a, Aff(c)})); }

Aff Aff::floor_div(int64_t d) const {
  if (d <= 0) throw InternalError("poly: floor division by a non-positive constant");
  return Aff(aff_node(Node::kFloorDiv, {*this}, d));
}

Aff Aff::mod(int64_t d) const {
  if (d <= 0) throw InternalError("poly: modulo by a non-positive constant");
  return Aff(aff_node(Node::kMod, {*this}, d));
}

std::optional<Aff> Aff::from_expr(const Expr& e, const VarDims& vars) {
  if (!e || !e->type.is_integer() || e->type.lanes != 1) return std::nullopt;
  switch (e->kind) {
    case ExprKind::kIntImm:
      return Aff(e->int_value);
    case ExprKind::kVar: {
      auto it = vars.find(e->name);
      if (it == vars.end()) return std::nullopt;
      return Aff::dim(it->second);
    }
    case ExprKind::kCast:
      // Only int32 <-> int32-compatible index arithmetic is affine; a narrowing cast wraps.
      if (e->type != Type::Int(32) && e->type != Type::Int(64)) return std::nullopt;
      return from_expr(e->operands[0], vars);
    case ExprKind::kUnary:
      if (e->unary_op != UnaryOp::kNeg) return std::nullopt;
      if (auto a = from_expr(e->operands[0], vars)) return -*a;
      return std::nullopt;
    case ExprKind::kBinary: {
      const Expr& l = e->operands[0];
      const Expr& r = e->operands[1];
      auto a = from_expr(l, vars);
      auto b = from_expr(r, vars);
      if (!a || !b) return std::nullopt;
      switch (e->binary_op) {
        case BinaryOp::kAdd:
          return *a + *b;
        case BinaryOp::kSub:
          return *a - *b;
        case BinaryOp::kMul:
          // Keeps the operands' order (the isl text reads as the spec does).
          if (l->kind != ExprKind::kIntImm && r->kind != ExprKind::kIntImm) return std::nullopt;
          return Aff(aff_node(Node::kMul, {*a, *b}));
        case BinaryOp::kDiv:
          if (r->kind != ExprKind::kIntImm || r->int_value <= 0) return std::nullopt;
          return a->floor_div(r->int_value);
        case BinaryOp::kMod:
          if (r->kind != ExprKind::kIntImm || r->int_value <= 0) return std::nullopt;
          return a->mod(r->int_value);
        default:
          return std::nullopt;
      }
    }
    default:
      return std::nullopt;
  }
}

Cond Cond::always(bool value) {
  auto n = cond_node(Node::kBool, {});
  n->value = value;
  return Cond(n);
}

Cond Cond::range(const Aff& lo, const Aff& x, const Aff& hi) {
  return Cond(cond_node(Node::kRange, {lo, x, hi}));
}

Cond Cond::any_of(const std::vector<Cond>& conds) {
  if (conds.empty()) return always(false);
  Cond out = conds[0];
  for (size_t i = 1; i < conds.size(); ++i) out = out || conds[i];
  return out;
}

Cond operator==(const Aff& a, const Aff& b) { return Cond(cond_node(Cond::Node::kEQ, {a, b})); }
Cond operator!=(const Aff& a, const Aff& b) { return Cond(cond_node(Cond::Node::kNE, {a, b})); }
Cond operator<(const Aff& a, const Aff& b) { return Cond(cond_node(Cond::Node::kLT, {a, b})); }
Cond operator<=(const Aff& a, const Aff& b) { return Cond(cond_node(Cond::Node::kLE, {a, b})); }
Cond operator>(const Aff& a, const Aff& b) { return Cond(cond_node(Cond::Node::kGT, {a, b})); }
Cond operator>=(const Aff& a, const Aff& b) { return Cond(cond_node(Cond::Node::kGE, {a, b})); }
Cond operator&&(const Cond& a, const Cond& b) {
  return Cond(cond_node(Cond::Node::kAnd, {}, {a, b}));
}
Cond operator||(const Cond& a, const Cond& b) {
  return Cond(cond_node(Cond::Node::kOr, {}, {a, b}));
}
Cond operator!(const Cond& a) { return Cond(cond_node(Cond::Node::kNot, {}, {a})); }

std::optional<Cond> Cond::from_expr(const Expr& e, const VarDims& vars) {
  if (!e || !e->type.is_bool() || e->type.lanes != 1) return std::nullopt;
  if (e->kind == ExprKind::kIntImm) return always(e->int_value != 0);
  if (e->kind == ExprKind::kUnary && e->unary_op == UnaryOp::kNot) {
    if (auto a = from_expr(e->operands[0], vars)) return !*a;
    return std::nullopt;
  }
  if (e->kind != ExprKind::kBinary) return std::nullopt;
  if (e->binary_op == BinaryOp::kAnd || e->binary_op == BinaryOp::kOr) {
    auto a = from_expr(e->operands[0], vars);
    auto b = from_expr(e->operands[1], vars);
    if (!a || !b) return std::nullopt;
    return e->binary_op == BinaryOp::kAnd ? *a && *b : *a || *b;
  }
  if (!is_comparison(e->binary_op)) return std::nullopt;
  auto a = Aff::from_expr(e->operands[0], vars);
  auto b = Aff::from_expr(e->operands[1], vars);
  if (!a || !b) return std::nullopt;
  switch (e->binary_op) {
    case BinaryOp::kEQ:
      return *a == *b;
    case BinaryOp::kNE:
      return !(*a == *b);
    case BinaryOp::kLT:
      return *a < *b;
    case BinaryOp::kLE:
      return *a <= *b;
    case BinaryOp::kGT:
      return *a > *b;
    case BinaryOp::kGE:
      return *a >= *b;
    default:
      return std::nullopt;
  }
}

}  // namespace t2s::poly
