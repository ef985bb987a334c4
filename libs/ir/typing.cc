#include "libs/ir/typing.h"

#include <cmath>
#include <limits>

#include "libs/ir/expr_printer.h"

namespace t2s {

namespace {

[[noreturn]] void type_error(const SourceLoc& loc, const std::string& message) {
  throw Diagnostic(loc, message, "type");
}

bool is_coercible_literal(const Expr& e) {
  return e->kind == ExprKind::kIntImm && e->type == Type::Int(32);
}

Expr literal_as(const Expr& lit, Type t, const SourceLoc& loc) {
  if (t.lanes != 1)
    type_error(loc, "integer constant " + std::to_string(lit->int_value) +
                        " cannot be implicitly converted to vector type " + t.spec_name() +
                        " (write broadcast(" + std::to_string(lit->int_value) + ", " +
                        std::to_string(t.lanes) + "))");
  Expr e = coerce_literal_to(lit, t);
  if (!e)
    type_error(loc, "integer constant " + std::to_string(lit->int_value) +
                        " cannot be implicitly converted to " + t.spec_name() +
                        " without changing its value");
  return e;
}

Type wider(Type a, Type b) { return a.bits >= b.bits ? a : b; }

Expr cast_to(Type t, const Expr& e);

// Halide's match_types, with its special case for integer literals.
void match_types(Expr& a, Expr& b, const SourceLoc& loc) {
  if (a->type == b->type) return;
  if (is_coercible_literal(a) && !is_coercible_literal(b)) {
    a = literal_as(a, b->type, loc);
    return;
  }
  if (is_coercible_literal(b)) {
    b = literal_as(b, a->type, loc);
    return;
  }
  Type ta = a->type, tb = b->type;
  if (ta.lanes != tb.lanes)
    type_error(loc, "operands have different lane counts (" + ta.spec_name() + " and " +
                        tb.spec_name() + ")");
  if (!ta.same_shape(tb))
    type_error(loc, "operands have different shapes (" + ta.spec_name() + " and " + tb.spec_name() +
                        "); broadcast or reshape one explicitly");
  Type target;
  if (ta.is_float() || tb.is_float()) {
    target = ta.is_float() && tb.is_float() ? wider(ta, tb) : (ta.is_float() ? ta : tb);
  } else if (ta.code == tb.code && !ta.is_bool() && !tb.is_bool()) {
    target = wider(ta, tb);
  } else {
    // int with uint (or bool): a signed type as wide as the wider operand, as Halide does.
    target = ta.with_element(Type::Int(std::max(ta.bits, tb.bits)));
  }
  a = cast_to(target, a);
  b = cast_to(target, b);
}

Expr fold_cast(Type t, const Expr& v) {
  if (v->kind == ExprKind::kIntImm && !t.is_float() && t.lanes == 1 && v->type.lanes == 1) {
    int64_t value = v->int_value;
    if (t.is_bool()) return make_bool(value != 0, v->loc);
    if (v->type.is_uint() && v->type.bits == 64 && t.bits == 64) return make_int(t, value, v->loc);
    return make_int(t, wrap_to_type(value, t), v->loc);
  }
  if (v->kind == ExprKind::kIntImm && t.is_float() && t.lanes == 1) {
    double d = v->type.is_uint() && v->type.bits == 64
                   ? static_cast<double>(static_cast<uint64_t>(v->int_value))
                   : static_cast<double>(v->int_value);
    if (t.bits == 32) d = static_cast<float>(d);
    return make_float(t, d, v->loc);
  }
  if (v->kind == ExprKind::kFloatImm && t.is_float() && t.lanes == 1) {
    double d =
        t.bits == 32 ? static_cast<double>(static_cast<float>(v->float_value)) : v->float_value;
    return make_float(t, d, v->loc);
  }
  return nullptr;
}

Expr cast_to(Type t, const Expr& e) {
  if (e->type == t) return e;
  if (Expr folded = fold_cast(t, e)) return folded;
  return make_cast(t, e, e->loc);
}

// Folds integer (not bool) arithmetic and comparisons on two literals of the same type.
Expr fold_binary(BinaryOp op, const Expr& a, const Expr& b, Type result, const SourceLoc& loc) {
  if (a->kind != ExprKind::kIntImm || b->kind != ExprKind::kIntImm) return nullptr;
  Type t = a->type;
  int64_t x = a->int_value, y = b->int_value;
  if (t.is_bool()) {
    if (op == BinaryOp::kAnd) return make_bool(x && y, loc);
    if (op == BinaryOp::kOr) return make_bool(x || y, loc);
    if (op == BinaryOp::kEQ) return make_bool(x == y, loc);
    if (op == BinaryOp::kNE) return make_bool(x != y, loc);
    return nullptr;
  }
  if (t.is_uint() && t.bits == 64) return nullptr;  // keep the int64 arithmetic below exact
  // Values fit in 32 bits or are int64: compute in __int128 to detect overflow.
  __int128 X = x, Y = y, r = 0;
  switch (op) {
    case BinaryOp::kAdd:
      r = X + Y;
      break;
    case BinaryOp::kSub:
      r = X - Y;
      break;
    case BinaryOp::kMul:
      r = X * Y;
      break;
    case BinaryOp::kDiv:
      if (t.bits == 64 && x == std::numeric_limits<int64_t>::min() && y == -1) return nullptr;
      r = halide_div(x, y);
      break;
    case BinaryOp::kMod:
      r = halide_mod(x, y);
      break;
    case BinaryOp::kEQ:
      return make_bool(x == y, loc);
    case BinaryOp::kNE:
      return make_bool(x != y, loc);
    case BinaryOp::kLT:
      return make_bool(x < y, loc);
    case BinaryOp::kLE:
      return make_bool(x <= y, loc);
    case BinaryOp::kGT:
      return make_bool(x > y, loc);
    case BinaryOp::kGE:
      return make_bool(x >= y, loc);
    default:
      return nullptr;
  }
  if (r < std::numeric_limits<int64_t>::min() || r > std::numeric_limits<int64_t>::max())
    return nullptr;
  int64_t v = static_cast<int64_t>(r);
  if (t.is_uint()) return make_int(result, wrap_to_type(v, t), loc);  // unsigned wraps
  if (!fits_in_type(v, t)) return nullptr;  // signed overflow: leave it to run time
  return make_int(result, v, loc);
}

class Typer {
 public:
  explicit Typer(NameResolver& resolver) : resolver_(resolver) {}

