#include "libs/poly/relations.h"

#include <gtest/gtest.h>

namespace t2s::poly {
namespace {

const Params kN5 = {{"N", 5}};

TEST(RelationsTest, ReadsSetsWithParameterValues) {
  IntSet a = parse_set("{ A[i, j] : 1 <= i <= N and 1 <= j <= N - i + 1 }", kN5);
  EXPECT_EQ(a.tuple(), "A");
  EXPECT_EQ(a.dim_names(), (std::vector<std::string>{"i", "j"}));
  EXPECT_EQ(a.count(1000), 15);
  // Brute force: the triangle i + j <= N + 1.
  std::vector<Point> expected;
  for (int64_t i = 1; i <= 5; ++i)
    for (int64_t j = 1; j <= 5 - i + 1; ++j) expected.push_back({i, j});
  EXPECT_EQ(a.points(1000), expected);
  EXPECT_EQ(*a.lexmin(), (Point{1, 1}));
  auto b = a.bounds();
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)[1], (std::pair<int64_t, int64_t>{1, 5}));
  // Declared parameters are taken as written.
  EXPECT_EQ(parse_set("[N] -> { [i] : 0 <= i < N }", kN5).count(100), 5);
}

TEST(RelationsTest, RefusesWhatIslCannotRead) {
  EXPECT_THROW(parse_set("{ A[i] : i < }", kN5), PolyError);
  EXPECT_THROW(parse_set("{ A[i] : i < M }", kN5), PolyError);
  EXPECT_THROW(parse_map("{ A[i] }", kN5), PolyError);
  EXPECT_THROW(parse_set("{ A[i] : 0 <= i }", kN5).points(10), PolyError);
  EXPECT_THROW(parse_set("{ A[i] : 0 <= i < 100 }", kN5).points(10), TooManyPoints);
}

TEST(RelationsTest, AffineFunctions) {
  IntMap m = parse_map("{ C[k, l] -> [l - k + N + 2, k] }", kN5);
  auto f = m.affine();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->coeff, (std::vector<std::vector<int64_t>>{{-1, 1}, {1, 0}}));
  EXPECT_EQ(f->constant, (std::vector<int64_t>{7, 0}));
  EXPECT_EQ(f->apply({2, 1}), (Point{6, 2}));
  EXPECT_FALSE(parse_map("{ C[k] -> [floor(k / 2)] }", kN5).affine());
  EXPECT_FALSE(parse_map("{ C[k] -> [j] }", kN5).affine());
  IntSet dom = IntSet::box("S", {"x", "y"}, {0, 0}, {2, 3});
  IntMap g = IntMap::from_affine(dom, "", Affine{{{1, 1}, {0, -1}}, {0, 4}});
  EXPECT_EQ(g.range().count(100), 6);
  EXPECT_EQ(g.pairs(100).front(), (std::pair<Point, Point>{{0, 0}, {0, 4}}));
  // Keyword tuples are renamed inside, kept outside.
  IntSet kw = IntSet::box("max", {"a"}, {0}, {3}).where(Constraint{{1}, -1, false});
  EXPECT_EQ(kw.tuple(), "max");
  EXPECT_EQ(kw.count(10), 2);
}

