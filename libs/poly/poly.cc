#include "libs/poly/poly.h"

#include <isl/constraint.h>
#include <isl/cpp.h>
#include <isl/ctx.h>
#include <isl/options.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>
#include <memory>
#include <type_traits>

#include "libs/ir/diagnostic.h"
#include "libs/poly/poly_testing.h"

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
std::string paren(const std::string& s) {
  bool simple = !s.empty();
  for (char c : s) simple = simple && (isalnum(static_cast<unsigned char>(c)) || c == '_');
  return simple ? s : "(" + s + ")";
}

// Runs f; an isl error is an internal error naming the question (`what()`: isl text, made only
// then).
template <typename W, typename F>
auto guarded(W&& what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const isl::exception& e) {
    throw InternalError("poly: isl failed on " + what() + ": " + e.what());
  }
}

int64_t to_int64(const isl::val& v, const std::string& what) {
  if (!v.is_int()) throw InternalError("poly: " + what + " is not an integer");
  return v.get_num_si();
}

}  // namespace

struct Aff::Node {
  enum Kind { kConst, kDim, kLinear, kNeg, kAdd, kSub, kMul, kFloorDiv, kMod } kind;
  int64_t value = 0;              // kConst; the divisor of kFloorDiv and kMod; kLinear's constant
  std::string name;               // kDim
  std::vector<Aff> ops;           // operands
  std::vector<int64_t> coeff;     // kLinear
  std::vector<std::string> dims;  // kLinear
};

struct Cond::Node {
  enum Kind { kBool, kEQ, kNE, kLT, kLE, kGT, kGE, kRange, kNot, kAnd, kOr } kind;
  bool value = false;     // kBool
  std::vector<Aff> affs;  // comparison operands; kRange: lo, x, hi
  std::vector<Cond> ops;  // kNot, kAnd, kOr
};

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

// isl text of Affs, Conds and Sets; the only place that writes isl syntax. Dims get neutral isl
// names by position (v0, v1, ...), so a dim may have any name.
class Renderer {
 public:
  explicit Renderer(const std::vector<std::string>& dims) {
    for (size_t i = 0; i < dims.size(); ++i) {
      if (!isl_.emplace(dims[i], "v" + std::to_string(i)).second)
        throw InternalError("poly: dim '" + dims[i] + "' appears twice in a set");
      list_ += (i ? ", " : "") + isl_[dims[i]];
    }
  }

  std::string aff(const Aff& a) const {
    using N = Aff::Node;
    const N& n = *a.node_;
    switch (n.kind) {
      case N::kConst:
        return std::to_string(n.value);
      case N::kDim:
        return dim(n.name);
      case N::kLinear:
        return linear(n);
      case N::kNeg:
        return "-" + paren(aff(n.ops[0]));
      case N::kAdd:
        return paren(aff(n.ops[0])) + " + " + paren(aff(n.ops[1]));
      case N::kSub:
        return paren(aff(n.ops[0])) + " - " + paren(aff(n.ops[1]));
      case N::kMul: {
        // isl's parser takes a literal factor ("-1 * (x)"), not a parenthesized one ("(-1) * x").
        const N& l = *n.ops[0].node_;
        const N& r = *n.ops[1].node_;
        if (l.kind == N::kConst) return std::to_string(l.value) + " * " + paren(aff(n.ops[1]));
        if (r.kind == N::kConst) return std::to_string(r.value) + " * " + paren(aff(n.ops[0]));
        return paren(aff(n.ops[0])) + " * " + paren(aff(n.ops[1]));
      }
      case N::kFloorDiv:
        return "floor(" + paren(aff(n.ops[0])) + " / " + std::to_string(n.value) + ")";
      case N::kMod:
        return paren(aff(n.ops[0])) + " mod " + std::to_string(n.value);
    }
    throw InternalError("poly: unknown affine expression");
  }

  std::string cond(const Cond& c) const {
    using N = Cond::Node;
    const N& n = *c.node_;
    switch (n.kind) {
      case N::kBool:
        return n.value ? "1 = 1" : "1 = 0";
      case N::kEQ:
        return aff(n.affs[0]) + " = " + aff(n.affs[1]);
      case N::kNE:
        return aff(n.affs[0]) + " != " + aff(n.affs[1]);
      case N::kLT:
        return aff(n.affs[0]) + " < " + aff(n.affs[1]);
      case N::kLE:
        return aff(n.affs[0]) + " <= " + aff(n.affs[1]);
      case N::kGT:
        return aff(n.affs[0]) + " > " + aff(n.affs[1]);
      case N::kGE:
        return aff(n.affs[0]) + " >= " + aff(n.affs[1]);
      case N::kRange:
        return aff(n.affs[0]) + " <= " + aff(n.affs[1]) + " < " + aff(n.affs[2]);
      case N::kNot:
        return "not " + paren(cond(n.ops[0]));
      case N::kAnd:
        return paren(cond(n.ops[0])) + " and " + paren(cond(n.ops[1]));
      case N::kOr:
        return paren(cond(n.ops[0])) + " or " + paren(cond(n.ops[1]));
    }
    throw InternalError("poly: unknown condition");
  }

  // { [dims] : constraints }
  std::string set(const Set& s) const { return "{ [" + list_ + "]" + where(s) + " }"; }

  // { [dims] -> [outs] : constraints }: the values of `outs` at the points of `s`.
  std::string values(const Set& s, const std::vector<Aff>& outs) const {
    std::string text = "{ [" + list_ + "] -> [";
    for (size_t i = 0; i < outs.size(); ++i) text += (i ? ", " : "") + aff(outs[i]);
    return text + "]" + where(s) + " }";
  }

 private:
  std::string dim(const std::string& name) const {
    auto it = isl_.find(name);
    if (it == isl_.end()) throw InternalError("poly: '" + name + "' is not a dim of the set");
    return it->second;
  }

  std::string linear(const Aff::Node& n) const {
    std::string s;
    for (size_t i = 0; i < n.coeff.size(); ++i) {
      if (n.coeff[i] == 0) continue;
      int64_t c = n.coeff[i];
      if (!s.empty()) {
        s += c < 0 ? " - " : " + ";
        c = c < 0 ? -c : c;
      } else if (c < 0) {
        s += "-";
        c = -c;
      }
      s += c == 1 ? dim(n.dims[i]) : std::to_string(c) + " * " + dim(n.dims[i]);
    }
    if (s.empty()) return std::to_string(n.value);
    if (n.value > 0) s += " + " + std::to_string(n.value);
    if (n.value < 0) s += " - " + std::to_string(-n.value);
    return s;
  }

