#include "libs/poly/poly.h"

#include <gtest/gtest.h>

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
