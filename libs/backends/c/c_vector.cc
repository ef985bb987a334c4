// Vector and tensor values in the C-family code generator: types, elementwise operations, ramp,
// broadcast, slice, concat, reshape, gathers and scatters (c_codegen.h describes the code;
// docs/ir-vectors.md, "Vector values", the semantics).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "libs/backends/c/c_codegen.h"
#include "libs/backends/c/c_internal.h"
#include "libs/ir/strings.h"
#include "libs/ir/typing.h"

namespace t2s {

using c_internal::AccessScope;
using c_internal::binary_precedence;
using c_internal::kPrecedenceAtom;
using c_internal::kPrecedencePostfix;
using c_internal::kPrecedenceUnary;
using c_internal::parenthesize_above;
using c_internal::type_suffix;

namespace {

constexpr int kMaxOpenClLanes = 32;

// OpenCL has no bool vectors: bool lanes are char, 0 or 1.
Type opencl_lane_type(Type t) { return t.is_bool() ? Type::Int(8) : t.element_of(); }

// The name of an elementwise operation in helper names (t2s_vdiv_i32x4).
std::string operation_name(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kBinary:
      switch (e->binary_op) {
        case BinaryOp::kAdd:
          return "add";
        case BinaryOp::kSub:
          return "sub";
        case BinaryOp::kMul:
          return "mul";
        case BinaryOp::kDiv:
          return "div";
        case BinaryOp::kMod:
          return "mod";
        case BinaryOp::kEQ:
          return "eq";
        case BinaryOp::kNE:
          return "ne";
        case BinaryOp::kLT:
          return "lt";
        case BinaryOp::kLE:
          return "le";
        case BinaryOp::kGT:
          return "gt";
        case BinaryOp::kGE:
          return "ge";
        case BinaryOp::kAnd:
          return "and";
        case BinaryOp::kOr:
          return "or";
      }
      break;
    case ExprKind::kUnary:
      return e->unary_op == UnaryOp::kNeg ? "neg" : "not";
    case ExprKind::kCast:
      return "cvt_" + type_suffix(e->type);
    case ExprKind::kSelect:
      return "select";
    default:
      return e->name;  // an intrinsic: min, max, abs, sqrt, ...
  }
  throw InternalError("emit: unknown binary operator");
}

// Whether evaluating `e` has an effect (reads a channel or pops a FIFO register).
bool has_effects(const Expr& e) {
  if (e->kind == ExprKind::kCall &&
      (e->call_kind == CallKind::kChannel || e->call_kind == CallKind::kFifo))
    return true;
  for (const Expr& o : e->operands)
    if (has_effects(o)) return true;
  return false;
}

bool is_ramp(const Expr& e) {
  return e->kind == ExprKind::kCall && e->call_kind == CallKind::kIntrinsic && e->name == "ramp";
}

// Lane l of `ramp(base, stride, N)`: `base + l * stride`, with `l * stride` folded when the
// stride is a literal (int32 arithmetic, as the ramp's).
Expr ramp_lane(const Expr& ramp, int l) {
  const Type i32 = Type::Int(32);
  const Expr& base = ramp->operands.at(0);
  const Expr& stride = ramp->operands.at(1);
  if (l == 0) return base;
  int64_t step = 0;
  if (!constant_int(stride, &step))
    return make_binary(BinaryOp::kAdd, base,
                       l == 1 ? stride : make_binary(BinaryOp::kMul, make_int(i32, l), stride, i32),
                       i32);
  step = wrap_to_type(step * l, i32);
  if (step == 0) return base;
  const bool down = step < 0 && step != INT32_MIN;
  return make_binary(down ? BinaryOp::kSub : BinaryOp::kAdd, base,
                     make_int(i32, down ? -step : step), i32);
}

// "4x8" for float32x4x8, "16" for float32x16.
std::string shape_text(Type t) {
  std::string text;
  for (int d : t.shape()) text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

bool is_call_of(const Expr& e, const char* name) {
  return e->kind == ExprKind::kCall && e->call_kind == CallKind::kIntrinsic && e->name == name;
}

bool is_int_literal(const Expr& e, int64_t value) {
  return e->kind == ExprKind::kIntImm && e->int_value == value;
}

// a op b on scalar integers, folded where literals make it constant or trivial.
Expr combine(BinaryOp op, const Expr& a, const Expr& b) {
  if (a->kind == ExprKind::kIntImm && b->kind == ExprKind::kIntImm)
    return fold_literals(make_binary(op, a, b, Type(), a->loc));
  if (op == BinaryOp::kAdd && is_int_literal(a, 0)) return b;
  if ((op == BinaryOp::kAdd || op == BinaryOp::kSub) && is_int_literal(b, 0)) return a;
  if (op == BinaryOp::kMul && is_int_literal(a, 1)) return b;
  // Indices have no effects (gathers refuse those), so 0 * x is 0.
  if (op == BinaryOp::kMul && (is_int_literal(a, 0) || is_int_literal(b, 0)))
    return make_int(a->type, 0);
  if ((op == BinaryOp::kMul || op == BinaryOp::kDiv) && is_int_literal(b, 1)) return a;
  return make_binary(op, a, b, a->type, a->loc);
}

// Lane l of an index vector built from ramps, broadcasts, scalars and elementwise integer
// arithmetic, as a scalar expression with the literal parts folded (Halide semantics:
// `ramp(0, 1, 16) / broadcast(4, 16) + broadcast(4 * jj, 16)` is `1 + 4 * jj` in lane 5), so
// that an OpenCL gather computes each lane's index directly; nullptr for anything else (a vector
// let, a register, a channel), which is then taken from the vector as a whole.
Expr index_lane(const Expr& e, int l) {
  if (e->type.lanes == 1) return e;
  if (e->type.is_tensor() ||
      (e->kind == ExprKind::kCall && !e->operands.empty() && e->operands[0]->type.lanes != 1 &&
       (is_call_of(e, "ramp") || is_call_of(e, "broadcast")))) {
    // Nested: lane l is in copy l / B of a base of B lanes.
    if (is_call_of(e, "broadcast") && e->operands[0]->type.lanes != 1)
      return index_lane(e->operands[0], l % e->operands[0]->type.lanes);
    if (is_ramp(e) && e->operands[0]->type.lanes != 1) {
      const int inner = e->operands[0]->type.lanes;
      Expr base = index_lane(e->operands[0], l % inner);
      Expr stride = index_lane(e->operands[1], l % inner);
      if (!base || !stride) return nullptr;
      return combine(BinaryOp::kAdd, base,
                     combine(BinaryOp::kMul, make_int(Type::Int(32), l / inner), stride));
    }
    if (is_call_of(e, "reshape")) return index_lane(e->operands[0], l);
  }
  if (is_ramp(e)) {
    const Expr lane = ramp_lane(e, l);
    if (lane->kind != ExprKind::kBinary) return lane;
    return combine(lane->binary_op, lane->operands[0], lane->operands[1]);
  }
  if (is_call_of(e, "broadcast")) return e->operands.at(0);
  if (e->kind == ExprKind::kBinary && e->type.is_integer()) {
    Expr a = index_lane(e->operands[0], l), b = index_lane(e->operands[1], l);
    if (!a || !b) return nullptr;
    return combine(e->binary_op, a, b);
  }
  return nullptr;
}

// Row r of an int32 index vector or tensor whose rows have `row` lanes, as lane j = base + j *
// stride (stride 0: the same index for the row's every lane), or false when it is not of that
// form or not built from ramps, broadcasts and integer arithmetic.
struct RowIndex {
  Expr base, stride;
};
bool index_row(const Expr& e, int r, int row, RowIndex* out) {
  const Expr zero = make_int(Type::Int(32), 0);
  if (e->type.lanes == 1) {
    *out = {e, zero};
    return true;
  }
  const bool nested =
      e->kind == ExprKind::kCall && !e->operands.empty() && e->operands[0]->type.lanes != 1;
  if (is_call_of(e, "broadcast")) {
    if (!nested) {
      *out = {e->operands[0], zero};
      return true;
    }
    const int rows = e->operands[0]->type.lanes / row;
    return index_row(e->operands[0], r % std::max(rows, 1), row, out);
  }
  if (is_ramp(e)) {
    if (!nested) {
      if (e->type.lanes != row) return false;
      *out = {e->operands[0], e->operands[1]};
      return true;
    }
    const int rows = std::max(e->operands[0]->type.lanes / row, 1);
    RowIndex base, stride;
    if (!index_row(e->operands[0], r % rows, row, &base) ||
        !index_row(e->operands[1], r % rows, row, &stride))
      return false;
    const Expr copy = make_int(Type::Int(32), r / rows);
    *out = {combine(BinaryOp::kAdd, base.base, combine(BinaryOp::kMul, copy, stride.base)),
            combine(BinaryOp::kAdd, base.stride, combine(BinaryOp::kMul, copy, stride.stride))};
    return true;
  }
  if (e->kind == ExprKind::kBinary && e->type.is_integer()) {
    RowIndex a, b;
    if (!index_row(e->operands[0], r, row, &a) || !index_row(e->operands[1], r, row, &b))
      return false;
    const BinaryOp op = e->binary_op;
    if (op == BinaryOp::kAdd || op == BinaryOp::kSub) {
      *out = {combine(op, a.base, b.base), combine(op, a.stride, b.stride)};
      return true;
    }
    if (is_int_literal(a.stride, 0) && is_int_literal(b.stride, 0)) {  // uniform in the row
      *out = {combine(op, a.base, b.base), zero};
      return true;
    }
    if (op == BinaryOp::kMul && (is_int_literal(a.stride, 0) || is_int_literal(b.stride, 0))) {
      const RowIndex& v = is_int_literal(a.stride, 0) ? b : a;
      const Expr& k = is_int_literal(a.stride, 0) ? a.base : b.base;
      *out = {combine(op, v.base, k), combine(op, v.stride, k)};
      return true;
    }
  }
  return false;
}

}  // namespace

bool opencl_native_lanes(int lanes) {
  return lanes == 2 || lanes == 3 || lanes == 4 || lanes == 8 || lanes == 16;
}

bool opencl_native_vector(Type type) {
  return !type.is_tensor() && opencl_native_lanes(type.lanes);
}

bool opencl_row_tensor(Type type) {
  return type.is_tensor() && opencl_native_lanes(type.row_lanes());
}

std::string c_value_type_name(Type type, CDialect dialect, const SourceLoc& loc) {
  if (type.lanes == 1) return c_type_name(type, dialect, loc);
  if (dialect == CDialect::kCpp) {
    return "t2s_rt::Vec<" + c_type_name(type.element_of(), dialect, loc) + ", " +
           std::to_string(type.lanes) + ">";
  }
  const std::string element = c_type_name(opencl_lane_type(type), dialect, loc);
  if (opencl_row_tensor(type)) return element + "_tensor" + shape_text(type);  // float_tensor4x4
  if (type.is_tensor() && type.lanes > kMaxOpenClLanes) {
    throw Diagnostic(loc,
                     "the opencl target cannot express " + std::to_string(type.lanes) +
                         " lanes (tensor type " + type.name() + ": its rows of " +
                         std::to_string(type.row_lanes()) +
                         " lanes have no native type, and a struct of lanes takes 2 to 32)",
                     "emit-type");
  }
  if (type.lanes < 2 || type.lanes > kMaxOpenClLanes) {
    throw Diagnostic(loc,
                     "the opencl target cannot express " + std::to_string(type.lanes) +
                         " lanes (vector type " + type.name() + "; it takes 2 to 32 lanes)",
                     "emit-type");
  }
  return element + (opencl_native_vector(type) ? "" : "_vec") + std::to_string(type.lanes);
}

std::string opencl_struct_typedef(Type type, const SourceLoc& loc) {
  if (type.lanes == 1 || opencl_native_vector(type)) return "";
  if (opencl_row_tensor(type)) {
    return "typedef struct { " +
           c_value_type_name(type.element_of().with_lanes(type.row_lanes()), CDialect::kOpenCl,
                             loc) +
           " data[" + std::to_string(type.lanes / type.row_lanes()) + "]; } " +
           c_value_type_name(type, CDialect::kOpenCl, loc) + ";\n";
  }
  return "typedef struct { " + c_type_name(opencl_lane_type(type), CDialect::kOpenCl, loc) +
         " data[" + std::to_string(type.lanes) + "]; } " +
         c_value_type_name(type, CDialect::kOpenCl, loc) + ";\n";
}

// Lane l of the vector `v` of type `type`.
std::string CCodegen::lane(const Printed& v, Type type, int l) {
  const std::string base = parenthesize_above(v.text, v.precedence, kPrecedencePostfix);
  if (dialect_ == CDialect::kCpp) return base + ".lane[" + std::to_string(l) + "]";
  if (opencl_native_vector(type)) return base + ".s" + "0123456789abcdef"[l];
  if (opencl_row_tensor(type)) {
    const int row = type.row_lanes();
    return base + ".data[" + std::to_string(l / row) + "].s" + "0123456789abcdef"[l % row];
  }
  return base + ".data[" + std::to_string(l) + "]";
}

// A vector of type `type` with these lanes, on one line or one lane per line (C++ evaluates
// them left to right; OpenCL leaves the order to the compiler, as for any operands).
CCodegen::Printed CCodegen::vector_literal(Type type, const std::vector<std::string>& lanes,
                                           bool one_per_line) {
  const std::string name = c_value_type_name(type, dialect_);
  const std::string list = one_per_line ? "\n      " + join(lanes, ",\n      ") : join(lanes, ", ");
  if (dialect_ == CDialect::kCpp)  // aggregate initialization
    return {name + "{{" + list + "}}", kPrecedencePostfix};
  if (opencl_native_vector(type)) return {"(" + name + ")(" + list + ")", kPrecedenceUnary};
  if (opencl_row_tensor(type)) {  // a compound literal of native row literals
    const int row = type.row_lanes();
    const Type row_type = type.element_of().with_lanes(row);
    std::vector<std::string> rows;
    for (size_t r = 0; r * row < lanes.size(); ++r)
      rows.push_back(
          vector_literal(row_type, {lanes.begin() + r * row, lanes.begin() + (r + 1) * row}).text);
    return tensor_literal(type, rows, one_per_line);
  }
  return {"(" + name + "){{" + list + "}}", kPrecedencePostfix};  // a compound literal
}

// A tensor of native rows (OpenCL) with these rows.
CCodegen::Printed CCodegen::tensor_literal(Type type, const std::vector<std::string>& rows,
                                           bool one_per_line) {
  const std::string list = one_per_line ? "\n      " + join(rows, ",\n      ") : join(rows, ", ");
  return {"(" + c_value_type_name(type, dialect_) + "){{" + list + "}}", kPrecedencePostfix};
}

// Lane l of parameter k (of type `type`) inside a helper: `t2s_1.s3`, or `t2s_1` for a scalar.
std::string CCodegen::param_lane(Type type, int k, int l) {
  const Printed param{"t2s_" + std::to_string(k), kPrecedenceAtom};
  return type.lanes == 1 ? param.text : lane(param, type, l);
}

// Defines helper `name` once: a function of parameters t2s_0, t2s_1, ... of types `params` that
// returns the vector of type `result` whose lane l is lane_text(l).
std::string CCodegen::vector_helper(const std::string& name, Type result,
                                    const std::vector<Type>& params,
                                    const std::function<std::string(int l)>& lane_text) {
  if (vector_helpers_.count(name)) return name;
  std::vector<std::string> lanes;
  for (int l = 0; l < result.lanes; ++l) lanes.push_back(lane_text(l));
  std::vector<std::string> types, names;
  for (size_t k = 0; k < params.size(); ++k) {
    types.push_back(c_value_type_name(params[k], dialect_));
    names.push_back("t2s_" + std::to_string(k));
  }
  std::string text = "static inline " + c_value_type_name(result, dialect_) + " " + name + "(";
  if (dialect_ == CDialect::kCpp && params.size() > 1) {
    // One braced-list argument (call_helper): C++ evaluates its elements left to right.
    text += "const std::tuple<" + join(types, ", ") + ">& t2s_in) {\n";
    text += "  const auto& [" + join(names, ", ") + "] = t2s_in;\n";
  } else {
    for (size_t k = 0; k < params.size(); ++k) text += (k ? ", " : "") + types[k] + " " + names[k];
    text += ") {\n";
  }
  text += "  return " + vector_literal(result, lanes, true).text + ";\n}\n";
  vector_helpers_[name] = text;
  return name;
}

std::string CCodegen::call_helper(const std::string& name, const std::vector<std::string>& args) {
  if (dialect_ == CDialect::kCpp && args.size() > 1) return name + "({" + join(args, ", ") + "})";
  return name + "(" + join(args, ", ") + ")";
}

// An expression of vector type whose value is computed here (not a variable, nor a whole value
// read from a channel or register, nor a select with a scalar condition: print() prints those
// as it prints scalars).
CCodegen::Printed CCodegen::vector(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kCall:
      if (e->call_kind == CallKind::kIntrinsic && is_vector_op(e->name)) return vector_op(e);
      if (e->call_kind == CallKind::kFunc || e->call_kind == CallKind::kImage) return gather(e);
      if (e->call_kind == CallKind::kIntrinsic) return elementwise(e);
      break;
    case ExprKind::kBinary:
    case ExprKind::kUnary:
    case ExprKind::kCast:
    case ExprKind::kSelect:
      return elementwise(e);
    default:
      break;
  }
  throw InternalError("emit: a value of vector type " + e->type.name() +
                      " that is not a vector operation");
}