// The example of DTSE section 3.3.2: five flow dependencies, checked against the definitions.
TEST(RelationsTest, DataflowOfTheThreePolytopeExample) {
  const int64_t N = 5;
  IntMap wa = parse_map("{ A[i, j] -> a[i, j] : 1 <= i <= N and 1 <= j <= N - i + 1 }", kN5);
  IntMap wb = parse_map("{ B[q, p] -> b[p, 1] : q = 1 and 1 <= p <= N }", kN5);
  IntMap wc = parse_map("{ C[k, l] -> b[k, l + 1] : 1 <= k <= N and 1 <= l <= k }", kN5);
  std::vector<IntMap> schedules = {parse_map("{ A[i, j] -> [0, i, j] }", kN5),
                                   parse_map("{ B[q, p] -> [1, q, p] }", kN5),
                                   parse_map("{ C[k, l] -> [2, k, l] }", kN5)};
  std::vector<IntMap> writes = {wa, wb, wc};
  auto flow = [&](const std::string& read) {
    return dataflow(parse_map(read, kN5), writes, schedules);
  };
  auto aa = flow("{ A[i, j] -> a[i - 1, j] : 1 <= i <= N and 1 <= j <= N - i + 1 }");
  ASSERT_EQ(aa.size(), 1u);
  EXPECT_EQ(aa[0].in_tuple(), "A");
  EXPECT_EQ(aa[0].pairs(100).size(), static_cast<size_t>(N * (N - 1) / 2));
  auto ab1 = flow("{ B[q, p] -> a[N - p + 1, p] : q = 1 and 1 <= p <= N }");
  ASSERT_EQ(ab1.size(), 1u);
  EXPECT_EQ(ab1[0].pairs(100).size(), static_cast<size_t>(N));
  auto ab2 = flow("{ B[q, p] -> a[N - p, p] : q = 1 and 1 <= p <= N }");
  ASSERT_EQ(ab2.size(), 1u);
  EXPECT_EQ(ab2[0].pairs(100).size(), static_cast<size_t>(N - 1));
  auto c = flow("{ C[k, l] -> b[k, l] : 1 <= k <= N and 1 <= l <= k }");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].in_tuple(), "B");
  EXPECT_EQ(c[0].pairs(100).size(), static_cast<size_t>(N));
  EXPECT_EQ(c[1].in_tuple(), "C");
  EXPECT_EQ(c[1].pairs(100).size(), static_cast<size_t>(N * (N - 1) / 2));
  // Every pair reads what it writes: B[1, p] -> C[p, 1].
  for (const auto& [src, dst] : c[0].pairs(100)) EXPECT_EQ(src[1], dst[0]);
}

TEST(RelationsTest, DataflowTakesTheLastWriter) {
  // Not single assignment: x[0] written at t = 0 and t = 1; the read at t = 2 sees the second.
  IntMap w = parse_map("{ S[t] -> x[0] : 0 <= t <= 1 }", {});
  IntMap r = parse_map("{ R[t] -> x[0] : t = 2 }", {});
  auto d = dataflow(r, {w}, {parse_map("{ S[t] -> [t] }", {}), parse_map("{ R[t] -> [t] }", {})});
  ASSERT_EQ(d.size(), 1u);
  auto pairs = d[0].pairs(10);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].first, (Point{1}));
}

// Sets hold their isl context: one made while another lives combines with it, and one made after
// every earlier set has gone (its context freed) works in a context of its own.
TEST(RelationsTest, SetsOutliveTheCallsThatMadeThemAndCombineWhileAlive) {
  IntSet later;
  {
    IntSet a = IntSet::box("A", {"i"}, {0}, {4});
    later = IntSet::box("A", {"i"}, {2}, {4});
    EXPECT_EQ(a.intersect(later).points(10), (std::vector<Point>{{2}, {3}}));
  }
  EXPECT_EQ(later.subtract(IntSet::point("A", {3})).count(10), 3);
  later = IntSet();
  IntSet fresh = parse_set("{ A[i] : 0 <= i < N }", kN5);
  EXPECT_EQ(fresh.unite(IntSet::point("A", {7})).count(10), 6);
  EXPECT_EQ(fresh.str(), "{ A[i] : 0 <= i <= 4 }");
}

// Enumeration stops at its limit, and an unbounded set is refused rather than walked.
TEST(RelationsTest, EnumerationIsBounded) {
  IntSet a = IntSet::box("", {"x", "y"}, {0, 0}, {10, 10});
  EXPECT_EQ(a.points(100).size(), 100u);
  EXPECT_THROW(a.points(99), TooManyPoints);
  EXPECT_THROW(parse_set("{ [i] : i >= 0 }", {}).points(10), PolyError);
}

}  // namespace
}  // namespace t2s::poly
