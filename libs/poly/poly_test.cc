#include "libs/poly/poly.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>

#include "libs/ir/expr_parser.h"
#include "libs/ir/typing.h"
#include "libs/poly/poly_testing.h"

namespace t2s::poly {
namespace {

class VarsOnly : public NameResolver {
 public:
  Expr identifier(const std::string& name, const SourceLoc& loc) override {
    return make_var(name, loc);
  }
  CallTarget call(const std::string& name, size_t, const SourceLoc& loc) override {
    return {CallKind::kFunc, Type::Int(32)};
  }
};

Expr parse(const std::string& text) {
  VarsOnly r;
  return resolve_types(parse_expr_text(text, {}), r);
}

// Spec Vars `i` and `and` (an isl keyword) are the dims "a" and "b".
const VarDims kVars = {{"i", "a"}, {"and", "b"}};

Set box_ab() {
  return Set({"a", "b"})
      .where(Cond::range(0, Aff::dim("a"), 4))
      .where(Cond::range(-2, Aff::dim("b"), 3));
}

// All points of box_ab() (a in [0, 4), b in [-2, 3)).
void for_box_ab(const std::function<void(int64_t, int64_t)>& f) {
  for (int64_t a = 0; a < 4; ++a)
    for (int64_t b = -2; b < 3; ++b) f(a, b);
}

TEST(PolyTest, AffFromExprRendersTheOldText) {
  auto text = [](const std::string& e) {
    Set s({"a", "b"});
    s.where(*Aff::from_expr(parse(e), kVars) == 0);
    return isl_text(s);
  };
  // A constant factor is printed first and bare: isl's parser refuses "(-1) * v0".
  EXPECT_EQ(text("i * 2 + and - 1"), "{ [v0, v1] : (((2 * v0) + v1) - 1 = 0) }");
  EXPECT_EQ(text("and - -1 * i"), "{ [v0, v1] : (v1 - (-1 * v0) = 0) }");
  EXPECT_EQ(text("and - i * -3"), "{ [v0, v1] : (v1 - (-3 * v0) = 0) }");
  Set negative({"a", "b"});  // isl parses it (a == 1, b == 1 is a point)
  negative.where(*Aff::from_expr(parse("and - -1 * i"), kVars) == 2);
  EXPECT_FALSE(is_empty(negative));
  EXPECT_EQ(text("(i + 3) / 2"), "{ [v0, v1] : (floor((v0 + 3) / 2) = 0) }");
  EXPECT_EQ(text("i % 4"), "{ [v0, v1] : (v0 mod 4 = 0) }");
  EXPECT_FALSE(Aff::from_expr(parse("i * and"), kVars));
  EXPECT_FALSE(Aff::from_expr(parse("i / and"), kVars));
  EXPECT_FALSE(Aff::from_expr(parse("f(i)"), kVars));
  EXPECT_FALSE(Aff::from_expr(parse("x + 1"), kVars));  // not a known Var
  Set c({"a", "b"});
  c.where(*Cond::from_expr(parse("i == 0 && !(and < 3)"), kVars));
  c.where(*Cond::from_expr(parse("i != 2"), kVars));
  EXPECT_EQ(isl_text(c), "{ [v0, v1] : ((v0 = 0) and (not (v1 < 3))) and (not (v0 = 2)) }");
  EXPECT_FALSE(Cond::from_expr(parse("i * and > 0"), kVars));
}

TEST(PolyTest, TypedSetsEqualTheTextTheyReplace) {
  // stt's ordered pairs: x before y in the loop order, the outer loop (index 1) first.
  Set pairs({"x0", "x1", "y0", "y1"});
  for (const char* d : {"x0", "y0"}) pairs.where(Cond::range(0, Aff::dim(d), 3));
  for (const char* d : {"x1", "y1"}) pairs.where(Cond::range(1, Aff::dim(d), 4));
  Aff x0 = Aff::dim("x0"), x1 = Aff::dim("x1"), y0 = Aff::dim("y0"), y1 = Aff::dim("y1");
  pairs.where(x1 < y1 || (x1 == y1 && x0 < y0));
  EXPECT_TRUE(equals_isl_text(pairs,
                              "{ [x0, x1, y0, y1] : 0 <= x0 < 3 and 0 <= y0 < 3 and 1 <= x1 < 4 "
                              "and 1 <= y1 < 4 and (x1 < y1 or (x1 = y1 and (x0 < y0))) }"));
  // A linear form with negative coefficients and constant, a mismatch disjunction, a shifted
  // range and a modulo.
  Set s({"x0", "x1", "r0"});
  s.where(Cond::range(0, Aff::dim("x0"), 5)).where(Cond::range(0, Aff::dim("x1"), 5));
  s.where(Aff::dim("r0") == Aff::linear({2, -3}, {"x0", "x1"}, -1));
  s.where(Cond::any_of({Aff::dim("r0") != 0, Aff::dim("x0") != Aff::dim("x1")}));
  s.where(Cond::range(0, Aff::dim("x1") + -2, 5));
  s.where((Aff::dim("x0") + Aff::dim("x1")).mod(2) == 0);
  EXPECT_TRUE(equals_isl_text(
      s,
      "{ [x0, x1, r0] : 0 <= x0 < 5 and 0 <= x1 < 5 and r0 = 2 * x0 - 3 * x1 - 1 and "
      "(r0 != 0 or x0 != x1) and 0 <= x1 + -2 < 5 and (x0 + x1) mod 2 = 0 }"));
  EXPECT_TRUE(equals_isl_text(Set({"a"}).where(Cond::any_of({})), "{ [a] : 1 = 0 }"));
  EXPECT_THROW(isl_text(Set({"a"}).where(Aff::dim("z") == 0)), InternalError);
}

TEST(PolyTest, EmptinessAndSamplesMatchBruteForce) {
  const Aff a = Aff::dim("a"), b = Aff::dim("b");
  // Conditions and their brute-force meaning.
  std::vector<std::pair<Cond, std::function<bool(int64_t, int64_t)>>> cases = {
      {a + b == 5, [](int64_t x, int64_t y) { return x + y == 5; }},
      {a * 3 == b + 9, [](int64_t x, int64_t y) { return 3 * x == y + 9; }},
      {a > 1 && !(b >= 0), [](int64_t x, int64_t y) { return x > 1 && !(y >= 0); }},
      {a.mod(2) == 1 || b <= -2, [](int64_t x, int64_t y) { return x % 2 == 1 || y <= -2; }},
      {a != a, [](int64_t, int64_t) { return false; }},
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    Set s = box_ab().where(cases[c].first);
    bool any = false;
    for_box_ab([&](int64_t x, int64_t y) { any = any || cases[c].second(x, y); });
    EXPECT_EQ(is_empty(s), !any) << c;
    auto p = sample(s);
    ASSERT_EQ(p.has_value(), any) << c;
    if (p) {
      EXPECT_TRUE((*p)[0] >= 0 && (*p)[0] < 4 && (*p)[1] >= -2 && (*p)[1] < 3) << c;
      EXPECT_TRUE(cases[c].second((*p)[0], (*p)[1])) << c;
    }
  }
}

// The questions that enumerate small sets are asked both ways: by enumeration and by isl.
class BothWays : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override { previous_ = set_max_enumerated_points(GetParam()); }
  void TearDown() override { set_max_enumerated_points(previous_); }

