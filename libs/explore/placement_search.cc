#include "libs/explore/placement_search.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <set>
#include <stdexcept>
#include <unordered_set>

#include "libs/explore/cone.h"

namespace t2s::explore {

namespace {

using Matrix = std::vector<std::vector<int64_t>>;

Point times(const Matrix& m, const Point& x) {
  Point y(m.size(), 0);
  for (size_t r = 0; r < m.size(); ++r)
    for (size_t c = 0; c < x.size(); ++c) y[r] += m[r][c] * x[c];
  return y;
}

// A basis of the affine hull of a dependency's instances (x, y), as differences from the
// first: the rank of the mapped vectors only needs these, since the mapping is linear.
struct DepBasis {
  std::vector<std::pair<Point, Point>> differences;
};

DepBasis dep_basis(const Dependency& d) {
  DepBasis b;
  if (d.pairs.empty()) return b;
  const auto& [x0, y0] = d.pairs[0];
  const size_t nx = x0.size(), ny = y0.size();
  std::vector<Point> joined;
  for (const auto& [x, y] : d.pairs) {
    Point z(nx + ny);
    for (size_t i = 0; i < nx; ++i) z[i] = x[i] - x0[i];
    for (size_t i = 0; i < ny; ++i) z[nx + i] = y[i] - y0[i];
    joined.push_back(z);
    if (rank(joined, nx + ny) < joined.size()) {
      joined.pop_back();
      continue;
    }
    b.differences.push_back({Point(z.begin(), z.begin() + static_cast<long>(nx)),
                             Point(z.begin() + static_cast<long>(nx), z.end())});
    if (joined.size() == nx + ny) break;
  }
  return b;
}

size_t basis_rank(const DepBasis& b, const Matrix& src, const Matrix& dst, size_t dims) {
  std::vector<Point> w;
  for (const auto& [ex, ey] : b.differences) {
    Point v = times(dst, ey);
    Point u = times(src, ex);
    for (size_t i = 0; i < dims; ++i) v[i] -= u[i];
    w.push_back(v);
  }
  return rank(w, dims);
}

Matrix transposed_columns(const Matrix& m, size_t d, size_t n) {
  Matrix cols(n, Point(d));
  for (size_t r = 0; r < d; ++r)
    for (size_t c = 0; c < n; ++c) cols[c][r] = m[r][c];
  return cols;
}

}  // namespace

std::vector<Matrix> starting_set(size_t d, size_t n, const std::vector<int64_t>& coeff) {
  const size_t cells = d * n, k = coeff.size();
  if (k == 0) return {};
  double total = std::pow(static_cast<double>(k), static_cast<double>(cells));
  if (total > 1 << 22)
    throw std::invalid_argument("--place: " + std::to_string(k) + "^" + std::to_string(cells) +
                                " candidate mappings per statement: too many (use fewer "
                                "--coefficients)");
  std::vector<Matrix> out;
  std::vector<size_t> digit(cells, 0);
  Matrix m(d, Point(n));
  for (;;) {
    for (size_t c = 0; c < cells; ++c) m[c / n][c % n] = coeff[digit[c]];
    if (rank(transposed_columns(m, d, n), d) == n) out.push_back(m);
    size_t c = 0;
    while (c < cells && digit[c] + 1 == k) digit[c++] = 0;
    if (c == cells) break;
    ++digit[c];
  }
  // Simplest first (the identity, then fewest changes from it, fewest reversals), so that
  // among placements of equal cost the search keeps the least transformed.
  auto changes = [](const Matrix& m) {
    int64_t diff = 0, negative = 0;
    for (size_t r = 0; r < m.size(); ++r)
      for (size_t c = 0; c < m[r].size(); ++c) {
        diff += m[r][c] != (r == c ? 1 : 0);
        negative += m[r][c] < 0;
      }
    return std::make_pair(diff, negative);
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const Matrix& a, const Matrix& b) { return changes(a) < changes(b); });
  return out;
}

size_t mapped_rank(const Dependency& d, const Matrix& src, const Matrix& dst, size_t dims) {
  return basis_rank(dep_basis(d), src, dst, dims);
}

std::string affine_text(const Statement& s, const Affine& f) {
  std::vector<std::string> names = s.domain.dim_names();
  std::string in, out;
  for (const std::string& n : names) in += (in.empty() ? "" : ", ") + n;
  for (size_t r = 0; r < f.out_dims(); ++r) {
    std::string e;
    for (size_t c = 0; c < f.in_dims(); ++c) {
      int64_t a = f.coeff[r][c];
      if (a == 0) continue;
      std::string mag = (a == 1 || a == -1) ? names[c] : std::to_string(a < 0 ? -a : a) + names[c];
      e += e.empty() ? (a < 0 ? "-" + mag : mag) : (a < 0 ? " - " : " + ") + mag;
    }
    int64_t k = f.constant[r];
    if (e.empty()) {
      e = std::to_string(k);
    } else if (k != 0) {
      e += (k < 0 ? " - " : " + ") + std::to_string(k < 0 ? -k : k);
    }
    out += (out.empty() ? "" : ", ") + e;
  }
  return "{ " + s.name + "[" + in + "] -> [" + out + "] }";
}

namespace {

struct Search {
  const PolyProgram& p;
  const std::vector<Dependency>& deps;
  const std::vector<Signal>& signals;
  const PlacementSearchOptions& o;
  size_t dims = 0;
  std::vector<std::vector<Matrix>> set;  // per statement: its starting set
  std::vector<DepBasis> basis;
  // Phase 1: per dependency, per mapping of its source (resp. sink), the lowest rank it can
  // reach with some mapping of the other end.
  std::vector<std::vector<size_t>> best_src, best_dst;
  std::vector<size_t> optimal;
  PlacementSearchResult r;

  Search(const PolyProgram& p_, const std::vector<Dependency>& d_, const std::vector<Signal>& s_,
         const PlacementSearchOptions& o_)
      : p(p_), deps(d_), signals(s_), o(o_), dims(p_.space.size()) {}

  // A limit cut the search: the result is the best seen.
  void stop(const std::string& limit) {
    r.complete = false;
    if (std::find(r.stopped_by.begin(), r.stopped_by.end(), limit) == r.stopped_by.end())
      r.stopped_by.push_back(limit);
  }

  size_t dep_rank(size_t k, size_t ms, size_t md) const {
    const Dependency& d = deps[k];
    return basis_rank(basis[k], set[d.src][ms], set[d.dst][md], dims);
  }

