// DTSE section 3.3 (storage of an ordering): loop merging and folding (figures 3.1 to 3.3) and
// the orderings of the three-polytope example (figures 3.13 to 3.15), each checked against the
// figure's own procedural code run by a brute force (explore_testing.h).
#include "libs/explore/storage.h"

#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <tuple>

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

// ---- what is alive at the peaks -----------------------------------------------------------

using Value = std::tuple<BOp, std::string, std::vector<int64_t>>;  // writer, array, element

// By the brute force's definitions: the first cut (after step k) with the most values alive,
// and the first step needing the most, with their values.
struct BPeak {
  int64_t after = -1, busiest = -1;
  std::set<Value> alive, needed;
};

BPeak brute_peak(const std::vector<std::vector<BOp>>& steps,
                 const std::vector<testing::BInstance>& instances) {
  std::map<BOp, int64_t> step_of;
  for (size_t s = 0; s < steps.size(); ++s)
    for (const BOp& op : steps[s]) step_of[op] = static_cast<int64_t>(s);
  std::map<Value, std::pair<int64_t, int64_t>> life;
  for (const testing::BInstance& in : instances) {
    const Value v{in.src, in.array, in.index};
    const int64_t b = step_of.at(in.src), d = step_of.at(in.dst);
    auto it = life.find(v);
    if (it == life.end())
      life[v] = {b, d};
    else
      it->second.second = std::max(it->second.second, d);
  }
  BPeak out;
  size_t most_across = 0, most_at = 0;
  for (int64_t k = 0; k < static_cast<int64_t>(steps.size()); ++k) {
    std::set<Value> across, at;
    for (const auto& [v, bd] : life) {
      if (bd.first <= k && bd.second > k) across.insert(v);
      if (bd.first <= k && bd.second >= k) at.insert(v);
    }
    if (across.size() > most_across) most_across = across.size(), out.after = k, out.alive = across;
    if (at.size() > most_at) most_at = at.size(), out.busiest = k, out.needed = at;
  }
  return out;
}

// The tool's signals as the brute force's values (the writer's element of the array).
std::set<Value> values_of(const Loaded& l, const std::vector<size_t>& signals) {
  std::set<Value> out;
  for (size_t s : signals) {
    const Signal& sig = l.signals[s];
    const Statement& st = l.p.statements[sig.producer.stmt];
    std::vector<int64_t> element;
    for (const Access& w : st.writes)
      if (w.array == sig.array) element = w.rel.affine()->apply(sig.producer.point);
    out.insert({BOp{st.name, sig.producer.point}, sig.array, element});
  }
  return out;
}

BOp bop(const Loaded& l, const Op& o) { return {l.p.statements[o.stmt].name, o.point}; }