 private:
  int64_t previous_ = 0;
};

INSTANTIATE_TEST_SUITE_P(EnumeratedAndIsl, BothWays, ::testing::Values(4096, 0));

// Asked of isl, expressions that differ by a constant or a sign share one question (a + 2b - 1,
// 2b + a + 5, -(a + 2b), 4 - a and -a; the constant 7).
TEST_P(BothWays, ValueRangesMatchBruteForce) {
  const Aff a = Aff::dim("a"), b = Aff::dim("b");
  const std::vector<Aff> exprs = {a + b * 2 - 1, (a - 1).floor_div(2), (a - b).mod(3), -a,
                                  b * 2 + a + 5, -(a + b * 2),         Aff(4) - a,     b - b + 7,
                                  a * 3 - b * 6};
  auto fn = [](int64_t a, int64_t b) -> std::vector<int64_t> {
    auto floor_div = [](int64_t x, int64_t d) { return x >= 0 ? x / d : -((-x + d - 1) / d); };
    return {a + 2 * b - 1,
            floor_div(a - 1, 2),
            ((a - b) % 3 + 3) % 3,
            -a,
            2 * b + a + 5,
            -(a + 2 * b),
            4 - a,
            7,
            3 * a - 6 * b};
  };
  for (bool only_b_zero : {false, true}) {
    Set s = box_ab();
    if (only_b_zero) s.where(b == 0);
    auto r = value_ranges(s, exprs);
    ASSERT_TRUE(r);
    std::vector<int64_t> lo(exprs.size(), INT64_MAX), hi(exprs.size(), INT64_MIN);
    for_box_ab([&](int64_t x, int64_t y) {
      if (only_b_zero && y != 0) return;
      std::vector<int64_t> v = fn(x, y);
      for (size_t i = 0; i < v.size(); ++i) {
        lo[i] = std::min(lo[i], v[i]);
        hi[i] = std::max(hi[i], v[i]);
      }
    });
    for (size_t i = 0; i < exprs.size(); ++i) {
      ASSERT_TRUE((*r)[i]) << i;
      EXPECT_EQ((*r)[i]->min, lo[i]) << i;
      EXPECT_EQ((*r)[i]->max, hi[i]) << i;
    }
  }
  EXPECT_FALSE(value_ranges(Set(box_ab()).where(a > 7), {a}));
  auto unbounded = value_ranges(Set({"a"}).where(Aff::dim("a") >= 0), {Aff::dim("a")});
  EXPECT_FALSE((*unbounded)[0]);
}

TEST_P(BothWays, UniformStepAndSingleValue) {
  Set box = Set({"i", "k"})
                .where(Cond::range(0, Aff::dim("i"), 4))
                .where(Cond::range(0, Aff::dim("k"), 8));
  const Aff i = Aff::dim("i"), k = Aff::dim("k");
  EXPECT_EQ(uniform_step(box, {i}, i + k), 1);
  EXPECT_EQ(uniform_step(box, {i}, k * 3 + i), 3);
  EXPECT_EQ(uniform_step(box, {i, k}, i + k), 0);
  Set two = Set({"j", "k"})
                .where(Cond::range(0, Aff::dim("j"), 3))
                .where(Cond::range(0, Aff::dim("k"), 3));
  // Brute force: same-key successors of 10j + k are 1 apart within a row, 8 across rows.
  EXPECT_EQ(uniform_step(two, {}, Aff::dim("j") * 10 + Aff::dim("k")), std::nullopt);
  EXPECT_EQ(single_value(box, (i + k * 2).mod(1)), 0);
  EXPECT_EQ(single_value(box, k.mod(2)), std::nullopt);
  EXPECT_EQ(single_value(Set(box).where(k == 5), k.mod(2)), 1);
  EXPECT_EQ(single_value(Set(box).where(k > 9), k), std::nullopt);
}

// Brute force: the largest number of (j, k) points of one i whose times lie within `span`.
int64_t brute_max_within(int64_t I, int64_t J, int64_t K, int64_t span) {
  int64_t best = 0;
  for (int64_t i = 0; i < I; ++i) {
    std::vector<int64_t> times;
    for (int64_t j = 0; j < J; ++j)
      for (int64_t k = 0; k < K; ++k) times.push_back(58 * i + 85 * j + 28 * k);
    std::sort(times.begin(), times.end());
    for (size_t a = 0, b = 0; b < times.size(); ++b) {
      while (times[b] - times[a] > span) ++a;
      best = std::max<int64_t>(best, static_cast<int64_t>(b - a + 1));
    }
  }
  return best;
}

// Brute force over explicit points: the largest number of points of one key whose times lie
// within `span` of each other.
int64_t brute_max_within(const std::vector<std::pair<int64_t, int64_t>>& key_time, int64_t span) {
  std::map<int64_t, std::vector<int64_t>> by_key;
  for (const auto& [key, time] : key_time) by_key[key].push_back(time);
  int64_t best = 0;
  for (auto& [key, times] : by_key) {
    std::sort(times.begin(), times.end());
    for (size_t a = 0, b = 0; b < times.size(); ++b) {
      while (times[b] - times[a] > span) ++a;
      best = std::max<int64_t>(best, static_cast<int64_t>(b - a + 1));
    }
  }
  return best;
}

// A tiled loop nest (T2SP's GEMM: time jj + JJ * ii + JJ * II * kk, a PE key p): the windows of
// a register carried across the whole (jj, ii) tile, where no single window holds every offset
// (the branch and bound over box corners), and a triangular set (not a box: regions in isl).
TEST_P(BothWays, MaxPointsWithinTiledAndTriangularMatchBruteForce) {
  const int64_t P = 2, JJ = 5, II = 4, KK = 3;
  Set box = Set({"p", "jj", "ii", "kk"})
                .where(Cond::range(0, Aff::dim("p"), P))
                .where(Cond::range(0, Aff::dim("jj"), JJ))
                .where(Cond::range(0, Aff::dim("ii"), II))
                .where(Cond::range(0, Aff::dim("kk"), KK));
  const Aff time = Aff::linear({1, JJ, JJ * II}, {"jj", "ii", "kk"});
  Set triangle = Set(box).where(Aff::dim("ii") <= Aff::dim("jj"));
  std::vector<std::pair<int64_t, int64_t>> all, lower;
  for (int64_t p = 0; p < P; ++p)
    for (int64_t jj = 0; jj < JJ; ++jj)
      for (int64_t ii = 0; ii < II; ++ii)
        for (int64_t kk = 0; kk < KK; ++kk) {
          all.emplace_back(p, jj + JJ * ii + JJ * II * kk);
          if (ii <= jj) lower.emplace_back(p, jj + JJ * ii + JJ * II * kk);
        }
  for (int64_t span : {0, 1, 4, 5, 6, 19, 20, 21, 33, 59, 100}) {
    EXPECT_EQ(max_points_within(box, {Aff::dim("p")}, time, span, 1000),
              brute_max_within(all, span))
        << "box, span " << span;
    EXPECT_EQ(max_points_within(triangle, {Aff::dim("p")}, time, span, 1000),
              brute_max_within(lower, span))
        << "triangle, span " << span;
  }
}

// A dim without a range that an equality defines from one with a range (an earlier
// iteration, as the emulation's proofs ask), and bounds written as sums of constants.
TEST_P(BothWays, DimsDefinedByAnEquality) {
  const Aff k = Aff::dim("k"), e = Aff::dim("e");
  Set set = Set({"k", "e"}).where(Cond::range(Aff(0), k, Aff(2) + Aff(6))).where(e == k - 1);
  EXPECT_FALSE(is_empty(set));
  EXPECT_TRUE(is_empty(Set(set).where(e < -1)));
  EXPECT_FALSE(is_empty(Set(set).where(e == -1)));
  auto ranges = value_ranges(set, {e, k + e});
  ASSERT_TRUE(ranges);
  EXPECT_EQ((*ranges)[0]->min, -1);
  EXPECT_EQ((*ranges)[0]->max, 6);
  EXPECT_EQ((*ranges)[1]->min, -1);
  EXPECT_EQ((*ranges)[1]->max, 13);
  EXPECT_EQ(sample(Set(set).where(e >= 3)), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(value_ranges(Set(set).where(e > 9), {e}), std::nullopt);
}

TEST_P(BothWays, MaxPointsWithinMatchesBruteForce) {
  Set set = Set({"i", "j", "k"})
                .where(Cond::range(0, Aff::dim("i"), 10))
                .where(Cond::range(0, Aff::dim("j"), 9))
                .where(Cond::range(0, Aff::dim("k"), 10));
  const Aff time = Aff::linear({58, 85, 28}, {"i", "j", "k"});
  for (int64_t span : {0, 1, 27, 28, 57, 58, 84, 85, 200, 2000}) {
    EXPECT_EQ(max_points_within(set, {Aff::dim("i")}, time, span, 1000),
              brute_max_within(10, 9, 10, span))
        << "span " << span;
  }
}

TEST_P(BothWays, CountUnionOfImagesMatchesBruteForce) {
  // A skewed domain (CheckTime: PE i works from time i on), a triangle, a modulo condition, and
  // the union of two images that overlap; each against counting the points one by one.
  const Aff i = Aff::dim("i"), t = Aff::dim("t"), k = Aff::dim("k");
  Set skew = Set({"t", "i"}).where(Cond::range(0, t, 9)).where(Cond::range(0, i, 4));
  skew.where(t >= i && t < i + 6);
  Set triangle = Set({"i", "k"}).where(Cond::range(0, i, 10)).where(Cond::range(0, k, i + 1));
  Set strided = Set({"t", "i"}).where(Cond::range(0, t, 100)).where(Cond::range(0, i, 3));
  strided.where(t.mod(3) == i);
  Set box = Set({"k", "t", "i"})
                .where(Cond::range(0, k, 1000))
                .where(Cond::range(0, t, 1000))
                .where(Cond::range(0, i, 80));
  Set upper = Set({"t", "i"}).where(Cond::range(0, t, 9)).where(Cond::range(2, i, 6));
  int64_t skew_n = 0, triangle_n = 0, union_n = 0;
  for (int64_t tt = 0; tt < 9; ++tt)
    for (int64_t ii = 0; ii < 6; ++ii) {
      const bool in_skew = ii < 4 && tt >= ii && tt < ii + 6;
      skew_n += in_skew;
      union_n += in_skew || ii >= 2;
    }
  for (int64_t ii = 0; ii < 10; ++ii) triangle_n += ii + 1;
  EXPECT_EQ(count_union_of_images({{skew, {t, i}}}, 100), skew_n);
  EXPECT_EQ(count_union_of_images({{triangle, {i, k}}}, 100), triangle_n);
  EXPECT_EQ(count_union_of_images({{strided, {t, i}}}, 1000), 100);
  // A box counts at once, however large; an image drops the dims it does not list.
  EXPECT_EQ(count_union_of_images({{box, {k, t, i}}}, 1), int64_t{1000} * 1000 * 80);
  EXPECT_EQ(count_union_of_images({{box, {i}}}, 1), 80);
  EXPECT_EQ(count_union_of_images({{skew, {t, i}}, {upper, {t, i}}}, 100), union_n);
  EXPECT_EQ(count_union_of_images({}, 1), 0);
  // Two overlapping boxes whose union is not one (a double buffer's fill of the last 10240
  // cycles of each period beside its reads from the second period on, T2SP's A10 feeder):
  // inclusion-exclusion, three products in the budget of three, where splitting the union
  // takes thousands.
  const Aff p = Aff::dim("p"), c = Aff::dim("c");
  Set fill = Set({"p", "c"}).where(Cond::range(0, p, 32768)).where(Cond::range(22528, c, 32768));
  Set reads = Set({"p", "c"}).where(Cond::range(1, p, 32769)).where(Cond::range(0, c, 32768));
  EXPECT_EQ(count_union_of_images({{fill, {p, c}}, {reads, {p, c}}}, 3),
            int64_t{32768} * 32768 + 10240);
  // Out of budget (isl's splits; an enumerated set needs none), or unbounded: no count.
  if (GetParam() == 0) {
    EXPECT_EQ(count_union_of_images({{skew, {t, i}}}, 1), std::nullopt);
  }
  EXPECT_EQ(count_union_of_images({{Set({"t"}).where(t >= 0), {t}}}, 100), std::nullopt);
  // Long loops (a box: counted at once).
  const Set long_loop = Set({"t"}).where(Cond::range(64, t, 2147483000));
  EXPECT_EQ(count_union_of_images({{long_loop, {t}}}, 1), 2147483000 - 64);
  // Bounds past 2^31 (isl's _si bounds take an int) and a triangle among them: exact.
  const int64_t far = int64_t{1} << 40;
  const Set far_triangle = Set({"i", "k"})
                               .where(Cond::range(Aff(far), i, Aff(far + 4)))
                               .where(Cond::range(Aff(far), k, i + 1));
  EXPECT_EQ(count_union_of_images({{far_triangle, {i, k}}}, 100), 1 + 2 + 3 + 4);
  // Every other time step on a long loop (a hand-edited extent; ir_mutation_fuzzer timed out
  // splitting it a value at a time): the lattice is compressed, then counted as a box; a
  // triangle on a lattice: compressed, then split.
  const Aff s = Aff::dim("s");
  Set every_other = Set({"s", "t"});
  every_other.where(Cond::range(0, s, 4)).where(Cond::range(Aff(0), t, Aff(2147483643)));
  every_other.where(t.mod(2) == Aff(0));
  EXPECT_EQ(count_union_of_images({{every_other, {s, t}}}, 10), int64_t{4} * 1073741822);
  Set even_triangle =
      Set({"t", "i"}).where(Cond::range(0, t, 2000)).where(Cond::range(0, i, t + 1));
  even_triangle.where(t.mod(2) == Aff(0));
  EXPECT_EQ(count_union_of_images({{even_triangle, {t, i}}}, 2000), 1000 * 1000);
  // Two steps of every three on a long loop: no lattice, a value at a time, out of budget.
  Set two_of_three = Set({"s", "t"});
  two_of_three.where(Cond::range(0, s, 4)).where(Cond::range(Aff(0), t, Aff(2147483643)));
  two_of_three.where(t.mod(3) < Aff(2));
  EXPECT_EQ(count_union_of_images({{two_of_three, {s, t}}}, 20000), std::nullopt);
  // A product past int64 (2^40 x 2^40 points; UBSan's overflow in CI): no count.
  const Set huge = Set({"i", "k"})
                       .where(Cond::range(Aff(0), i, Aff(far)))
                       .where(Cond::range(Aff(0), k, Aff(far)));
  EXPECT_EQ(count_union_of_images({{huge, {i, k}}}, 1), std::nullopt);
}

// A PointCounter's budget holds for its counts together: the second triangle needs as many
// splits as the first, and only what the first left is there for it.
TEST(PolyTest, PointCounterSharesItsBudget) {
  const Aff i = Aff::dim("i"), k = Aff::dim("k");
  Set triangle = Set({"i", "k"}).where(Cond::range(0, i, 1000)).where(Cond::range(0, k, i + 1));
  const int64_t points = 1000 * 1001 / 2;
  EXPECT_EQ(count_union_of_images({{triangle, {i, k}}}, 1500), points);
  PointCounter counter(1500);
  EXPECT_EQ(counter.count_union_of_images({{triangle, {i, k}}}), points);
  EXPECT_EQ(counter.count_union_of_images({{triangle, {i, k}}}), std::nullopt);
  // Spent: whatever isl would count is unknown; a set small enough to enumerate is counted.
  const Set box = Set({"i"}).where(Cond::range(0, i, 1000000));
  EXPECT_EQ(counter.count_union_of_images({{box, {i}}}), std::nullopt);
  const Set small = Set({"i"}).where(Cond::range(0, i, 10));
  EXPECT_EQ(counter.count_union_of_images({{small, {i}}}), 10);
}

// The offsets isl enumerates (t2s-stt's measure of its work): |E|, or the limit + 1 beyond it;
// none when the set is small enough to be enumerated point by point.
TEST(PolyTest, MaxPointsWithinCountsTheOffsetsItEnumerates) {
  // One key, time i: E = {e : 0 <= e <= span} within [-9, 9].
  Set set = Set({"i"}).where(Cond::range(0, Aff::dim("i"), 10));
  int64_t enumerated = -1;
  EXPECT_EQ(max_points_within(set, {}, Aff::dim("i"), 3, 1000, &enumerated), 4);
  EXPECT_EQ(enumerated, 0);
  const int64_t previous = set_max_enumerated_points(0);
  EXPECT_EQ(max_points_within(set, {}, Aff::dim("i"), 3, 1000, &enumerated), 4);
  EXPECT_EQ(enumerated, 4);
  EXPECT_EQ(max_points_within(set, {}, Aff::dim("i"), 3, 2, &enumerated), 3);
  EXPECT_EQ(enumerated, 3);
  EXPECT_EQ(max_points_within(Set({"i"}).where(Cond::range(0, Aff::dim("i"), 0)), {}, Aff::dim("i"),
                              3, 1000, &enumerated),
            0);
  EXPECT_EQ(enumerated, 0);
  set_max_enumerated_points(previous);
}

}  // namespace
}  // namespace t2s::poly