  void phase1() {
    // The book's straightforward choice in the plane; its prototype's (no reversal) beyond,
    // where {-1, 0, 1} gives thousands of mappings per statement.
    std::vector<int64_t> coefficients = o.coefficients;
    if (coefficients.empty())
      coefficients = dims <= 2 ? std::vector<int64_t>{-1, 0, 1} : std::vector<int64_t>{0, 1};
    r.coefficients = coefficients;
    for (const Statement& s : p.statements) {
      size_t n = s.domain.dims();
      if (n > dims)
        throw std::invalid_argument("--place: statement " + s.name + " has more dims than the " +
                                    "common space");
      set.push_back(starting_set(dims, n, coefficients));
      r.starting_set = std::max(r.starting_set, set.back().size());
      if (set.back().empty())
        throw std::invalid_argument("--place: no mapping of " + s.name +
                                    " of full rank with these --coefficients");
    }
    double work = 0;
    for (const Dependency& d : deps)
      work += d.src == d.dst
                  ? static_cast<double>(set[d.src].size())
                  : static_cast<double>(set[d.src].size()) * static_cast<double>(set[d.dst].size());
    if (work > 5e7)
      throw std::invalid_argument("--place: too many pairs of mappings to rank (" +
                                  std::to_string(static_cast<int64_t>(work)) +
                                  "); use fewer --coefficients");
    for (size_t k = 0; k < deps.size(); ++k) {
      const Dependency& d = deps[k];
      basis.push_back(dep_basis(d));
      std::vector<size_t> bs(set[d.src].size(), dims), bd(set[d.dst].size(), dims);
      for (size_t a = 0; a < set[d.src].size(); ++a) {
        if (d.src == d.dst) {
          bs[a] = bd[a] = dep_rank(k, a, a);
          continue;
        }
        for (size_t b = 0; b < set[d.dst].size(); ++b) {
          size_t rk = dep_rank(k, a, b);
          bs[a] = std::min(bs[a], rk);
          bd[b] = std::min(bd[b], rk);
        }
      }
      optimal.push_back(*std::min_element(bs.begin(), bs.end()));
      best_src.push_back(std::move(bs));
      best_dst.push_back(std::move(bd));
    }
    r.optimal = optimal;
  }

  // Phase 2: the mappings of each statement that can meet every target it takes part in.
  std::vector<std::vector<size_t>> combine(const std::vector<size_t>& target) const {
    std::vector<std::vector<size_t>> comb(p.statements.size());
    for (size_t s = 0; s < p.statements.size(); ++s)
      for (size_t m = 0; m < set[s].size(); ++m) {
        bool ok = true;
        for (size_t k = 0; k < deps.size() && ok; ++k) {
          if (deps[k].src == s) ok = best_src[k][m] <= target[k];
          if (ok && deps[k].dst == s) ok = best_dst[k][m] <= target[k];
        }
        if (ok) comb[s].push_back(m);
      }
    return comb;
  }

  // Phase 3's backtracking (figure 3.34) over the statements in `order`. With `all`, visits
  // every solution (calling `visit`, which returns false to stop); else stops at the first.
  // Returns false when `budget` steps ran out before it finished.
  template <typename Visit>
  bool backtrack(const std::vector<size_t>& order, const std::vector<size_t>& target,
                 const std::vector<std::vector<size_t>>& comb, int64_t budget, bool all,
                 std::vector<int64_t>* conflict, Visit visit) {
    const size_t n = order.size();
    std::vector<size_t> seen(n, 0), chosen(p.statements.size(), 0);
    std::vector<bool> mapped(p.statements.size(), false);
    size_t level = 0;
    int64_t steps = 0;
    while (true) {
      const size_t s = order[level];
      if (seen[level] == comb[s].size()) {
        mapped[s] = false;
        if (level == 0) return true;
        --level;
        mapped[order[level]] = false;
        continue;
      }
      if (steps >= budget) return false;
      ++steps;
      ++r.iterations;
      const size_t m = comb[s][seen[level]++];
      chosen[s] = m;
      mapped[s] = true;
      bool ok = true;
      for (size_t k = 0; k < deps.size() && ok; ++k) {
        const Dependency& d = deps[k];
        if ((d.src != s && d.dst != s) || !mapped[d.src] || !mapped[d.dst]) continue;
        ok = dep_rank(k, chosen[d.src], chosen[d.dst]) <= target[k];
        if (!ok && conflict) {
          ++(*conflict)[d.src];
          if (d.dst != d.src) ++(*conflict)[d.dst];
        }
      }
      if (!ok) {
        mapped[s] = false;
        continue;
      }
      if (level + 1 == n) {
        if (!visit(chosen)) return true;
        mapped[s] = false;
        if (!all) return true;
        continue;
      }
      ++level;
      seen[level] = 0;
    }
  }

  // One attempt for `target`, with the book's reordering: when an attempt runs past its
  // budget, the statements with the most conflicts move to the front and the budget doubles.
  std::optional<std::vector<size_t>> solve(std::vector<size_t>* order,
                                           const std::vector<size_t>& target) {
    auto comb = combine(target);
    for (const auto& c : comb)
      if (c.empty()) return std::nullopt;
    int64_t budget = 1000;
    while (true) {
      ++r.attempts;
      std::vector<int64_t> conflict(p.statements.size(), 0);
      std::optional<std::vector<size_t>> found;
      int64_t left = o.max_iterations - r.iterations;
      if (left <= 0) {
        stop("backtracking steps (" + std::to_string(o.max_iterations) + ")");
        return std::nullopt;
      }
      bool done = backtrack(*order, target, comb, std::min(budget, left), false, &conflict,
                            [&](const std::vector<size_t>& chosen) {
                              found = chosen;
                              return false;
                            });
      if (done) return found;
      ++r.reorders;
      std::stable_sort(order->begin(), order->end(),
                       [&](size_t a, size_t b) { return conflict[a] > conflict[b]; });
      budget *= 2;
    }
  }
};

// ---- Translations (section 3.5.7) -------------------------------------------------------------

constexpr int64_t kNone = INT64_MAX / 4;

struct PointHash {
  size_t operator()(const Point& x) const {
    size_t h = 0;
    for (int64_t v : x) h = h * 1000003u ^ static_cast<size_t>(v);
    return h;
  }
};

bool is_zero(const Point& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0; });
}