  Expr visit(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kIntImm:
      case ExprKind::kFloatImm:
        return e;
      case ExprKind::kVar:
        return resolver_.identifier(e->name, e->loc);
      case ExprKind::kCast: {
        Expr v = visit(e->operands[0]);
        if (v->type.lanes != e->type.lanes)
          type_error(e->loc, "cannot cast " + v->type.spec_name() + " to " + e->type.spec_name() +
                                 ": lane counts differ");
        if (!v->type.same_shape(e->type))
          type_error(e->loc, "cannot cast " + v->type.spec_name() + " to " + e->type.spec_name() +
                                 ": shapes differ (write reshape)");
        return cast_to(e->type, v);
      }
      case ExprKind::kUnary:
        return unary(e);
      case ExprKind::kBinary:
        return binary(e);
      case ExprKind::kSelect:
        return select(e);
      case ExprKind::kCall:
        if (is_vector_op(e->name) &&
            (e->call_kind == CallKind::kIntrinsic ||
             (e->call_kind == CallKind::kUnresolved && resolver_.vector_op(e->name))))
          return vector_op(e);
        if (e->call_kind == CallKind::kIntrinsic) return intrinsic(e);
        if (e->name == "read_channel") return read_channel(e);
        if (e->name == "pop" && !e->operands.empty() && e->operands[0]->kind == ExprKind::kVar)
          if (std::optional<Type> t = resolver_.fifo(e->operands[0]->name)) return pop(e, *t);
        return call(e);
    }
    throw InternalError("typing: unknown expression kind");
  }

 private:
  Expr unary(const Expr& e) {
    Expr a = visit(e->operands[0]);
    if (e->unary_op == UnaryOp::kNot) {
      if (!a->type.is_bool())
        type_error(e->loc, "operand of '!' must be Bool, not " + a->type.spec_name());
      if (a->kind == ExprKind::kIntImm) return make_bool(!a->int_value, e->loc);
      return make_unary(UnaryOp::kNot, a, a->type, e->loc);
    }
    if (a->type.is_bool()) type_error(e->loc, "cannot negate a Bool expression");
    if (a->kind == ExprKind::kIntImm && a->type.is_int() &&
        a->int_value != std::numeric_limits<int64_t>::min() && fits_in_type(-a->int_value, a->type))
      return make_int(a->type, -a->int_value, e->loc);
    if (a->kind == ExprKind::kFloatImm) return make_float(a->type, -a->float_value, e->loc);
    return make_unary(UnaryOp::kNeg, a, a->type, e->loc);
  }

