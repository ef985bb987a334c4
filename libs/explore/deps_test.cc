// DTSE sections 3.3.2 and 3.5.4.4: the three-polytope example (testdata/explore/
// three_polytopes.json), its dependencies, cones and placement costs, for the placements of
// figures 3.28 (initial), 3.30 (intermediate) and 3.31 (final), each number checked against a
// brute force that runs the loop program itself and records which write every read sees.
#include "libs/explore/deps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "libs/explore/basic_sets.h"
#include "libs/explore/costs.h"

namespace t2s::explore {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

PolyProgram three_polytopes(int64_t n) {
  return read_poly_program(read_file("testdata/explore/three_polytopes.json"), "", {{"N", n}});
}

// ---- the brute force: the loop program of section 3.3.2, run in its written order --------

struct BruteOp {
  char stmt;
  int64_t x, y;  // the statement's two iterators
};

struct Instance {
  BruteOp src, dst;
  int read;  // which read of dst (0-based)
};

std::vector<Instance> run_three_polytopes(int64_t N) {
  std::map<std::vector<int64_t>, BruteOp> last;  // {array, i, j} -> writer
  std::vector<Instance> out;
  auto read = [&](int64_t array, int64_t i, int64_t j, BruteOp op, int r) {
    auto it = last.find({array, i, j});
    if (it != last.end()) out.push_back({it->second, op, r});
  };
  const int64_t a = 0, b = 1;
  for (int64_t i = 1; i <= N; ++i)
    for (int64_t j = 1; j <= N - i + 1; ++j) {
      BruteOp op{'A', i, j};
      read(a, i - 1, j, op, 1);  // read 0 is in[i][j], an input
      last[{a, i, j}] = op;
    }
  for (int64_t p = 1; p <= N; ++p) {
    BruteOp op{'B', 1, p};
    read(a, N - p + 1, p, op, 0);
    read(a, N - p, p, op, 1);
    last[{b, p, 1}] = op;
  }
  for (int64_t k = 1; k <= N; ++k)
    for (int64_t l = 1; l <= k; ++l) {
      BruteOp op{'C', k, l};
      read(b, k, l, op, 0);
      last[{b, k, l + 1}] = op;
    }
  return out;
}

using Place = std::function<std::pair<int64_t, int64_t>(const BruteOp&)>;

// The placements, as the figures draw them (x1 vertical).
Place figure(int which, int64_t N) {
  return [which, N](const BruteOp& o) -> std::pair<int64_t, int64_t> {
    switch (o.stmt) {
      case 'A':
        return {o.x, o.y};
      case 'B':
        return which == 2 ? std::pair<int64_t, int64_t>{o.x - o.y + N + 1, o.y}
                          : std::pair<int64_t, int64_t>{o.x + N, o.y};
      default:
        if (which == 0) return {o.x + N + 1, o.y + N};
        if (which == 1) return {2 * N + 2 - o.x, o.y + N};
        return {o.y - o.x + N + 2, o.x};
    }
  };
}

int64_t dist(std::pair<int64_t, int64_t> a, std::pair<int64_t, int64_t> b) {
  return std::abs(a.first - b.first) + std::abs(a.second - b.second);
}

// Minimum spanning tree by trying every tree (Pruefer sequences): for the few points of a
// signal of this example.
int64_t mst_by_every_tree(const std::vector<std::pair<int64_t, int64_t>>& pts) {
  const size_t n = pts.size();
  if (n < 2) return 0;
  if (n == 2) return dist(pts[0], pts[1]);
  int64_t best = INT64_MAX;
  std::vector<size_t> seq(n - 2, 0);
  for (;;) {
    std::vector<int> degree(n, 1);
    for (size_t s : seq) ++degree[s];
    int64_t w = 0;
    std::vector<int> deg = degree;
    for (size_t s : seq) {
      size_t leaf = 0;
      while (deg[leaf] != 1) ++leaf;
      w += dist(pts[leaf], pts[s]);
      --deg[leaf];
      --deg[s];
    }
    size_t u = n, v = n;
    for (size_t i = 0; i < n; ++i)
      if (deg[i] == 1) (u == n ? u : v) = i;
    w += dist(pts[u], pts[v]);
    best = std::min(best, w);
    size_t i = 0;
    while (i < seq.size() && seq[i] == n - 1) seq[i++] = 0;
    if (i == seq.size()) break;
    ++seq[i];
  }
  return best;
}

struct BruteCosts {
  int64_t locality = 0, refined = 0, reuse = 0;
  double angle = 0;
};

BruteCosts brute_costs(int64_t N, int which) {
  Place P = figure(which, N);
  BruteCosts c;
  std::map<std::tuple<char, int64_t, int64_t>, std::vector<BruteOp>> consumers;
  double lo = 10, hi = -10;
  for (const Instance& in : run_three_polytopes(N)) {
    auto s = P(in.src), d = P(in.dst);
    c.locality += dist(s, d);
    consumers[{in.src.stmt, in.src.x, in.src.y}].push_back(in.dst);
    double angle = std::atan2(static_cast<double>(d.second - s.second),
                              static_cast<double>(d.first - s.first));
    lo = std::min(lo, angle);
    hi = std::max(hi, angle);
  }
  for (const auto& [src, dsts] : consumers) {
    auto s = P(BruteOp{std::get<0>(src), std::get<1>(src), std::get<2>(src)});
    std::vector<std::pair<int64_t, int64_t>> pts = {s};
    int64_t longest = 0;
    for (const BruteOp& d : dsts) {
      pts.push_back(P(d));
      longest = std::max(longest, dist(s, P(d)));
    }
    c.refined += longest;
    c.reuse += mst_by_every_tree(pts);
  }
  c.angle = hi - lo;
  return c;
}

// ---- the tests -----------------------------------------------------------------------------

TEST(DepsTest, FiveDependenciesAsTheBruteForceFinds) {
  for (int64_t N : {2, 3, 5, 8}) {
    PolyProgram p = three_polytopes(N);
    std::vector<Dependency> deps = flow_dependencies(p, Limits{});
    ASSERT_EQ(deps.size(), 5u) << "N = " << N;  // "three polytopes and five dependencies"
    std::vector<std::string> labels;
    for (const Dependency& d : deps) labels.push_back(dependency_label(p, d));
    EXPECT_EQ(labels, (std::vector<std::string>{"A -> A (a, read 2)", "A -> B (a, read 1)",
                                                "A -> B (a, read 2)", "B -> C (b)", "C -> C (b)"}));
    // The brute force's instances, dependency by dependency.
    std::map<std::pair<std::string, int>, std::set<std::pair<Point, Point>>> brute;
    for (const Instance& in : run_three_polytopes(N))
      brute[{std::string(1, in.src.stmt) + in.dst.stmt, in.read}].insert(
          {{in.src.x, in.src.y}, {in.dst.x, in.dst.y}});
    for (const Dependency& d : deps) {
      std::string key = p.statements[d.src].name + p.statements[d.dst].name;
      std::set<std::pair<Point, Point>> mine(d.pairs.begin(), d.pairs.end());
      EXPECT_EQ(mine, (brute[{key, static_cast<int>(d.read)}])) << key;
    }
  }
}

TEST(DepsTest, ConesOfTheThreePlacements) {
  PolyProgram p = three_polytopes(5);
  std::vector<Dependency> deps = flow_dependencies(p, Limits{});
  const double half_pi = std::acos(-1.0) / 2;
  // Figure 3.28: B -> C has vectors (k, N + 1 - k): a two-dimensional local cone.
  PlacementAnalysis initial = analyze_placement(p, deps, p.placements[0]);
  EXPECT_EQ(initial.deps[3].cone.rays, (std::vector<Point>{{5, 1}, {1, 5}}));
  // rank(I - D') of B -> C (section 3.5.4): 1 in figures 3.28 and 3.30 (the vectors lie on a
  // line), 0 in figure 3.31 (uniform).
  EXPECT_EQ(initial.deps[3].linear_rank, 1u);
  EXPECT_FALSE(initial.deps[3].uniform);
  EXPECT_EQ(initial.dependency_cone.rays, (std::vector<Point>{{1, 0}, {0, 1}}));
  EXPECT_NEAR(*angle_2d(initial.dependency_cone), half_pi, 1e-12);
  EXPECT_NEAR(*angle_2d(initial.dependency_cone), brute_costs(5, 0).angle, 1e-12);
  EXPECT_EQ(initial.allowed.rays, (std::vector<Point>{{1, 0}, {0, 1}}));
  EXPECT_EQ(*initial.legal_vector, (Point{1, 1}));
  // Figure 3.30: B -> C now has one direction, (N + 1 - k)(1, 1); the total cone is still pi/2.
  PlacementAnalysis mid = analyze_placement(p, deps, p.placements[1]);
  EXPECT_EQ(mid.deps[3].cone.rays, (std::vector<Point>{{1, 1}}));
  EXPECT_EQ(mid.deps[3].vectors.size(), 5u);
  EXPECT_EQ(mid.deps[3].linear_rank, 1u);
  EXPECT_NEAR(*angle_2d(mid.dependency_cone), half_pi, 1e-12);
  EXPECT_NEAR(*angle_2d(mid.dependency_cone), brute_costs(5, 1).angle, 1e-12);
  // Figure 3.31: every dependency uniform, all pointing up: a cone of angle 0, and a half-plane
  // of allowed ordering vectors.
  PlacementAnalysis fin = analyze_placement(p, deps, p.placements[2]);
  for (const PlacedDependency& d : fin.deps) {
    EXPECT_TRUE(d.uniform);
    EXPECT_EQ(d.linear_rank, 0u);
  }
  EXPECT_EQ(fin.deps[0].vectors[0].vector, (Point{1, 0}));
  EXPECT_EQ(fin.deps[2].vectors[0].vector, (Point{2, 0}));
  EXPECT_EQ(fin.dependency_cone.rays, (std::vector<Point>{{1, 0}}));
  EXPECT_EQ(*angle_2d(fin.dependency_cone), 0.0);
  EXPECT_EQ(brute_costs(5, 2).angle, 0.0);
  EXPECT_EQ(fin.allowed.rays, (std::vector<Point>{{1, 0}}));
  EXPECT_EQ(fin.allowed.lineality, (std::vector<Point>{{0, 1}}));
}

TEST(DepsTest, LocalityAndDataReuseOfTheThreePlacements) {
  // The book's numbers for N = 5: locality 79, 79, 38; data reuse 75, 75, 34.
  const int64_t book_locality[3] = {79, 79, 38}, book_reuse[3] = {75, 75, 34};
  for (int64_t N : {3, 4, 5, 6, 9}) {
    PolyProgram p = three_polytopes(N);
    std::vector<Dependency> deps = flow_dependencies(p, Limits{});
    std::vector<Signal> signals = read_values(deps);
    for (int which = 0; which < 3; ++which) {
      PlacementCosts c = placement_costs(deps, signals, p.placements[which]);
      BruteCosts b = brute_costs(N, which);
      EXPECT_EQ(c.locality, b.locality) << "N = " << N << ", placement " << which;
      EXPECT_EQ(c.refined_locality, b.refined) << "N = " << N << ", placement " << which;
      EXPECT_EQ(c.data_reuse, b.reuse) << "N = " << N << ", placement " << which;
      // The closed forms: 3N^2 + N - 1 (the book's, for figures 3.28 and 3.30) and, for
      // figure 3.31, N^2 + 3N - 2; data reuse saves N - 1 (the signals read twice).
      const int64_t loc = which < 2 ? 3 * N * N + N - 1 : N * N + 3 * N - 2;
      EXPECT_EQ(c.locality, loc);
      EXPECT_EQ(c.data_reuse, loc - (N - 1));
      if (N == 5) {
        EXPECT_EQ(c.locality, book_locality[which]);
        EXPECT_EQ(c.data_reuse, book_reuse[which]);
      }
    }
    // "For the dependency between B and C, the distances are (N+1) + ... + (1+N) = N(N+1)".
    EXPECT_EQ(placement_costs(deps, signals, p.placements[0]).locality_per_dep[3], N * (N + 1));
  }
  // Figure 3.29's extended dependency graph for a value of A2 at N = 5 (x1 = i, p = j):
  // Loc(P->CA) = 4, Loc(P->CB) = 14, Loc(CA<->CB) = 10 summed over the four values.
  int64_t p_ca = 0, p_cb = 0, ca_cb = 0;
  for (int64_t j = 1; j <= 4; ++j) {
    const int64_t i = 5 - j;
    p_ca += 1;
    p_cb += dist({i, j}, {6, j});
    ca_cb += dist({i + 1, j}, {6, j});
  }
  EXPECT_EQ(p_ca, 4);
  EXPECT_EQ(p_cb, 14);
  EXPECT_EQ(ca_cb, 10);
}

// Figure 3.29 per basic group: each group's share of the costs and, for the group read by two
// statements (the book's A2, the values on i + j = N), its extended dependency graph, against a
// brute force that groups the values by the statements that read them.
TEST(DepsTest, CostsPerBasicGroupOfFigure3_29) {
  for (int64_t N : {3, 4, 5, 6, 9}) {
    PolyProgram p = three_polytopes(N);
    std::vector<Dependency> deps = flow_dependencies(p, Limits{});
    std::vector<Signal> signals = read_values(deps);
    BasicSets b = basic_sets(p, signals, p.placements[0], Limits{});
    for (int which = 0; which < 3; ++which) {
      Place P = figure(which, N);
      // Brute force: each value's consumers, its group (writer, readers).
      std::map<std::tuple<char, int64_t, int64_t>, std::vector<BruteOp>> consumers;
      for (const Instance& in : run_three_polytopes(N))
        consumers[{in.src.stmt, in.src.x, in.src.y}].push_back(in.dst);
      struct Brute {
        int64_t values = 0, locality = 0, refined = 0, reuse = 0;
        std::map<char, int64_t> to;                     // P -> C_S
        std::map<std::pair<char, char>, int64_t> pair;  // C_S <-> C_T
      };
      std::map<std::pair<char, std::string>, Brute> brute;
      for (const auto& [src, dsts] : consumers) {
        const auto s = P(BruteOp{std::get<0>(src), std::get<1>(src), std::get<2>(src)});
        std::string readers;
        for (const BruteOp& d : dsts)
          if (readers.find(d.stmt) == std::string::npos) readers += d.stmt;
        std::sort(readers.begin(), readers.end());
        Brute& g = brute[{std::get<0>(src), readers}];
        ++g.values;
        std::vector<std::pair<int64_t, int64_t>> pts = {s};
        int64_t longest = 0;
        std::map<char, std::pair<int64_t, int64_t>> at;  // one consumption per reader here
        for (const BruteOp& d : dsts) {
          g.locality += dist(s, P(d));
          longest = std::max(longest, dist(s, P(d)));
          pts.push_back(P(d));
          ASSERT_EQ(at.count(d.stmt), 0u);
          at[d.stmt] = P(d);
        }
        g.refined += longest;
        g.reuse += mst_by_every_tree(pts);
        for (const auto& [r, q] : at) {
          g.to[r] += dist(s, q);
          for (const auto& [t, u] : at)
            if (r < t) g.pair[{r, t}] += dist(q, u);
        }
      }
      std::vector<GroupCosts> costs = basic_group_costs(b, signals, p.placements[which]);
      ASSERT_EQ(costs.size(), b.sets.size());
      PlacementCosts total = placement_costs(deps, signals, p.placements[which]);
      int64_t locality = 0, refined = 0, reuse = 0;
      size_t read_groups = 0;
      for (const GroupCosts& g : costs) {
        locality += g.locality;
        refined += g.refined_locality;
        reuse += g.data_reuse;
        if (g.readers.empty()) continue;  // an output: no cost
        ++read_groups;
        std::string readers;
        for (size_t r : g.readers) readers += p.statements[r].name;
        const Brute& e = brute.at({p.statements[b.sets[g.set].writer].name[0], readers});
        EXPECT_EQ(g.values, e.values);
        EXPECT_EQ(g.locality, e.locality);
        EXPECT_EQ(g.refined_locality, e.refined);
        EXPECT_EQ(g.data_reuse, e.reuse);
        for (size_t r = 0; r < g.readers.size(); ++r) {
          const char rn = p.statements[g.readers[r]].name[0];
          EXPECT_EQ(g.production_to[r], e.to.at(rn));
          for (size_t t = r + 1; t < g.readers.size(); ++t)
            EXPECT_EQ(g.consumers[r][t], e.pair.at({rn, p.statements[g.readers[t]].name[0]}));
        }
      }
      EXPECT_EQ(read_groups, brute.size());
      // The groups share out the placement's costs.
      EXPECT_EQ(locality, total.locality);
      EXPECT_EQ(refined, total.refined_locality);
      EXPECT_EQ(reuse, total.data_reuse);
      // The book's A2 (our a(0), read by A and B): P -> C_A is N - 1 (each value one step up).
      const GroupCosts& a2 = costs[0];
      ASSERT_EQ(b.sets[0].name, "a(0)");
      ASSERT_EQ(a2.readers, (std::vector<size_t>{0, 1}));
      EXPECT_EQ(a2.production_to[0], N - 1);
      if (which == 0) {
        // Figure 3.29(b) on the initial placement: B at x1 = N + 1, so P -> C_B sums
        // N + 1 - i and C_A <-> C_B sums N - i over i = 1 .. N - 1; the tree takes P -> C_A and
        // C_A <-> C_B. At N = 5: 4, 14, 10 and 14.
        EXPECT_EQ(a2.production_to[1], N * (N + 1) / 2 - 1);
        EXPECT_EQ(a2.consumers[0][1], N * (N - 1) / 2);
        EXPECT_EQ(a2.tree, N - 1 + N * (N - 1) / 2);
        EXPECT_EQ(a2.tree_edges, (std::vector<std::pair<size_t, size_t>>{{0, 1}, {1, 2}}));
        if (N == 5) {
          EXPECT_EQ(a2.production_to, (std::vector<int64_t>{4, 14}));
          EXPECT_EQ(a2.consumers[0][1], 10);
          EXPECT_EQ(a2.tree, 14);
          // "The values of A1 and A3 are consumed only once, thus the data reuse cost is the
          // same as the locality cost for these sets"; in total 75.
          for (size_t x : {size_t{1}, size_t{2}}) EXPECT_EQ(costs[x].data_reuse, costs[x].locality);
          EXPECT_EQ(reuse, 75);
        }
      }
    }
  }
}

TEST(DepsTest, MinimumSpanningTree) {
  EXPECT_EQ(manhattan_mst({{0, 0}, {1, 0}, {3, 0}}), 3);
  EXPECT_EQ(manhattan_mst({{0, 0}, {1, 1}, {2, 0}, {1, -1}}), 6);
  EXPECT_EQ(manhattan_mst({{4, 2}}), 0);
}

}  // namespace
}  // namespace t2s::explore