TEST(StorageTest, PeaksOfTheThreePolytopeExample) {
  for (int64_t N : {3, 4, 5, 7}) {
    Loaded l = load("three_polytopes.json", N);
    auto effect = [N](const BOp& op) { return three_effect(N, op); };
    const std::vector<BOp> orig = original_order(N);
    auto inst = testing::run(orig, effect);
    // Every operation of this program writes or reads a value that is read, so the tool's
    // steps are the brute force's.
    const std::vector<std::pair<KeyFn, std::vector<BOp>>> orders = {
        {original_key(l.p), orig},
        {ordering_key(l.p.placements[2], l.p.orderings[0].rows), figure_3_13(N)},
        {ordering_key(l.p.placements[2], l.p.orderings[2].rows), figure_3_15(N)}};
    std::vector<StoragePeak> peaks;
    for (const auto& [key, ops] : orders) {
      StoragePeak pk = storage_peak(l.signals, key);
      Storage st = storage(l.p, l.signals, key);
      BPeak b = brute_peak(testing::sequential(ops), inst);
      EXPECT_EQ(pk.steps, static_cast<int64_t>(ops.size()));
      EXPECT_EQ(static_cast<int64_t>(pk.between_alive.size()), st.between);
      EXPECT_EQ(static_cast<int64_t>(pk.at_step_alive.size()), st.at_step);
      EXPECT_EQ(pk.after.index, b.after);
      EXPECT_EQ(pk.before.index, b.after + 1);
      EXPECT_EQ(pk.busiest.index, b.busiest);
      EXPECT_EQ(values_of(l, pk.between_alive), b.alive) << "N = " << N;
      EXPECT_EQ(values_of(l, pk.at_step_alive), b.needed) << "N = " << N;
      ASSERT_EQ(pk.after.first.size(), 1u);
      EXPECT_EQ(bop(l, pk.after.first[0]), ops[static_cast<size_t>(b.after)]);
      EXPECT_EQ(bop(l, pk.busiest.first[0]), ops[static_cast<size_t>(b.busiest)]);
      peaks.push_back(pk);
    }
    // The initial specification holds, before B runs, "all of A's values that B reads":
    // a[N-p+1][p] for every p and a[N-p][p] for p < N (2N - 1 values, after A's last
    // operation A[N, 1]).
    std::set<Value> read_by_b;
    for (int64_t q = 1; q <= N; ++q) {
      read_by_b.insert({BOp{"A", {N - q + 1, q}}, "a", {N - q + 1, q}});
      if (q < N) read_by_b.insert({BOp{"A", {N - q, q}}, "a", {N - q, q}});
    }
    EXPECT_EQ(values_of(l, peaks[0].between_alive), read_by_b);
    EXPECT_EQ(bop(l, peaks[0].after.first[0]), (BOp{"A", {N, 1}}));
    EXPECT_EQ(bop(l, peaks[0].before.first[0]), (BOp{"B", {1, 1}}));
    // Figure 3.13's "(N + 3)" at one operation: B's two inputs, its output and N values
    // waiting.
    const StoragePeak& bad = peaks[1];
    ASSERT_EQ(bad.busiest.first.size(), 1u);
    const Op& b_op = bad.busiest.first[0];
    ASSERT_EQ(l.p.statements[b_op.stmt].name, "B");
    const int64_t q = b_op.point[1];
    std::set<Value> needed = values_of(l, bad.at_step_alive);
    EXPECT_EQ(static_cast<int64_t>(needed.size()), N + 3);
    EXPECT_EQ(needed.count({BOp{"A", {N - q + 1, q}}, "a", {N - q + 1, q}}), 1u);
    EXPECT_EQ(needed.count({BOp{"A", {N - q, q}}, "a", {N - q, q}}), 1u);
    EXPECT_EQ(needed.count({BOp{"B", {1, q}}, "b", {q, 1}}), 1u);
    // Figure 3.15's two registers, after A's column j = 1: the two values B[1, 1] reads.
    EXPECT_EQ(values_of(l, peaks[2].between_alive),
              (std::set<Value>{{BOp{"A", {N, 1}}, "a", {N, 1}},
                               {BOp{"A", {N - 1, 1}}, "a", {N - 1, 1}}}));
  }
}