  Expr binary(const Expr& e) {
    Expr a = visit(e->operands[0]);
    Expr b = visit(e->operands[1]);
    BinaryOp op = e->binary_op;
    const char* spelling = binary_op_spelling(op);
    if (op == BinaryOp::kAnd || op == BinaryOp::kOr) {
      if (!a->type.is_bool() || !b->type.is_bool())
        type_error(e->loc, std::string("operands of '") + spelling + "' must be Bool, not " +
                               a->type.spec_name() + " and " + b->type.spec_name());
    } else {
      match_types(a, b, e->loc);
      if (!is_comparison(op) && a->type.is_bool())
        type_error(e->loc, std::string("arithmetic '") + spelling + "' on Bool operands");
    }
    Type result = is_comparison(op) ? a->type.with_element(Type::Bool()) : a->type;
    if (Expr folded = fold_binary(op, a, b, result, e->loc)) return folded;
    return make_binary(op, a, b, result, e->loc);
  }

  Expr select(const Expr& e) {
    Expr c = visit(e->operands[0]);
    if (!c->type.is_bool())
      type_error(c->loc.valid() ? c->loc : e->loc,
                 "condition of select must be Bool, not " + c->type.spec_name());
    Expr t = visit(e->operands[1]);
    Expr f = e->operands.size() == 2 ? nullptr : visit(e->operands[2]);
    if (f) match_types(t, f, e->loc);
    // A scalar condition with vector values is Halide's lazy select (only the branch the
    // condition picks is evaluated); a vector condition is a blend of equal lanes.
    if (c->type.lanes != 1 && c->type.lanes != t->type.lanes)
      type_error(e->loc, "condition of select has type " + c->type.spec_name() +
                             ", but its values have " + std::to_string(t->type.lanes) + " lane" +
                             (t->type.lanes == 1 ? "" : "s") + " (" + t->type.spec_name() + ")");
    if (c->type.lanes != 1 && !c->type.same_shape(t->type))
      type_error(e->loc, "condition of select has type " + c->type.spec_name() +
                             ", but its values have another shape (" + t->type.spec_name() + ")");
    return make_select(c, t, f, t->type, e->loc);
  }

  Expr intrinsic(const Expr& e) {
    std::vector<Expr> args;
    for (const Expr& a : e->operands) args.push_back(visit(a));
    const std::string& name = e->name;
    for (const Expr& a : args)
      if (a->type.is_bool()) type_error(e->loc, "'" + name + "' of a Bool expression");
    if (name == "min" || name == "max") {
      match_types(args[0], args[1], e->loc);
    } else if (name == "abs") {
      Type t = args[0]->type;
      Type result = t.is_int() ? t.with_element(Type::UInt(t.bits)) : t;  // Halide: abs is unsigned
      return make_call(name, CallKind::kIntrinsic, result, args, e->loc);
    } else {
      // sqrt, exp, log, pow, floor, ceil, round: float functions; integers become Float(32).
      for (Expr& a : args)
        if (!a->type.is_float()) a = cast_to(a->type.with_element(Type::Float(32)), a);
      if (args.size() == 2) match_types(args[0], args[1], e->loc);
    }
    return make_call(name, CallKind::kIntrinsic, args[0]->type, args, e->loc);
  }

  // ---- vector operations (IR only; docs/ir.md, "Vector values") ----

  // Operand `i` of vector operation `e`: an int32 literal of at least `min` (and `max`).
  int64_t literal_arg(const Expr& e, const std::vector<Expr>& args, size_t i, const char* what,
                      int64_t min, int64_t max) {
    const Expr& a = args[i];
    if (a->kind != ExprKind::kIntImm || a->type != Type::Int(32))
      type_error(e->loc, std::string("the ") + what + " of '" + e->name +
                             "' must be an integer literal, not '" + print_expr(a) + "'");
    if (a->int_value < min || a->int_value > max)
      type_error(e->loc, std::string("the ") + what + " of '" + e->name + "' is " +
                             std::to_string(a->int_value) + "; it must be in [" +
                             std::to_string(min) + ", " + std::to_string(max) + "]");
    return a->int_value;
  }

