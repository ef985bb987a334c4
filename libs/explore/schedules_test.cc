// Schedule exploration on seed 000's examples and GEMM: the seed's valid schedules are listed,
// its invalid ones refused for the seed's reasons, legality agrees with a brute force that
// runs every candidate's execution order, and the top-ranked GEMM schedule needs no more
// registers than the simple space_time_transform(i, j).
#include "libs/explore/schedules.h"

#include <gtest/gtest.h>

#include <map>

#include "libs/explore/directive_text.h"
#include "libs/explore/explore_testing.h"
#include "libs/frontend/frontend.h"

namespace t2s::explore {
namespace {

Program spec(const std::string& path) {
  SourceManager sources;
  sources.add("", path, testing::read_file(path));
  sources.set_base_dir("testdata/specs");
  return parse_spec(sources, FrontendOptions{});
}

const ScheduleCandidate* find(const std::vector<ScheduleCandidate>& cs, const std::string& text) {
  for (const ScheduleCandidate& c : cs)
    if (c.text == text) return &c;
  return nullptr;
}

TEST(SchedulesTest, GemmTopRankedNeedsNoMoreRegistersThanTheSimpleTransform) {
  ScheduleOptions o;
  o.tries = {"space_time_transform(i, j)"};
  auto groups = explore_schedules(spec("testdata/specs/gemm.t2s"), o, Limits{});
  ASSERT_EQ(groups.size(), 1u);
  const GroupSchedules& g = groups[0];
  EXPECT_EQ(g.func, "A");
  // The merge group's dependencies (loops k, j, i): A along j, B along i, C along k.
  ASSERT_EQ(g.deps.size(), 6u);
  EXPECT_EQ(g.placed.deps[0].vectors[0].vector, (Point{0, 1, 0}));
  EXPECT_EQ(g.placed.deps[0].vectors[0].count, 4 * 3 * 8);
  EXPECT_EQ(g.placed.deps[2].vectors[0].vector, (Point{1, 0, 0}));
  EXPECT_EQ(g.placed.deps[2].vectors[0].count, 4 * 4 * 7);
  // The spec's own transform and the --try: 16 PEs, 8 steps, 48 register values.
  ASSERT_EQ(g.tried.size(), 2u);
  for (const ScheduleCandidate& c : g.tried) {
    ASSERT_TRUE(c.ok) << c.message;
    EXPECT_EQ(c.pes, 16);
    EXPECT_EQ(c.steps, 8);
    EXPECT_EQ(c.storage, 48);
  }
  ASSERT_FALSE(g.ranked.empty());
  EXPECT_LE(g.ranked.front().storage, g.tried[1].storage);
  const ScheduleCandidate* simple = find(g.ranked, "A.space_time_transform(i, j);");
  ASSERT_NE(simple, nullptr);
  EXPECT_EQ(simple->storage, 48);
  // The default: the spec's own array (16 PEs) is a soft budget: the schedules within it
  // first, ranked by time steps, then registers, then PEs, then locality; then the others.
  EXPECT_EQ(g.pe_budget, 16);
  EXPECT_TRUE(g.budget_from_spec);
  EXPECT_EQ(g.ranked.size(), 30u);
  EXPECT_LE(g.ranked.front().steps, g.tried[0].steps);
  for (size_t i = 1; i < g.ranked.size(); ++i) {
    const ScheduleCandidate &a = g.ranked[i - 1], &b = g.ranked[i];
    EXPECT_TRUE(std::make_tuple(a.pes > 16, a.steps, a.storage, a.pes, a.locality) <=
                std::make_tuple(b.pes > 16, b.steps, b.storage, b.pes, b.locality));
  }
  // The previous default (PEs first, no budget) still holds the acceptance.
  ScheduleOptions by_pes = o;
  by_pes.max_pes = 0;
  by_pes.rank_by = {"pes", "time", "storage", "locality"};
  const GroupSchedules h = explore_schedules(spec("testdata/specs/gemm.t2s"), by_pes, Limits{})[0];
  EXPECT_EQ(h.pe_budget, 0);
  EXPECT_EQ(h.ranked.size(), 30u);
  EXPECT_LE(h.ranked.front().storage, 48);
  for (size_t i = 1; i < h.ranked.size(); ++i) {
    const ScheduleCandidate &a = h.ranked[i - 1], &b = h.ranked[i];
    EXPECT_TRUE(std::make_tuple(a.pes, a.steps, a.storage, a.locality) <=
                std::make_tuple(b.pes, b.steps, b.storage, b.locality));
  }
}

TEST(SchedulesTest, MatrixVectorRanksTheFastestWithinTheArrayFirst) {
  // A 1-D array of 8 PEs (testdata/explore/matvec_1d.t2s): PEs first put the 6-PE
  // reorder(k, i).space_time_transform(k) on top, 8 steps; the default keeps the designer's
  // 8 PEs and ranks the 6-step schedule first.
  SourceManager sources;
  const std::string path = "testdata/explore/matvec_1d.t2s";
  sources.add("", path, testing::read_file(path));
  const Program program = parse_spec(sources, FrontendOptions{});
  const GroupSchedules g = explore_schedules(program, ScheduleOptions{}, Limits{})[0];
  ASSERT_FALSE(g.ranked.empty());
  EXPECT_EQ(g.pe_budget, 8);
  EXPECT_EQ(g.ranked.front().text, "X.space_time_transform(i);");
  EXPECT_EQ(g.ranked.front().steps, 6);
  ScheduleOptions budget;
  budget.max_pes = 6;
  const GroupSchedules h = explore_schedules(program, budget, Limits{})[0];
  ASSERT_FALSE(h.ranked.empty());
  EXPECT_EQ(h.ranked.front().text, "X.reorder(k, i).space_time_transform(k);");
  EXPECT_EQ(h.ranked.front().pes, 6);
  EXPECT_EQ(h.ranked.front().steps, 8);
}

// The brute force: GEMM's operations (statement, i, j, k) in the execution order of the
// transform t = outer..., time = tau + sum(c * space), then the space loops as nested, then the
// statements; every read must come after the write it reads. And seed 000's check 2: with a
// scheduling vector (not all zero), every dependence between PEs has T'd > 0; GEMM's three
// dependences are unit vectors along i, j and k, so each space loop's coefficient is T'd.
bool brute_legal(const std::vector<std::string>& order, size_t s, const std::vector<int64_t>& c,
                 std::string* rule) {
  const int64_t ext[3] = {4, 4, 8};  // i, j, k
  if (s < order.size() && std::any_of(c.begin(), c.end(), [](int64_t v) { return v != 0; }) &&
      std::any_of(c.begin(), c.end(), [](int64_t v) { return v <= 0; })) {
    *rule = "stt-schedule";
    return false;
  }
  *rule = "stt-dependence";
  auto idx = [](const std::string& n) { return n == "i" ? 0 : n == "j" ? 1 : 2; };
  auto key = [&](int stmt, const int64_t x[3]) {
    std::vector<int64_t> k;
    const size_t m = order.size();
    for (size_t p = 0; p + s + 1 < m; ++p) k.push_back(x[idx(order[p])]);
    if (s < m) {
      int64_t t = x[idx(order[m - s - 1])];
      for (size_t q = 0; q < s; ++q) t += c[q] * x[idx(order[m - 1 - q])];
      k.push_back(t);
    }
    for (size_t p = m - s; p < m; ++p) k.push_back(x[idx(order[p])]);
    k.push_back(stmt);
    return k;
  };
  int64_t x[3];
  for (x[0] = 0; x[0] < ext[0]; ++x[0])
    for (x[1] = 0; x[1] < ext[1]; ++x[1])
      for (x[2] = 0; x[2] < ext[2]; ++x[2]) {
        // A reads A(i, j - 1, k), B reads B(i - 1, j, k), C reads C(i, j, k - 1) and A, B here.
        const int dims[3] = {1, 0, 2};
        for (int st = 0; st < 3; ++st) {
          if (x[dims[st]] == 0) continue;
          int64_t y[3] = {x[0], x[1], x[2]};
          --y[dims[st]];
          if (!(key(st, y) < key(st, x))) return false;
        }
      }
  return true;
}

TEST(SchedulesTest, GemmLegalityAgreesWithABruteForce) {
  ScheduleOptions o;
  o.show_refused = true;
  auto groups = explore_schedules(spec("testdata/specs/gemm.t2s"), o, Limits{});
  const GroupSchedules& g = groups[0];
  std::vector<const ScheduleCandidate*> all;
  for (const auto& c : g.ranked) all.push_back(&c);
  for (const auto& c : g.refused) all.push_back(&c);
  EXPECT_EQ(static_cast<int64_t>(all.size()), g.enumerated);
  int checked = 0;
  for (const ScheduleCandidate* c : all) {
    std::vector<std::string> order = {"k", "j", "i"};
    const Directive* stt = nullptr;
    for (const Directive& d : c->directives) {
      if (d.name == "reorder") {
        order.clear();
        for (auto it = d.args.rbegin(); it != d.args.rend(); ++it) order.push_back(it->text);
      } else {
        stt = &d;
      }
    }
    ASSERT_NE(stt, nullptr);
    const size_t s = stt->args[0].items.size();
    std::vector<int64_t> coef(s, 0);
    for (size_t q = 0; q < stt->args[1].items.size(); ++q)
      coef[q] = std::stoll(stt->args[1].items[q].text);
    std::string rule;
    bool legal = brute_legal(order, s, coef, &rule);
    EXPECT_EQ(c->ok, legal) << c->text << ": " << c->message;
    if (!c->ok) {
      EXPECT_EQ(c->rule, rule) << c->text;
    }
    // PEs and time steps by their definitions: the space loops' extents; the outer loops'
    // extents times the range of t = tau + sum(c * space).
    if (c->ok) {
      std::map<std::string, int64_t> ext = {{"i", 4}, {"j", 4}, {"k", 8}};
      int64_t pes = 1, steps = 1, span = 0;
      for (size_t q = 0; q < s; ++q) {
        pes *= ext[order[2 - q]];
        span += (coef[q] < 0 ? -coef[q] : coef[q]) * (ext[order[2 - q]] - 1);
      }
      if (s < 3) span += ext[order[2 - s]] - 1, steps = span + 1;
      for (size_t p = 0; p + s + 1 < 3; ++p) steps *= ext[order[p]];
      EXPECT_EQ(c->pes, pes) << c->text;
      EXPECT_EQ(c->steps, steps) << c->text;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 78);  // 6 loop orders x (3 + 9 + 1) candidates with entries in [-1, 1]
}

TEST(SchedulesTest, Seed000TwoDimensionalExample) {
  ScheduleOptions o;
  o.tries = {"space_time_transform(j)", "reorder(j, i).space_time_transform(j)"};
  auto groups = explore_schedules(spec("testdata/specs/seed000_2d.t2s"), o, Limits{});
  const GroupSchedules& g = groups[0];
  // Valid schedules #1, #2 and #3 of the seed are among the ranked ones.
  EXPECT_NE(find(g.ranked, "A.space_time_transform(i);"), nullptr);
  EXPECT_NE(find(g.ranked, "A.space_time_transform(i, j);"), nullptr);
  EXPECT_NE(find(g.ranked, "A.reorder(j, i).space_time_transform(j);"), nullptr);
  // The invalid one is refused because j is not the innermost loop.
  ASSERT_EQ(g.tried.size(), 3u);  // the spec's own, then the two --try
  EXPECT_TRUE(g.tried[0].ok);
  EXPECT_FALSE(g.tried[1].ok);
  EXPECT_EQ(g.tried[1].rule, "stt-space-loops");
  EXPECT_TRUE(g.tried[2].ok);
}

TEST(SchedulesTest, Seed000ThreeDimensionalExample) {
  ScheduleOptions o;
  o.bound = 3;
  o.orders = ScheduleOptions::Orders::kSpec;
  o.tries = {"space_time_transform({i, j}, {2, 3}).space_time_transform({i}, {2})",
             "space_time_transform(j)", "space_time_transform({i, j}, {-1, 0})",
             "space_time_transform({i, j}, {2, 3}).space_time_transform({j, k}, {2, 1})"};
  auto groups = explore_schedules(spec("testdata/specs/seed000_abc.t2s"), o, Limits{});
  const GroupSchedules& g = groups[0];
  // Case 1: (i, j, k) => (i, j, t), t = 2i + 3j + k: 100 PEs, t in [0, 55).
  const ScheduleCandidate* case1 = find(g.ranked, "A.space_time_transform({i, j}, {2, 3});");
  ASSERT_NE(case1, nullptr);
  EXPECT_EQ(case1->pes, 100);
  EXPECT_EQ(case1->steps, 55);
  // Case 2: (i, j) => (i, t), t = 3i + j, k outside: 10 PEs, 10 x 37 steps.
  const ScheduleCandidate* case2 = find(g.ranked, "A.space_time_transform({i}, {3});");
  ASSERT_NE(case2, nullptr);
  EXPECT_EQ(case2->pes, 10);
  EXPECT_EQ(case2->steps, 370);
  // Case 3, the double projection: t1 in [0, 55), t2 in [0, 28), 10 PEs; the registers the
  // stt stage gives seed000_abc (220 values: A 9, B 10, C 3 per PE).
  ASSERT_EQ(g.tried.size(), 5u);
  const ScheduleCandidate& case3 = g.tried[1];
  ASSERT_TRUE(case3.ok) << case3.message;
  EXPECT_EQ(case3.pes, 10);
  EXPECT_EQ(case3.steps, 55 * 28);
  EXPECT_EQ(case3.storage, 220);
  EXPECT_EQ(case3.storage, g.tried[0].storage);  // the spec's own transform is case 3
  // The invalid ones, for the seed's reasons: not innermost, T'd <= 0, not a proper subset.
  EXPECT_EQ(g.tried[2].rule, "stt-space-loops");
  EXPECT_EQ(g.tried[3].rule, "stt-schedule");
  EXPECT_EQ(g.tried[4].rule, "stt-chain");
}

TEST(SchedulesTest, TiledGemmNonUniformDependences) {
  ScheduleOptions o;
  o.enumerate = false;
  auto groups = explore_schedules(spec("testdata/specs/gemm_tiled.t2s"), o, Limits{});
  const GroupSchedules& g = groups[0];
  // Loops oi, oj, ok, kk, iii, jjj, ii, jj, kkk (each of extent 2). C reads
  // C(kkk + 1, ..., kk + 1, ok - 1) when kkk == 0 and kk == 0, C(kkk + 1, ..., kk - 1) when
  // kkk == 0 and kk > 0, else C(kkk - 1): three dependencies, 64, 128 and 256 instances.
  ASSERT_GE(g.deps.size(), 5u);
  EXPECT_EQ(g.kernel.loops.size(), 9u);
  std::map<Point, int64_t> c_vectors;
  for (size_t d = 0; d < g.deps.size(); ++d)
    if (g.kernel.program.statements[g.deps[d].src].name == "C" &&
        g.kernel.program.statements[g.deps[d].dst].name == "C")
      for (const VectorCount& v : g.placed.deps[d].vectors) c_vectors[v.vector] += v.count;
  EXPECT_EQ(c_vectors, (std::map<Point, int64_t>{{{0, 0, 1, -1, 0, 0, 0, 0, -1}, 64},
                                                 {{0, 0, 0, 1, 0, 0, 0, 0, -1}, 128},
                                                 {{0, 0, 0, 0, 0, 0, 0, 0, 1}, 256}}));
  // The value sent to the drainer is C's at the last k.
  EXPECT_EQ(g.kernel.program.statements.back().name, "c_to_drainer");
}

TEST(SchedulesTest, DirectiveText) {
  SourceLoc at{"", 3, 1};
  auto ds = parse_chain(
      "A.reorder(j, i).space_time_transform({i, j}, {2, -3}, "
      "SpaceTimeTransform::CheckTime);",
      "A", at);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[1].args[1].items[1].text, "-3");
  EXPECT_EQ(
      chain_text("A", ds),
      "A.reorder(j, i).space_time_transform({i, j}, {2, -3}, SpaceTimeTransform::CheckTime);");
  auto general = parse_chain(
      "space_time_transform({i, j, k}, {s, t}, {1, 0, 0, 0, 8, 1}, "
      "{i, s, j, t / 8, k, t % 8})",
      "A", at);
  EXPECT_EQ(general[0].args[2].items.size(), 2u);
  EXPECT_EQ(directive_text(general[0]),
            "space_time_transform({i, j, k}, {s, t}, {{1, 0, 0}, {0, 8, 1}}, {{i, s}, {j, t / 8}, "
            "{k, t % 8}})");
  EXPECT_EQ(directive_text(parse_chain("space_time_transform(i, j)", "A", at)[0]),
            "space_time_transform(i, j)");
  EXPECT_THROW(parse_chain("split(i, a, b, 2)", "A", at), std::invalid_argument);
  EXPECT_THROW(parse_chain("space_time_transform({i}, {1}", "A", at), std::invalid_argument);
  EXPECT_THROW(parse_chain("space_time_transform({i, i})", "A", at), Diagnostic);
}

}  // namespace
}  // namespace t2s::explore
