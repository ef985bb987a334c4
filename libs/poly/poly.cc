#include "libs/poly/poly.h"

#include <isl/cpp.h>
#include <isl/ctx.h>
#include <isl/options.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>
#include <memory>

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

template <typename F>
auto guarded(const std::string& what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const isl::exception& e) {
    throw InternalError("poly: isl failed on " + what + ": " + e.what());
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

std::string isl_text(const Set& set) { return Renderer(set.dims()).set(set); }

bool equals_isl_text(const Set& set, const std::string& text) {
  Context ctx;
  const std::string ours = isl_text(set);
  return guarded(ours + " vs " + text,
                 [&] { return isl::set(ctx.get(), ours).is_equal(isl::set(ctx.get(), text)); });
}

namespace {

// { [k..., t] -> [k..., u] : u > t }: same key, later time.
std::string later_text(size_t nkeys) {
  std::string from, to, same;
  for (size_t i = 0; i < nkeys; ++i) {
    from += "k" + std::to_string(i) + ", ";
    to += "q" + std::to_string(i) + ", ";
    same += "q" + std::to_string(i) + " = k" + std::to_string(i) + " and ";
  }
  return "{ [" + from + "t] -> [" + to + "u] : " + same + "u > t }";
}

std::vector<Aff> keys_then_time(const std::vector<Aff>& keys, const Aff& time) {
  std::vector<Aff> out = keys;
  out.push_back(time);
  return out;
}

// The successor function of `set`'s points grouped by `keys`, ordered by `time`.
isl::map successor(const isl::ctx& ctx, const std::string& keyed_times, size_t nkeys,
                   isl::set* points) {
  *points = isl::map(ctx, keyed_times).range();
  isl::map later(ctx, later_text(nkeys));
  return later.intersect_domain(*points).intersect_range(*points).lexmin();
}

}  // namespace

std::optional<std::vector<std::optional<Interval>>> value_ranges(const Set& set,
                                                                 const std::vector<Aff>& exprs) {
  const std::string text = Renderer(set.dims()).values(set, exprs);
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

bool is_empty(const Set& set) {
  Context ctx;
  const std::string text = isl_text(set);
  return guarded(text, [&] { return isl::set(ctx.get(), text).is_empty(); });
}

std::optional<std::vector<int64_t>> sample(const Set& set) {
  Context ctx;
  const std::string text = isl_text(set);
  return guarded(text, [&]() -> std::optional<std::vector<int64_t>> {
    isl::set s(ctx.get(), text);
    if (s.is_empty()) return std::nullopt;
    isl::set point = s.sample_point().as_set();
    std::vector<int64_t> out;
    for (size_t i = 0; i < set.dims().size(); ++i)
      out.push_back(to_int64(point.dim_min_val(static_cast<int>(i)), "a sample coordinate"));
    return out;
  });
}

std::optional<int64_t> single_value(const Set& set, const Aff& expr) {
  Context ctx;
  const std::string text = Renderer(set.dims()).values(set, {expr});
  return guarded(text, [&]() -> std::optional<int64_t> {
    isl::set values = isl::map(ctx.get(), text).range();
    if (values.is_empty() || !values.is_singleton()) return std::nullopt;
    return to_int64(values.dim_min_val(0), "a value");
  });
}

std::optional<int64_t> uniform_step(const Set& set, const std::vector<Aff>& keys, const Aff& time) {
  Context ctx;
  const std::string text = Renderer(set.dims()).values(set, keys_then_time(keys, time));
  return guarded(text, [&]() -> std::optional<int64_t> {
    isl::set points;
    isl::set steps = successor(ctx.get(), text, keys.size(), &points).deltas();
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
  Context ctx;
  const Renderer render(set.dims());
  const std::string keyed_times = render.values(set, keys_then_time(keys, time));
  return guarded(keyed_times, [&]() -> int64_t {
    isl::set points(ctx.get(), render.set(set));
    if (points.is_empty()) return 0;
    // Pairs (x, y) of points with equal keys and 0 <= time(y) - time(x) <= span; their offsets
    // y - x form a small set E (it does not grow with the number of points), and the window
    // that starts at x holds the points x + e, e in E, that exist.
    isl::map key_time(ctx.get(), keyed_times);
    std::string from, to, same;
    for (size_t i = 0; i < keys.size(); ++i) {
      from += "k" + std::to_string(i) + ", ";
      to += "q" + std::to_string(i) + ", ";
      same += "q" + std::to_string(i) + " = k" + std::to_string(i) + " and ";
    }
    isl::map window(ctx.get(), "{ [" + from + "t] -> [" + to + "u] : " + same + "t <= u <= t + " +
                                   std::to_string(span) + " }");
    isl::set offsets = key_time.apply_range(window).apply_range(key_time.reverse()).deltas();
    std::vector<std::vector<int64_t>> offset_list;
    // The enumeration stops at the offset past `limit` (isl would otherwise walk all of E, which
    // grows with the extents: seconds per million offsets).
    struct TooMany {};
    try {
      offsets.foreach_point([&](isl::point p) {
        std::vector<int64_t> e;
        for (size_t d = 0; d < set.dims().size(); ++d)
          e.push_back(to_int64(
              isl::manage(isl_point_get_coordinate_val(p.get(), isl_dim_set, static_cast<int>(d))),
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
    std::string box_text = "{ [";
    for (size_t d = 0; d < dims; ++d)
      box_text += (d ? ", " : "") + std::string("v") + std::to_string(d);
    box_text += "] : ";
    for (size_t d = 0; d < dims; ++d) {
      lo[d] = to_int64(points.dim_min_val(static_cast<int>(d)), "a bound");
      hi[d] = to_int64(points.dim_max_val(static_cast<int>(d)), "a bound");
      box_text += (d ? " and " : "") + std::to_string(lo[d]) + " <= v" + std::to_string(d) +
                  " <= " + std::to_string(hi[d]);
    }
    if (isl::set(ctx.get(), box_text + " }").is_equal(points)) {
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
        out +=
            (d ? ", " : "") + std::string("v") + std::to_string(d) + " + " + std::to_string(e[d]);
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
    for (size_t d = 0; d < dims && volume <= kMaxCountedPoints; ++d) volume *= hi[d] - lo[d] + 1;
    if (volume <= kMaxCountedPoints) {
      std::vector<std::vector<int64_t>> list;
      points.foreach_point([&](isl::point p) {
        std::vector<int64_t> x;
        for (size_t d = 0; d < dims; ++d)
          x.push_back(to_int64(
              isl::manage(isl_point_get_coordinate_val(p.get(), isl_dim_set, static_cast<int>(d))),
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

}  // namespace t2s::poly