int64_t dot(const Point& a, const Point& b) {
  int64_t s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

Point primitive(Point v) {
  int64_t g = 0;
  for (int64_t x : v) g = std::gcd(g, std::llabs(x));
  if (g > 1)
    for (int64_t& x : v) x /= g;
  return v;
}

// `rows` is an echelon basis (each row zero at the pivots, first non-zero entries, of the rows
// before it): true when x lies in its span, else x reduced joins it.
bool extend_span(std::vector<Point>* rows, Point x) {
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

  void setup() {
    image_sets.assign(ns, {});
    for (size_t s = 0; s < ns; ++s) image_sets[s].insert(images[s].begin(), images[s].end());
    // Translations move every vector of a dependency together: its self-dependencies' vectors
    // and the differences between one dependency's vectors stay, so the cone spans them.
    std::vector<Point> all;
    selfv.clear();
    self_cost = 0;
    for (size_t k = 0; k < deps.size(); ++k) {
      for (const auto& [v, c] : vectors[k]) {
        Point w = v;
        for (size_t i = 0; i < dims; ++i) w[i] -= vectors[k][0].first[i];
        all.push_back(w);
        if (self(k)) {
          all.push_back(v);
          selfv.push_back(v);
          for (size_t i = 0; i < dims; ++i) self_cost += c * std::llabs(v[i]);
        }
      }
    }
    fixed.clear();
    std::vector<Point> echelon;
    for (const Point& w : all)
      if (!is_zero(w) && echelon.size() < dims && !extend_span(&echelon, w))
        fixed.push_back(primitive(w));
    // The branch and bound places statement 0, then always the statement most tied (by
    // instances) to those placed.
    std::vector<int64_t> weight(deps.size(), 0);
    for (size_t k = 0; k < deps.size(); ++k)
      for (const auto& vc : vectors[k]) weight[k] += vc.second;
    order.assign(1, 0);
    std::vector<bool> placed(ns, false);
    placed[0] = true;
    completes.assign(1, {});
    while (order.size() < ns) {
      size_t pick = ns;
      int64_t most = -1;
      for (size_t s = 0; s < ns; ++s) {
        if (placed[s]) continue;
        int64_t w = 0;
        for (size_t k = 0; k < deps.size(); ++k)
          if (!self(k) && ((deps[k].src == s && placed[deps[k].dst]) ||
                           (deps[k].dst == s && placed[deps[k].src])))
            w += weight[k];
        if (w > most) most = w, pick = s;
      }
      std::vector<size_t> done;
      for (size_t k = 0; k < deps.size(); ++k)
        if (!self(k) && ((deps[k].src == pick && placed[deps[k].dst]) ||
                         (deps[k].dst == pick && placed[deps[k].src])))
          done.push_back(k);
      placed[pick] = true;
      order.push_back(pick);
      completes.push_back(done);
    }
    // The construction follows the dependencies (sources first, textual order among equals).
    std::vector<size_t> indegree(ns, 0);
    for (size_t k = 0; k < deps.size(); ++k)
      if (!self(k)) ++indegree[deps[k].dst];
    std::vector<bool> done(ns, false);
    topo.clear();
    while (topo.size() < ns) {
      size_t pick = ns;
      for (size_t s = 0; s < ns && pick == ns; ++s)
        if (!done[s] && indegree[s] == 0) pick = s;
      for (size_t s = 0; s < ns && pick == ns; ++s)
        if (!done[s]) pick = s;  // a cycle: textual order
      done[pick] = true;
      topo.push_back(pick);
      for (size_t k = 0; k < deps.size(); ++k)
        if (!self(k) && deps[k].src == pick && indegree[deps[k].dst] > 0) --indegree[deps[k].dst];
    }
  }

  int64_t lo(size_t s, size_t d) const { return s == 0 ? 0 : offset[s][d] - radius; }
  int64_t hi(size_t s, size_t d) const { return s == 0 ? 0 : offset[s][d] + radius; }

  bool within(const std::vector<Point>& t) const {
    for (size_t s = 0; s < ns; ++s)
      for (size_t d = 0; d < dims; ++d)
        if (t[s][d] < lo(s, d) || t[s][d] > hi(s, d)) return false;
    return true;
  }

  // Statements a and b translated by ta and tb share no point.
  bool apart(size_t a, const Point& ta, size_t b, const Point& tb) const {
    if (!boxes[a] || !boxes[b]) return true;
    for (size_t d = 0; d < dims; ++d)
      if ((*boxes[a])[d].second + ta[d] < (*boxes[b])[d].first + tb[d] ||
          (*boxes[b])[d].second + tb[d] < (*boxes[a])[d].first + ta[d])
        return true;
    if (images[a].size() > images[b].size()) return apart(b, tb, a, ta);
    Point y(dims);
    for (const Point& x : images[a]) {
      for (size_t d = 0; d < dims; ++d) y[d] = x[d] + ta[d] - tb[d];
      if (image_sets[b].count(y)) return false;
    }
    return true;
  }

  int64_t dep_cost(size_t k, const Point& delta) const {
    int64_t c = 0;
    for (const auto& [v, n] : vectors[k])
      for (size_t d = 0; d < dims; ++d) c += n * std::llabs(v[d] + delta[d]);
    return c;
  }

  Point delta(size_t k, const std::vector<Point>& t) const {
    Point x(dims);
    for (size_t d = 0; d < dims; ++d) x[d] = t[deps[k].dst][d] - t[deps[k].src][d];
    return x;
  }

  int64_t locality(const std::vector<Point>& t) const {
    int64_t c = self_cost;
    for (size_t k = 0; k < deps.size(); ++k)
      if (!self(k)) c += dep_cost(k, delta(k, t));
    return c;
  }

  // Adds vectors to the cone; false when it would pass `cone_dim` dims or hold a line.
  bool add(ConeState* st, const std::vector<Point>& w, size_t cone_dim) const {
    for (const Point& x : w)
      if (st->span.size() < dims && !extend_span(&st->span, x) && st->span.size() > cone_dim)
        return false;
    bool fits = !st->pi.empty();
    for (const Point& x : w) fits = fits && dot(st->pi, x) > 0;
    st->vectors.insert(st->vectors.end(), w.begin(), w.end());
    if (fits || st->vectors.empty()) return true;
    std::sort(st->vectors.begin(), st->vectors.end());
    st->vectors.erase(std::unique(st->vectors.begin(), st->vectors.end()), st->vectors.end());
    // Cheap ordering vectors first (the vectors' sum, the axes), then the exact cone.
    auto positive = [&](const Point& pi) {
      for (const Point& x : st->vectors)
        if (dot(pi, x) <= 0) return false;
      return true;
    };
    std::vector<Point> tries(1, Point(dims, 0));
    for (const Point& x : st->vectors)
      for (size_t d = 0; d < dims; ++d) tries[0][d] += x[d];
    for (size_t d = 0; d < dims; ++d)
      for (int64_t sign : {1, -1}) {
        Point e(dims, 0);
        e[d] = sign;
        tries.push_back(e);
      }
    for (const Point& pi : tries)
      if (positive(pi)) {
        st->pi = pi;
        return true;
      }
    std::optional<Point> pi = strictly_positive_vector(conic_hull(st->vectors, dims));
    if (!pi) return false;
    st->pi = *pi;
    return true;
  }

  // Dependency k's vectors under translation difference `dx`; false when one is zero and the
  // statements' order does not make it legal.
  bool dep_vectors(size_t k, const Point& dx, std::vector<Point>* out) const {
    for (const auto& [v, c] : vectors[k]) {
      Point x = v;
      for (size_t d = 0; d < dims; ++d) x[d] += dx[d];
      if (is_zero(x)) {
        // Two statements on one point run in the statements' order.
        if (overlap && deps[k].src < deps[k].dst) continue;
        return false;
      }
      out->push_back(std::move(x));
    }
    return true;
  }

  // The cone before any translation: what no translation moves.
  std::optional<ConeState> root(size_t cone_dim) const {
    ConeState st;
    for (const Point& f : fixed) extend_span(&st.span, f);
    if (st.span.size() > cone_dim) return std::nullopt;
    for (const Point& v : selfv)
      if (is_zero(v)) return std::nullopt;
    if (!add(&st, selfv, cone_dim)) return std::nullopt;
    return st;
  }

  bool legal(const std::vector<Point>& t, size_t cone_dim) const {
    auto st = root(cone_dim);
    if (!st) return false;
    for (size_t k = 0; k < deps.size(); ++k) {
      if (self(k)) continue;
      std::vector<Point> w;
      if (!dep_vectors(k, delta(k, t), &w) || !add(&*st, w, cone_dim)) return false;
    }
    return true;
  }

  bool valid(const std::vector<Point>& t, size_t cone_dim) const {
    if (!within(t)) return false;
    if (!overlap)
      for (size_t a = 0; a < ns; ++a)
        for (size_t b = a + 1; b < ns; ++b)
          if (!apart(a, t[a], b, t[b])) return false;
    return legal(t, cone_dim);
  }

  // The cheapest translation difference of dependency k on its own (its statements apart, its
  // vectors with its statements' self-dependencies in a cone of at most cone_dim dims holding no
  // line): a lower bound of its locality in every translation. Nothing when it has none. It
  // depends only on the dependency, its statements' mappings and the range of the difference,
  // so it is kept in `alone_cache` across linear placements.
  std::optional<int64_t> alone(size_t k, size_t cone_dim) const {
    const size_t a = deps[k].src, b = deps[k].dst;
    std::vector<int64_t> key = {static_cast<int64_t>(k), static_cast<int64_t>(chosen[a]),
                                static_cast<int64_t>(chosen[b]), static_cast<int64_t>(cone_dim)};
    for (size_t d = 0; d < dims; ++d) {
      key.push_back(lo(b, d) - hi(a, d));
      key.push_back(hi(b, d) - lo(a, d));
      key.push_back(offset[b][d] - offset[a][d]);
    }
    auto known = alone_cache->find(key);
    if (known != alone_cache->end()) return known->second;
    std::optional<int64_t> found = alone_search(k, cone_dim);
    alone_cache->emplace(std::move(key), found);
    return found;
  }

  std::optional<int64_t> alone_search(size_t k, size_t cone_dim) const {
    const size_t a = deps[k].src, b = deps[k].dst;
    ConeState base;
    std::vector<Point> own;
    for (size_t j = 0; j < deps.size(); ++j)
      if (self(j) && (deps[j].src == a || deps[j].src == b))
        for (const auto& vc : vectors[j]) own.push_back(vc.first);
    for (const Point& v : own) extend_span(&base.span, v);
    for (const auto& vc : vectors[k]) {
      Point w = vc.first;
      for (size_t d = 0; d < dims; ++d) w[d] -= vectors[k][0].first[d];
      if (!is_zero(w) && base.span.size() < dims) extend_span(&base.span, w);
    }
    if (base.span.size() > cone_dim || !add(&base, own, cone_dim)) return std::nullopt;
    std::vector<Line> lines;
    for (size_t d = 0; d < dims; ++d) {
      std::map<int64_t, int64_t> pts;
      for (const auto& [v, c] : vectors[k]) pts[-v[d]] += c;
      lines.emplace_back(pts, lo(b, d) - hi(a, d), hi(b, d) - lo(a, d),
                         offset[b][d] - offset[a][d]);
    }
    Grid g(std::move(lines));
    int64_t cost = 0, pops = 0;
    Point dx;
    const Point zero(dims, 0);
    while (g.next(&cost, &dx)) {
      // Past this many, the cost reached bounds the rest from below.
      if (++pops > 5000) return cost;
      if (!overlap && !apart(a, zero, b, dx)) continue;
      std::vector<Point> w;
      if (!dep_vectors(k, dx, &w)) continue;
      ConeState st = base;
      if (add(&st, w, cone_dim)) return cost;
    }
    return std::nullopt;
  }

  // A lower bound of the locality of every valid translation; nothing when there is none.
  std::optional<int64_t> lower_bound(size_t cone_dim, std::vector<int64_t>* per_dep) const {
    if (!root(cone_dim)) return std::nullopt;
    per_dep->assign(deps.size(), 0);
    int64_t total = self_cost;
    for (size_t k = 0; k < deps.size(); ++k) {
      if (self(k)) continue;
      auto c = alone(k, cone_dim);
      if (!c) return std::nullopt;
      (*per_dep)[k] = *c;
      total += *c;
    }
    return total;
  }

  // Phase 1 of section 3.5.7: the bounding boxes. Statements in dependency order, each where
  // its dependencies on those placed cost least (the weighted median per dim), then pushed
  // along `u` until its box, and its points, are clear of the others and the vectors so far lie
  // in a cone of at most cone_dim dims holding no line.
  std::optional<std::vector<Point>> build(const Point& u, size_t cone_dim) const {
    auto st0 = root(cone_dim);
    if (!st0) return std::nullopt;
    ConeState st = *st0;
    std::vector<Point> t(ns, Point(dims, 0));
    std::vector<bool> placed(ns, false);
    int64_t extents = 0;
    for (size_t s = 0; s < ns; ++s)
      if (boxes[s])
        for (size_t d = 0; d < dims; ++d)
          extents += (*boxes[s])[d].second - (*boxes[s])[d].first + 1;
    const int64_t uu = dot(u, u);
    for (size_t s : topo) {
      Point m(dims);
      for (size_t d = 0; d < dims; ++d) {
        std::map<int64_t, int64_t> pts;
        for (size_t k = 0; k < deps.size(); ++k) {
          if (self(k)) continue;
          for (const auto& [v, c] : vectors[k]) {
            if (deps[k].dst == s && placed[deps[k].src]) pts[t[deps[k].src][d] - v[d]] += c;
            if (deps[k].src == s && placed[deps[k].dst]) pts[t[deps[k].dst][d] + v[d]] += c;
          }
        }
        m[d] = Line(pts, INT64_MIN / 8, INT64_MAX / 8, offset[s][d]).at(0).second;
      }
      // How far along u the box of s clears every placed box (a separating hyperplane).
      int64_t lambda_clear = 0;
      if (boxes[s]) {
        int64_t low = 0;
        for (size_t d = 0; d < dims; ++d)
          low += u[d] * (u[d] > 0 ? (*boxes[s])[d].first : (*boxes[s])[d].second) + u[d] * m[d];
        for (size_t a = 0; a < ns; ++a) {
          if (!placed[a] || !boxes[a]) continue;
          int64_t high = 0;
          for (size_t d = 0; d < dims; ++d)
            high +=
                u[d] * (u[d] > 0 ? (*boxes[a])[d].second : (*boxes[a])[d].first) + u[d] * t[a][d];
          if (high >= low) lambda_clear = std::max(lambda_clear, (high - low) / uu + 1);
        }
      }
      bool ok = false;
      for (int64_t lambda = 0; lambda <= lambda_clear + extents + 2 && !ok; ++lambda) {
        for (size_t d = 0; d < dims; ++d) t[s][d] = m[d] + lambda * u[d];
        bool clear = true;
        for (size_t a = 0; a < ns && clear; ++a)
          if (placed[a] && !overlap) clear = apart(a, t[a], s, t[s]);
        if (!clear) continue;
        ConeState next = st;
        bool legal_so_far = true;
        for (size_t k = 0; k < deps.size() && legal_so_far; ++k) {
          if (self(k)) continue;
          const size_t other = deps[k].src == s ? deps[k].dst : deps[k].src;
          if ((deps[k].src != s && deps[k].dst != s) || !placed[other]) continue;
          std::vector<Point> w;
          Point dx(dims);
          for (size_t d = 0; d < dims; ++d) dx[d] = t[deps[k].dst][d] - t[deps[k].src][d];
          legal_so_far = dep_vectors(k, dx, &w) && add(&next, w, cone_dim);
        }
        if (!legal_so_far) continue;
        st = std::move(next);
        ok = true;
      }
      if (!ok) return std::nullopt;
      placed[s] = true;
    }
    // Statement 0 stays put.
    const Point t0 = t[0];
    for (Point& x : t)
      for (size_t d = 0; d < dims; ++d) x[d] -= t0[d];
    if (!valid(t, cone_dim)) return std::nullopt;
    return t;
  }

  // Phase 2: the statements shifted towards each other, one step at a time, while that lowers
  // the locality and keeps the translation valid.
  int64_t compact(std::vector<Point>* t, size_t cone_dim) const {
    int64_t cost = locality(*t);
    for (bool improved = true; improved;) {
      improved = false;
      for (size_t s = 0; s < ns; ++s)
        for (size_t d = 0; d < dims; ++d)
          for (int64_t step : {-1, 1}) {
            std::vector<Point> next = *t;
            if (s == 0) {
              for (size_t a = 1; a < ns; ++a) next[a][d] -= step;
            } else {
              next[s][d] += step;
            }
            const int64_t c = locality(next);
            if (c >= cost || !valid(next, cone_dim)) continue;
            *t = std::move(next);
            cost = c;
            improved = true;
          }
    }
    return cost;
  }

  // The bounding-box construction along each axis (both ways) and along what the fixed vectors
  // span; the cheapest, compacted.
  std::optional<std::pair<int64_t, std::vector<Point>>> construct(size_t cone_dim) const {
    std::vector<Point> dirs;
    for (size_t d = 0; d < dims; ++d) {
      Point e(dims, 0);
      e[d] = 1;
      dirs.push_back(e);
    }
    for (size_t i = 0; i < fixed.size(); ++i) {
      dirs.push_back(fixed[i]);
      for (size_t j = i + 1; j < fixed.size(); ++j) {
        Point p = fixed[i], q = fixed[i];
        for (size_t d = 0; d < dims; ++d) p[d] += fixed[j][d], q[d] -= fixed[j][d];
        dirs.push_back(primitive(p));
        dirs.push_back(primitive(q));
      }
    }
    const size_t n = dirs.size();
    for (size_t i = 0; i < n; ++i) {
      Point m = dirs[i];
      for (int64_t& x : m) x = -x;
      dirs.push_back(m);
    }
    std::sort(dirs.begin(), dirs.end());
    dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
    std::optional<std::pair<int64_t, std::vector<Point>>> best;
    for (const Point& u : dirs) {
      if (is_zero(u)) continue;
      auto t = build(u, cone_dim);
      if (!t) continue;
      const int64_t c = compact(&*t, cone_dim);
      if (!best || c < best->first) best = std::make_pair(c, std::move(*t));
    }
    return best;
  }

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
                        size_t cone_dim) const {
    const size_t s = order[level];
    std::vector<Line> lines;
    for (size_t d = 0; d < dims; ++d) {
      std::map<int64_t, int64_t> pts;
      for (size_t k : completes[level])
        for (const auto& [v, c] : vectors[k]) {
          if (deps[k].dst == s) pts[t[deps[k].src][d] - v[d]] += c;
          if (deps[k].src == s) pts[t[deps[k].dst][d] + v[d]] += c;
        }
      lines.emplace_back(pts, lo(s, d), hi(s, d), offset[s][d]);
    }
    Candidates out;
    if (completes[level].empty() || st.span.size() < cone_dim || cone_dim >= dims) {
      out.grid.emplace(std::move(lines));
      return out;
    }
    // Every vector stays in the span: one of the first dependency's fixes the coset.
    const size_t k = completes[level][0];
    const Point& v0 = vectors[k][0].first;
    out.c0.resize(dims);
    for (size_t d = 0; d < dims; ++d)
      out.c0[d] = deps[k].dst == s ? t[deps[k].src][d] - v0[d] : t[deps[k].dst][d] + v0[d];
    if (cone_dim == 1) {
      const Point u = primitive(st.span[0]);
      int64_t from = INT64_MIN / 8, to = INT64_MAX / 8;
      for (size_t d = 0; d < dims; ++d) {
        const int64_t l = lo(s, d) - out.c0[d], h = hi(s, d) - out.c0[d];
        if (u[d] == 0) {
          if (l > 0 || h < 0) from = 1, to = 0;
          continue;
        }
        // l <= lambda u <= h.
        auto floor_div = [](int64_t a, int64_t b) {
          return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
        };
        auto ceil_div = [&](int64_t a, int64_t b) { return -floor_div(-a, b); };
        int64_t a = u[d] > 0 ? ceil_div(l, u[d]) : ceil_div(h, u[d]);
        int64_t b = u[d] > 0 ? floor_div(h, u[d]) : floor_div(l, u[d]);
        from = std::max(from, a);
        to = std::min(to, b);
      }
      out.u = u;
      out.from = from;
      out.to = to;
      out.lines = std::move(lines);
      return out;
    }
    auto known = normals_of.find(st.span);
    if (known == normals_of.end()) {
      std::vector<Point> both;
      for (const Point& b : st.span) {
        both.push_back(b);
        Point m = b;
        for (int64_t& x : m) x = -x;
        both.push_back(m);
      }
      known = normals_of.emplace(st.span, halfspace_cone(both, dims).lineality).first;
    }
    out.normals = known->second;
    out.grid.emplace(std::move(lines));
    return out;
  }

  // Branch and bound over the statements in `order`: each level's candidates cheapest first,
  // cut when what is placed plus the rest's lower bounds passes the bound.
  void descend(size_t level, int64_t partial, std::vector<Point>* t, const ConeState& st,
               size_t cone_dim, const std::vector<int64_t>& tail, int64_t* bound,
               std::optional<std::pair<int64_t, std::vector<Point>>>* best) {
    if (level == ns) {
      *best = std::make_pair(partial, *t);
      *bound = partial - 1;
      return;
    }
    const size_t s = order[level];
    Candidates cand = candidates(level, *t, st, cone_dim);
    int64_t cost = 0;
    Point x;
    bool exhausted = false;
    while (cand.next(&cost, &x, &checks, max_checks, &exhausted)) {
      if (partial + cost + tail[level + 1] > *bound) break;
      if (checks >= max_checks) {
        cut = true;
        return;
      }
      ++checks;
      (*t)[s] = x;
      bool ok = true;
      for (size_t l = 0; l < level && ok && !overlap; ++l)
        ok = apart(order[l], (*t)[order[l]], s, x);
      if (!ok) continue;
      ConeState next = st;
      for (size_t k : completes[level]) {
        std::vector<Point> w;
        ok = ok && dep_vectors(k, delta(k, *t), &w) && add(&next, w, cone_dim);
      }
      if (!ok) continue;
      descend(level + 1, partial + cost, t, next, cone_dim, tail, bound, best);
      if (cut) return;
    }
    if (exhausted) cut = true;
  }

  // The linear placement `maps` (one matrix per statement): images and vectors.
  void load(const std::vector<std::vector<Point>>& points, const std::vector<const Matrix*>& maps) {
    images.assign(ns, {});
    for (size_t st = 0; st < ns; ++st)
      for (const Point& x : points[st]) images[st].push_back(times(*maps[st], x));
    vectors.assign(deps.size(), {});
    for (size_t k = 0; k < deps.size(); ++k) {
      std::map<Point, int64_t> counts;
      for (const auto& [x, y] : deps[k].pairs) {
        Point v = times(*maps[deps[k].dst], y);
        Point u = times(*maps[deps[k].src], x);
        for (size_t i = 0; i < dims; ++i) v[i] -= u[i];
        ++counts[v];
      }
      vectors[k].assign(counts.begin(), counts.end());
    }
  }

  // The images' bounding boxes give the frame: the translations aligning their lowest corners,
  // and the radius, far enough for any polytope to sit on any side of all the others (`limit`
  // when smaller, unless negative).
  void frame(std::vector<std::optional<std::vector<std::pair<int64_t, int64_t>>>> b,
             int64_t limit) {
    boxes = std::move(b);
    int64_t r = 0;
    offset.assign(ns, Point(dims, 0));
    for (size_t i = 0; i < dims; ++i) {
      int64_t sum = 0, low0 = 0;
      for (size_t st = 0; st < ns; ++st) {
        if (!boxes[st]) continue;
        const int64_t l = (*boxes[st])[i].first, h = (*boxes[st])[i].second;
        // Apart, a polytope may need to pass all the others; sharing points, only one.
        sum = overlap ? std::max(sum, h - l + 1) : sum + h - l + 1;
        if (st == 0) low0 = l;
        offset[st][i] = low0 - l;
      }
      r = std::max(r, sum);
    }
    radius = limit >= 0 ? std::min(limit, r) : r;
    setup();
  }

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
                    bool build) {
    Outcome out;
    std::vector<int64_t> alone_costs;
    auto lower = lower_bound(cone_dim, &alone_costs);
    if (!lower) return out;  // no translation at all: exact
    if (best >= 0 && *lower > best) {
      out.pruned = true;
      return out;
    }
    if (build) out.t = construct(cone_dim);
    int64_t limit = best >= 0 ? best : kNone;
    if (out.t && out.t->first > limit) out.t.reset();
    if (out.t) {
      out.built = true;
      limit = out.t->first - 1;
    }
    checks = 0;
    if (checks_left <= 0) {
      out.skipped = true;
      return out;
    }
    max_checks = std::min(per_placement, checks_left);
    auto e = exact(cone_dim, limit, alone_costs);
    if (e) {
      out.t = std::move(e);
      out.built = false;
    }
    out.cut = cut;
    return out;
  }

  // The best translation of cost at most `bound`, exactly; `cut` tells when the check limit
  // stopped it first (then it is the best seen).
  std::optional<std::pair<int64_t, std::vector<Point>>> exact(size_t cone_dim, int64_t bound,
                                                              const std::vector<int64_t>& alone) {
    cut = false;
    auto st = root(cone_dim);
    if (!st) return std::nullopt;
    std::vector<int64_t> tail(ns + 1, 0);
    for (size_t l = ns; l-- > 0;) {
      tail[l] = tail[l + 1];
      for (size_t k : completes[l]) tail[l] += alone[k];
    }
    std::vector<Point> t(ns, Point(dims, 0));
    std::optional<std::pair<int64_t, std::vector<Point>>> best;
    descend(1, self_cost, &t, *st, cone_dim, tail, &bound, &best);
    return best;
  }
};

