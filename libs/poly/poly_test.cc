#include "libs/poly/poly.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "libs/ir/expr_parser.h"
#include "libs/ir/typing.h"

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

const IslNames kNames = {{"i", "v0"}, {"and", "v1"}};

TEST(PolyTest, AffineText) {
  EXPECT_EQ(*affine_text(parse("i * 2 + and - 1"), kNames), "((v0 * 2) + v1) - 1");
  EXPECT_EQ(*affine_text(parse("(i + 3) / 2"), kNames), "floor((v0 + 3) / 2)");
  EXPECT_EQ(*affine_text(parse("i % 4"), kNames), "v0 mod 4");
  EXPECT_FALSE(affine_text(parse("i * and"), kNames));
  EXPECT_FALSE(affine_text(parse("i / and"), kNames));
  EXPECT_FALSE(affine_text(parse("f(i)"), kNames));
  EXPECT_FALSE(affine_text(parse("x + 1"), kNames));  // not a known variable
  EXPECT_EQ(*condition_text(parse("i == 0 && !(and < 3)"), kNames), "(v0 = 0) and (not (v1 < 3))");
  EXPECT_EQ(*condition_text(parse("i != 2"), kNames), "not (v0 = 2)");
}

TEST(PolyTest, ValueRanges) {
  // i in [0, 4), j in [0, 3): i + 2j - 1 in [-1, 6]; (i - 1) / 2 in [-1, 1]; i mod 3 in [0, 2].
  auto r = value_ranges({"i", "j"}, {"0 <= i < 4", "0 <= j < 3"},
                        {"i + 2j - 1", "floor((i - 1) / 2)", "i mod 3"});
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0]->min, -1);
  EXPECT_EQ((*r)[0]->max, 6);
  EXPECT_EQ((*r)[1]->min, -1);
  EXPECT_EQ((*r)[1]->max, 1);
  EXPECT_EQ((*r)[2]->max, 2);
  // Under j == 0 only.
  auto c = value_ranges({"i", "j"}, {"0 <= i < 4", "0 <= j < 3", "j = 0"}, {"j"});
  EXPECT_EQ((*c)[0]->max, 0);
  EXPECT_FALSE(value_ranges({"i"}, {"0 <= i < 4", "i > 7"}, {"i"}));
  auto unbounded = value_ranges({"i"}, {"i >= 0"}, {"i"});
  EXPECT_FALSE((*unbounded)[0]);
}

}  // namespace
}  // namespace t2s::poly

namespace {

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

}  // namespace

TEST(PolyTest, MaxPointsWithinMatchesBruteForce) {
  t2s::poly::SetText set{{"i", "j", "k"}, {"0 <= i < 10", "0 <= j < 9", "0 <= k < 10"}};
  for (int64_t span : {0, 1, 27, 28, 57, 58, 84, 85, 200, 2000}) {
    EXPECT_EQ(t2s::poly::max_points_within(set, {"i"}, "58 * i + 85 * j + 28 * k", span, 1000),
              brute_max_within(10, 9, 10, span))
        << "span " << span;
  }
}

TEST(PolyTest, UniformStep) {
  t2s::poly::SetText box{{"i", "k"}, {"0 <= i < 4", "0 <= k < 8"}};
  EXPECT_EQ(t2s::poly::uniform_step(box, {"i"}, "i + k"), 1);
  EXPECT_EQ(t2s::poly::uniform_step(box, {"i"}, "3 * k + i"), 3);
  EXPECT_EQ(t2s::poly::uniform_step(box, {"i", "k"}, "i + k"), 0);
  t2s::poly::SetText two{{"j", "k"}, {"0 <= j < 3", "0 <= k < 3"}};
  EXPECT_EQ(t2s::poly::uniform_step(two, {}, "10 * j + k"), std::nullopt);
  EXPECT_EQ(t2s::poly::single_value(box, "(i + 2 * k) mod 1"), 0);
  EXPECT_EQ(t2s::poly::single_value(box, "k mod 2"), std::nullopt);
}
