#include "libs/explore/placement_search.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>
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
        r.complete = false;
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

// The translation of one linear placement (statement 0 stays put) of smallest locality among
// those whose polytopes do not overlap and whose dependency cone admits a strictly legal
// ordering vector. Locality is a sum over dims of functions of that dim's translations, so each
// dim's combinations are enumerated alone and their sums visited cheapest first.
struct Translator {
  const PolyProgram& p;
  const std::vector<Dependency>& deps;
  size_t dims;
  int64_t radius;
  std::vector<Point> offset;  // per statement: the translation aligning its lowest corner
  std::vector<std::vector<Point>> images;  // per statement, its points mapped linearly
  // per dependency: distinct linear vectors (A_t y - A_s x) and their counts
  std::vector<std::vector<std::pair<Point, int64_t>>> vectors;

  bool overlap = false;
  size_t max_cone_dim = 0;  // the dependency cone's dimension, at most

  // One dim's translations of statements 1.. as a mixed-radix code, with their cost.
  struct DimList {
    std::vector<std::pair<int64_t, int64_t>> rows;  // cost, code
  };

  // The rank of the vectors of the dependencies within one statement: translations do not
  // move them, so the dependency cone's dimension is at least this.
  size_t fixed_rank() const {
    std::vector<Point> v;
    for (size_t k = 0; k < deps.size(); ++k)
      if (deps[k].src == deps[k].dst)
        for (const auto& [x, c] : vectors[k]) v.push_back(x);
    return rank(v, dims);
  }

  // Each dependency's best translation on its own (the weighted median per dim): a lower
  // bound of the locality of every translation.
  int64_t relaxed_bound() const {
    int64_t total = 0;
    for (size_t k = 0; k < vectors.size(); ++k)
      for (size_t dim = 0; dim < dims; ++dim) {
        std::vector<std::pair<int64_t, int64_t>> w;
        int64_t all = 0;
        for (const auto& [v, c] : vectors[k]) w.push_back({-v[dim], c}), all += c;
        std::sort(w.begin(), w.end());
        int64_t acc = 0, median = w.empty() ? 0 : w.back().first;
        for (const auto& [x, c] : w)
          if ((acc += c) * 2 >= all) {
            median = x;
            break;
          }
        for (const auto& [v, c] : vectors[k]) total += c * std::llabs(v[dim] + median);
      }
    return total;
  }

  int64_t decode(int64_t code, size_t s, size_t dim) const {
    const int64_t width = 2 * radius + 1;
    for (size_t f = 1; f < s; ++f) code /= width;
    return code % width - radius + offset[s][dim];
  }