// Costs do not change when a dim of the common space is reversed: reverse each dim along which
// no dependency vector points up and some points down, so that the loops running up (the
// ordering the chapter 4 bounds start from) are legal where they can be; then shift the dim
// back to where its lowest point was.
void orient(const PolyProgram& p, const std::vector<Dependency>& deps,
            const std::vector<std::vector<Point>>& points, Placement* pl) {
  (void)p;
  const size_t dims = pl->maps.empty() ? 0 : pl->maps[0].out_dims();
  for (size_t d = 0; d < dims; ++d) {
    bool up = false, down = false;
    for (const Dependency& dep : deps)
      for (const auto& [x, y] : dep.pairs) {
        int64_t v = pl->maps[dep.dst].apply(y)[d] - pl->maps[dep.src].apply(x)[d];
        up = up || v > 0;
        down = down || v < 0;
      }
    if (up || !down) continue;
    int64_t low = INT64_MAX, high = INT64_MIN;
    for (size_t st = 0; st < points.size(); ++st)
      for (const Point& x : points[st]) {
        int64_t c = pl->maps[st].apply(x)[d];
        low = std::min(low, c);
        high = std::max(high, c);
      }
    // x -> low + high - x: reversed, over the same range.
    for (Affine& f : pl->maps) {
      for (int64_t& c : f.coeff[d]) c = -c;
      f.constant[d] = low + high - f.constant[d];
    }
  }
}

}  // namespace