  Expr vector_op(const Expr& e) {
    const std::string& name = e->name;
    std::vector<Expr> args;
    for (const Expr& a : e->operands) args.push_back(visit(a));
    auto arity = [&](size_t n) {
      if (args.size() != n)
        type_error(e->loc, "'" + name + "' takes " + std::to_string(n) + " arguments, got " +
                               std::to_string(args.size()));
    };
    Type result;
    if (name == "ramp") {
      // Scalar base and stride give int32xN; vector or tensor ones (one type, int32) nest as
      // Halide's do: an outer dimension of N copies, copy l being base + l * stride.
      arity(3);
      const bool nested = args[0]->type.lanes != 1 || args[1]->type.lanes != 1;
      for (size_t i = 0; i < 2; ++i) {
        if (!nested && !args[i]->type.is_integer())
          type_error(e->loc, std::string("the ") + (i == 0 ? "base" : "stride") +
                                 " of 'ramp' must be a scalar integer, not " +
                                 args[i]->type.spec_name());
        if (nested && args[i]->type.element_of() != Type::Int(32))
          type_error(e->loc, std::string("the ") + (i == 0 ? "base" : "stride") +
                                 " of a nested 'ramp' must be an int32 vector, not " +
                                 args[i]->type.spec_name());
        if (!nested) args[i] = cast_to(Type::Int(32), args[i]);
      }
      if (nested && (args[0]->type.lanes == 1 || args[1]->type.lanes == 1))
        type_error(e->loc,
                   "the base and stride of 'ramp' must both be scalar integers or both "
                   "int32 vectors of one type, not " +
                       args[0]->type.spec_name() + " and " + args[1]->type.spec_name());
      if (nested && args[0]->type != args[1]->type)
        type_error(e->loc, "the base and stride of a nested 'ramp' have different types (" +
                               args[0]->type.spec_name() + " and " + args[1]->type.spec_name() +
                               ")");
      result = nested_type(e, args, 2);
    } else if (name == "broadcast") {
      arity(2);
      result = nested_type(e, args, 1);
    } else if (name == "reshape") {
      // The same flat lanes with another shape (innermost first; one dimension: flat).
      if (args.size() < 2)
        type_error(e->loc, "'reshape' takes a value and 1 or more dimensions, got " +
                               std::to_string(args.size()) + " arguments");
      std::vector<int> shape;
      for (size_t i = 1; i < args.size(); ++i)
        shape.push_back(static_cast<int>(literal_arg(e, args, i, "dimension", 2, kMaxLanes)));
      result = args[0]->type.with_shape(shape);
      if (!result.valid() || result.lanes != args[0]->type.lanes)
        type_error(e->loc, "cannot reshape " + args[0]->type.spec_name() + " (" +
                               std::to_string(args[0]->type.lanes) + " lanes) to " +
                               result.spec_name());
    } else if (name == "slice") {
      arity(3);
      const Type vt = args[0]->type;
      if (vt.lanes < 2)
        type_error(e->loc, "the operand of 'slice' must be a vector, not " + vt.spec_name());
      const int64_t begin = literal_arg(e, args, 1, "first lane", 0, vt.lanes - 1);
      const int64_t lanes = literal_arg(e, args, 2, "lane count", 1, vt.lanes - begin);
      result = vt.with_lanes(static_cast<int>(lanes));
    } else {  // concat
      if (args.size() < 2)
        type_error(e->loc,
                   "'concat' takes at least 2 arguments, got " + std::to_string(args.size()));
      int lanes = 0;
      for (const Expr& a : args) {
        if (a->type.element_of() != args[0]->type.element_of())
          type_error(e->loc, "the operands of 'concat' must have one element type, not " +
                                 args[0]->type.spec_name() + " and " + a->type.spec_name());
        lanes += a->type.lanes;
      }
      if (lanes > kMaxLanes)
        type_error(e->loc, "'concat' gives " + std::to_string(lanes) +
                               " lanes; a vector has at most " + std::to_string(kMaxLanes));
      result = args[0]->type.with_lanes(lanes);
    }
    return make_call(name, CallKind::kIntrinsic, result, args, e->loc);
  }

  // The type of a ramp or broadcast whose lane count is operand `count`: operand 0's type with
  // an outer dimension of that many lanes.
  Type nested_type(const Expr& e, const std::vector<Expr>& args, size_t count) {
    const int n = static_cast<int>(literal_arg(e, args, count, "lane count", 2, kMaxLanes));
    const Type base = args[0]->type;
    const Type result = base.with_outer(n);
    if (!result.valid())
      type_error(e->loc, "'" + e->name + "' of " + base.spec_name() + " by " + std::to_string(n) +
                             " gives " + std::to_string(base.lanes * n) + " lanes in " +
                             std::to_string(base.dims() + 1) +
                             " dimensions; a vector has at most " + std::to_string(kMaxLanes) +
                             " lanes in " + std::to_string(Type::kMaxOuterDims + 1));
    return result;
  }