  std::string where(const Set& s) const {
    std::string text;
    for (size_t i = 0; i < s.constraints().size(); ++i)
      text += (i ? " and (" : " : (") + cond(s.constraints()[i]) + ")";
    return text;
  }

  std::map<std::string, std::string> isl_;
  std::string list_;
};

// isl objects of Affs, Conds and Sets, built through isl's API. This is what the questions
// below use: isl's text parser costs about ten times as much (it builds and intersects a set for
// every parenthesised term), which was most of t2s-stt's time. Renderer's text is for messages
// and tests. Dims are positions in a set space without names, as in the text.
class Builder {
 public:
  Builder(isl::ctx ctx, const std::vector<std::string>& dims)
      : ctx_(ctx), space_(isl::manage(isl_space_set_alloc(ctx.get(), 0, dims.size()))) {
    for (size_t i = 0; i < dims.size(); ++i)
      if (!pos_.emplace(dims[i], static_cast<int>(i)).second)
        throw InternalError("poly: dim '" + dims[i] + "' appears twice in a set");
  }

  isl::pw_aff aff(const Aff& a) const {
    using N = Aff::Node;
    const N& n = *a.node_;
    switch (n.kind) {
      case N::kConst:
        return constant(n.value);
      case N::kDim:
        return var(n.name);
      case N::kLinear: {
        isl::pw_aff out = constant(n.value);
        for (size_t i = 0; i < n.coeff.size(); ++i)
          if (n.coeff[i] != 0) out = out.add(var(n.dims[i]).scale(isl::val(ctx_, n.coeff[i])));
        return out;
      }
      case N::kNeg:
        return aff(n.ops[0]).neg();
      case N::kAdd:
        return aff(n.ops[0]).add(aff(n.ops[1]));
      case N::kSub:
        return aff(n.ops[0]).sub(aff(n.ops[1]));
      case N::kMul: {
        const N& l = *n.ops[0].node_;
        const N& r = *n.ops[1].node_;
        if (l.kind == N::kConst) return aff(n.ops[1]).scale(isl::val(ctx_, l.value));
        if (r.kind == N::kConst) return aff(n.ops[0]).scale(isl::val(ctx_, r.value));
        return aff(n.ops[0]).mul(aff(n.ops[1]));
      }
      case N::kFloorDiv:
        return aff(n.ops[0]).scale_down(isl::val(ctx_, n.value)).floor();
      case N::kMod:
        return aff(n.ops[0]).mod(isl::val(ctx_, n.value));
    }
    throw InternalError("poly: unknown affine expression");
  }

  isl::set cond(const Cond& c) const {
    using N = Cond::Node;
    const N& n = *c.node_;
    switch (n.kind) {
      case N::kBool:
        return n.value ? universe() : isl::set::empty(space_);
      case N::kEQ:
        return aff(n.affs[0]).eq_set(aff(n.affs[1]));
      case N::kNE:
        return aff(n.affs[0]).ne_set(aff(n.affs[1]));
      case N::kLT:
        return aff(n.affs[0]).lt_set(aff(n.affs[1]));
      case N::kLE:
        return aff(n.affs[0]).le_set(aff(n.affs[1]));
      case N::kGT:
        return aff(n.affs[0]).gt_set(aff(n.affs[1]));
      case N::kGE:
        return aff(n.affs[0]).ge_set(aff(n.affs[1]));
      case N::kRange: {
        const isl::pw_aff x = aff(n.affs[1]);
        return aff(n.affs[0]).le_set(x).intersect(x.lt_set(aff(n.affs[2])));
      }
      case N::kNot:
        return universe().subtract(cond(n.ops[0]));
      case N::kAnd:
        return cond(n.ops[0]).intersect(cond(n.ops[1]));
      case N::kOr:
        return cond(n.ops[0]).unite(cond(n.ops[1]));
    }
    throw InternalError("poly: unknown condition");
  }

  // Comparisons of affine expressions without floor or mod (a loop's range, mostly) become
  // constraints of one basic set; only the other conditions are sets to intersect, which costs
  // isl a simplification each.
  isl::set set(const Set& s) const {
    isl_basic_set* plain = isl_basic_set_universe(space_.copy());
    isl::set rest = universe();
    for (const Cond& c : s.constraints()) {
      if (is_plain(c))
        plain = add_plain(plain, c);
      else
        rest = rest.intersect(cond(c));
    }
    return isl::manage(isl_set_from_basic_set(plain)).intersect(rest);
  }

  // The values of `outs` at the points of `s`: { [dims] -> [outs] }.
  isl::map values(const Set& s, const std::vector<Aff>& outs) const {
    isl::pw_aff_list list(ctx_, static_cast<int>(outs.size()));
    for (const Aff& o : outs) list = list.add(aff(o));
    isl::space map_space = isl::manage(isl_space_map_from_domain_and_range(
        space_.copy(), isl_space_set_alloc(ctx_.get(), 0, outs.size())));
    isl::multi_pw_aff f =
        isl::manage(isl_multi_pw_aff_from_pw_aff_list(map_space.release(), list.release()));
    return isl::manage(isl_map_from_multi_pw_aff(f.release())).intersect_domain(set(s));
  }

 private:
  static bool is_plain(const Aff& a) {
    using N = Aff::Node;
    const N& n = *a.node_;
    switch (n.kind) {
      case N::kConst:
      case N::kDim:
      case N::kLinear:
        return true;
      case N::kNeg:
        return is_plain(n.ops[0]);
      case N::kAdd:
      case N::kSub:
        return is_plain(n.ops[0]) && is_plain(n.ops[1]);
      case N::kMul:
        return (n.ops[0].node_->kind == N::kConst || n.ops[1].node_->kind == N::kConst) &&
               is_plain(n.ops[0]) && is_plain(n.ops[1]);
      case N::kFloorDiv:
      case N::kMod:
        return false;
    }
    return false;
  }

  static bool is_plain(const Cond& c) {
    using N = Cond::Node;
    const N& n = *c.node_;
    switch (n.kind) {
      case N::kBool:
        return n.value;
      case N::kEQ:
      case N::kLT:
      case N::kLE:
      case N::kGT:
      case N::kGE:
      case N::kRange:
        return std::all_of(n.affs.begin(), n.affs.end(), [](const Aff& a) { return is_plain(a); });
      case N::kAnd:
        return is_plain(n.ops[0]) && is_plain(n.ops[1]);
      case N::kNE:
      case N::kNot:
      case N::kOr:
        return false;
    }
    return false;
  }