// OpenCL: whether an elementwise operation is the native vector operator or built-in, which
// has the scalar operation's semantics on each lane for these operations and types.
bool CCodegen::native_opencl(const Expr& e) const {
  if (dialect_ != CDialect::kOpenCl) return false;
  // A tensor of native rows is a row of native operations per row (native_elementwise).
  auto native = [&](Type t) {
    return !t.is_bool() &&
           (opencl_native_vector(t) || (opencl_row_tensor(t) && t.same_shape(e->type)));
  };
  if (!native(e->type)) return false;
  for (const Expr& o : e->operands)
    if (!native(o->type)) return false;
  const Type t = e->operands[0]->type;
  switch (e->kind) {
    case ExprKind::kBinary:
      // Integer vector arithmetic wraps in its own type (no promotion), as the scalar code's
      // casts back do; division and modulo need Halide's rounding (helpers).
      return e->binary_op == BinaryOp::kAdd || e->binary_op == BinaryOp::kSub ||
             e->binary_op == BinaryOp::kMul || (e->binary_op == BinaryOp::kDiv && t.is_float());
    case ExprKind::kUnary:
      return e->unary_op == UnaryOp::kNeg;
    case ExprKind::kCast:
      // convert_T wraps integers and rounds to nearest like a C cast; float to integer must
      // saturate (t2s_cvt helpers).
      return !(t.is_float() && !e->type.is_float());
    case ExprKind::kCall:
      return t.is_float() && e->name != "min" && e->name != "max" && e->name != "abs";
    default:
      return false;
  }
}