TEST(StorageTest, SearchFindsTheBestOrderingOfTheFinalPlacement) {
  const int64_t N = 5;
  Loaded l = load("three_polytopes.json", N);
  PlacementAnalysis fin = analyze_placement(l.p, l.deps, l.p.placements[2]);
  auto inst = testing::run(original_order(N), [N](const BOp& op) { return three_effect(N, op); });
  // Bound 12 is beyond --bound's 8 (--search-bound).
  for (int64_t bound : {2, 12}) {
    SearchResult r = search_orderings(l.p, l.deps, l.signals, l.p.placements[2], fin, bound);
    ASSERT_FALSE(r.best.empty());
    EXPECT_EQ(r.best.front().between, 2);
    bool has_3_15 = false;
    for (const RankedOrdering& o : r.best) has_3_15 = has_3_15 || o.rows == Rows{{0, 1}, {1, 0}};
    EXPECT_TRUE(has_3_15);
    // Brute force over the same candidates: every signed loop order and every primitive vector
    // of [-bound, bound]^2, run as sorted operation lists; each legal one's storage.
    std::vector<Rows> candidates;
    for (int a : {1, -1})
      for (int b : {1, -1}) {
        candidates.push_back({{a, 0}, {0, b}});
        candidates.push_back({{0, a}, {b, 0}});
      }
    for (int64_t u = -bound; u <= bound; ++u)
      for (int64_t v = -bound; v <= bound; ++v)
        if (std::gcd(u < 0 ? -u : u, v < 0 ? -v : v) == 1) candidates.push_back({{u, v}});
    int64_t best = INT64_MAX, legal = 0;
    std::vector<Rows> best_rows;
    std::map<Rows, std::pair<int64_t, int64_t>> legal_storage;
    std::set<Rows> illegal;
    for (const Rows& rows : candidates) {
      auto steps = testing::steps_by(original_order(N), [&](const BOp& o) {
        auto x = final_place(N, o);
        std::vector<int64_t> k;
        for (const auto& r : rows) k.push_back(r[0] * x[0] + r[1] * x[1]);
        k.push_back(o.stmt == "A" ? 0 : o.stmt == "B" ? 1 : 2);
        return k;
      });
      BStorage b = testing::live(steps, inst);
      if (!b.legal) {
        illegal.insert(rows);
        continue;
      }
      ++legal;
      legal_storage[rows] = {b.between, b.at_step};
      if (b.between < best) best = b.between, best_rows.clear();
      if (b.between == best) best_rows.push_back(rows);
    }
    EXPECT_EQ(r.candidates, static_cast<int64_t>(candidates.size()));
    EXPECT_EQ(r.legal, legal);
    EXPECT_EQ(r.best.front().between, best);
    ASSERT_EQ(r.best.size(), best_rows.size());
    for (size_t i = 0; i < best_rows.size(); ++i)
      EXPECT_NE(std::find_if(r.best.begin(), r.best.end(),
                             [&](const RankedOrdering& o) { return o.rows == best_rows[i]; }),
                r.best.end());
    // Every legal candidate is ranked with its storage, smallest first; the others are listed
    // as illegal; equal storage shares a rank.
    ASSERT_EQ(r.all.size(), legal_storage.size());
    std::map<Rows, std::pair<int64_t, int64_t>> ranked;
    for (const RankedOrdering& o : r.all) ranked[o.rows] = {o.between, o.at_step};
    EXPECT_EQ(ranked, legal_storage);
    EXPECT_EQ(std::set<Rows>(r.illegal.begin(), r.illegal.end()), illegal);
    EXPECT_EQ(r.illegal.size(), illegal.size());
    const std::vector<int64_t> ranks = search_ranks(r.all);
    for (size_t i = 0; i < r.all.size(); ++i) {
      int64_t smaller = 0;
      for (const auto& [rows, st] : legal_storage)
        smaller += st < std::make_pair(r.all[i].between, r.all[i].at_step);
      EXPECT_EQ(ranks[i], smaller + 1);
      if (i > 0)
        EXPECT_LE(std::make_pair(r.all[i - 1].between, r.all[i - 1].at_step),
                  std::make_pair(r.all[i].between, r.all[i].at_step));
    }
    // Ties keep the candidate order: figure 3.15's (x2, x1), then (-x2, x1).
    EXPECT_EQ(r.all[0].rows, (Rows{{0, 1}, {1, 0}}));
    EXPECT_EQ(r.all[1].rows, (Rows{{0, -1}, {1, 0}}));
  }
  // A bound past the candidates' limit, or a negative one, is refused.
  EXPECT_THROW(search_orderings(l.p, l.deps, l.signals, l.p.placements[2], fin, 300),
               std::invalid_argument);
  EXPECT_THROW(search_orderings(l.p, l.deps, l.signals, l.p.placements[2], fin, -1),
               std::invalid_argument);
}

}  // namespace
}  // namespace t2s::explore