  // A plain Aff as an isl_aff.
  isl_aff* plain_aff(const Aff& a) const {
    using N = Aff::Node;
    const N& n = *a.node_;
    isl_local_space* ls = isl_local_space_from_space(space_.copy());
    switch (n.kind) {
      case N::kConst:
        return isl_aff_val_on_domain(ls, isl_val_int_from_si(ctx_.get(), n.value));
      case N::kDim:
        return isl_aff_var_on_domain(ls, isl_dim_set, position(n.name));
      case N::kLinear: {
        isl_aff* out = isl_aff_val_on_domain(ls, isl_val_int_from_si(ctx_.get(), n.value));
        for (size_t i = 0; i < n.coeff.size(); ++i) {
          if (n.coeff[i] == 0) continue;
          isl_aff* v = isl_aff_var_on_domain(isl_local_space_from_space(space_.copy()), isl_dim_set,
                                             position(n.dims[i]));
          out = isl_aff_add(out, isl_aff_scale_val(v, isl_val_int_from_si(ctx_.get(), n.coeff[i])));
        }
        return out;
      }
      default:
        break;
    }
    isl_local_space_free(ls);
    switch (n.kind) {
      case N::kNeg:
        return isl_aff_neg(plain_aff(n.ops[0]));
      case N::kAdd:
        return isl_aff_add(plain_aff(n.ops[0]), plain_aff(n.ops[1]));
      case N::kSub:
        return isl_aff_sub(plain_aff(n.ops[0]), plain_aff(n.ops[1]));
      case N::kMul: {
        const bool left = n.ops[0].node_->kind == N::kConst;
        const int64_t factor = left ? n.ops[0].node_->value : n.ops[1].node_->value;
        return isl_aff_scale_val(plain_aff(n.ops[left ? 1 : 0]),
                                 isl_val_int_from_si(ctx_.get(), factor));
      }
      default:
        throw InternalError("poly: not a plain affine expression");
    }
  }

  // `plain` with the constraints of plain condition c: hi - lo >= 0 (or - 1 when strict), or
  // an equality.
  isl_basic_set* add_plain(isl_basic_set* plain, const Cond& c) const {
    using N = Cond::Node;
    const N& n = *c.node_;
    auto difference = [&](const Aff& lo, const Aff& hi, int64_t minus) {
      isl_aff* d = isl_aff_sub(plain_aff(hi), plain_aff(lo));
      return minus ? isl_aff_add_constant_val(d, isl_val_int_from_si(ctx_.get(), -minus)) : d;
    };
    auto at_least = [&](isl_basic_set* b, const Aff& lo, const Aff& hi, int64_t minus) {
      return isl_basic_set_add_constraint(b, isl_inequality_from_aff(difference(lo, hi, minus)));
    };
    switch (n.kind) {
      case N::kBool:
        return plain;
      case N::kEQ:
        return isl_basic_set_add_constraint(
            plain, isl_equality_from_aff(difference(n.affs[0], n.affs[1], 0)));
      case N::kLT:
        return at_least(plain, n.affs[0], n.affs[1], 1);
      case N::kLE:
        return at_least(plain, n.affs[0], n.affs[1], 0);
      case N::kGT:
        return at_least(plain, n.affs[1], n.affs[0], 1);
      case N::kGE:
        return at_least(plain, n.affs[1], n.affs[0], 0);
      case N::kRange:
        return at_least(at_least(plain, n.affs[0], n.affs[1], 0), n.affs[1], n.affs[2], 1);
      case N::kAnd:
        return add_plain(add_plain(plain, n.ops[0]), n.ops[1]);
      default:
        throw InternalError("poly: not a plain condition");
    }
  }

  unsigned position(const std::string& name) const {
    auto it = pos_.find(name);
    if (it == pos_.end()) throw InternalError("poly: '" + name + "' is not a dim of the set");
    return static_cast<unsigned>(it->second);
  }

  isl::set universe() const { return isl::set::universe(space_); }
  isl::pw_aff constant(int64_t v) const {
    return isl::manage(isl_pw_aff_from_aff(isl_aff_val_on_domain(
        isl_local_space_from_space(space_.copy()), isl_val_int_from_si(ctx_.get(), v))));
  }
  isl::pw_aff var(const std::string& name) const {
    auto it = pos_.find(name);
    if (it == pos_.end()) throw InternalError("poly: '" + name + "' is not a dim of the set");
    return isl::manage(
        isl_pw_aff_from_aff(isl_aff_var_on_domain(isl_local_space_from_space(space_.copy()),
                                                  isl_dim_set, static_cast<unsigned>(it->second))));
  }

  mutable isl::ctx ctx_;  // isl::ctx::get() is not const
  isl::space space_;
  std::map<std::string, int> pos_;
};

// Sets of at most this many points (in their bounding box) are enumerated; isl answers for the
// others (poly_testing.h changes it, to hold both ways to the same answers).
namespace {
int64_t max_enumerated_points = 4096;
}  // namespace

int64_t set_max_enumerated_points(int64_t points) {
  std::swap(points, max_enumerated_points);
  return points;
}