PlacementSearchResult search_placements(const PolyProgram& p, const std::vector<Dependency>& deps,
                                        const std::vector<Signal>& signals,
                                        const PlacementSearchOptions& o) {
  Search s(p, deps, signals, o);
  const size_t ns = p.statements.size(), dims = s.dims;
  s.r.overlap = o.overlap;
  s.r.cone_first = o.cone_first;
  s.phase1();
  // The statement points, once: the translation search maps them.
  std::vector<std::vector<Point>> points;
  for (const Statement& st : p.statements) points.push_back(st.domain.points(2'000'000));
  // Phase 3: targets start at the dimension, tightened round robin while solutions exist.
  std::vector<size_t> order(ns);
  std::iota(order.begin(), order.end(), 0);
  std::vector<size_t> involved(ns, 0);
  for (const Dependency& d : deps) {
    ++involved[d.src];
    if (d.dst != d.src) ++involved[d.dst];
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return involved[a] > involved[b]; });
  std::vector<size_t> current(deps.size(), dims), best = s.optimal;
  auto found = s.solve(&order, current);
  if (!found) {
    s.r.notes.push_back(s.r.complete ? "no placement exists: none has every rank at most the "
                                       "dimension (searched exhaustively)"
                                     : "no placement found, but the search stopped at a limit "
                                       "before it found any with every rank at most the "
                                       "dimension");
    return s.r;
  }
  std::vector<size_t> achieved = current;
  size_t dp = deps.empty() ? 0 : deps.size() - 1;
  while (!deps.empty()) {
    // The next dependency (round robin) whose target can still tighten.
    size_t tries = 0;
    do {
      dp = (dp + 1) % deps.size();
    } while (current[dp] <= best[dp] && ++tries <= deps.size());
    if (tries > deps.size()) break;
    --current[dp];
    auto next = s.solve(&order, current);
    if (next) {
      achieved = current;
    } else {
      ++current[dp];
      best[dp] = current[dp];
      if (!s.r.complete) break;
    }
  }
  s.r.achieved = achieved;

  // Every linear placement meeting the final targets, each translated at its best.
  auto comb = s.combine(achieved);
  for (const auto& c : comb) s.r.candidates.push_back(c.size());
  Translator tr(deps);
  std::map<std::vector<int64_t>, std::optional<int64_t>> alone_cache;
  tr.alone_cache = &alone_cache;
  tr.ns = ns;
  tr.dims = dims;
  tr.overlap = o.overlap;
  int64_t best_locality = -1, best_reuse = 0, best_refined = 0;
  std::vector<size_t> best_choice;
  // The bounding box of each statement's image under each of its mappings (isl), once.
  std::vector<std::map<size_t, std::optional<std::vector<std::pair<int64_t, int64_t>>>>> boxes(ns);
  auto box = [&](size_t st, size_t m) {
    auto it = boxes[st].find(m);
    if (it != boxes[st].end()) return it->second;
    Affine f{s.set[st][m], Point(dims, 0)};
    auto b = IntMap::from_affine(p.statements[st].domain, "", f).range().bounds();
    boxes[st][m] = b;
    return b;
  };
  auto prepare = [&](const std::vector<size_t>& chosen) {
    std::vector<const Matrix*> maps;
    for (size_t st = 0; st < ns; ++st) maps.push_back(&s.set[st][chosen[st]]);
    tr.load(points, maps);
  };
  // Each dependency translated on its own, a weighted median per dim: a cheap lower bound of
  // the locality, to visit the linear placements most promising first.
  auto relaxed_bound = [&]() {
    int64_t total = 0;
    for (size_t k = 0; k < tr.vectors.size(); ++k)
      for (size_t dim = 0; dim < dims; ++dim) {
        std::map<int64_t, int64_t> pts;
        for (const auto& [v, c] : tr.vectors[k]) pts[-v[dim]] += c;
        Line l(pts, INT64_MIN / 8, INT64_MAX / 8, 0);
        total += deps[k].src == deps[k].dst ? l.cost(0) : l.at(0).first;
      }
    return total;
  };
  // The rank of the vectors of the dependencies within one statement: translations do not
  // move them, so the dependency cone's dimension is at least this.
  auto fixed_rank_of = [&]() {
    std::vector<Point> v;
    for (size_t k = 0; k < deps.size(); ++k)
      if (deps[k].src == deps[k].dst)
        for (const auto& [x, c] : tr.vectors[k]) v.push_back(x);
    return rank(v, dims);
  };
  // Every solution with the lower bound of its locality, then translated cheapest bound first:
  // branch and bound, exact.
  std::vector<std::pair<int64_t, std::vector<size_t>>> solutions;
  std::vector<size_t> fixed_rank;  // per solution: its cone's dimension is at least this
  bool cut = !s.backtrack(order, achieved, comb, o.max_iterations, true, nullptr,
                          [&](const std::vector<size_t>& chosen) {
                            ++s.r.solutions;
                            prepare(chosen);
                            solutions.push_back({relaxed_bound(), chosen});
                            fixed_rank.push_back(fixed_rank_of());
                            return s.r.solutions < o.max_solutions;
                          });
  if (cut) s.stop("backtracking steps (" + std::to_string(o.max_iterations) + ")");
  if (!cut && s.r.solutions >= o.max_solutions)
    s.stop("linear placements meeting the final ranks (--place-limit " +
           std::to_string(o.max_solutions) + ")");
  {
    std::vector<size_t> idx(solutions.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(),
                     [&](size_t x, size_t y) { return solutions[x].first < solutions[y].first; });
    std::vector<std::pair<int64_t, std::vector<size_t>>> sorted;
    std::vector<size_t> ranks;
    for (size_t i : idx) sorted.push_back(solutions[i]), ranks.push_back(fixed_rank[i]);
    solutions.swap(sorted);
    fixed_rank.swap(ranks);
  }
  size_t least_rank = dims;
  for (size_t rk : fixed_rank) least_rank = std::min(least_rank, rk);
  int64_t cut_each = 0, cut_total = 0;
  // Regularity before locality (section 3.5.3): the smallest dimension of the dependency cone
  // any translation reaches, then the smallest locality with it.
  for (size_t cone_dim = deps.empty() || !o.cone_first ? dims : std::max<size_t>(least_rank, 1);
       cone_dim <= dims && best_locality < 0; ++cone_dim) {
    s.r.cone_dimension = cone_dim;
    s.r.pruned = s.r.translated = s.r.constructed = 0;
    for (size_t n = 0; n < solutions.size(); ++n) {
      const auto& [bound, chosen] = solutions[n];
      // Its self-dependencies' vectors do not move with translations: its cone spans them.
      if (fixed_rank[n] > cone_dim) continue;
      if (best_locality >= 0 && bound > best_locality) {
        s.r.pruned += static_cast<int64_t>(solutions.size() - n);
        break;
      }
      prepare(chosen);
      tr.chosen = chosen;
      std::vector<std::optional<std::vector<std::pair<int64_t, int64_t>>>> frame;
      for (size_t st = 0; st < ns; ++st) frame.push_back(box(st, chosen[st]));
      tr.frame(std::move(frame), o.radius);
      s.r.radius = std::max(s.r.radius, tr.radius);
      Translator::Outcome out = tr.translate(cone_dim, best_locality, o.max_checks,
                                             o.max_total_checks - s.r.checks, o.build_from_boxes);
      s.r.checks += tr.checks;
      if (out.pruned) ++s.r.pruned;
      if (out.cut) ++(tr.max_checks == o.max_checks ? cut_each : cut_total);
      if (out.skipped) ++cut_total;
      const bool built = out.built;
      auto& t = out.t;
      if (!t) continue;
      ++s.r.translated;
      if (built) ++s.r.constructed;
      Placement pl{"masai", {}, p.loc};
      for (size_t st = 0; st < ns; ++st)
        pl.maps.push_back(Affine{s.set[st][chosen[st]], t->second[st]});
      const int64_t loc = t->first;
      if (best_locality >= 0 && loc > best_locality) continue;
      PlacementCosts c = placement_costs(deps, signals, pl);
      if (best_locality < 0 || loc < best_locality || c.data_reuse < best_reuse ||
          (c.data_reuse == best_reuse && c.refined_locality < best_refined)) {
        best_locality = loc;
        best_reuse = c.data_reuse;
        best_refined = c.refined_locality;
        s.r.placement = pl;
        s.r.costs = c;
        best_choice = chosen;
      }
    }
  }
  if (cut_each > 0)
    s.stop("translations checked per linear placement (" + std::to_string(o.max_checks) +
           "): " + std::to_string(cut_each) + " linear placements' exact search cut short");
  if (cut_total > 0)
    s.stop("translations checked in all (" + std::to_string(o.max_total_checks) +
           "): " + std::to_string(cut_total) + " linear placements not searched exactly");
  if (best_locality < 0) {
    const std::string what = std::string(" meeting the final ranks has a translation within ") +
                             "radius " + std::to_string(s.r.radius) + " that " +
                             (o.overlap ? "" : "keeps the polytopes apart and ") +
                             "admits a legal ordering";
    s.r.notes.push_back(s.r.complete
                            ? "no placement exists: no linear placement" + what +
                                  " (searched exhaustively)"
                            : "no placement found, but the search stopped at a limit: it did "
                              "not show that no linear placement" +
                                  what);
    return s.r;
  }
  s.r.found = true;
  orient(p, deps, points, &s.r.placement);
  for (size_t k = 0; k < deps.size(); ++k)
    s.r.ranks.push_back(s.dep_rank(k, best_choice[deps[k].src], best_choice[deps[k].dst]));
  return s.r;
}