  // Nothing when no translation costs at most `bound` (>= 0): *pruned tells that case apart.
  std::optional<std::pair<int64_t, std::vector<Point>>> best(int64_t limit_checks, int64_t bound,
                                                             bool* pruned) {
    *pruned = false;
    const size_t ns = p.statements.size();
    if (ns == 1) {
      std::vector<Point> t(1, Point(dims, 0));
      int64_t cost = 0;
      for (size_t k = 0; k < deps.size(); ++k)
        for (const auto& [v, c] : vectors[k])
          for (size_t i = 0; i < dims; ++i) cost += c * std::llabs(v[i]);
      if (!legal(t)) return std::nullopt;
      return std::make_pair(cost, t);
    }
    const size_t free = ns - 1;
    const int64_t width = 2 * radius + 1;
    int64_t total = 1;
    for (size_t f = 0; f < free; ++f) total *= width;
    std::vector<DimList> lists(dims);
    std::vector<int64_t> t(ns, 0);
    for (size_t dim = 0; dim < dims; ++dim) {
      lists[dim].rows.reserve(static_cast<size_t>(total));
      for (int64_t code = 0; code < total; ++code) {
        for (size_t s = 1; s < ns; ++s) t[s] = decode(code, s, dim);
        int64_t cost = 0;
        for (size_t k = 0; k < deps.size(); ++k) {
          int64_t delta = t[deps[k].dst] - t[deps[k].src];
          for (const auto& [v, c] : vectors[k]) cost += c * std::llabs(v[dim] + delta);
        }
        lists[dim].rows.push_back({cost, code});
      }
      std::stable_sort(lists[dim].rows.begin(), lists[dim].rows.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
    }
    // Cheapest sums first (one index per dim).
    using Entry = std::pair<int64_t, std::vector<size_t>>;
    auto cmp = [](const Entry& a, const Entry& b) { return a.first > b.first; };
    std::priority_queue<Entry, std::vector<Entry>, decltype(cmp)> queue(cmp);
    std::set<std::vector<size_t>> queued;
    auto push = [&](std::vector<size_t> idx) {
      if (queued.count(idx)) return;
      int64_t cost = 0;
      for (size_t dim = 0; dim < dims; ++dim) cost += lists[dim].rows[idx[dim]].first;
      queued.insert(idx);
      queue.push({cost, std::move(idx)});
    };
    push(std::vector<size_t>(dims, 0));
    int64_t checks = 0;
    while (!queue.empty() && checks < limit_checks) {
      Entry e = queue.top();
      queue.pop();
      if (bound >= 0 && e.first > bound) {
        *pruned = true;
        return std::nullopt;
      }
      ++checks;
      std::vector<Point> tr(ns, Point(dims, 0));
      for (size_t dim = 0; dim < dims; ++dim)
        for (size_t s = 1; s < ns; ++s)
          tr[s][dim] = decode(lists[dim].rows[e.second[dim]].second, s, dim);
      if ((overlap || apart(tr)) && legal(tr)) return std::make_pair(e.first, tr);
      for (size_t dim = 0; dim < dims; ++dim)
        if (e.second[dim] + 1 < lists[dim].rows.size()) {
          std::vector<size_t> next = e.second;
          ++next[dim];
          push(next);
        }
    }
    return std::nullopt;
  }

  bool apart(const std::vector<Point>& t) const {
    struct Hash {
      size_t operator()(const Point& x) const {
        size_t h = 0;
        for (int64_t v : x) h = h * 1000003u ^ static_cast<size_t>(v);
        return h;
      }
    };
    std::unordered_set<Point, Hash> seen;
    for (size_t s = 0; s < images.size(); ++s)
      for (const Point& x : images[s]) {
        Point y = x;
        for (size_t i = 0; i < dims; ++i) y[i] += t[s][i];
        if (!seen.insert(y).second) return false;
      }
    return true;
  }

  bool legal(const std::vector<Point>& t) const {
    std::set<Point> all;
    for (size_t k = 0; k < deps.size(); ++k)
      for (const auto& [v, c] : vectors[k]) {
        Point w = v;
        for (size_t i = 0; i < dims; ++i) w[i] += t[deps[k].dst][i] - t[deps[k].src][i];
        if (std::all_of(w.begin(), w.end(), [](int64_t x) { return x == 0; })) {
          // Two statements on one point run in the statements' order.
          if (overlap && deps[k].src < deps[k].dst) continue;
          return false;
        }
        all.insert(w);
      }
    Cone cone = conic_hull({all.begin(), all.end()}, dims);
    return cone.dimension() <= max_cone_dim && strictly_positive_vector(cone).has_value();
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
    s.r.notes.push_back("no placement with every rank at most the dimension");
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
  Translator tr{p, deps, dims, 0, {}, {}, {}, o.overlap};
  int64_t best_locality = -1, best_reuse = 0, best_refined = 0;
  std::vector<size_t> best_choice;
  auto prepare = [&](const std::vector<size_t>& chosen) {
    tr.images.assign(ns, {});
    for (size_t st = 0; st < ns; ++st)
      for (const Point& x : points[st]) tr.images[st].push_back(times(s.set[st][chosen[st]], x));
    tr.vectors.assign(deps.size(), {});
    for (size_t k = 0; k < deps.size(); ++k) {
      std::map<Point, int64_t> counts;
      for (const auto& [x, y] : deps[k].pairs) {
        Point v = times(s.set[deps[k].dst][chosen[deps[k].dst]], y);
        Point u = times(s.set[deps[k].src][chosen[deps[k].src]], x);
        for (size_t i = 0; i < dims; ++i) v[i] -= u[i];
        ++counts[v];
      }
      tr.vectors[k].assign(counts.begin(), counts.end());
    }
  };
  // Every solution with the lower bound of its locality (each dependency translated on its
  // own), then translated cheapest bound first: branch and bound, exact.
  std::vector<std::pair<int64_t, std::vector<size_t>>> solutions;
  std::vector<size_t> fixed_rank;  // per solution: its cone's dimension is at least this
  bool cut = !s.backtrack(order, achieved, comb, o.max_iterations, true, nullptr,
                          [&](const std::vector<size_t>& chosen) {
                            ++s.r.solutions;
                            prepare(chosen);
                            solutions.push_back({tr.relaxed_bound(), chosen});
                            fixed_rank.push_back(tr.fixed_rank());
                            return s.r.solutions < o.max_solutions;
                          });
  if (cut || s.r.solutions >= o.max_solutions) s.r.complete = false;
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
  int64_t skipped = 0;
  double work = 0;
  // Regularity before locality (section 3.5.3): the smallest dimension of the dependency cone
  // any translation reaches, then the smallest locality with it.
  for (size_t cone_dim = deps.empty() || !o.cone_first ? dims : std::max<size_t>(least_rank, 1);
       cone_dim <= dims && best_locality < 0; ++cone_dim) {
    tr.max_cone_dim = cone_dim;
    s.r.cone_dimension = cone_dim;
    s.r.pruned = s.r.translated = skipped = 0;
    work = 0;
    for (size_t n = 0; n < solutions.size(); ++n) {
      const auto& [bound, chosen] = solutions[n];
      // Its self-dependencies' vectors do not move with translations: its cone spans them.
      if (fixed_rank[n] > cone_dim) continue;
      if (best_locality >= 0 && bound > best_locality) {
        s.r.pruned += static_cast<int64_t>(solutions.size() - n);
        break;
      }
      prepare(chosen);
      // Translations far enough for any polytope to sit on any side of all the others.
      int64_t radius = 0;
      tr.offset.assign(ns, Point(dims, 0));
      for (size_t i = 0; i < dims; ++i) {
        int64_t sum = 0, low0 = 0;
        for (size_t st = 0; st < ns; ++st) {
          const auto& image = tr.images[st];
          int64_t lo = image.empty() ? 0 : image[0][i], hi = lo;
          for (const Point& x : image) lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
          // Apart, a polytope may need to pass all the others; sharing points, only one.
          sum = o.overlap ? std::max(sum, hi - lo + 1) : sum + hi - lo + 1;
          if (st == 0) low0 = lo;
          tr.offset[st][i] = low0 - lo;
        }
        radius = std::max(radius, sum);
      }
      tr.radius = o.radius >= 0 ? std::min(o.radius, radius) : radius;
      s.r.radius = std::max(s.r.radius, tr.radius);
      double combos =
          std::pow(2.0 * static_cast<double>(tr.radius) + 1, static_cast<double>(ns - 1));
      double cost = combos * static_cast<double>(dims * (deps.size() + 1));
      if (combos > 1e6 || work + cost > 1e7) {
        ++skipped;
        continue;
      }
      work += cost;
      bool pruned = false;
      auto t = tr.best(4'000, best_locality, &pruned);
      if (pruned) ++s.r.pruned;
      if (!t) continue;
      ++s.r.translated;
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
  if (skipped > 0) {
    s.r.complete = false;
    s.r.notes.push_back(
        std::to_string(skipped) +
        " linear placements not translated: too many translations to try "
        "exactly within the work limit (a smaller --place-radius or --place-limit)");
  }
  if (best_locality < 0) {
    s.r.notes.push_back(std::string(skipped > 0 ? "within the work limit, no" : "no") +
                        " linear placement meeting the final ranks has a translation that " +
                        (o.overlap ? "" : "keeps the polytopes apart and ") +
                        "admits a legal ordering");
    return s.r;
  }
  s.r.found = true;
  orient(p, deps, points, &s.r.placement);
  for (size_t k = 0; k < deps.size(); ++k)
    s.r.ranks.push_back(s.dep_rank(k, best_choice[deps[k].src], best_choice[deps[k].dst]));
  return s.r;
}

}  // namespace t2s::explore