// The points of a small box-shaped set, one by one, without isl: for the questions whose isl
// answer (a parametric lexmin, a relation's deltas) costs far more than looking at a few
// thousand points. Exact: every constraint is evaluated at every point of the bounding box, with
// Halide's (floor) division and modulo, in checked 64-bit arithmetic (a value that leaves int64
// leaves the question to isl).
class SmallSetPoints {
 public:
  explicit SmallSetPoints(const Set& set) {
    const size_t n = set.dims().size();
    for (size_t i = 0; i < n; ++i) pos_[set.dims()[i]] = i;
    lo_.assign(n, 0);
    hi_.assign(n, -1);
    std::vector<bool> bounded(n, false);
    ok_ = true;
    for (const Cond& c : set.constraints())
      if (!is_bound(c, &bounded)) conds_.push_back(compile(c));
    // A range whose bounds depend on dims with constant ranges (a triangle: t < i + 1) bounds
    // its dim by their extremes; the range itself stays a condition of the enumeration.
    for (bool more = true; more && ok_;) {
      more = false;
      for (const Cond& c : set.constraints()) {
        const Cond::Node& node = *c.node_;
        if (node.kind != Cond::Node::kRange || node.affs[1].node_->kind != Aff::Node::kDim)
          continue;
        const size_t d = position(node.affs[1].node_->name);
        if (bounded[d]) continue;
        const std::optional<std::pair<int64_t, int64_t>> lo = extremes(node.affs[0], bounded);
        const std::optional<std::pair<int64_t, int64_t>> hi = extremes(node.affs[2], bounded);
        if (!lo || !hi || hi->second == std::numeric_limits<int64_t>::min()) continue;
        lo_[d] = lo->first;
        hi_[d] = hi->second - 1;
        bounded[d] = more = true;
      }
    }
    // A dim without a range that an equality defines from dims with one (a witness one step
    // earlier: `e == k - 1`) is computed at each point instead of enumerated.
    defined_.resize(n);
    for (const Cond& c : set.constraints()) {
      const Cond::Node& node = *c.node_;
      if (node.kind != Cond::Node::kEQ) continue;
      for (int side = 0; side < 2; ++side) {
        const Aff::Node& x = *node.affs[side].node_;
        if (x.kind != Aff::Node::kDim) continue;
        const size_t d = position(x.name);
        if (bounded[d] || defined_[d]) continue;
        Compiled value = compile(node.affs[1 - side]);
        bool from_ranges = value.linear;
        for (size_t e = 0; from_ranges && e < n; ++e)
          from_ranges = value.coeff[e] == 0 || bounded[e];
        if (from_ranges) defined_[d] = std::move(value);
      }
    }
    for (size_t d = 0; d < n; ++d) lexicographic_ = lexicographic_ && !defined_[d];
    for (size_t d = 0; d < n; ++d) ok_ = ok_ && (bounded[d] || defined_[d]);
    int64_t volume = 1;
    for (size_t d = 0; ok_ && d < n && volume > 0; ++d) {
      if (defined_[d]) continue;
      const int64_t extent = hi_[d] < lo_[d] ? 0 : hi_[d] - lo_[d] + 1;
      if (extent > max_enumerated_points || volume * extent > max_enumerated_points) ok_ = false;
      volume *= extent;
    }
  }

  // Whether the set is small enough (and its constraints simple enough) to be enumerated.
  bool ok() const { return ok_; }
  // Whether for_each visits the points in lexicographic order (no dim is computed from others).
  bool lexicographic() const { return lexicographic_; }

  // A compiled expression of the set's dims: a linear form, or an operation on compiled ones.
  struct Compiled {
    bool linear = true;
    std::vector<int64_t> coeff;  // by dim position (linear)
    int64_t constant = 0;        // linear
    Aff::Node::Kind kind = Aff::Node::kConst;
    int64_t divisor = 0;
    std::vector<Compiled> ops;
  };

  Compiled compile(const Aff& a) {
    using N = Aff::Node;
    const N& n = *a.node_;
    Compiled out;
    out.coeff.assign(lo_.size(), 0);
    switch (n.kind) {
      case N::kConst:
        out.constant = n.value;
        return out;
      case N::kDim:
        out.coeff[position(n.name)] = 1;
        return out;
      case N::kLinear:
        out.constant = n.value;
        for (size_t i = 0; i < n.coeff.size(); ++i)
          out.coeff[position(n.dims[i])] = add(out.coeff[position(n.dims[i])], n.coeff[i]);
        return out;
      default:
        break;
    }
    for (const Aff& o : n.ops) out.ops.push_back(compile(o));
    const bool all_linear =
        std::all_of(out.ops.begin(), out.ops.end(), [](const Compiled& c) { return c.linear; });
    const auto combine = [&](int64_t fa, int64_t fb) {
      out.constant =
          add(mul(fa, out.ops[0].constant), out.ops.size() > 1 ? mul(fb, out.ops[1].constant) : 0);
      for (size_t d = 0; d < out.coeff.size(); ++d)
        out.coeff[d] = add(mul(fa, out.ops[0].coeff[d]),
                           out.ops.size() > 1 ? mul(fb, out.ops[1].coeff[d]) : 0);
      out.ops.clear();
    };
    if (all_linear && n.kind == N::kNeg) {
      combine(-1, 0);
    } else if (all_linear && (n.kind == N::kAdd || n.kind == N::kSub)) {
      combine(1, n.kind == N::kAdd ? 1 : -1);
    } else if (all_linear && n.kind == N::kMul && n.ops[1].node_->kind == N::kConst) {
      combine(n.ops[1].node_->value, 0);
    } else if (all_linear && n.kind == N::kMul && n.ops[0].node_->kind == N::kConst) {
      std::swap(out.ops[0], out.ops[1]);
      combine(n.ops[0].node_->value, 0);
    } else {
      out.linear = false;
      out.kind = n.kind;
      out.divisor = n.value;
    }
    return out;
  }

  // `c` at point x; nullopt when a value leaves int64.
  std::optional<int64_t> eval(const Compiled& c, const std::vector<int64_t>& x) const {
    if (c.linear) {
      int64_t v = c.constant;
      for (size_t d = 0; d < x.size(); ++d) {
        int64_t term;
        if (c.coeff[d] != 0 && (__builtin_mul_overflow(c.coeff[d], x[d], &term) ||
                                __builtin_add_overflow(v, term, &v)))
          return std::nullopt;
      }
      return v;
    }
    std::vector<int64_t> v;
    for (const Compiled& o : c.ops) {
      std::optional<int64_t> e = eval(o, x);
      if (!e) return std::nullopt;
      v.push_back(*e);
    }
    int64_t r = 0;
    switch (c.kind) {
      case Aff::Node::kNeg:
        if (__builtin_sub_overflow(int64_t{0}, v[0], &r)) return std::nullopt;
        return r;
      case Aff::Node::kAdd:
        if (__builtin_add_overflow(v[0], v[1], &r)) return std::nullopt;
        return r;
      case Aff::Node::kSub:
        if (__builtin_sub_overflow(v[0], v[1], &r)) return std::nullopt;
        return r;
      case Aff::Node::kMul:
        if (__builtin_mul_overflow(v[0], v[1], &r)) return std::nullopt;
        return r;
      case Aff::Node::kFloorDiv:  // divisor > 0
        r = v[0] / c.divisor;
        return v[0] % c.divisor != 0 && v[0] < 0 ? r - 1 : r;
      case Aff::Node::kMod:
        r = v[0] % c.divisor;
        return r < 0 ? r + c.divisor : r;
      default:
        throw InternalError("poly: unknown affine expression");
    }
  }

