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

}  // namespace

int64_t manhattan_mst(const std::vector<Point>& points) {
  const size_t n = points.size();
  if (n < 2) return 0;
  std::vector<int64_t> best(n, std::numeric_limits<int64_t>::max());
  std::vector<bool> in(n, false);
  best[0] = 0;
  int64_t total = 0;
  for (size_t step = 0; step < n; ++step) {
    size_t u = n;
    for (size_t v = 0; v < n; ++v)
      if (!in[v] && (u == n || best[v] < best[u])) u = v;
    in[u] = true;
    total += best[u];
    for (size_t v = 0; v < n; ++v)
      if (!in[v]) best[v] = std::min(best[v], manhattan(points[u], points[v]));
  }
  return total;
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

}  // namespace t2s::explore
