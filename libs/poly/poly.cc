#include "libs/poly/poly.h"

#include <isl/constraint.h>
#include <isl/cpp.h>
#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/stride_info.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <type_traits>

#include "libs/ir/diagnostic.h"
#include "libs/poly/isl_builders.h"
#include "libs/poly/isl_context.h"
#include "libs/poly/poly_internal.h"
#include "libs/poly/poly_testing.h"
#include "libs/poly/small_set_points.h"

namespace t2s::poly {

namespace {

// isl operations one PointCounter's counts may take (isl_ctx_set_max_operations): the counts
// of every testdata design take under 10^5, T2SP's GEMM at KK = 1024 (report_test) under 10^6;
// a hand-edited IR's set that reached minutes (ir_mutation_fuzzer) stops after 1.5 s.
constexpr unsigned long kCountMaxIslOperations = 20000000;
// The most pieces a union counts by inclusion-exclusion (2^n - 1 intersections).
constexpr size_t kMaxExclusionPieces = 4;

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

// `v` if it is an integer int64 holds.
std::optional<int64_t> int64_of(const isl::val& v) {
  if (!v.is_int() || v.lt(isl::val(v.ctx(), INT64_MIN)) || v.gt(isl::val(v.ctx(), INT64_MAX)))
    return std::nullopt;
  return v.get_num_si();
}

}  // namespace

// Sets of at most this many points (in their bounding box) are enumerated; isl answers for the
// others (poly_testing.h changes it, to hold both ways to the same answers).
namespace {
int64_t max_enumerated_points = 4096;
}  // namespace

int64_t set_max_enumerated_points(int64_t points) {
  std::swap(points, max_enumerated_points);
  return points;
}

int64_t enumeration_limit() { return max_enumerated_points; }

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

// An Aff without floor division or modulo as sum(coeff * dim) + constant (nullopt otherwise, or
// when a coefficient grows past 2^40): value_ranges asks isl once for all the expressions that
// differ only by a constant or a sign.
class LinearForm {
 public:
  std::map<std::string, int64_t> coeff;  // no zero entries
  int64_t constant = 0;

  static std::optional<LinearForm> of(const Aff& a) {
    LinearForm f;
    if (!f.add(a, 1)) return std::nullopt;
    for (auto it = f.coeff.begin(); it != f.coeff.end();)
      it = it->second == 0 ? f.coeff.erase(it) : std::next(it);
    return f;
  }

 private:
  static constexpr int64_t kLimit = int64_t{1} << 40;
  static bool small(int64_t v) { return v > -kLimit && v < kLimit; }

