// DTSE chapter 4: the basic sets of figure 4.3 and the estimate without ordering (42), the
// bounds with k fixed outermost (section 4.3.1: 8 and 2, against 24 and 2 with nothing fixed),
// and the dependency part of figure 4.8 (60 nodes, lengths 5, 4, 3), each checked by running
// the figure's loop nest in every loop order (explore_testing.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "libs/explore/basic_sets.h"
#include "libs/explore/explore_testing.h"

namespace t2s::explore {
namespace {

using testing::BEffect;
using testing::BInstance;
using testing::BOp;

struct Loaded {
  PolyProgram p;
  std::vector<Dependency> deps;
  std::vector<Signal> signals;
  BasicSets sets;
};

Loaded load(const std::string& file) {
  Loaded l{read_poly_program(testing::read_file("testdata/explore/" + file), ""), {}, {}, {}};
  l.deps = flow_dependencies(l.p, Limits{});
  l.signals = read_values(l.deps);
  l.sets = basic_sets(l.p, l.signals, l.p.placements[0], Limits{});
  return l;
}

// Figure 4.3's statements at an iteration node (i, j, k) of the common space; S1 sits at i = 0.
std::vector<BOp> node_ops(int64_t i, int64_t j, int64_t k) {
  std::vector<BOp> ops;
  if (i == 0) ops.push_back({"S1", {j, k}});
  if (i >= 1) ops.push_back({"S2", {i, j, k}});
  if (i >= 1 && j >= 2) ops.push_back({"S3", {i, j, k}});
  if (i == 5) ops.push_back({"S4", {i, j, k}});
  return ops;
}

BEffect effect_4_3(const BOp& op) {
  const auto& x = op.it;
  if (op.stmt == "S1") return {{{"A", {x[0], x[1]}}}, {{"B", {0, x[0], x[1]}}}};
  if (op.stmt == "S2") return {{{"B", {x[0] - 1, x[1], x[2]}}}, {{"B", x}}};
  if (op.stmt == "S3") return {{{"B", {x[0], x[1] - 2, x[2]}}}, {{"C", x}}};
  return {{{"B", {5, x[1], x[2]}}}, {{"D", {x[1], x[2]}}}};
}

// The loop nest over (i, j, k) in `order` (dims outermost first), statements in order.
std::vector<BOp> run_order(const std::vector<int>& order) {
  const int64_t lo[3] = {0, 0, 0}, hi[3] = {5, 3, 2};
  std::vector<BOp> ops;
  int64_t x[3];
  for (x[order[0]] = lo[order[0]]; x[order[0]] <= hi[order[0]]; ++x[order[0]])
    for (x[order[1]] = lo[order[1]]; x[order[1]] <= hi[order[1]]; ++x[order[1]])
      for (x[order[2]] = lo[order[2]]; x[order[2]] <= hi[order[2]]; ++x[order[2]])
        for (const BOp& op : node_ops(x[0], x[1], x[2])) ops.push_back(op);
  return ops;
}

TEST(EstimationTest, BasicSetsOfFigure4_3) {
  Loaded l = load("storage_estimation.json");
  // Brute force: run the code of figure 4.3, note which statements read each element.
  auto inst = testing::run(run_order({0, 1, 2}), effect_4_3);
  std::map<std::pair<std::string, std::vector<int64_t>>, std::set<std::string>> readers;
  std::map<std::pair<std::string, std::vector<int64_t>>, std::string> writer;
  for (const BOp& op : run_order({0, 1, 2}))
    for (const auto& w : effect_4_3(op).writes) writer[{w.array, w.index}] = op.stmt;
  for (const BInstance& in : inst) readers[{in.array, in.index}].insert(in.dst.stmt);
  std::map<std::tuple<std::string, std::string, std::set<std::string>>, int64_t> brute;
  for (const auto& [elem, w] : writer) ++brute[{elem.first, w, readers[elem]}];
  std::map<std::tuple<std::string, std::string, std::set<std::string>>, int64_t> mine;
  std::map<std::string, int64_t> by_name;
  for (const BasicSet& s : l.sets.sets) {
    std::set<std::string> rs;
    for (size_t r : s.readers) rs.insert(l.p.statements[r].name);
    mine[{s.array, l.p.statements[s.writer].name, rs}] = s.size;
    by_name[s.name] = s.size;
  }
  EXPECT_EQ(mine, brute);
  // The book's basic sets: B(0) (S.1's, read by S.2), B(2) "read by S.2 and S.3 but not S.4"
  // (24), B(4) read only by S.2 (24, "six of its elements are required by other basic sets"),
  // B(1) and B(3) at i = 5 (6 each), C(0) (30); D(0) is the output D[j][k].
  EXPECT_EQ(by_name, (std::map<std::string, int64_t>{{"B(0)", 12},
                                                     {"B(1)", 6},
                                                     {"B(2)", 24},
                                                     {"B(3)", 6},
                                                     {"B(4)", 24},
                                                     {"C(0)", 30},
                                                     {"D(0)", 12}}));
  const BasicSet& b2 = l.sets.sets[2];
  EXPECT_EQ(b2.name, "B(2)");
  EXPECT_EQ(b2.readers, (std::vector<size_t>{1, 2}));
  EXPECT_TRUE(b2.self);
  EXPECT_EQ(b2.needed_by_others, 24);
  EXPECT_EQ(l.sets.sets[4].needed_by_others, 6);
  // "The maximal current storage requirement is reached when basic sets C(0), B(1) and B(3)
  // are alive simultaneously. Together they require 30+6+6=42 storage locations."
  EXPECT_TRUE(l.sets.exact);
  EXPECT_EQ(l.sets.total, 42);
  // Brute force over every production order of the seven sets, by the same rule.
  std::vector<size_t> perm(l.sets.sets.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  int64_t best = INT64_MAX;
  do {
    std::vector<bool> made(perm.size(), false);
    bool ok = true;
    int64_t peak = 0;
    for (size_t x : perm) {
      for (const auto& [a, b] : l.sets.edges)
        if (b == x && !made[a]) ok = false;
      if (!ok) break;
      made[x] = true;
      int64_t alive = 0;
      for (size_t y = 0; y < perm.size(); ++y) {
        if (!made[y]) continue;
        bool has_succ = false, pending = false;
        for (const auto& [a, b] : l.sets.edges)
          if (a == y) has_succ = true, pending = pending || !made[b];
        const BasicSet& s = l.sets.sets[y];
        if (!has_succ && s.readers.empty()) alive += s.size;
        if (pending) alive += s.self ? s.needed_by_others : s.size;
      }
      peak = std::max(peak, alive);
    }
    if (ok) best = std::min(best, peak);
  } while (std::next_permutation(perm.begin(), perm.end()));
  EXPECT_EQ(best, 42);
}

TEST(EstimationTest, BoundsWithKOutermost) {
  Loaded l = load("storage_estimation.json");
  PlacementAnalysis placed = analyze_placement(l.p, l.deps, l.p.placements[0]);
  std::vector<SignalGroup> groups = storage_groups(l.p, l.signals, l.sets);
  size_t b2_s3 = groups.size();
  for (size_t g = 0; g < groups.size(); ++g)
    if (groups[g].name == "part B(2) -> S3") b2_s3 = g;
  ASSERT_LT(b2_s3, groups.size());
  // Brute force: every loop order of (i, j, k), the dependency part B(2) -> S3 (elements
  // B[1..4][0..1][k], counted until S3 reads them) and each array, by running the nest.
  auto inst = testing::run(run_order({0, 1, 2}), effect_4_3);
  auto in_b2_s3 = [](const BInstance& in) {
    return in.dst.stmt == "S3" && in.src.stmt == "S2" && in.index[0] <= 4 && in.index[1] <= 1;
  };
  std::map<std::vector<int>, int64_t> part, total, array_b;
  std::vector<int> order = {0, 1, 2};
  do {
    auto steps = testing::sequential(run_order(order));
    part[order] = testing::live(steps, inst, in_b2_s3).between;
    total[order] = testing::live(steps, inst).between;
    array_b[order] =
        testing::live(steps, inst, [](const BInstance& in) { return in.array == "B"; }).between;
  } while (std::next_permutation(order.begin(), order.end()));
  auto brute_bounds = [&](const std::map<std::vector<int>, int64_t>& m, int fixed) {
    int64_t lo = INT64_MAX, hi = 0;
    for (const auto& [o, v] : m)
      if (fixed < 0 || o[0] == fixed) lo = std::min(lo, v), hi = std::max(hi, v);
    return std::pair<int64_t, int64_t>{lo, hi};
  };
  // Nothing fixed: worst 24 (j outermost, then i, k innermost), best 2 (j and k interchanged).
  PartialBounds free =
      partial_order_bounds(l.p, l.deps, l.signals, l.p.placements[0], placed, {}, false, groups);
  EXPECT_EQ(free.completions, 6);
  EXPECT_EQ(free.legal, 6);
  EXPECT_EQ(free.groups[b2_s3].upper, 24);
  EXPECT_EQ(free.groups[b2_s3].lower, 2);
  EXPECT_EQ(part.at({1, 0, 2}), 24);  // (j, i, k)
  EXPECT_EQ(part.at({2, 0, 1}), 2);   // (k, i, j)
  EXPECT_EQ(brute_bounds(part, -1), (std::pair<int64_t, int64_t>{2, 24}));
  // k fixed outermost: "the worst-case and best-case storage requirements are now 8 and 2".
  PartialBounds k_out = partial_order_bounds(l.p, l.deps, l.signals, l.p.placements[0], placed,
                                             {{0, 0, 1}}, false, groups);
  EXPECT_EQ(k_out.completions, 2);
  EXPECT_EQ(k_out.groups[b2_s3].upper, 8);
  EXPECT_EQ(k_out.groups[b2_s3].lower, 2);
  EXPECT_EQ(k_out.groups[b2_s3].upper_at, (Rows{{0, 0, 1}, {0, 1, 0}, {1, 0, 0}}));
  EXPECT_EQ(brute_bounds(part, 2), (std::pair<int64_t, int64_t>{2, 8}));
  // The total and array B agree with the brute force for every fixed outer loop.
  for (int fixed : {0, 1, 2}) {
    std::vector<int64_t> row(3, 0);
    row[fixed] = 1;
    PartialBounds b = partial_order_bounds(l.p, l.deps, l.signals, l.p.placements[0], placed, {row},
                                           false, groups);
    EXPECT_EQ((std::pair<int64_t, int64_t>{b.groups[0].lower, b.groups[0].upper}),
              brute_bounds(total, fixed));
    size_t array_group = 0;
    for (size_t g = 0; g < groups.size(); ++g)
      if (groups[g].name == "array B") array_group = g;
    EXPECT_EQ(
        (std::pair<int64_t, int64_t>{b.groups[array_group].lower, b.groups[array_group].upper}),
        brute_bounds(array_b, fixed));
  }
}

TEST(EstimationTest, DependencyPartOfFigure4_8) {
  Loaded l = load("dependency_part.json");
  // A(0): the 60 elements S.2 reads, produced on i in [0, 4], j in [0, 3], k in [0, 2].
  ASSERT_EQ(l.sets.parts.size(), 1u);
  const DependencyPart& dp = l.sets.parts[0];
  EXPECT_EQ(dp.name, "A(0) -> S2");
  EXPECT_EQ(dp.signals.size(), 60u);
  EXPECT_EQ(dp.lengths, (std::vector<int64_t>{5, 4, 3}));
  // Brute force: the elements A[i-1][j-2][k] that S.2 reads.
  std::set<std::vector<int64_t>> read;
  for (int64_t i = 1; i <= 5; ++i)
    for (int64_t j = 2; j <= 5; ++j)
      for (int64_t k = 0; k <= 2; ++k) read.insert({i - 1, j - 2, k});
  EXPECT_EQ(read.size(), 60u);
  // The 108 - 60 elements nobody reads are the second basic set, A(1).
  EXPECT_EQ(l.sets.sets[1].name, "A(1)");
  EXPECT_EQ(l.sets.sets[1].size, 108 - 60);
}

// Section 4.3's estimate from a part's lengths and dependency vectors (no operations
// enumerated), beside the exact count of every completion.
TEST(EstimationTest, ApproximationOfSection4_3) {
  Loaded l = load("storage_estimation.json");
  PlacementAnalysis placed = analyze_placement(l.p, l.deps, l.p.placements[0]);
  std::vector<SignalGroup> groups = storage_groups(l.p, l.signals, l.sets);
  const size_t first_part = groups.size() - l.sets.parts.size();
  const Rows i = {{1, 0, 0}}, j = {{0, 1, 0}}, k = {{0, 0, 1}};
  std::vector<Rows> orders;
  for (const Rows& a : {i, j, k})
    for (const Rows& b : {i, j, k})
      for (const Rows& c : {i, j, k})
        if (a != b && b != c && a != c) orders.push_back({a[0], b[0], c[0]});
  ASSERT_EQ(orders.size(), 6u);
  // Every loop order of figure 4.3: for each dependency part, the estimate equals the exact
  // count (a fully fixed order: one completion).
  for (size_t x = 0; x < l.sets.parts.size(); ++x) {
    const DependencyPart& dp = l.sets.parts[x];
    const auto vectors = part_vectors(dp, l.signals, l.p.placements[0]);
    for (const Rows& rows : orders) {
      PartialBounds exact = partial_order_bounds(l.p, l.deps, l.signals, l.p.placements[0], placed,
                                                 rows, false, groups);
      ASSERT_EQ(exact.legal, 1);
      EXPECT_EQ(part_estimate(dp, vectors, rows), exact.groups[first_part + x].upper)
          << dp.name << " " << ordering_text(rows, l.p.space);
    }
  }
  // B(2) -> S3: the book's 24 and 2 with nothing fixed, 8 and 2 with k outermost.
  size_t b2 = l.sets.parts.size();
  for (size_t x = 0; x < l.sets.parts.size(); ++x)
    if (l.sets.parts[x].name == "B(2) -> S3") b2 = x;
  ASSERT_LT(b2, l.sets.parts.size());
  const auto vectors = part_vectors(l.sets.parts[b2], l.signals, l.p.placements[0]);
  EXPECT_EQ(vectors, (std::vector<Point>{{0, 2, 0}}));
  PartialBounds free =
      partial_order_bounds(l.p, l.deps, l.signals, l.p.placements[0], placed, {}, false, groups);
  PartEstimate e = estimate_part(l.sets.parts[b2], vectors, free.legal_orders);
  ASSERT_TRUE(e.known);
  EXPECT_EQ(e.lower, 2);
  EXPECT_EQ(e.upper, 24);  // 2 x |DP_i| x |DP_k| = 2 x 4 x 3, j outermost
  PartialBounds k_out =
      partial_order_bounds(l.p, l.deps, l.signals, l.p.placements[0], placed, k, false, groups);
  e = estimate_part(l.sets.parts[b2], vectors, k_out.legal_orders);
  EXPECT_EQ(e.lower, 2);
  EXPECT_EQ(e.upper, 8);  // 2 x |DP_i| = 2 x 4
  // An ordering vector is not a loop order: no estimate.
  EXPECT_FALSE(part_estimate(l.sets.parts[b2], vectors, {{1, 1, 0}, {0, 1, 0}, {0, 0, 1}}));

  // Figure 4.8's part A(0) -> S2 (vector (1, 2, 0), lengths 5, 4, 3): the estimate is one less
  // than the exact count in every order. S.1 and S.2 share each node and S.1 runs first: when
  // S.2 reads A[i-1][j-2][k], the A[i][j][k] S.1 has just written on the same node is held too;
  // the estimate counts the nodes between production and consumption (1 x 4 x 3 + 2 x 3 = 18
  // for (i, j, k)), not that statement order inside a node.
  Loaded f = load("dependency_part.json");
  PlacementAnalysis fplaced = analyze_placement(f.p, f.deps, f.p.placements[0]);
  std::vector<SignalGroup> fgroups = storage_groups(f.p, f.signals, f.sets);
  const DependencyPart& a0 = f.sets.parts[0];
  const auto av = part_vectors(a0, f.signals, f.p.placements[0]);
  EXPECT_EQ(av, (std::vector<Point>{{1, 2, 0}}));
  EXPECT_EQ(part_estimate(a0, av, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}), 18);
  EXPECT_EQ(part_estimate(a0, av, {{0, 1, 0}, {1, 0, 0}, {0, 0, 1}}), 33);  // 2 x 5 x 3 + 3
  for (const Rows& rows : orders) {
    PartialBounds exact = partial_order_bounds(f.p, f.deps, f.signals, f.p.placements[0], fplaced,
                                               rows, false, fgroups);
    EXPECT_EQ(*part_estimate(a0, av, rows) + 1, exact.groups.back().upper)
        << ordering_text(rows, f.p.space);
  }
}

}  // namespace
}  // namespace t2s::explore
