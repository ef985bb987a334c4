#include "libs/explore/costs.h"

#include <algorithm>
#include <limits>

namespace t2s::explore {

namespace {

int64_t manhattan(const Point& a, const Point& b) {
  int64_t s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] > b[i] ? a[i] - b[i] : b[i] - a[i];
  return s;
}

// Prim's algorithm on the complete graph of n nodes with weights weight(u, v): the tree's weight
// and, when asked, its edges (parent, child), children in the order they join.
template <typename Weight>
int64_t prim(size_t n, const Weight& weight, std::vector<std::pair<size_t, size_t>>* edges) {
  if (n < 2) return 0;
  std::vector<int64_t> best(n, std::numeric_limits<int64_t>::max());
  std::vector<size_t> from(n, 0);
  std::vector<bool> in(n, false);
  best[0] = 0;
  int64_t total = 0;
  for (size_t step = 0; step < n; ++step) {
    size_t u = n;
    for (size_t v = 0; v < n; ++v)
      if (!in[v] && (u == n || best[v] < best[u])) u = v;
    in[u] = true;
    total += best[u];
    if (step > 0 && edges) edges->push_back({from[u], u});
    for (size_t v = 0; v < n; ++v)
      if (!in[v]) {
        const int64_t w = weight(u, v);
        if (w < best[v]) best[v] = w, from[v] = u;
      }
  }
  return total;
}

int64_t mst_of(const std::vector<std::vector<int64_t>>& w,
               std::vector<std::pair<size_t, size_t>>* edges) {
  return prim(
      w.size(), [&](size_t u, size_t v) { return w[u][v]; }, edges);
}

int64_t nearest(const std::vector<Point>& a, const std::vector<Point>& b) {
  int64_t d = std::numeric_limits<int64_t>::max();
  for (const Point& x : a)
    for (const Point& y : b) d = std::min(d, manhattan(x, y));
  return d;
}

}  // namespace

int64_t manhattan_mst(const std::vector<Point>& points) {
  return prim(
      points.size(), [&](size_t u, size_t v) { return manhattan(points[u], points[v]); }, nullptr);
}

PlacementCosts placement_costs(const std::vector<Dependency>& deps,
                               const std::vector<Signal>& signals, const Placement& placement) {
  PlacementCosts c;
  for (const Dependency& d : deps) {
    int64_t sum = 0;
    for (const auto& [x, y] : d.pairs)
      sum += manhattan(placement.maps[d.src].apply(x), placement.maps[d.dst].apply(y));
    c.locality_per_dep.push_back(sum);
    c.locality += sum;
  }
  for (const Signal& s : signals) {
    const Point prod = place(placement, s.producer);
    std::vector<Point> points = {prod};
    int64_t longest = 0;
    for (const auto& [op, dep] : s.consumers) {
      Point q = place(placement, op);
      longest = std::max(longest, manhattan(prod, q));
      points.push_back(q);
    }
    c.refined_locality += longest;
    std::sort(points.begin() + 1, points.end());
    points.erase(std::unique(points.begin() + 1, points.end()), points.end());
    c.data_reuse += manhattan_mst(points);
  }
  return c;
}

std::vector<GroupCosts> basic_group_costs(const BasicSets& b, const std::vector<Signal>& signals,
                                          const Placement& placement) {
  std::vector<GroupCosts> out;
  for (size_t x = 0; x < b.sets.size(); ++x) {
    const BasicSet& set = b.sets[x];
    GroupCosts g;
    g.set = x;
    g.values = static_cast<int64_t>(set.signals.size());
    g.readers = set.readers;
    const size_t n = set.readers.size();
    g.production_to.assign(n, 0);
    g.consumers.assign(n, std::vector<int64_t>(n, 0));
    for (size_t sig : set.signals) {
      const Signal& s = signals[sig];
      const Point prod = place(placement, s.producer);
      std::vector<Point> points = {prod};
      std::vector<std::vector<Point>> by_reader(n);
      int64_t longest = 0;
      for (const auto& [op, dep] : s.consumers) {
        Point q = place(placement, op);
        const int64_t d = manhattan(prod, q);
        g.locality += d;
        longest = std::max(longest, d);
        points.push_back(q);
        const size_t r = static_cast<size_t>(
            std::find(set.readers.begin(), set.readers.end(), op.stmt) - set.readers.begin());
        by_reader[r].push_back(q);
      }
      g.refined_locality += longest;
      std::sort(points.begin() + 1, points.end());
      points.erase(std::unique(points.begin() + 1, points.end()), points.end());
      g.data_reuse += manhattan_mst(points);
      // A set's values are read by each of its readers (that is what makes it one set).
      for (size_t r = 0; r < n; ++r) {
        g.production_to[r] += nearest({prod}, by_reader[r]);
        for (size_t t = r + 1; t < n; ++t) {
          const int64_t d = nearest(by_reader[r], by_reader[t]);
          g.consumers[r][t] += d;
          g.consumers[t][r] += d;
        }
      }
    }
    if (n > 1) {
      std::vector<std::vector<int64_t>> w(n + 1, std::vector<int64_t>(n + 1, 0));
      for (size_t r = 0; r < n; ++r) {
        w[0][r + 1] = w[r + 1][0] = g.production_to[r];
        for (size_t t = 0; t < n; ++t) w[r + 1][t + 1] = g.consumers[r][t];
      }
      g.tree = mst_of(w, &g.tree_edges);
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace t2s::explore