  bool add(const Aff& a, int64_t scale) {
    const Aff::Node& n = *a.node_;
    switch (n.kind) {
      case Aff::Node::kConst:
        constant += n.value * scale;
        return small(constant);
      case Aff::Node::kDim:
        coeff[n.name] += scale;
        return small(coeff[n.name]);
      case Aff::Node::kLinear:
        for (size_t i = 0; i < n.coeff.size(); ++i) {
          if (!small(n.coeff[i])) return false;
          coeff[n.dims[i]] += n.coeff[i] * scale;
          if (!small(coeff[n.dims[i]])) return false;
        }
        constant += n.value * scale;
        return small(constant);
      case Aff::Node::kNeg:
        return add(n.ops[0], -scale);
      case Aff::Node::kAdd:
        return add(n.ops[0], scale) && add(n.ops[1], scale);
      case Aff::Node::kSub:
        return add(n.ops[0], scale) && add(n.ops[1], -scale);
      case Aff::Node::kMul: {
        // One operand is a constant (Aff's operator* and from_expr build no other product).
        for (int c = 0; c < 2; ++c) {
          const Aff::Node& k = *n.ops[static_cast<size_t>(c)].node_;
          if (k.kind != Aff::Node::kConst) continue;
          if (!small(k.value) || !small(k.value * scale)) return false;
          return add(n.ops[static_cast<size_t>(1 - c)], k.value * scale);
        }
        return false;
      }
      default:
        return false;
    }
  }
};

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
  // isl is asked about distinct expressions only: linear ones that differ by a constant or a
  // sign share one question (its constant dropped, its sign made positive).
  struct Derived {
    size_t question;
    int64_t sign = 1, constant = 0;  // the value is sign * question's + constant
  };
  std::vector<Aff> questions;
  std::vector<Derived> derived;
  std::map<std::vector<std::pair<std::string, int64_t>>, size_t> asked;
  for (const Aff& e : exprs) {
    std::optional<LinearForm> form = LinearForm::of(e);
    if (!form) {
      derived.push_back({questions.size()});
      questions.push_back(e);
      continue;
    }
    std::vector<std::pair<std::string, int64_t>> key(form->coeff.begin(), form->coeff.end());
    const int64_t sign = !key.empty() && key.front().second < 0 ? -1 : 1;
    for (auto& [dim, c] : key) c *= sign;
    auto [it, added] = asked.emplace(key, questions.size());
    if (added) {
      std::vector<int64_t> coeff;
      std::vector<std::string> dims;
      for (const auto& [dim, c] : key) {
        dims.push_back(dim);
        coeff.push_back(c);
      }
      questions.push_back(Aff::linear(coeff, dims));
    }
    derived.push_back({it->second, sign, form->constant});
  }
  Context ctx;
  const auto text = [&] { return Renderer(set.dims()).values(set, questions); };
  try {
    isl::set range = Builder(ctx.get(), set.dims()).values(set, questions).range();
    if (range.is_empty()) return std::nullopt;
    std::vector<std::optional<Interval>> answers;
    for (size_t i = 0; i < questions.size(); ++i) {
      isl::val lo = range.dim_min_val(static_cast<int>(i));
      isl::val hi = range.dim_max_val(static_cast<int>(i));
      if (!lo.is_int() || !hi.is_int()) {
        answers.push_back(std::nullopt);
        continue;
      }
      answers.push_back(Interval{lo.get_num_si(), hi.get_num_si()});
    }
    std::vector<std::optional<Interval>> out;
    for (const Derived& d : derived) {
      const std::optional<Interval>& a = answers[d.question];
      if (!a) {
        out.push_back(std::nullopt);
      } else if (d.sign > 0) {
        out.push_back(Interval{a->min + d.constant, a->max + d.constant});
      } else {
        out.push_back(Interval{d.constant - a->max, d.constant - a->min});
      }
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
    const std::optional<int64_t> l64 = int64_of(l), h64 = int64_of(h);
    if (!l64 || !h64) return std::nullopt;
    lo[d] = *l64;
    hi[d] = *h64;
    // (The _si variants take an int.)
    box = isl::manage(isl_set_lower_bound_val(box.release(), isl_dim_set, d, l.copy()));
    box = isl::manage(isl_set_upper_bound_val(box.release(), isl_dim_set, d, h.copy()));
    // A count past int64 is no count (the caller's "cannot be counted").
    int64_t extent = 0;
    if (__builtin_sub_overflow(hi[d], lo[d], &extent) || extent == INT64_MAX ||
        __builtin_mul_overflow(product, extent + 1, &product))
      return std::nullopt;
    if (hi[d] > lo[d] && (split < 0 || hi[d] - lo[d] < hi[split] - lo[split])) split = d;
  }
  if (box.is_equal(s)) return product;
  if (split < 0) return std::nullopt;  // one point equals its box: unreachable
  // A dim whose values all lie on a lattice (a time loop where only every other step works:
  // `t % 2 == 0`) is compressed first: x = lo + stride * y is one to one on the set, and the
  // set of the y is a box or needs stride times fewer splits.
  std::optional<isl::multi_aff> compress;
  for (int d = 0; d < dims; ++d) {
    if (hi[d] == lo[d]) continue;
    // Only a constant offset makes a lattice of the dim alone (`t % 3 == i` strides t by 3 at
    // an offset i: not one).
    isl_stride_info* info = isl_set_get_stride_info(s.get(), d);
    if (!info) isl::exception::throw_last_error(s.ctx());
    const isl::val stride_val = isl::manage(isl_stride_info_get_stride(info));
    const isl::aff offset = isl::manage(isl_stride_info_get_offset(info));
    isl_stride_info_free(info);
    const std::optional<int64_t> stride = int64_of(stride_val);
    if (!stride || *stride <= 1 || !offset.is_cst()) continue;
    if (!compress) compress = isl::multi_aff::identity_on_domain(s.get_space());
    compress = compress->set_at(d, compress->at(d).scale(*stride).add_constant(lo[d]));
  }
  if (compress) return count_points(s.preimage(*compress).coalesce(), budget);
  int64_t total = 0;
  for (int64_t v = lo[split]; v <= hi[split]; ++v) {
    isl::set part =
        isl::manage(isl_set_fix_val(s.copy(), isl_dim_set, split, isl::val(s.ctx(), v).release()))
            .coalesce();
    const std::optional<int64_t> n = count_points(part, budget);
    if (!n || __builtin_add_overflow(total, *n, &total)) return std::nullopt;
  }
  return total;
}

}  // namespace

