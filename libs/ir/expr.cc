#include "libs/ir/expr.h"

#include <cstring>
#include <limits>

namespace t2s {

namespace {

// Halide's Node::make checks: a node is never built with a missing operand or name, or a
// literal of the wrong kind of type (a bug in the code building it: InternalError).
void require(bool ok, const char* what) {
  if (!ok) throw InternalError(std::string("building an expression: ") + what);
}

void require_operands(const std::vector<Expr>& operands, const char* what) {
  for (const Expr& o : operands) require(o != nullptr, what);
}

std::shared_ptr<ExprNode> node(ExprKind kind, Type type, SourceLoc loc) {
  auto n = std::make_shared<ExprNode>();
  n->kind = kind;
  n->type = type;
  n->loc = std::move(loc);
  return n;
}
}  // namespace

Expr make_int(Type type, int64_t value, SourceLoc loc) {
  require(!type.is_float(), "an integer literal of a float type");
  auto n = node(ExprKind::kIntImm, type, std::move(loc));
  n->int_value = value;
  return n;
}

Expr make_float(Type type, double value, SourceLoc loc) {
  require(type.is_float(), "a float literal of a type that is not float");
  auto n = node(ExprKind::kFloatImm, type, std::move(loc));
  n->float_value = value;
  return n;
}

Expr make_bool(bool value, SourceLoc loc) { return make_int(Type::Bool(), value ? 1 : 0, loc); }

Expr make_var(const std::string& name, SourceLoc loc) {
  require(!name.empty(), "a variable without a name");
  auto n = node(ExprKind::kVar, Type::Int(32), std::move(loc));
  n->name = name;
  return n;
}

Expr make_var(const std::string& name, Type type, SourceLoc loc) {
  require(!name.empty(), "a variable without a name");
  auto n = node(ExprKind::kVar, type, std::move(loc));
  n->name = name;
  return n;
}

Expr make_call(const std::string& name, CallKind kind, Type type, std::vector<Expr> args,
               SourceLoc loc) {
  require(!name.empty(), "a call without a name");
  require_operands(args, "a call with a missing argument");
  auto n = node(ExprKind::kCall, type, std::move(loc));
  n->name = name;
  n->call_kind = kind;
  n->operands = std::move(args);
  return n;
}

Expr make_binary(BinaryOp op, Expr a, Expr b, Type type, SourceLoc loc) {
  require(a && b, "a binary operator with a missing operand");
  auto n = node(ExprKind::kBinary, type, std::move(loc));
  n->binary_op = op;
  n->operands = {std::move(a), std::move(b)};
  return n;
}

Expr make_unary(UnaryOp op, Expr a, Type type, SourceLoc loc) {
  require(a != nullptr, "a unary operator without an operand");
  auto n = node(ExprKind::kUnary, type, std::move(loc));
  n->unary_op = op;
  n->operands = {std::move(a)};
  return n;
}

Expr make_select(Expr cond, Expr t, Expr f, Type type, SourceLoc loc) {
  require(cond && t, "a select without a condition or a true value");
  auto n = node(ExprKind::kSelect, type, std::move(loc));
  n->operands = {std::move(cond), std::move(t)};
  if (f) n->operands.push_back(std::move(f));
  return n;
}

Expr make_cast(Type type, Expr value, SourceLoc loc) {
  require(value != nullptr, "a cast without a value");
  auto n = node(ExprKind::kCast, type, std::move(loc));
  n->operands = {std::move(value)};
  return n;
}

bool is_comparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEQ:
    case BinaryOp::kNE:
    case BinaryOp::kLT:
    case BinaryOp::kLE:
    case BinaryOp::kGT:
    case BinaryOp::kGE:
      return true;
    default:
      return false;
  }
}

const char* binary_op_spelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kMod:
      return "%";
    case BinaryOp::kEQ:
      return "==";
    case BinaryOp::kNE:
      return "!=";
    case BinaryOp::kLT:
      return "<";
    case BinaryOp::kLE:
      return "<=";
    case BinaryOp::kGT:
      return ">";
    case BinaryOp::kGE:
      return ">=";
    case BinaryOp::kAnd:
      return "&&";
    case BinaryOp::kOr:
      return "||";
  }
  return "?";
}

int intrinsic_arity(const std::string& name) {
  static const struct {
    const char* name;
    int arity;
  } kIntrinsics[] = {{"min", 2}, {"max", 2}, {"abs", 1},   {"sqrt", 1}, {"exp", 1},
                     {"log", 1}, {"pow", 2}, {"floor", 1}, {"ceil", 1}, {"round", 1}};
  for (const auto& i : kIntrinsics)
    if (name == i.name) return i.arity;
  return 0;
}

bool is_vector_op(const std::string& name) {
  return name == "ramp" || name == "broadcast" || name == "slice" || name == "concat" ||
         name == "reshape";
}

bool equal(const Expr& a, const Expr& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->kind != b->kind || a->type != b->type || a->operands.size() != b->operands.size())
    return false;
  switch (a->kind) {
    case ExprKind::kIntImm:
      if (a->int_value != b->int_value) return false;
      break;
    case ExprKind::kFloatImm:
      // Compare bit patterns so that -0.0 and NaN payloads are told apart.
      if (std::memcmp(&a->float_value, &b->float_value, sizeof(double)) != 0) return false;
      break;
    case ExprKind::kVar:
      if (a->name != b->name) return false;
      break;
    case ExprKind::kCall:
      if (a->name != b->name || a->call_kind != b->call_kind) return false;
      break;
    case ExprKind::kBinary:
      if (a->binary_op != b->binary_op) return false;
      break;
    case ExprKind::kUnary:
      if (a->unary_op != b->unary_op) return false;
      break;
    case ExprKind::kSelect:
    case ExprKind::kCast:
      break;
  }
  for (size_t i = 0; i < a->operands.size(); ++i)
    if (!equal(a->operands[i], b->operands[i])) return false;
  return true;
}

int64_t halide_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return a == std::numeric_limits<int64_t>::min() ? a : -a;
  int64_t q = a / b;
  int64_t r = a % b;
  // C truncates; move towards negative infinity when the remainder is negative, keeping
  // a == q * b + r with 0 <= r < |b| (Euclidean, as Halide defines it).
  if (r < 0) q = b > 0 ? q - 1 : q + 1;
  return q;
}

int64_t halide_mod(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r < 0) r += b > 0 ? b : -b;
  return r;
}

int64_t wrap_to_type(int64_t value, Type t) {
  if (t.bits >= 64) return value;
  uint64_t mask = (uint64_t{1} << t.bits) - 1;
  uint64_t u = static_cast<uint64_t>(value) & mask;
  if (t.is_int() && (u >> (t.bits - 1)) & 1) u |= ~mask;
  return static_cast<int64_t>(u);
}

bool fits_in_type(int64_t value, Type t) {
  if (t.is_uint() && t.bits == 64) return value >= 0;
  return wrap_to_type(value, t) == value;
}

}  // namespace t2s