  // Calls f(point) for each point of the set in lexicographic order (dims in order) until f
  // returns true (a function returning void runs on every point); false when a value leaves
  // int64.
  template <typename F>
  bool for_each(F&& f) const {
    const size_t n = lo_.size();
    for (size_t d = 0; d < n; ++d)
      if (!defined_[d] && hi_[d] < lo_[d]) return true;
    std::vector<int64_t> x(lo_);
    while (true) {
      for (size_t d = 0; d < n; ++d) {
        if (!defined_[d]) continue;
        const std::optional<int64_t> v = eval(*defined_[d], x);
        if (!v) return false;
        x[d] = *v;
      }
      bool in = true;
      for (const CompiledCond& c : conds_) {
        std::optional<bool> holds = eval(c, x);
        if (!holds) return false;
        if (!*holds) {
          in = false;
          break;
        }
      }
      if (in) {
        if constexpr (std::is_same_v<decltype(f(x)), bool>) {
          if (f(x)) return true;
        } else {
          f(x);
        }
      }
      size_t d = n;
      while (d > 0 && (defined_[d - 1] || x[d - 1] == hi_[d - 1])) {
        if (!defined_[d - 1]) x[d - 1] = lo_[d - 1];
        --d;
      }
      if (d == 0) return true;
      ++x[d - 1];
    }
  }

 private:
  struct CompiledCond {
    Cond::Node::Kind kind = Cond::Node::kBool;
    bool value = false;
    std::vector<Compiled> affs;
    std::vector<CompiledCond> ops;
  };

  // Checked arithmetic while compiling: an overflow leaves the set to isl.
  int64_t add(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) ok_ = false;
    return r;
  }
  int64_t mul(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) ok_ = false;
    return r;
  }

  size_t position(const std::string& name) const {
    auto it = pos_.find(name);
    if (it == pos_.end()) throw InternalError("poly: '" + name + "' is not a dim of the set");
    return it->second;
  }

  CompiledCond compile(const Cond& c) {
    const Cond::Node& n = *c.node_;
    CompiledCond out;
    out.kind = n.kind;
    out.value = n.value;
    for (const Aff& a : n.affs) out.affs.push_back(compile(a));
    for (const Cond& o : n.ops) out.ops.push_back(compile(o));
    return out;
  }

  // The least and greatest value of `a` over the dims bounded so far, when it is linear in them.
  std::optional<std::pair<int64_t, int64_t>> extremes(const Aff& a,
                                                      const std::vector<bool>& bounded) {
    const Compiled c = compile(a);
    if (!c.linear) return std::nullopt;
    __int128 least = c.constant, greatest = c.constant;
    for (size_t d = 0; d < c.coeff.size(); ++d) {
      if (c.coeff[d] == 0) continue;
      if (!bounded[d] || hi_[d] < lo_[d]) return std::nullopt;
      const __int128 at_lo = static_cast<__int128>(c.coeff[d]) * lo_[d];
      const __int128 at_hi = static_cast<__int128>(c.coeff[d]) * hi_[d];
      least += std::min(at_lo, at_hi);
      greatest += std::max(at_lo, at_hi);
    }
    const __int128 min64 = std::numeric_limits<int64_t>::min();
    const __int128 max64 = std::numeric_limits<int64_t>::max();
    if (least < min64 || greatest > max64) return std::nullopt;
    return std::make_pair(static_cast<int64_t>(least), static_cast<int64_t>(greatest));
  }

  // Whether c is a constant range of one dim (lo <= dim < hi), which the enumeration's bounds
  // take (the intersection of every such range).
  bool is_bound(const Cond& c, std::vector<bool>* bounded) {
    using N = Cond::Node;
    const N& n = *c.node_;
    if (n.kind != N::kRange) return false;
    const Aff::Node& x = *n.affs[1].node_;
    if (x.kind != Aff::Node::kDim) return false;
    auto it = pos_.find(x.name);
    if (it == pos_.end()) return false;
    // The bounds: expressions without dims (a loop's `min + extent`).
    const Compiled lo = compile(n.affs[0]), hi = compile(n.affs[2]);
    auto no_dims = [](const Compiled& c) {
      return c.linear && std::all_of(c.coeff.begin(), c.coeff.end(), [](int64_t v) { return !v; });
    };
    if (!ok_ || !no_dims(lo) || !no_dims(hi)) return false;
    if (hi.constant == std::numeric_limits<int64_t>::min()) return false;
    const size_t d = it->second;
    if (!(*bounded)[d]) {
      lo_[d] = lo.constant;
      hi_[d] = hi.constant - 1;
      (*bounded)[d] = true;
    } else {
      lo_[d] = std::max(lo_[d], lo.constant);
      hi_[d] = std::min(hi_[d], hi.constant - 1);
    }
    return true;
  }

  std::optional<bool> eval(const CompiledCond& c, const std::vector<int64_t>& x) const {
    using N = Cond::Node;
    switch (c.kind) {
      case N::kBool:
        return c.value;
      case N::kNot: {
        auto a = eval(c.ops[0], x);
        if (!a) return std::nullopt;
        return !*a;
      }
      case N::kAnd:
      case N::kOr: {
        auto a = eval(c.ops[0], x);
        if (!a) return std::nullopt;
        if (*a == (c.kind == N::kOr)) return *a;
        return eval(c.ops[1], x);
      }
      default:
        break;
    }
    int64_t v[3] = {0, 0, 0};
    for (size_t i = 0; i < c.affs.size() && i < 3; ++i) {
      auto e = eval(c.affs[i], x);
      if (!e) return std::nullopt;
      v[i] = *e;
    }
    switch (c.kind) {
      case N::kEQ:
        return v[0] == v[1];
      case N::kNE:
        return v[0] != v[1];
      case N::kLT:
        return v[0] < v[1];
      case N::kLE:
        return v[0] <= v[1];
      case N::kGT:
        return v[0] > v[1];
      case N::kGE:
        return v[0] >= v[1];
      case N::kRange:
        return v[0] <= v[1] && v[1] < v[2];
      default:
        throw InternalError("poly: unknown condition");
    }
  }

  std::map<std::string, size_t> pos_;
  std::vector<int64_t> lo_, hi_;
  std::vector<CompiledCond> conds_;
  std::vector<std::optional<Compiled>> defined_;  // dims computed from the enumerated ones
  bool ok_ = false;
  bool lexicographic_ = true;
};

std::string isl_text(const Set& set) { return Renderer(set.dims()).set(set); }

bool equals_isl_text(const Set& set, const std::string& text) {
  Context ctx;
  const std::string ours = isl_text(set);
  return guarded([&] { return ours + " vs " + text; },
                 [&] { return isl::set(ctx.get(), ours).is_equal(isl::set(ctx.get(), text)); });
}

