#include "libs/poly/poly.h"

#include <isl/cpp.h>
#include <isl/ctx.h>
#include <isl/options.h>

#include <cctype>
#include <limits>
#include <memory>

#include "libs/ir/diagnostic.h"

namespace t2s::poly {

namespace {

// Owns one isl context; isl reports errors through the C++ bindings' exceptions.
class Context {
 public:
  Context() : ctx_(isl_ctx_alloc()) {
    if (!ctx_) throw InternalError("poly: cannot allocate an isl context");
    isl_options_set_on_error(ctx_, ISL_ON_ERROR_CONTINUE);
  }
  ~Context() { isl_ctx_free(ctx_); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  isl::ctx get() const { return isl::ctx(ctx_); }

 private:
  isl_ctx* ctx_;
};

// Parenthesises compound texts; names and non-negative numbers stay bare.
std::optional<std::string> paren(const std::optional<std::string>& s) {
  if (!s) return s;
  bool simple = !s->empty();
  for (char c : *s) simple = simple && (isalnum(static_cast<unsigned char>(c)) || c == '_');
  return simple ? *s : "(" + *s + ")";
}

}  // namespace

std::optional<std::string> affine_text(const Expr& e, const IslNames& names) {
  if (!e || !e->type.is_integer() || e->type.lanes != 1) return std::nullopt;
  switch (e->kind) {
    case ExprKind::kIntImm:
      return std::to_string(e->int_value);
    case ExprKind::kVar: {
      auto it = names.find(e->name);
      if (it == names.end()) return std::nullopt;
      return it->second;
    }
    case ExprKind::kCast:
      // Only int32 <-> int32-compatible index arithmetic is affine; a narrowing cast wraps.
      if (e->type != Type::Int(32) && e->type != Type::Int(64)) return std::nullopt;
      return affine_text(e->operands[0], names);
    case ExprKind::kUnary:
      if (e->unary_op != UnaryOp::kNeg) return std::nullopt;
      if (auto a = affine_text(e->operands[0], names)) return "-" + *paren(a);
      return std::nullopt;
    case ExprKind::kBinary: {
      const Expr& l = e->operands[0];
      const Expr& r = e->operands[1];
      auto a = affine_text(l, names);
      auto b = affine_text(r, names);
      if (!a || !b) return std::nullopt;
      switch (e->binary_op) {
        case BinaryOp::kAdd:
          return *paren(a) + " + " + *paren(b);
        case BinaryOp::kSub:
          return *paren(a) + " - " + *paren(b);
        case BinaryOp::kMul:
          if (l->kind != ExprKind::kIntImm && r->kind != ExprKind::kIntImm) return std::nullopt;
          return *paren(a) + " * " + *paren(b);
        case BinaryOp::kDiv:
          if (r->kind != ExprKind::kIntImm || r->int_value <= 0) return std::nullopt;
          return "floor(" + *paren(a) + " / " + *b + ")";
        case BinaryOp::kMod:
          if (r->kind != ExprKind::kIntImm || r->int_value <= 0) return std::nullopt;
          return *paren(a) + " mod " + *b;
        default:
          return std::nullopt;
      }
    }
    default:
      return std::nullopt;
  }
}

std::optional<std::string> condition_text(const Expr& e, const IslNames& names) {
  if (!e || !e->type.is_bool() || e->type.lanes != 1) return std::nullopt;
  if (e->kind == ExprKind::kIntImm) return e->int_value ? "1 = 1" : "1 = 0";
  if (e->kind == ExprKind::kUnary && e->unary_op == UnaryOp::kNot) {
    if (auto a = condition_text(e->operands[0], names)) return "not " + *paren(a);
    return std::nullopt;
  }
  if (e->kind != ExprKind::kBinary) return std::nullopt;
  if (e->binary_op == BinaryOp::kAnd || e->binary_op == BinaryOp::kOr) {
    auto a = condition_text(e->operands[0], names);
    auto b = condition_text(e->operands[1], names);
    if (!a || !b) return std::nullopt;
    return *paren(a) + (e->binary_op == BinaryOp::kAnd ? " and " : " or ") + *paren(b);
  }
  if (!is_comparison(e->binary_op)) return std::nullopt;
  auto a = affine_text(e->operands[0], names);
  auto b = affine_text(e->operands[1], names);
  if (!a || !b) return std::nullopt;
  const char* op = nullptr;
  switch (e->binary_op) {
    case BinaryOp::kEQ:
      op = " = ";
      break;
    case BinaryOp::kNE:
      return "not (" + *a + " = " + *b + ")";
    case BinaryOp::kLT:
      op = " < ";
      break;
    case BinaryOp::kLE:
      op = " <= ";
      break;
    case BinaryOp::kGT:
      op = " > ";
      break;
    case BinaryOp::kGE:
      op = " >= ";
      break;
    default:
      return std::nullopt;
  }
  return *a + op + *b;
}

std::optional<std::vector<std::optional<Interval>>> value_ranges(
    const std::vector<std::string>& vars, const std::vector<std::string>& constraints,
    const std::vector<std::string>& exprs) {
  std::string text = "{ [";
  for (size_t i = 0; i < vars.size(); ++i) text += (i ? ", " : "") + vars[i];
  text += "] -> [";
  for (size_t i = 0; i < exprs.size(); ++i) text += (i ? ", " : "") + exprs[i];
  text += "]";
  for (size_t i = 0; i < constraints.size(); ++i)
    text += (i ? " and (" : " : (") + constraints[i] + ")";
  text += " }";
  Context ctx;
  try {
    isl::set range = isl::map(ctx.get(), text).range();
    if (range.is_empty()) return std::nullopt;
    std::vector<std::optional<Interval>> out;
    for (size_t i = 0; i < exprs.size(); ++i) {
      isl::val lo = range.dim_min_val(static_cast<int>(i));
      isl::val hi = range.dim_max_val(static_cast<int>(i));
      if (!lo.is_int() || !hi.is_int()) {
        out.push_back(std::nullopt);
        continue;
      }
      out.push_back(Interval{lo.get_num_si(), hi.get_num_si()});
    }
    return out;
  } catch (const isl::exception& e) {
    throw InternalError(std::string("poly: isl rejected '") + text + "': " + e.what());
  }
}

}  // namespace t2s::poly