struct PointCounter::State {
  int64_t budget;
  std::unique_ptr<Context> ctx;  // made by the first count isl answers
};

PointCounter::PointCounter(int64_t budget) : state_(new State{budget, nullptr}) {}
PointCounter::~PointCounter() = default;

std::optional<int64_t> count_union_of_images(const std::vector<Image>& pieces, int64_t budget) {
  return PointCounter(budget).count_union_of_images(pieces);
}

std::optional<int64_t> PointCounter::count_union_of_images(const std::vector<Image>& pieces) {
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
  // isl's own work is bounded too: a set with large coefficients (hand-edited IR) can make a
  // single isl operation run for minutes; past the quota the count is unknown, as past `budget`.
  // One context for every count: the quota, like the budget, holds for all of them together.
  if (!state_->ctx) {
    state_->ctx = std::make_unique<Context>();
    isl_ctx_set_max_operations(state_->ctx->get().get(), kCountMaxIslOperations);
  }
  const Context& ctx = *state_->ctx;
  std::string texts;
  try {
    std::optional<isl::set> all;
    std::vector<isl::set> images;
    for (const Image& piece : pieces) {
      texts += Renderer(piece.set.dims()).values(piece.set, piece.exprs) + " ";
      isl::set image = Builder(ctx.get(), piece.set.dims()).values(piece.set, piece.exprs).range();
      images.push_back(image);
      all = all ? all->unite(image) : image;
    }
    const isl::set union_set = all->coalesce();
    // A few pieces that are boxes each (a double buffer's fill and read, a kernel's phases) but
    // whose union is not: inclusion-exclusion over their intersections, boxes too, counts them
    // in 2^n - 1 products, where splitting the union along its dims can take more splits than
    // the budget has (a fill of 10240 of 32768 cycles beside 32768 x 32768 reads).
    if (union_set.n_basic_set() > 1 && images.size() > 1 && images.size() <= kMaxExclusionPieces) {
      std::optional<int64_t> total = 0;
      const size_t n = images.size();
      for (size_t mask = 1; total && mask < (size_t{1} << n); ++mask) {
        std::optional<isl::set> meet;
        for (size_t q = 0; q < n; ++q)
          if (mask & (size_t{1} << q)) meet = meet ? meet->intersect(images[q]) : images[q];
        const std::optional<int64_t> c = count_points(meet->coalesce(), &state_->budget);
        int64_t signed_c = 0;
        if (!c || __builtin_mul_overflow(*c, __builtin_popcountll(mask) % 2 ? 1 : -1, &signed_c) ||
            __builtin_add_overflow(*total, signed_c, &*total))
          total = std::nullopt;
      }
      if (total) return total;
    }
    return count_points(union_set, &state_->budget);
  } catch (const isl::exception_quota&) {
    return std::nullopt;  // the bindings reset the context's error before throwing this
  } catch (const isl::exception& e) {
    if (isl_ctx_last_error(ctx.get().get()) == isl_error_quota) return std::nullopt;
    throw InternalError("poly: isl failed on " + texts + ": " + e.what());
  }
}

}  // namespace t2s::poly