namespace {

// { [k..., t] -> [k..., u] }: pairs of keyed times with the same keys (`nkeys` of them).
isl::map same_keys(isl::ctx ctx, size_t nkeys) {
  isl_map* m = isl_map_universe(isl_space_alloc(ctx.get(), 0, nkeys + 1, nkeys + 1));
  for (size_t i = 0; i < nkeys; ++i)
    m = isl_map_equate(m, isl_dim_in, static_cast<int>(i), isl_dim_out, static_cast<int>(i));
  return isl::manage(m);
}

// Same keys, a later time: u > t.
isl::map later_time(isl::ctx ctx, size_t nkeys) {
  const int t = static_cast<int>(nkeys);
  return isl::manage(
      isl_map_order_lt(same_keys(ctx, nkeys).release(), isl_dim_in, t, isl_dim_out, t));
}

// Same keys, t <= u <= t + span.
isl::map time_window(isl::ctx ctx, size_t nkeys, int64_t span) {
  const int t = static_cast<int>(nkeys);
  isl_map* m = isl_map_order_le(same_keys(ctx, nkeys).release(), isl_dim_in, t, isl_dim_out, t);
  isl_constraint* c =
      isl_constraint_alloc_inequality(isl_local_space_from_space(isl_map_get_space(m)));
  c = isl_constraint_set_coefficient_si(c, isl_dim_in, t, 1);
  c = isl_constraint_set_coefficient_si(c, isl_dim_out, t, -1);
  c = isl_constraint_set_constant_val(c, isl_val_int_from_si(ctx.get(), span));
  return isl::manage(isl_map_add_constraint(m, c));
}

std::vector<Aff> keys_then_time(const std::vector<Aff>& keys, const Aff& time) {
  std::vector<Aff> out = keys;
  out.push_back(time);
  return out;
}

// The successor function of `set`'s points grouped by `keys`, ordered by `time`.
isl::map successor(isl::ctx ctx, const isl::map& keyed_times, size_t nkeys, isl::set* points) {
  *points = keyed_times.range();
  return later_time(ctx, nkeys).intersect_domain(*points).intersect_range(*points).lexmin();
}

}  // namespace

std::optional<std::vector<std::optional<Interval>>> value_ranges(const Set& set,
                                                                 const std::vector<Aff>& exprs) {
  SmallSetPoints small(set);
  std::vector<SmallSetPoints::Compiled> compiled;
  for (const Aff& e : exprs)
    if (small.ok()) compiled.push_back(small.compile(e));
  if (small.ok()) {
    std::vector<Interval> ranges;
    bool fits = true, any = false;
    fits = small.for_each([&](const std::vector<int64_t>& x) {
      for (size_t i = 0; i < compiled.size() && fits; ++i) {
        const std::optional<int64_t> v = small.eval(compiled[i], x);
        fits = v.has_value();
        if (!fits) break;
        if (!any) ranges.push_back(Interval{*v, *v});
        ranges[i].min = std::min(ranges[i].min, *v);
        ranges[i].max = std::max(ranges[i].max, *v);
      }
      any = true;
    }) && fits;
    if (fits) {
      if (!any) return std::nullopt;
      return std::vector<std::optional<Interval>>(ranges.begin(), ranges.end());
    }
  }
  Context ctx;
  const auto text = [&] { return Renderer(set.dims()).values(set, exprs); };
  try {
    isl::set range = Builder(ctx.get(), set.dims()).values(set, exprs).range();
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
    throw InternalError(std::string("poly: isl rejected '") + text() + "': " + e.what());
  }
}

bool is_empty(const Set& set) {
  const SmallSetPoints small(set);
  if (small.ok()) {
    bool any = false;
    if (small.for_each([&](const std::vector<int64_t>&) { return any = true; })) return !any;
  }
  Context ctx;
  return guarded([&] { return isl_text(set); },
                 [&] { return Builder(ctx.get(), set.dims()).set(set).is_empty(); });
}

std::optional<std::vector<int64_t>> sample(const Set& set) {
  // The enumeration's order is lexicographic: its first point is the lexmin.
  const SmallSetPoints small(set);
  if (small.ok() && small.lexicographic()) {
    std::optional<std::vector<int64_t>> first;
    if (small.for_each([&](const std::vector<int64_t>& x) {
          first = x;
          return true;
        }))
      return first;
  }
  Context ctx;
  return guarded(
      [&] { return isl_text(set); },
      [&]() -> std::optional<std::vector<int64_t>> {
        isl::set s = Builder(ctx.get(), set.dims()).set(set);
        if (s.is_empty()) return std::nullopt;
        // The lexicographically first point: a witness that does not depend on how isl built or
        // simplified the set (error messages name it).
        isl::set point = s.lexmin();
        std::vector<int64_t> out;
        for (size_t i = 0; i < set.dims().size(); ++i)
          out.push_back(to_int64(point.dim_min_val(static_cast<int>(i)), "a sample coordinate"));
        return out;
      });
}

std::optional<int64_t> single_value(const Set& set, const Aff& expr) {
  Context ctx;
  return guarded([&] { return Renderer(set.dims()).values(set, {expr}); },
                 [&]() -> std::optional<int64_t> {
                   isl::set values = Builder(ctx.get(), set.dims()).values(set, {expr}).range();
                   if (values.is_empty() || !values.is_singleton()) return std::nullopt;
                   return to_int64(values.dim_min_val(0), "a value");
                 });
}

std::optional<int64_t> uniform_step(const Set& set, const std::vector<Aff>& keys, const Aff& time) {
  // A small box: sort the keyed times and look at each one's successor.
  SmallSetPoints small(set);
  if (small.ok()) {
    std::vector<SmallSetPoints::Compiled> outs;
    for (const Aff& o : keys_then_time(keys, time)) outs.push_back(small.compile(o));
    std::vector<std::vector<int64_t>> keyed;
    bool fits = small.ok();
    fits = small.for_each([&](const std::vector<int64_t>& x) {
      std::vector<int64_t> k;
      for (const SmallSetPoints::Compiled& o : outs)
        if (auto v = small.eval(o, x)) k.push_back(*v);
      fits = fits && k.size() == outs.size();
      keyed.push_back(k);
    }) && fits;
    if (fits) {
      std::sort(keyed.begin(), keyed.end());
      keyed.erase(std::unique(keyed.begin(), keyed.end()), keyed.end());
      std::optional<int64_t> step;
      for (size_t i = 1; i < keyed.size(); ++i) {
        if (!std::equal(keyed[i].begin(), keyed[i].end() - 1, keyed[i - 1].begin())) continue;
        const int64_t d = keyed[i].back() - keyed[i - 1].back();
        if (step && *step != d) return std::nullopt;
        step = d;
      }
      return step ? *step : 0;
    }
  }
  Context ctx;
  const std::vector<Aff> outs = keys_then_time(keys, time);
  return guarded([&] { return Renderer(set.dims()).values(set, outs); },
                 [&]() -> std::optional<int64_t> {
                   isl::set points;
                   isl::set steps =
                       successor(ctx.get(), Builder(ctx.get(), set.dims()).values(set, outs),
                                 keys.size(), &points)
                           .deltas();
                   if (steps.is_empty()) return 0;
                   if (!steps.is_singleton()) return std::nullopt;
                   return to_int64(steps.dim_min_val(static_cast<int>(keys.size())), "a time step");
                 });
}

