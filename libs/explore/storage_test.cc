// DTSE section 3.3 (storage of an ordering): loop merging and folding (figures 3.1 to 3.3) and
// the orderings of the three-polytope example (figures 3.13 to 3.15), each checked against the
// figure's own procedural code run by a brute force (explore_testing.h).
#include "libs/explore/storage.h"

#include <gtest/gtest.h>

#include <numeric>

#include "libs/explore/explore_testing.h"

namespace t2s::explore {
namespace {

using testing::BAccess;
using testing::BEffect;
using testing::BOp;
using testing::BStorage;

struct Loaded {
  PolyProgram p;
  std::vector<Dependency> deps;
  std::vector<Signal> signals;
};

Loaded load(const std::string& file, int64_t n) {
  Loaded l{
      read_poly_program(testing::read_file("testdata/explore/" + file), "", {{"N", n}}), {}, {}};
  l.deps = flow_dependencies(l.p, Limits{});
  l.signals = read_values(l.deps);
  return l;
}

Storage of_ordering(const Loaded& l, size_t ordering) {
  const Ordering& o = l.p.orderings[ordering];
  return storage(l.p, l.signals, ordering_key(l.p.placements[o.placement], o.rows));
}

// ---- loop merging and folding ------------------------------------------------------------

BEffect merging_effect(const BOp& op) {
  if (op.stmt == "L1") return {{}, {{"A", op.it}}};
  return {{{"A", op.it}}, {{"B", op.it}}};
}

TEST(StorageTest, LoopMergingAndFolding) {
  for (int64_t N : {3, 8, 11}) {
    Loaded l = load("loop_merging.json", N);
    std::vector<BOp> procedural, merged, folded;
    for (int64_t i = 1; i <= N; ++i) procedural.push_back({"L1", {i}});
    for (int64_t i = 1; i <= N; ++i) procedural.push_back({"L2", {i}});
    for (int64_t i = 1; i <= N; ++i) {
      merged.push_back({"L1", {i}});
      merged.push_back({"L2", {i}});
    }
    // Figure 3.3's code: A[1]; for i = 2..N { A[i]; B[i-1] }; B[N].
    folded.push_back({"L1", {1}});
    for (int64_t i = 2; i <= N; ++i) {
      folded.push_back({"L1", {i}});
      folded.push_back({"L2", {i - 1}});
    }
    folded.push_back({"L2", {N}});
    auto inst = testing::run(procedural, merging_effect);
    BStorage b_proc = testing::live(testing::sequential(procedural), inst);
    BStorage b_merged = testing::live(testing::sequential(merged), inst);
    BStorage b_folded = testing::live(testing::sequential(folded), inst);
    // The book: N locations (figure 3.1), one register (3.2 left), N again (3.2 right), and
    // "storage for two signals" after folding (3.3, 3.7b).
    EXPECT_EQ(b_proc.between, N);
    EXPECT_EQ(b_merged.between, 1);
    EXPECT_EQ(b_folded.between, 2);
    const int64_t expected[] = {N, 1, N, 2, 2};
    const BStorage* brute[] = {&b_proc, &b_merged, &b_proc, &b_folded, &b_folded};
    for (size_t o = 0; o < 5; ++o) {
      Storage s = of_ordering(l, o);
      EXPECT_TRUE(s.legal) << l.p.orderings[o].name;
      EXPECT_EQ(s.between, expected[o]) << l.p.orderings[o].name << ", N = " << N;
      EXPECT_EQ(s.between, brute[o]->between) << l.p.orderings[o].name;
      EXPECT_EQ(s.at_step, brute[o]->at_step) << l.p.orderings[o].name;
    }
    // Figure 3.1: on the placement after each other, the only legal orderings run left to
    // right, and all need N.
    PlacementAnalysis linear = analyze_placement(l.p, l.deps, l.p.placements[0]);
    SearchResult r = search_orderings(l.p, l.deps, l.signals, l.p.placements[0], linear, 2);
    EXPECT_EQ(r.best.front().between, N);
    // Above each other, the best is the merged loop.
    PlacementAnalysis stacked = analyze_placement(l.p, l.deps, l.p.placements[1]);
    r = search_orderings(l.p, l.deps, l.signals, l.p.placements[1], stacked, 2);
    EXPECT_EQ(r.best.front().between, 1);
  }
}

// ---- the three-polytope example ------------------------------------------------------------

BEffect three_effect(int64_t N, const BOp& op) {
  const int64_t x = op.it[0], y = op.it[1];
  if (op.stmt == "A") return {{{"a", {x - 1, y}}}, {{"a", {x, y}}}};
  if (op.stmt == "B") return {{{"a", {N - y + 1, y}}, {"a", {N - y, y}}}, {{"b", {y, 1}}}};
  return {{{"b", {x, y}}}, {{"b", {x, y + 1}}}};
}

std::vector<BOp> original_order(int64_t N) {
  std::vector<BOp> ops;
  for (int64_t i = 1; i <= N; ++i)
    for (int64_t j = 1; j <= N - i + 1; ++j) ops.push_back({"A", {i, j}});
  for (int64_t p = 1; p <= N; ++p) ops.push_back({"B", {1, p}});
  for (int64_t k = 1; k <= N; ++k)
    for (int64_t l = 1; l <= k; ++l) ops.push_back({"C", {k, l}});
  return ops;
}

// Figure 3.13's code.
std::vector<BOp> figure_3_13(int64_t N) {
  std::vector<BOp> ops;
  for (int64_t i = 1; i <= N + 2; ++i) {
    for (int64_t j = 1; j <= N - i + 1; ++j) ops.push_back({"A", {i, j}});
    if (N - i + 2 >= 1 && N - i + 2 <= N) ops.push_back({"B", {1, N - i + 2}});
    for (int64_t k = N - i + 3; k <= N; ++k) ops.push_back({"C", {k, i + k - N - 2}});
  }
  return ops;
}

// Figure 3.15's code.
std::vector<BOp> figure_3_15(int64_t N) {
  std::vector<BOp> ops;
  for (int64_t j = 1; j <= N; ++j) {
    for (int64_t i = 1; i <= N - j + 1; ++i) ops.push_back({"A", {i, j}});
    ops.push_back({"B", {1, j}});
    for (int64_t l = 1; l <= j; ++l) ops.push_back({"C", {j, l}});
  }
  return ops;
}

// The final placement (figure 3.12 = 3.31).
std::vector<int64_t> final_place(int64_t N, const BOp& o) {
  if (o.stmt == "A") return {o.it[0], o.it[1]};
  if (o.stmt == "B") return {o.it[0] - o.it[1] + N + 1, o.it[1]};
  return {o.it[1] - o.it[0] + N + 2, o.it[0]};
}

TEST(StorageTest, OrderingsOfTheThreePolytopeExample) {
  for (int64_t N : {3, 4, 5, 7}) {
    Loaded l = load("three_polytopes.json", N);
    auto effect = [N](const BOp& op) { return three_effect(N, op); };
    std::vector<BOp> orig = original_order(N);
    auto inst = testing::run(orig, effect);
    ASSERT_EQ(inst.size(), l.deps[0].pairs.size() + l.deps[1].pairs.size() +
                               l.deps[2].pairs.size() + l.deps[3].pairs.size() +
                               l.deps[4].pairs.size());
    // The initial specification: the book says 2N locations; 2N - 1 signals are alive
    // between two operations (all of A's values that B reads), 2N at B's first operation.
    Storage s_orig = storage(l.p, l.signals, original_key(l.p));
    BStorage b_orig = testing::live(testing::sequential(orig), inst);
    EXPECT_EQ(s_orig.between, 2 * N - 1);
    EXPECT_EQ(s_orig.at_step, 2 * N);
    EXPECT_EQ(s_orig.between, b_orig.between);
    EXPECT_EQ(s_orig.at_step, b_orig.at_step);
    // Figure 3.13 (bad): the book's N + 3 is the count at an operation (B reads its two values
    // while N + 1 others wait); between two operations N + 2 are alive.
    Storage s13 = of_ordering(l, 0);
    BStorage b13 = testing::live(testing::sequential(figure_3_13(N)), inst);
    EXPECT_TRUE(s13.legal);
    EXPECT_TRUE(b13.legal);
    EXPECT_EQ(s13.between, N + 2);
    EXPECT_EQ(s13.at_step, N + 3);
    EXPECT_EQ(s13.between, b13.between);
    EXPECT_EQ(s13.at_step, b13.at_step);
    // Figure 3.14: the ordering vector (1, 1) sweeps the diagonals; after the first triangle
    // (A), it cuts the 2N - 1 dependencies from A to B (the book says 2N).
    std::vector<BOp> all = orig;
    auto diag = testing::steps_by(all, [N](const BOp& o) {
      auto x = final_place(N, o);
      return std::vector<int64_t>{x[0] + x[1], o.stmt == "A" ? 0 : o.stmt == "B" ? 1 : 2};
    });
    Storage s14 = of_ordering(l, 1);
    BStorage b14 = testing::live(diag, inst);
    EXPECT_TRUE(s14.legal);
    EXPECT_EQ(s14.between, 2 * N - 1);
    EXPECT_EQ(s14.between, b14.between);
    EXPECT_EQ(s14.at_step, b14.at_step);
    // Figure 3.15 (best): "only 2 registers".
    Storage s15 = of_ordering(l, 2);
    BStorage b15 = testing::live(testing::sequential(figure_3_15(N)), inst);
    EXPECT_EQ(s15.between, 2);
    EXPECT_EQ(s15.at_step, 3);
    EXPECT_EQ(s15.between, b15.between);
    EXPECT_EQ(s15.at_step, b15.at_step);
  }
}

TEST(StorageTest, SearchFindsTheBestOrderingOfTheFinalPlacement) {
  const int64_t N = 5;
  Loaded l = load("three_polytopes.json", N);
  PlacementAnalysis fin = analyze_placement(l.p, l.deps, l.p.placements[2]);
  SearchResult r = search_orderings(l.p, l.deps, l.signals, l.p.placements[2], fin, 2);
  ASSERT_FALSE(r.best.empty());
  EXPECT_EQ(r.best.front().between, 2);
  bool has_3_15 = false;
  for (const RankedOrdering& o : r.best) has_3_15 = has_3_15 || o.rows == Rows{{0, 1}, {1, 0}};
  EXPECT_TRUE(has_3_15);
  // Brute force over the same candidates: every signed loop order and every primitive vector
  // of [-2, 2]^2, run as sorted operation lists; the legal ones' smallest storage.
  auto inst = testing::run(original_order(N), [N](const BOp& op) { return three_effect(N, op); });
  std::vector<Rows> candidates;
  for (int a : {1, -1})
    for (int b : {1, -1}) {
      candidates.push_back({{a, 0}, {0, b}});
      candidates.push_back({{0, a}, {b, 0}});
    }
  for (int64_t u = -2; u <= 2; ++u)
    for (int64_t v = -2; v <= 2; ++v)
      if (std::gcd(u < 0 ? -u : u, v < 0 ? -v : v) == 1) candidates.push_back({{u, v}});
  int64_t best = INT64_MAX, legal = 0;
  std::vector<Rows> best_rows;
  for (const Rows& rows : candidates) {
    auto steps = testing::steps_by(original_order(N), [&](const BOp& o) {
      auto x = final_place(N, o);
      std::vector<int64_t> k;
      for (const auto& r : rows) k.push_back(r[0] * x[0] + r[1] * x[1]);
      k.push_back(o.stmt == "A" ? 0 : o.stmt == "B" ? 1 : 2);
      return k;
    });
    BStorage b = testing::live(steps, inst);
    if (!b.legal) continue;
    ++legal;
    if (b.between < best) best = b.between, best_rows.clear();
    if (b.between == best) best_rows.push_back(rows);
  }
  EXPECT_EQ(r.legal, legal);
  EXPECT_EQ(r.best.front().between, best);
  ASSERT_EQ(r.best.size(), best_rows.size());
  for (size_t i = 0; i < best_rows.size(); ++i)
    EXPECT_NE(std::find_if(r.best.begin(), r.best.end(),
                           [&](const RankedOrdering& o) { return o.rows == best_rows[i]; }),
              r.best.end());
}

}  // namespace
}  // namespace t2s::explore