CCodegen::Printed CCodegen::native_elementwise(const Expr& e) {
  if (e->type.is_tensor()) return tensor_elementwise(e);
  std::vector<Printed> args;
  for (const Expr& o : e->operands) args.push_back(print(o));
  switch (e->kind) {
    case ExprKind::kBinary: {
      const int p = binary_precedence(e->binary_op);
      return {parenthesize_above(args[0].text, args[0].precedence, p) + " " +
                  binary_op_spelling(e->binary_op) + " " +
                  parenthesize_above(args[1].text, args[1].precedence, p - 1),
              p};
    }
    case ExprKind::kUnary:
      return {"-" + parenthesize_above(args[0].text, args[0].precedence, 2), kPrecedenceUnary};
    case ExprKind::kCast:
      return {"convert_" + c_value_type_name(e->type, dialect_, e->loc) + "(" + args[0].text + ")",
              kPrecedenceAtom};
    default: {
      std::vector<std::string> texts;
      for (const Printed& a : args) texts.push_back(a.text);
      return {(e->name == "round" ? "rint" : e->name) + "(" + join(texts, ", ") + ")",
              kPrecedenceAtom};
    }
  }
}

// A native operation on tensors of native rows: a helper of unrolled statements, one native
// operation per row (`t2s_r.data[1] = t2s_0.data[1] + t2s_1.data[1];`).
CCodegen::Printed CCodegen::tensor_elementwise(const Expr& e) {
  const int row = e->type.row_lanes();
  auto row_expr = std::make_shared<ExprNode>(*e);
  row_expr->type = e->type.element_of().with_lanes(row);
  std::vector<Type> params;
  std::vector<std::string> args;
  for (size_t k = 0; k < e->operands.size(); ++k) {
    const Expr& o = e->operands[k];
    params.push_back(o->type);
    args.push_back(print(o).text);
    row_expr->operands[k] =
        make_var("$" + std::to_string(k), o->type.element_of().with_lanes(row), e->loc);
  }
  const std::string name = "t2s_t" + operation_name(e) + "_" + type_suffix(e->operands[0]->type);
  if (!vector_helpers_.count(name)) {
    const std::string result = c_value_type_name(e->type, dialect_);
    std::string text = "static inline " + result + " " + name + "(";
    for (size_t k = 0; k < params.size(); ++k)
      text +=
          (k ? ", " : "") + c_value_type_name(params[k], dialect_) + " t2s_" + std::to_string(k);
    text += ") {\n  " + result + " t2s_r;\n";
    for (int r = 0; r < e->type.lanes / row; ++r) {
      for (size_t k = 0; k < params.size(); ++k)
        lane_operands_.push_back("t2s_" + std::to_string(k) + ".data[" + std::to_string(r) + "]");
      text += "  t2s_r.data[" + std::to_string(r) + "] = " + print(row_expr).text + ";\n";
      lane_operands_.clear();
    }
    text += "  return t2s_r;\n}\n";
    vector_helpers_[name] = text;
  }
  return {call_helper(name, args), kPrecedenceAtom};
}