TranslationResult best_translation(const PolyProgram& p, const std::vector<Dependency>& deps,
                                   const std::vector<Matrix>& linear,
                                   const PlacementSearchOptions& o) {
  const size_t ns = p.statements.size(), dims = p.space.size();
  if (linear.size() != ns)
    throw std::invalid_argument("best_translation: one linear map per statement");
  TranslationResult r;
  Translator tr(deps);
  std::map<std::vector<int64_t>, std::optional<int64_t>> alone_cache;
  tr.alone_cache = &alone_cache;
  tr.ns = ns;
  tr.dims = dims;
  tr.overlap = o.overlap;
  tr.chosen.assign(ns, 0);
  std::vector<std::vector<Point>> points;
  std::vector<const Matrix*> maps;
  std::vector<std::optional<std::vector<std::pair<int64_t, int64_t>>>> boxes;
  for (size_t st = 0; st < ns; ++st) {
    const Statement& s = p.statements[st];
    if (linear[st].size() != dims || (dims > 0 && linear[st][0].size() != s.domain.dims()))
      throw std::invalid_argument("best_translation: " + s.name + "'s map is not " +
                                  std::to_string(dims) + " x " + std::to_string(s.domain.dims()));
    points.push_back(s.domain.points(2'000'000));
    maps.push_back(&linear[st]);
    boxes.push_back(
        IntMap::from_affine(s.domain, "", Affine{linear[st], Point(dims, 0)}).range().bounds());
  }
  tr.load(points, maps);
  tr.frame(std::move(boxes), o.radius);
  r.radius = tr.radius;
  for (size_t cone_dim = deps.empty() || !o.cone_first ? dims : 1; cone_dim <= dims && !r.found;
       ++cone_dim) {
    Translator::Outcome out =
        tr.translate(cone_dim, -1, o.max_checks, o.max_total_checks - r.checks, o.build_from_boxes);
    r.checks += tr.checks;
    if (out.cut || out.skipped) {
      r.complete = false;
      const std::string limit =
          out.skipped || tr.max_checks < o.max_checks
              ? "translations checked in all (" + std::to_string(o.max_total_checks) + ")"
              : "translations checked per linear placement (" + std::to_string(o.max_checks) + ")";
      if (std::find(r.stopped_by.begin(), r.stopped_by.end(), limit) == r.stopped_by.end())
        r.stopped_by.push_back(limit);
    }
    if (!out.t) continue;
    r.found = true;
    r.cone_dimension = cone_dim;
    r.locality = out.t->first;
    r.placement = Placement{"translated", {}, p.loc};
    for (size_t st = 0; st < ns; ++st)
      r.placement.maps.push_back(Affine{linear[st], out.t->second[st]});
  }
  return r;
}

}  // namespace t2s::explore