  Expr read_channel(const Expr& e) {
    if (e->operands.empty() || e->operands[0]->kind != ExprKind::kVar)
      type_error(e->loc, "read_channel takes a channel name and optional indices");
    Type type = resolver_.channel(e->operands[0]->name, e->loc);
    std::vector<Expr> args{e->operands[0]};
    for (size_t i = 1; i < e->operands.size(); ++i) args.push_back(int_arg(e, i));
    return make_call(e->name, CallKind::kChannel, type, args, e->loc);
  }

  Expr pop(const Expr& e, Type type) {
    std::vector<Expr> args{e->operands[0]};
    for (size_t i = 1; i < e->operands.size(); ++i) args.push_back(int_arg(e, i));
    return make_call(e->name, CallKind::kFifo, type, args, e->loc);
  }

  Expr int_arg(const Expr& e, size_t i) {
    Expr a = visit(e->operands[i]);
    if (!a->type.is_integer() || a->type.lanes != 1)
      type_error(a->loc.valid() ? a->loc : e->loc, "argument " + std::to_string(i + 1) + " of '" +
                                                       e->name + "' must be an integer, not " +
                                                       a->type.spec_name());
    return cast_to(Type::Int(32), a);
  }

  // A read of a Func, an input or a shift register. Indices that are int32 vectors of N lanes
  // (all of one N; the others scalar) make it a gather of N lanes.
  Expr call(const Expr& e) {
    CallTarget target = resolver_.call(e->name, e->operands.size(), e->loc);
    std::vector<Expr> args;
    int lanes = 1;
    Type index_type = Type::Int(32);
    for (size_t i = 0; i < e->operands.size(); ++i) {
      Expr a = visit(e->operands[i]);
      if (!a->type.is_integer())
        type_error(a->loc.valid() ? a->loc : e->loc, "argument " + std::to_string(i + 1) + " of '" +
                                                         e->name + "' must be an integer, not " +
                                                         a->type.spec_name());
      if (a->type.lanes != 1) {
        if (lanes != 1 && lanes != a->type.lanes)
          type_error(e->loc, "the indices of '" + e->name + "' have different lane counts (" +
                                 std::to_string(lanes) + " and " + std::to_string(a->type.lanes) +
                                 ")");
        if (lanes != 1 && !index_type.same_shape(a->type))
          type_error(e->loc, "the indices of '" + e->name + "' have different shapes (" +
                                 index_type.spec_name() + " and " + a->type.spec_name() + ")");
        lanes = a->type.lanes;
        index_type = a->type.with_element(Type::Int(32));
      }
      args.push_back(cast_to(a->type.with_element(Type::Int(32)), a));
    }
    if (lanes != 1 && target.kind == CallKind::kRegister)
      type_error(e->loc, "the indices of register '" + e->name + "' must be scalars");
    if (lanes != 1 && target.type.lanes != 1)
      type_error(e->loc, "a gather (vector indices) from '" + e->name + "', whose elements are " +
                             target.type.spec_name() + " (vectors)");
    return make_call(e->name, target.kind,
                     lanes == 1 ? target.type : index_type.with_element(target.type), args, e->loc);
  }

  NameResolver& resolver_;
};

}  // namespace

Expr coerce_literal_to(const Expr& e, Type t) {
  if (e->type == t) return e;
  if (!is_coercible_literal(e) || t.lanes != 1) return nullptr;
  if (t.is_float()) return fold_cast(t, e);
  if (t.is_bool())
    return e->int_value == 0 || e->int_value == 1 ? make_bool(e->int_value, e->loc) : nullptr;
  if (!fits_in_type(e->int_value, t)) return nullptr;
  return make_int(t, e->int_value, e->loc);
}

Type NameResolver::channel(const std::string& name, const SourceLoc& loc) {
  throw Diagnostic(loc, "read_channel is not available here (no channel '" + name + "')", "type");
}

Expr resolve_types(const Expr& e, NameResolver& resolver) { return Typer(resolver).visit(e); }

namespace {

class LiteralsOnly : public NameResolver {
 public:
  Expr identifier(const std::string& name, const SourceLoc&) override {
    throw InternalError("fold_literals: name '" + name + "' in a constant expression");
  }
  CallTarget call(const std::string& name, size_t, const SourceLoc&) override {
    throw InternalError("fold_literals: call to '" + name + "' in a constant expression");
  }
};

}  // namespace

Expr fold_literals(const Expr& e) {
  LiteralsOnly literals;
  return resolve_types(e, literals);
}

}  // namespace t2s