// Lane l of an elementwise operation is the scalar operation on lane l of its operands: the
// operation printed with placeholders `$k` that stand for them (print() looks them up in
// lane_operands_), once per lane, in a helper that takes the operands.
CCodegen::Printed CCodegen::elementwise(const Expr& e) {
  if (native_opencl(e)) return native_elementwise(e);
  auto scalar = std::make_shared<ExprNode>(*e);
  scalar->type = e->type.element_of();
  std::vector<Type> params;
  std::vector<std::string> args;
  for (size_t k = 0; k < e->operands.size(); ++k) {
    const Expr& o = e->operands[k];
    params.push_back(o->type);
    args.push_back(print(o).text);
    scalar->operands[k] = make_var("$" + std::to_string(k), o->type.element_of(), e->loc);
  }
  // A select's first operand is its (bool) condition: name it by its values' type.
  const Type named = e->operands[e->kind == ExprKind::kSelect ? 1 : 0]->type;
  const std::string name = "t2s_v" + operation_name(e) + "_" + type_suffix(named);
  vector_helper(name, e->type, params, [&](int l) {
    for (size_t k = 0; k < params.size(); ++k)
      lane_operands_.push_back(param_lane(params[k], static_cast<int>(k), l));
    const std::string text = print(scalar).text;
    lane_operands_.clear();
    return text;
  });
  return {call_helper(name, args), kPrecedenceAtom};
}

