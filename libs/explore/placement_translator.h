// Internal to t2s-explore's placement search (placement_search.cc): the translation search of
// section 3.5.7 (the bounding-box construction, compaction and the exact branch and bound), its
// geometry (lines and grids of candidate translations, the cone of the vectors so far) and its
// state, Translator, whose methods placement_translator.cc defines.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

#include "libs/explore/cone.h"
#include "libs/explore/placement_search.h"

namespace t2s::explore::placement_internal {

using Matrix = std::vector<std::vector<int64_t>>;

inline Point times(const Matrix& m, const Point& x) {
  Point y(m.size(), 0);
  for (size_t r = 0; r < m.size(); ++r)
    for (size_t c = 0; c < x.size(); ++c) y[r] += m[r][c] * x[c];
  return y;
}

constexpr int64_t kNone = INT64_MAX / 4;

struct PointHash {
  size_t operator()(const Point& x) const {
    size_t h = 0;
    for (int64_t v : x) h = h * 1000003u ^ static_cast<size_t>(v);
    return h;
  }
};

inline bool is_zero(const Point& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0; });
}

inline int64_t dot(const Point& a, const Point& b) {
  int64_t s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

inline Point primitive(Point v) {
  int64_t g = 0;
  for (int64_t x : v) g = std::gcd(g, std::llabs(x));
  if (g > 1)
    for (int64_t& x : v) x /= g;
  return v;
}

// `rows` is an echelon basis (each row zero at the pivots, first non-zero entries, of the rows
// before it): true when x lies in its span, else x reduced joins it.
inline bool extend_span(std::vector<Point>* rows, Point x) {
  for (const Point& r : *rows) {
    size_t p = 0;
    while (r[p] == 0) ++p;
    if (x[p] == 0) continue;
    const int64_t a = r[p], b = x[p];
    for (size_t d = 0; d < x.size(); ++d) {
      __int128 v = static_cast<__int128>(a) * x[d] - static_cast<__int128>(b) * r[d];
      if (v > INT64_MAX || v < INT64_MIN)
        throw std::overflow_error("--place: a number is too large for exact arithmetic");
      x[d] = static_cast<int64_t>(v);
    }
    x = primitive(std::move(x));
  }
  if (is_zero(x)) return true;
  rows->push_back(std::move(x));
  return false;
}

// One dim's cost as a function of one coordinate tau in [lo, hi]: the sum of w |tau - a| over
// its points, a convex function. Its values are produced cheapest first, lazily: from the
// weighted median (clamped to the range; `home` when there are no points) outwards.
class Line {
 public:
  Line(const std::map<int64_t, int64_t>& points, int64_t lo, int64_t hi, int64_t home)
      : points_(points.begin(), points.end()), lo_(lo), hi_(hi) {
    if (lo > hi) return;
    int64_t m = home, all = 0, acc = 0;
    for (const auto& [a, w] : points_) all += w;
    for (const auto& [a, w] : points_)
      if ((acc += w) * 2 >= all) {
        m = a;
        break;
      }
    mid_ = std::clamp(m, lo, hi);
    seq_.push_back({cost(mid_), mid_});
    left_ = mid_ - 1;
    right_ = mid_ + 1;
  }
  int64_t cost(int64_t tau) const {
    int64_t c = 0;
    for (const auto& [a, w] : points_) c += w * std::llabs(tau - a);
    return c;
  }
  // Whether there is an n-th cheapest value (n from 0); computes it.
  bool has(size_t n) {
    while (seq_.size() <= n) {
      const bool l = left_ >= lo_, r = right_ <= hi_;
      if (!l && !r) return false;
      const int64_t cl = l ? cost(left_) : 0, cr = r ? cost(right_) : 0;
      if (l && (!r || cl < cr || (cl == cr && mid_ - left_ <= right_ - mid_)))
        seq_.push_back({cl, left_--});
      else
        seq_.push_back({cr, right_++});
    }
    return true;
  }
  const std::pair<int64_t, int64_t>& at(size_t n) const { return seq_[n]; }

 private:
  std::vector<std::pair<int64_t, int64_t>> points_;
  int64_t lo_, hi_, mid_ = 0, left_ = 0, right_ = -1;
  std::vector<std::pair<int64_t, int64_t>> seq_;  // cost, tau
};

// The points of a box, one Line per dim, cheapest sum first (best first over the lines: a tuple
// of indices is reached from the one with its last non-zero index lowered, so each once).
class Grid {
 public:
  explicit Grid(std::vector<Line> lines) : lines_(std::move(lines)) {
    for (Line& l : lines_)
      if (!l.has(0)) return;
    push(std::vector<uint32_t>(lines_.size(), 0));
  }
  bool next(int64_t* cost, Point* x) {
    if (queue_.empty()) return false;
    Entry e = queue_.top();
    queue_.pop();
    *cost = e.first;
    x->resize(lines_.size());
    size_t last = 0;
    for (size_t d = 0; d < lines_.size(); ++d) {
      (*x)[d] = lines_[d].at(e.second[d]).second;
      if (e.second[d] != 0) last = d;
    }
    for (size_t d = last; d < lines_.size(); ++d)
      if (lines_[d].has(e.second[d] + 1)) {
        std::vector<uint32_t> n = e.second;
        ++n[d];
        push(std::move(n));
      }
    return true;
  }

 private:
  using Entry = std::pair<int64_t, std::vector<uint32_t>>;
  void push(std::vector<uint32_t> idx) {
    int64_t c = 0;
    for (size_t d = 0; d < lines_.size(); ++d) c += lines_[d].at(idx[d]).first;
    queue_.push({c, std::move(idx)});
  }
  std::vector<Line> lines_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue_;
};

// The vectors placed so far, for the legality of the cone: a basis of their span (with what no
// translation moves), the vectors, and an ordering vector strictly positive on all of them.
struct ConeState {
  std::vector<Point> span;
  std::vector<Point> vectors;
  Point pi;
};

// The translation of one linear placement (statement 0 stays put) of smallest locality among
// those within the radius that keep the polytopes apart (unless overlap) and whose dependency
// cone, of dimension at most `cone_dim`, admits a strictly legal ordering vector.
struct Translator {
  explicit Translator(const std::vector<Dependency>& d) : deps(d) {}
  const std::vector<Dependency>& deps;
  size_t ns = 0, dims = 0;
  bool overlap = false;
  int64_t radius = 0;
  std::vector<Point> offset;               // per statement: the translation aligning its corner
  std::vector<std::vector<Point>> images;  // per statement, its points mapped linearly
  // per statement: the bounding box of its image (isl's bounds), per dim; none when empty
  std::vector<std::optional<std::vector<std::pair<int64_t, int64_t>>>> boxes;
  // per dependency: distinct linear vectors (A_t y - A_s x) and their counts
  std::vector<std::vector<std::pair<Point, int64_t>>> vectors;

  // Derived by setup().
  std::vector<std::unordered_set<Point, PointHash>> image_sets;
  std::vector<Point> fixed;   // a basis of what translations do not move (see setup)
  std::vector<Point> selfv;   // the self-dependencies' vectors
  int64_t self_cost = 0;      // their locality
  std::vector<size_t> order;  // the branch and bound's statements, statement 0 first
  std::vector<std::vector<size_t>> completes;  // per level: dependencies it completes
  std::vector<size_t> topo;                    // the construction's order

  std::vector<size_t> chosen;  // the linear placement: each statement's mapping
  std::map<std::vector<int64_t>, std::optional<int64_t>>* alone_cache = nullptr;

  // The orthogonal complement of a span (candidates restricted to a plane), once.
  mutable std::map<std::vector<Point>, std::vector<Point>> normals_of;

  // The counts of the exact search: checks made and whether the limit cut it.
  int64_t checks = 0, max_checks = 0;
  bool cut = false;

  bool self(size_t k) const { return deps[k].src == deps[k].dst; }

  void setup();

  int64_t lo(size_t s, size_t d) const { return s == 0 ? 0 : offset[s][d] - radius; }
  int64_t hi(size_t s, size_t d) const { return s == 0 ? 0 : offset[s][d] + radius; }

  bool within(const std::vector<Point>& t) const;

  // Statements a and b translated by ta and tb share no point.
  bool apart(size_t a, const Point& ta, size_t b, const Point& tb) const;

  int64_t dep_cost(size_t k, const Point& delta) const;

  Point delta(size_t k, const std::vector<Point>& t) const;

  int64_t locality(const std::vector<Point>& t) const;

  // Adds vectors to the cone; false when it would pass `cone_dim` dims or hold a line.
  bool add(ConeState* st, const std::vector<Point>& w, size_t cone_dim) const;

  // Dependency k's vectors under translation difference `dx`; false when one is zero and the
  // statements' order does not make it legal.
  bool dep_vectors(size_t k, const Point& dx, std::vector<Point>* out) const;

  // The cone before any translation: what no translation moves.
  std::optional<ConeState> root(size_t cone_dim) const;

  bool legal(const std::vector<Point>& t, size_t cone_dim) const;

  bool valid(const std::vector<Point>& t, size_t cone_dim) const;

  // The cheapest translation difference of dependency k on its own (its statements apart, its
  // vectors with its statements' self-dependencies in a cone of at most cone_dim dims holding no
  // line): a lower bound of its locality in every translation. Nothing when it has none. It
  // depends only on the dependency, its statements' mappings and the range of the difference,
  // so it is kept in `alone_cache` across linear placements.
  std::optional<int64_t> alone(size_t k, size_t cone_dim) const;

  std::optional<int64_t> alone_search(size_t k, size_t cone_dim) const;

  // A lower bound of the locality of every valid translation; nothing when there is none.
  std::optional<int64_t> lower_bound(size_t cone_dim, std::vector<int64_t>* per_dep) const;

  // Phase 1 of section 3.5.7: the bounding boxes. Statements in dependency order, each where
  // its dependencies on those placed cost least (the weighted median per dim), then pushed
  // along `u` until its box, and its points, are clear of the others and the vectors so far lie
  // in a cone of at most cone_dim dims holding no line.
  std::optional<std::vector<Point>> build(const Point& u, size_t cone_dim) const;

  // Phase 2: the statements shifted towards each other, one step at a time, while that lowers
  // the locality and keeps the translation valid.
  int64_t compact(std::vector<Point>* t, size_t cone_dim) const;

  // The bounding-box construction along each axis (both ways) and along what the fixed vectors
  // span; the cheapest, compacted.
  std::optional<std::pair<int64_t, std::vector<Point>>> construct(size_t cone_dim) const;

  // The cheapest translations of statement order[level] given those placed, in order of the
  // locality of the dependencies the level completes. When the vectors so far span cone_dim
  // dims (and fewer than all), every vector must stay in their span: the candidates are the
  // points of one affine lattice, a line listed outright, else the box filtered.
  struct Candidates {
    std::optional<Grid> grid;
    std::vector<Point> normals;  // the candidate minus c0 is orthogonal to these
    Point c0;
    // On a line c0 + lambda u, lambda in [from, to]: the per-dim costs summed, a convex
    // function of lambda, visited from its minimum outwards.
    std::vector<Line> lines;
    Point u;
    int64_t from = 1, to = 0, mid = 0, left = 0, right = -1;
    bool started = false;
    int64_t cost_at(int64_t lambda) const {
      int64_t c = 0;
      for (size_t d = 0; d < lines.size(); ++d) c += lines[d].cost(c0[d] + lambda * u[d]);
      return c;
    }
    Point at(int64_t lambda) const {
      Point x(c0.size());
      for (size_t d = 0; d < x.size(); ++d) x[d] = c0[d] + lambda * u[d];
      return x;
    }
    // The next candidate, cheapest first. Points of the box off the plane count as checks:
    // false with *exhausted when they reach `max`.
    bool next(int64_t* cost, Point* x, int64_t* checks, int64_t max, bool* exhausted) {
      if (!grid) {
        if (from > to) return false;
        if (!started) {
          // The first lambda whose next step does not get cheaper (convex).
          int64_t l = from, h = to;
          while (l < h) {
            const int64_t m = l + (h - l) / 2;
            if (cost_at(m + 1) >= cost_at(m))
              h = m;
            else
              l = m + 1;
          }
          mid = l;
          left = mid - 1;
          right = mid + 1;
          started = true;
          *cost = cost_at(mid);
          *x = at(mid);
          return true;
        }
        const bool l = left >= from, r = right <= to;
        if (!l && !r) return false;
        const int64_t cl = l ? cost_at(left) : 0, cr = r ? cost_at(right) : 0;
        const int64_t lambda =
            l && (!r || cl < cr || (cl == cr && mid - left <= right - mid)) ? left-- : right++;
        *cost = lambda == left + 1 ? cl : cr;
        *x = at(lambda);
        return true;
      }
      while (grid->next(cost, x)) {
        bool in = true;
        for (const Point& n : normals) {
          int64_t s = 0;
          for (size_t d = 0; d < x->size(); ++d) s += n[d] * ((*x)[d] - c0[d]);
          in = in && s == 0;
        }
        if (in) return true;
        if (++*checks >= max) {
          *exhausted = true;
          return false;
        }
      }
      return false;
    }
  };

  Candidates candidates(size_t level, const std::vector<Point>& t, const ConeState& st,
                        size_t cone_dim) const;

  // Branch and bound over the statements in `order`: each level's candidates cheapest first,
  // cut when what is placed plus the rest's lower bounds passes the bound.
  void descend(size_t level, int64_t partial, std::vector<Point>* t, const ConeState& st,
               size_t cone_dim, const std::vector<int64_t>& tail, int64_t* bound,
               std::optional<std::pair<int64_t, std::vector<Point>>>* best);

  // The linear placement `maps` (one matrix per statement): images and vectors.
  void load(const std::vector<std::vector<Point>>& points, const std::vector<const Matrix*>& maps);

  // The images' bounding boxes give the frame: the translations aligning their lowest corners,
  // and the radius, far enough for any polytope to sit on any side of all the others (`limit`
  // when smaller, unless negative).
  void frame(std::vector<std::optional<std::vector<std::pair<int64_t, int64_t>>>> b, int64_t limit);

  // What translating one linear placement at one cone dimension gave.
  struct Outcome {
    std::optional<std::pair<int64_t, std::vector<Point>>> t;
    bool pruned = false;   // its lower bound passes `best`
    bool built = false;    // the bounding-box construction, not bettered
    bool cut = false;      // the exact search stopped at its check limit
    bool skipped = false;  // no checks were left for the exact search
  };

  // Phase 1 and 2 (the bounding boxes, then compaction), then the exact search for a cheaper
  // translation, which also proves the one found the best within the radius. Only translations
  // of locality at most `best` (if >= 0) count; `checks_left` bounds the exact search.
  Outcome translate(size_t cone_dim, int64_t best, int64_t per_placement, int64_t checks_left,
                    bool build);

  // The best translation of cost at most `bound`, exactly; `cut` tells when the check limit
  // stopped it first (then it is the best seen).
  std::optional<std::pair<int64_t, std::vector<Point>>> exact(size_t cone_dim, int64_t bound,
                                                              const std::vector<int64_t>& alone);
};

}  // namespace t2s::explore::placement_internal