namespace {

// max_points_within counts the window of every point of a set that is not a box when its
// bounding box holds at most this many points.
constexpr int64_t kMaxCountedPoints = int64_t{1} << 18;

// Branch and bound over the offsets: the largest number of `regions` (sets of points) that share
// a point, given that `chosen` (non-empty) already share the points `common`.
void best_overlap(const std::vector<isl::set>& regions, size_t next, const isl::set& common,
                  int64_t chosen, int64_t* best) {
  if (chosen > *best) *best = chosen;
  for (size_t e = next; e < regions.size(); ++e) {
    if (chosen + static_cast<int64_t>(regions.size() - e) <= *best) return;
    isl::set both = common.intersect(regions[e]);
    if (!both.is_empty()) best_overlap(regions, e + 1, both, chosen + 1, best);
  }
}

}  // namespace

int64_t max_points_within(const Set& set, const std::vector<Aff>& keys, const Aff& time,
                          int64_t span, int64_t limit, int64_t* enumerated) {
  if (enumerated) *enumerated = 0;
  // A small box: each key's times sorted, and the most that lie within span of one of them.
  SmallSetPoints small(set);
  if (small.ok()) {
    std::vector<SmallSetPoints::Compiled> compiled_keys;
    for (const Aff& key : keys) compiled_keys.push_back(small.compile(key));
    const SmallSetPoints::Compiled compiled_time = small.compile(time);
    std::map<std::vector<int64_t>, std::vector<int64_t>> times;
    bool fits = small.ok();
    fits = small.for_each([&](const std::vector<int64_t>& x) {
      std::vector<int64_t> k;
      for (const SmallSetPoints::Compiled& key : compiled_keys)
        if (auto v = small.eval(key, x)) k.push_back(*v);
      const std::optional<int64_t> t = small.eval(compiled_time, x);
      fits = fits && t && k.size() == keys.size();
      if (fits) times[k].push_back(*t);
    }) && fits;
    if (fits) {
      int64_t best = 0;
      for (auto& [key, list] : times) {
        std::sort(list.begin(), list.end());
        for (auto it = list.begin(); it != list.end(); ++it) {
          const auto first = std::lower_bound(list.begin(), it, *it);
          const auto past = std::upper_bound(it, list.end(), *it + span);
          best = std::max<int64_t>(best, past - first);
        }
      }
      return std::min(best, limit + 1);
    }
  }
  Context ctx;
  const std::vector<Aff> outs = keys_then_time(keys, time);
  return guarded(
      [&] { return Renderer(set.dims()).values(set, outs); },
      [&]() -> int64_t {
        // Pairs (x, y) of points with equal keys and 0 <= time(y) - time(x) <= span; their offsets
        // y - x form a small set E (it does not grow with the number of points), and the window
        // that starts at x holds the points x + e, e in E, that exist.
        const isl::map key_time = Builder(ctx.get(), set.dims()).values(set, outs);
        const isl::set points = key_time.domain();
        if (points.is_empty()) return 0;
        const isl::map window = time_window(ctx.get(), keys.size(), span);
        isl::set offsets = key_time.apply_range(window).apply_range(key_time.reverse()).deltas();
        std::vector<std::vector<int64_t>> offset_list;
        // The enumeration stops at the offset past `limit` (isl would otherwise walk all of E,
        // which grows with the extents: seconds per million offsets).
        struct TooMany {};
        try {
          offsets.foreach_point([&](isl::point p) {
            std::vector<int64_t> e;
            for (size_t d = 0; d < set.dims().size(); ++d)
              e.push_back(to_int64(isl::manage(isl_point_get_coordinate_val(p.get(), isl_dim_set,
                                                                            static_cast<int>(d))),
                                   "an offset"));
            offset_list.push_back(e);
            if (static_cast<int64_t>(offset_list.size()) > limit) throw TooMany{};
          });
        } catch (const TooMany&) {
        }
        if (enumerated) *enumerated = static_cast<int64_t>(offset_list.size());
        if (static_cast<int64_t>(offset_list.size()) > limit) return limit + 1;
        // When the points form a box (loop nests always do), the points x whose window holds x + e
        // form a box too, [lo - e, hi - e] within [lo, hi], so the answer is arithmetic on the
        // offsets, without an isl set per offset (which made the time grow with the window).
        const size_t dims = set.dims().size();
        std::vector<int64_t> lo(dims), hi(dims);
        isl_set* box = isl_set_universe(points.get_space().release());
        for (size_t d = 0; d < dims; ++d) {
          const isl::val low = points.dim_min_val(static_cast<int>(d));
          const isl::val high = points.dim_max_val(static_cast<int>(d));
          lo[d] = to_int64(low, "a bound");
          hi[d] = to_int64(high, "a bound");
          box = isl_set_lower_bound_val(box, isl_dim_set, static_cast<unsigned>(d), low.copy());
          box = isl_set_upper_bound_val(box, isl_dim_set, static_cast<unsigned>(d), high.copy());
        }
        if (isl::manage(box).is_equal(points)) {
          // Usually one point's window holds every offset: the boxes of all offsets meet (E holds
          // the offset 0, so their meet lies within [lo, hi]).
          bool meet = true;
          for (size_t d = 0; d < dims && meet; ++d) {
            int64_t low = lo[d], high = hi[d];
            for (const std::vector<int64_t>& e : offset_list) {
              low = std::max(low, lo[d] - e[d]);
              high = std::min(high, hi[d] - e[d]);
            }
            meet = low <= high;
          }
          if (meet) return static_cast<int64_t>(offset_list.size());
          // Else the largest overlap of the boxes is at a point whose every coordinate is the lower
          // corner of one of the boxes that hold it: a branch and bound, one dimension at a time,
          // over the lower corners of the boxes still in play, which keeps only the boxes that
          // hold that coordinate (the number of boxes bounds what a branch can still find).
          int64_t best = 0;
          std::function<void(size_t, const std::vector<const std::vector<int64_t>*>&)> overlap =
              [&](size_t d, const std::vector<const std::vector<int64_t>*>& boxes) {
                if (static_cast<int64_t>(boxes.size()) <= best) return;
                if (d == dims) {
                  best = static_cast<int64_t>(boxes.size());
                  return;
                }
                std::vector<int64_t> corners;
                for (const std::vector<int64_t>* e : boxes)
                  corners.push_back(std::max(lo[d], lo[d] - (*e)[d]));
                std::sort(corners.begin(), corners.end());
                corners.erase(std::unique(corners.begin(), corners.end()), corners.end());
                for (const int64_t x : corners) {
                  std::vector<const std::vector<int64_t>*> kept;
                  for (const std::vector<int64_t>* e : boxes)
                    if (x >= lo[d] - (*e)[d] && x <= hi[d] - (*e)[d]) kept.push_back(e);
                  overlap(d + 1, kept);
                }
              };
          std::vector<const std::vector<int64_t>*> boxes;
          for (const std::vector<int64_t>& e : offset_list) boxes.push_back(&e);
          overlap(0, boxes);
          return best;
        }
        // R_e: the points x whose window holds x + e.
        std::vector<isl::set> regions;
        for (const std::vector<int64_t>& e : offset_list) {
          std::string in, out;
          for (size_t d = 0; d < e.size(); ++d) {
            in += (d ? ", " : "") + std::string("v") + std::to_string(d);
            out += (d ? ", " : "") + std::string("v") + std::to_string(d) + " + " +
                   std::to_string(e[d]);
          }
          isl::map shift(ctx.get(), "{ [" + in + "] -> [" + out + "] }");
          regions.push_back(points.intersect(points.apply(shift.reverse())));
        }
        // Usually one point's window holds every offset.
        isl::set all = points;
        for (const isl::set& r : regions) all = all.intersect(r);
        if (!all.is_empty()) return static_cast<int64_t>(regions.size());
        // Otherwise, when the bounding box holds few points, count each point's window (points
        // times offsets, each a binary search); else a branch and bound over the regions, which
        // may take time exponential in the number of offsets.
        int64_t volume = 1;
        for (size_t d = 0; d < dims && volume <= kMaxCountedPoints; ++d)
          volume *= hi[d] - lo[d] + 1;
        if (volume <= kMaxCountedPoints) {
          std::vector<std::vector<int64_t>> list;
          points.foreach_point([&](isl::point p) {
            std::vector<int64_t> x;
            for (size_t d = 0; d < dims; ++d)
              x.push_back(to_int64(isl::manage(isl_point_get_coordinate_val(p.get(), isl_dim_set,
                                                                            static_cast<int>(d))),
                                   "a point"));
            list.push_back(x);
          });
          std::sort(list.begin(), list.end());
          int64_t best = 0;
          std::vector<int64_t> y(dims);
          for (const std::vector<int64_t>& x : list) {
            int64_t count = 0;
            for (const std::vector<int64_t>& e : offset_list) {
              for (size_t d = 0; d < dims; ++d) y[d] = x[d] + e[d];
              count += std::binary_search(list.begin(), list.end(), y);
            }
            best = std::max(best, count);
          }
          return best;
        }
        int64_t best = 0;
        best_overlap(regions, 0, points, 0, &best);
        return best;
      });
}