// ramp, broadcast, slice (of more than one lane) and concat.
CCodegen::Printed CCodegen::vector_op(const Expr& e) {
  const std::vector<Expr>& o = e->operands;
  const Type t = e->type;
  const int lanes = t.lanes;
  if (e->name == "reshape") {  // the same lanes in another shape
    const Expr& from = o.at(0);
    if (is_call_of(from, "concat") &&
        std::all_of(from->operands.begin(), from->operands.end(),
                    [](const Expr& x) { return x->type.lanes == 1 && !has_effects(x); })) {
      std::vector<std::string> lanes;  // the lanes given one by one: a literal of the shape
      for (const Expr& x : from->operands) lanes.push_back(print(x).text);
      return vector_literal(t, lanes);
    }
    const Printed v = print(from);
    if (c_value_type_name(from->type, dialect_, e->loc) == c_value_type_name(t, dialect_, e->loc))
      return v;
    const std::string name = "t2s_reshape_" + type_suffix(o[0]->type) + "_" + type_suffix(t);
    vector_helper(name, t, {o[0]->type}, [&](int l) { return param_lane(o[0]->type, 0, l); });
    return {call_helper(name, {v.text}), kPrecedenceAtom};
  }
  if ((e->name == "ramp" || e->name == "broadcast") && o.at(0)->type.lanes != 1) {
    // Halide's nesting: copy c of the base (lanes c * B .. c * B + B - 1) is base + c * stride
    // for a ramp, the base for a broadcast.
    const Type base = o[0]->type;
    const bool ramp = e->name == "ramp";
    std::vector<std::string> args = {print(o[0]).text};
    std::vector<Type> params = {base};
    if (ramp) {
      args.push_back(print(o[1]).text);
      params.push_back(base);
    }
    const std::string name = "t2s_" + e->name + "_" + type_suffix(t);
    const Type i32 = Type::Int(32);
    vector_helper(name, t, params, [&](int l) {
      const int copy = l / base.lanes, at = l % base.lanes;
      if (!ramp || copy == 0) return param_lane(base, 0, at);
      lane_operands_ = {param_lane(base, 0, at), param_lane(base, 1, at)};
      const Expr step =
          make_binary(BinaryOp::kMul, make_int(i32, copy), make_var("$1", i32, e->loc), i32);
      const std::string text =
          print(make_binary(BinaryOp::kAdd, make_var("$0", i32, e->loc), step, i32)).text;
      lane_operands_.clear();
      return text;
    });
    return {call_helper(name, args), kPrecedenceAtom};
  }
  if (e->name == "ramp") {
    // Lane l is base + l * stride with int32 arithmetic (wrapping, as the scalar code's).
    const std::vector<std::string> args = {print(o.at(0)).text, print(o.at(1)).text};
    const Type i32 = Type::Int(32);
    const Expr base = make_var("$0", i32, e->loc), stride = make_var("$1", i32, e->loc);
    const std::string name = "t2s_ramp_" + type_suffix(t);
    vector_helper(name, t, {i32, i32}, [&](int l) {
      lane_operands_ = {"t2s_0", "t2s_1"};
      const Expr step =
          l == 1 ? stride : make_binary(BinaryOp::kMul, make_int(i32, l), stride, i32);
      const std::string text =
          l == 0 ? "t2s_0" : print(make_binary(BinaryOp::kAdd, base, step, i32)).text;
      lane_operands_.clear();
      return text;
    });
    return {call_helper(name, args), kPrecedenceAtom};
  }
  if (e->name == "broadcast") {
    const Printed v = print(o.at(0));
    if (dialect_ == CDialect::kOpenCl && opencl_native_vector(t))
      return {"(" + c_value_type_name(t, dialect_, e->loc) + ")(" + v.text + ")", kPrecedenceUnary};
    const std::string name = "t2s_broadcast_" + type_suffix(t);
    vector_helper(name, t, {t.element_of()}, [](int) { return std::string("t2s_0"); });
    return {call_helper(name, {v.text}), kPrecedenceAtom};
  }
  if (e->name == "slice") {
    const Printed v = print(o.at(0));
    const Type from = o[0]->type;
    const int begin = static_cast<int>(o.at(1)->int_value);
    if (dialect_ == CDialect::kOpenCl && opencl_native_vector(from) && opencl_native_vector(t)) {
      // A swizzle: v.s4567.
      std::string text = parenthesize_above(v.text, v.precedence, kPrecedencePostfix) + ".s";
      for (int l = 0; l < lanes; ++l) text += "0123456789abcdef"[begin + l];
      return {text, kPrecedencePostfix};
    }
    const std::string name = "t2s_slice_" + type_suffix(from) + "_" + std::to_string(begin) + "_" +
                             std::to_string(lanes);
    vector_helper(name, t, {from}, [&](int l) { return param_lane(from, 0, begin + l); });
    return {call_helper(name, {v.text}), kPrecedenceAtom};
  }
  // concat: a literal of the parts when the language builds one from them (C++: scalars only;
  // OpenCL: native types also take vector parts), else a helper.
  std::vector<std::string> parts;
  std::vector<Type> params;
  bool scalars = true, native = dialect_ == CDialect::kOpenCl && opencl_native_vector(t);
  std::string name = "t2s_concat_" + type_suffix(t.element_of());
  for (const Expr& part : o) {
    parts.push_back(print(part).text);
    params.push_back(part->type);
    scalars = scalars && part->type.lanes == 1;
    native = native && (part->type.lanes == 1 || opencl_native_vector(part->type));
    name += "_" + (part->type.lanes == 1 ? "1" : shape_text(part->type));
  }
  // OpenCL C does not order the operands of a vector literal or a call, so parts with effects
  // (the reads of one channel that make a wider vector) are evaluated first, in order, with the
  // comma operator, into variables declared before the statement (pending_declarations_).
  std::string sequence;
  size_t effects = 0;
  for (const Expr& part : o) effects += has_effects(part) ? 1 : 0;
  if (dialect_ == CDialect::kOpenCl && effects > 1) {
    for (size_t k = 0; k < o.size(); ++k) {
      if (!has_effects(o[k])) continue;
      const std::string temporary = "t2s_part_" + std::to_string(sequenced_++);
      pending_declarations_.push_back(c_value_type_name(o[k]->type, dialect_, e->loc) + " " +
                                      temporary + ";");
      sequence += temporary + " = " + parts[k] + ", ";
      parts[k] = temporary;
    }
  }
  Printed result;
  if (scalars || native) {
    result = vector_literal(t, parts);
  } else {
    vector_helper(name, t, params, [&](int l) {
      size_t k = 0;
      while (l >= params[k].lanes) l -= params[k++].lanes;
      return param_lane(params[k], static_cast<int>(k), l);
    });
    result = {call_helper(name, parts), kPrecedenceAtom};
  }
  if (sequence.empty()) return result;
  return {"(" + sequence + result.text + ")", kPrecedenceAtom};
}

