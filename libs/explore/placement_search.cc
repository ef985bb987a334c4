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
#include "libs/explore/placement_translator.h"

namespace t2s::explore {

using namespace placement_internal;

namespace {

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