namespace {

// The points of `s`, or nullopt when the budget runs out or a dim is unbounded (count_points).
std::optional<int64_t> count_points(const isl::set& s, int64_t* budget) {
  if (s.is_empty()) return 0;
  if (--*budget < 0) return std::nullopt;
  const int dims = static_cast<int>(s.tuple_dim());
  std::vector<int64_t> lo(dims), hi(dims);
  isl::set box = isl::set::universe(s.get_space());
  int64_t product = 1;
  int split = -1;
  for (int d = 0; d < dims; ++d) {
    const isl::val l = s.dim_min_val(d), h = s.dim_max_val(d);
    if (!l.is_int() || !h.is_int()) return std::nullopt;
    lo[d] = l.get_num_si();
    hi[d] = h.get_num_si();
    box = isl::manage(isl_set_lower_bound_si(box.release(), isl_dim_set, d, lo[d]));
    box = isl::manage(isl_set_upper_bound_si(box.release(), isl_dim_set, d, hi[d]));
    product *= hi[d] - lo[d] + 1;
    if (hi[d] > lo[d] && (split < 0 || hi[d] - lo[d] < hi[split] - lo[split])) split = d;
  }
  if (box.is_equal(s)) return product;
  if (split < 0) return std::nullopt;  // one point equals its box: unreachable
  int64_t total = 0;
  for (int64_t v = lo[split]; v <= hi[split]; ++v) {
    isl::set part = isl::manage(isl_set_fix_si(s.copy(), isl_dim_set, split, v)).coalesce();
    const std::optional<int64_t> n = count_points(part, budget);
    if (!n) return std::nullopt;
    total += *n;
  }
  return total;
}

}  // namespace

std::optional<int64_t> count_union_of_images(const std::vector<Image>& pieces, int64_t budget) {
  if (pieces.empty()) return 0;
  // Small pieces: their images' points, sorted, counted once each.
  {
    std::vector<std::vector<int64_t>> points;
    bool small_enough = true;
    for (const Image& piece : pieces) {
      SmallSetPoints small(piece.set);
      std::vector<SmallSetPoints::Compiled> exprs;
      for (const Aff& e : piece.exprs)
        if (small.ok()) exprs.push_back(small.compile(e));
      bool fits = small.ok();
      fits = fits && small.for_each([&](const std::vector<int64_t>& x) {
        std::vector<int64_t> y;
        for (const SmallSetPoints::Compiled& e : exprs)
          if (auto v = small.eval(e, x)) y.push_back(*v);
        fits = fits && y.size() == exprs.size();
        points.push_back(std::move(y));
      });
      if (!fits) {
        small_enough = false;
        break;
      }
    }
    if (small_enough) {
      std::sort(points.begin(), points.end());
      return static_cast<int64_t>(std::unique(points.begin(), points.end()) - points.begin());
    }
  }
  Context ctx;
  std::string texts;
  try {
    std::optional<isl::set> all;
    for (const Image& piece : pieces) {
      texts += Renderer(piece.set.dims()).values(piece.set, piece.exprs) + " ";
      isl::set image = Builder(ctx.get(), piece.set.dims()).values(piece.set, piece.exprs).range();
      all = all ? all->unite(image) : image;
    }
    return count_points(all->coalesce(), &budget);
  } catch (const isl::exception& e) {
    throw InternalError("poly: isl failed on " + texts + ": " + e.what());
  }
}

}  // namespace t2s::poly