// Whether a Func or input access with these indices reads or writes consecutive elements: the
// first index (the fastest-varying one in every backend's Fortran layout) is `ramp(base, 1, N)`
// and the others are scalars. Sets `first` to the index of lane 0.
bool CCodegen::contiguous(const std::vector<Expr>& index, std::vector<std::string>* first) {
  int64_t stride = 0;
  if (index.empty() || !is_ramp(index[0]) || !constant_int(index[0]->operands.at(1), &stride) ||
      stride != 1)
    return false;
  for (size_t d = 1; d < index.size(); ++d)
    if (index[d]->type.lanes != 1) return false;
  first->clear();
  first->push_back(print(index[0]->operands[0]).text);
  for (size_t d = 1; d < index.size(); ++d) first->push_back(print(index[d]).text);
  return true;
}

// OpenCL: the indices of each row of a tensor access (int32 scalars, or ramps of the row's
// lanes), when every index is of the form index_row takes and has no effects.
bool CCodegen::tensor_rows(const std::vector<Expr>& index, Type type,
                           std::vector<std::vector<Expr>>* rows) {
  const int row = type.row_lanes();
  const Type i32 = Type::Int(32);
  for (const Expr& i : index)
    if (has_effects(i)) return false;
  rows->clear();
  for (int r = 0; r < type.lanes / row; ++r) {
    std::vector<Expr> at;
    for (const Expr& i : index) {
      RowIndex ri;
      if (!index_row(i, r, row, &ri)) return false;
      at.push_back(is_int_literal(ri.stride, 0)
                       ? ri.base
                       : make_call("ramp", CallKind::kIntrinsic, Type::Int(32, row),
                                   {ri.base, ri.stride, make_int(i32, row)}));
    }
    if (std::all_of(at.begin(), at.end(), [](const Expr& x) { return x->type.lanes == 1; }))
      return false;  // a row at one element: not a gather (the per-lane code handles it)
    rows->push_back(at);
  }
  return true;
}

