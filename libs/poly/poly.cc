#include "libs/poly/poly.h"

#include <isl/cpp.h>
#include <isl/ctx.h>
#include <isl/options.h>

#include <algorithm>
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

namespace {

std::string set_text(const SetText& set) {
  std::string text = "{ [";
  for (size_t i = 0; i < set.vars.size(); ++i) text += (i ? ", " : "") + set.vars[i];
  text += "]";
  for (size_t i = 0; i < set.constraints.size(); ++i)
    text += (i ? " and (" : " : (") + set.constraints[i] + ")";
  return text + " }";
}

// { [keys, time] } for the points of `set`: the keys and time of every point.
std::string keyed_times_text(const SetText& set, const std::vector<std::string>& keys,
                             const std::string& time) {
  std::string text = "{ [";
  for (size_t i = 0; i < set.vars.size(); ++i) text += (i ? ", " : "") + set.vars[i];
  text += "] -> [";
  for (const std::string& k : keys) text += k + ", ";
  text += time + "]";
  for (size_t i = 0; i < set.constraints.size(); ++i)
    text += (i ? " and (" : " : (") + set.constraints[i] + ")";
  return text + " }";
}

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

int64_t to_int64(const isl::val& v, const std::string& what) {
  if (!v.is_int()) throw InternalError("poly: " + what + " is not an integer");
  return v.get_num_si();
}

// The successor function of `set`'s points grouped by `keys`, ordered by `time`.
isl::map successor(const isl::ctx& ctx, const SetText& set, const std::vector<std::string>& keys,
                   const std::string& time, isl::set* points) {
  *points = isl::map(ctx, keyed_times_text(set, keys, time)).range();
  isl::map later(ctx, later_text(keys.size()));
  return later.intersect_domain(*points).intersect_range(*points).lexmin();
}

template <typename F>
auto guarded(const std::string& what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const isl::exception& e) {
    throw InternalError("poly: isl failed on " + what + ": " + e.what());
  }
}

}  // namespace

bool is_empty(const SetText& set) {
  Context ctx;
  const std::string text = set_text(set);
  return guarded(text, [&] { return isl::set(ctx.get(), text).is_empty(); });
}

std::optional<std::vector<int64_t>> sample(const SetText& set) {
  Context ctx;
  const std::string text = set_text(set);
  return guarded(text, [&]() -> std::optional<std::vector<int64_t>> {
    isl::set s(ctx.get(), text);
    if (s.is_empty()) return std::nullopt;
    isl::set point = s.sample_point().as_set();
    std::vector<int64_t> out;
    for (size_t i = 0; i < set.vars.size(); ++i)
      out.push_back(to_int64(point.dim_min_val(static_cast<int>(i)), "a sample coordinate"));
    return out;
  });
}

std::optional<int64_t> single_value(const SetText& set, const std::string& expr) {
  Context ctx;
  const std::string text = keyed_times_text(set, {}, expr);
  return guarded(text, [&]() -> std::optional<int64_t> {
    isl::set values = isl::map(ctx.get(), text).range();
    if (values.is_empty() || !values.is_singleton()) return std::nullopt;
    return to_int64(values.dim_min_val(0), "a value");
  });
}

std::optional<int64_t> uniform_step(const SetText& set, const std::vector<std::string>& keys,
                                    const std::string& time) {
  Context ctx;
  return guarded(keyed_times_text(set, keys, time), [&]() -> std::optional<int64_t> {
    isl::set points;
    isl::set steps = successor(ctx.get(), set, keys, time, &points).deltas();
    if (steps.is_empty()) return 0;
    if (!steps.is_singleton()) return std::nullopt;
    return to_int64(steps.dim_min_val(static_cast<int>(keys.size())), "a time step");
  });
}

namespace {

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

int64_t max_points_within(const SetText& set, const std::vector<std::string>& keys,
                          const std::string& time, int64_t span, int64_t limit) {
  Context ctx;
  return guarded(keyed_times_text(set, keys, time), [&]() -> int64_t {
    isl::set points(ctx.get(), set_text(set));
    if (points.is_empty()) return 0;
    // Pairs (x, y) of points with equal keys and 0 <= time(y) - time(x) <= span; their offsets
    // y - x form a small set E (it does not grow with the number of points), and the window
    // that starts at x holds the points x + e, e in E, that exist.
    isl::map key_time(ctx.get(), keyed_times_text(set, keys, time));
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
    bool too_many = false;
    offsets.foreach_point([&](isl::point p) {
      if (static_cast<int64_t>(offset_list.size()) > limit) {
        too_many = true;
        return;
      }
      std::vector<int64_t> e;
      isl::set one = p.as_set();
      for (size_t d = 0; d < set.vars.size(); ++d)
        e.push_back(to_int64(one.dim_min_val(static_cast<int>(d)), "an offset"));
      offset_list.push_back(e);
    });
    if (too_many) return limit + 1;
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
    // When the points form a box (loop nests always do), every R_e is a box, and the largest
    // overlap of boxes is at a point whose every coordinate is some box's lower corner.
    const size_t dims = set.vars.size();
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
      std::vector<std::vector<int64_t>> corners(dims);
      for (size_t d = 0; d < dims; ++d) {
        for (const std::vector<int64_t>& e : offset_list)
          corners[d].push_back(std::max(lo[d], lo[d] - e[d]));
        std::sort(corners[d].begin(), corners[d].end());
        corners[d].erase(std::unique(corners[d].begin(), corners[d].end()), corners[d].end());
      }
      int64_t best = 0;
      std::vector<size_t> at(dims, 0);
      for (;;) {
        int64_t count = 0;
        for (const std::vector<int64_t>& e : offset_list) {
          bool inside = true;
          for (size_t d = 0; d < dims && inside; ++d) {
            const int64_t x = corners[d][at[d]];
            inside = x >= lo[d] - e[d] && x <= hi[d] - e[d];
          }
          count += inside;
        }
        best = std::max(best, count);
        size_t d = 0;
        while (d < dims && ++at[d] == corners[d].size()) at[d++] = 0;
        if (d == dims) break;
      }
      return best;
    }
    // Otherwise a branch and bound over the regions.
    int64_t best = 0;
    best_overlap(regions, 0, points, 0, &best);
    return best;
  });
}

}  // namespace t2s::poly