// A read of a Func or an input at vector indices: lane l reads the element at lane l of each
// index (a scalar index is the same for every lane).
CCodegen::Printed CCodegen::gather(const Expr& e) {
  const Input* input = e->call_kind == CallKind::kImage ? program_.find_input(e->name) : nullptr;
  if (e->call_kind == CallKind::kImage && !input)
    throw InternalError("emit: unknown input '" + e->name + "'");
  auto read = [&](const std::vector<std::string>& index) {
    const AccessScope scope(storage_, e.get());  // each element: an access of the gather
    return input ? storage_.read_input(*input, index) : storage_.read_func(e->name, index, e->loc);
  };
  std::vector<std::string> first;
  if (contiguous(e->operands, &first)) {
    const std::string text = input ? storage_.read_input_contiguous(*input, first, e->type)
                                   : storage_.read_func_contiguous(e->name, first, e->type, e->loc);
    if (!text.empty()) return {text, kPrecedenceAtom};
  }
  const std::vector<Expr>& index = e->operands;
  if (dialect_ == CDialect::kOpenCl && opencl_row_tensor(e->type)) {
    // Row by row: each row a gather of a native vector (vloadN where it is contiguous).
    std::vector<std::vector<Expr>> rows;
    if (tensor_rows(index, e->type, &rows)) {
      std::vector<std::string> texts;
      const Type row_type = e->type.element_of().with_lanes(e->type.row_lanes());
      for (const std::vector<Expr>& at : rows)
        texts.push_back(gather(make_call(e->name, e->call_kind, row_type, at, e->loc)).text);
      return tensor_literal(e->type, texts, false);
    }
  }
  std::vector<std::string> reads;
  if (dialect_ == CDialect::kCpp) {
    // An immediately invoked lambda evaluates each index once, in order, then reads the lanes.
    std::string text = "[&] {";
    for (size_t d = 0; d < index.size(); ++d)
      text += " const " + c_value_type_name(index[d]->type, dialect_) + " t2s_" +
              std::to_string(d) + " = " + print(index[d]).text + ";";
    for (int l = 0; l < e->type.lanes; ++l) {
      std::vector<std::string> at;
      for (size_t d = 0; d < index.size(); ++d)
        at.push_back(param_lane(index[d]->type, static_cast<int>(d), l));
      reads.push_back(read(at));
    }
    return {text + " return " + vector_literal(e->type, reads).text + "; }()", kPrecedenceAtom};
  }
  // OpenCL C has no lambdas: each lane's read computes its own index (lane l of a ramp is
  // `base + l * stride`), which is the same as evaluating the index once as long as the index
  // has no effect; one that has is refused.
  std::vector<Printed> printed;
  for (const Expr& i : index) {
    if (has_effects(i))
      throw Diagnostic(loc_,
                       "the opencl target cannot gather from '" + e->name +
                           "' at indices that read a channel or pop a FIFO register (bind the "
                           "index to a let first)",
                       "emit-unsupported");
    printed.push_back(i->type.lanes != 1 && index_lane(i, 0) ? Printed{} : print(i));
  }
  for (int l = 0; l < e->type.lanes; ++l) {
    std::vector<std::string> at;
    for (size_t d = 0; d < index.size(); ++d) {
      const Type t = index[d]->type;
      const Expr scalar = t.lanes == 1 ? nullptr : index_lane(index[d], l);
      at.push_back(scalar         ? print(scalar).text
                   : t.lanes == 1 ? printed[d].text
                                  : lane(printed[d], t, l));
    }
    reads.push_back(read(at));
  }
  return vector_literal(e->type, reads);
}

// A provide at vector indices: a block that evaluates the indices, then the value, then stores
// lane 0, lane 1, ... (a later lane overwrites an earlier one at the same element).
void CCodegen::scatter(const Provide& provide, const SourceLoc& loc, int indent, std::string* out) {
  const Type type = provide.value->type;
  std::vector<std::string> first;
  if (contiguous(provide.args, &first)) {
    const std::vector<std::string> text =
        storage_.write_func_contiguous(provide.func, first, print(provide.value).text, type, loc);
    if (!text.empty()) return lines(text, indent, out);
  }
  std::vector<std::vector<Expr>> rows;
  if (dialect_ == CDialect::kOpenCl && opencl_row_tensor(type) &&
      tensor_rows(provide.args, type, &rows)) {
    // Row by row (vstoreN where a row is contiguous), rows and lanes in order.
    lines({"{", "  const " + c_value_type_name(type, dialect_, loc) +
                    " t2s_v = " + expr(provide.value) + ";"},
          indent, out);
    const Type row_type = type.element_of().with_lanes(type.row_lanes());
    for (size_t r = 0; r < rows.size(); ++r) {
      const std::string value = "t2s_v.data[" + std::to_string(r) + "]";
      std::vector<std::string> first;
      if (contiguous(rows[r], &first)) {
        const std::vector<std::string> text =
            storage_.write_func_contiguous(provide.func, first, value, row_type, loc);
        if (!text.empty()) {
          lines(text, indent + 1, out);
          continue;
        }
      }
      Provide row = provide;
      row.args = rows[r];
      row.value = make_var("t2s_row", row_type, loc);  // printed t2s_row_ (c_identifier)
      lines({"  {", "    const " + c_value_type_name(row_type, dialect_, loc) +
                        " t2s_row_ = t2s_v.data[" + std::to_string(r) + "];"},
            indent, out);
      scatter(row, loc, indent + 2, out);
      lines({"  }"}, indent, out);
    }
    return lines({"}"}, indent, out);
  }
  std::vector<std::string> block = {"{"};
  for (size_t d = 0; d < provide.args.size(); ++d)
    block.push_back("  const " + c_value_type_name(provide.args[d]->type, dialect_, loc) + " t2s_" +
                    std::to_string(d) + " = " + expr(provide.args[d]) + ";");
  const std::string value = "t2s_" + std::to_string(provide.args.size());
  block.push_back("  const " + c_value_type_name(type, dialect_, loc) + " " + value + " = " +
                  expr(provide.value) + ";");
  for (int l = 0; l < type.lanes; ++l) {
    std::vector<std::string> at;
    for (size_t d = 0; d < provide.args.size(); ++d)
      at.push_back(param_lane(provide.args[d]->type, static_cast<int>(d), l));
    const std::string lane_value = lane({value, kPrecedenceAtom}, type, l);
    const AccessScope scope(storage_, &provide);  // each element: an access of the scatter
    for (const std::string& line : storage_.write_func(provide.func, at, lane_value, loc))
      block.push_back("  " + line);
  }
  block.push_back("}");
  lines(block, indent, out);
}

}  // namespace t2s
