// The directive declarations (directive_decl.h): one per kind, names that round-trip.
#include "libs/ir/directive_decl.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "libs/ir/expr_printer.h"
#include "libs/ir/program.h"

namespace t2s {
namespace {

TEST(DirectiveDecl, EveryKindIsDeclaredOnceUnderItsOwnName) {
  std::set<std::string> names;
  std::set<DirectiveKind> kinds;
  for (const DirectiveDecl* d = directive_decls_begin(); d != directive_decls_end(); ++d) {
    EXPECT_TRUE(names.insert(d->name).second) << d->name << " is declared twice";
    EXPECT_TRUE(kinds.insert(d->kind).second) << d->name << "'s kind is declared twice";
    EXPECT_EQ(directive_kind(d->name), d->kind);
    EXPECT_STREQ(directive_name(d->kind), d->name);
    EXPECT_LE(d->min_args, d->max_args) << d->name;
    EXPECT_GE(d->args_in_groups_of, 1u) << d->name;
  }
  EXPECT_EQ(kinds.size(), static_cast<size_t>(DirectiveKind::kUnknown));
  EXPECT_EQ(directive_kind("realize"), DirectiveKind::kUnknown);
  EXPECT_EQ(find_directive_decl("no_such_directive"), nullptr);
}

TEST(DirectiveDecl, FuncArgumentsComeFromTheDeclaration) {
  auto e = [](const char* t) { return DirectiveArg::expr(t); };
  const Directive merge = Directive::make("A", DirectiveKind::kMergeUres, {e("B"), e("C")}, {});
  EXPECT_EQ(merge.name, "merge_ures");
  EXPECT_EQ(merge.func_args(), (std::pair<size_t, size_t>{0, 2}));
  EXPECT_TRUE(merge.defined_funcs().empty());
  const Directive chain =
      Directive::make("A", DirectiveKind::kIsolateProducerChain, {e("a"), e("P"), e("Q")}, {});
  EXPECT_EQ(chain.func_args(), (std::pair<size_t, size_t>{1, 3}));
  EXPECT_EQ(chain.defined_funcs(), (std::vector<std::string>{"P", "Q"}));
  const Directive gather = Directive::make("A", DirectiveKind::kGather, {e("A"), e("i")}, {});
  EXPECT_EQ(gather.func_args(), (std::pair<size_t, size_t>{0, 1}));
  EXPECT_TRUE(gather.is(DirectiveKind::kGather));
  const Directive unknown{"A", "no_such_directive", {e("x")}, {}};
  EXPECT_EQ(unknown.kind(), DirectiveKind::kUnknown);
  EXPECT_EQ(unknown.func_args(), (std::pair<size_t, size_t>{0, 0}));
}

TEST(DirectiveArg, IntegersAreDecodedFromTheWholeCanonicalText) {
  EXPECT_EQ(DirectiveArg::expr("-3").integer(), std::optional<int64_t>(-3));
  EXPECT_EQ(DirectiveArg::expr("9223372036854775807").integer(), std::optional<int64_t>(INT64_MAX));
  EXPECT_EQ(DirectiveArg::expr("4 + i").integer(), std::nullopt);
  EXPECT_EQ(DirectiveArg::decoded("9223372036854775808", nullptr).integer(), std::nullopt);
  EXPECT_EQ(DirectiveArg::decoded("", nullptr).integer(), std::nullopt);
  EXPECT_EQ(DirectiveArg::enumerator("GatherStrategy::Up").integer(), std::nullopt);
  EXPECT_EQ(DirectiveArg::list({DirectiveArg::expr("1")}).integer(), std::nullopt);
}

// An expression argument is decoded once, where it is built: its value is the expression its
// text spells, and text built in code that is no expression is a bug of that code.
TEST(DirectiveArg, ExpressionsAreDecodedOnceWhereTheyAreBuilt) {
  const DirectiveArg sum = DirectiveArg::expr("i + 1");
  ASSERT_TRUE(sum.value);
  EXPECT_EQ(sum.value->kind, ExprKind::kBinary);
  EXPECT_EQ(print_expr(sum.value), "i + 1");
  const DirectiveArg from_expr = DirectiveArg::expr(sum.value);
  EXPECT_EQ(from_expr.text, "i + 1");
  EXPECT_EQ(from_expr, sum);
  // An integer beyond int32 is no expression (it needs its 'l'), but an integer argument may
  // hold it: its stage refuses it by range, with integer().
  const DirectiveArg big = DirectiveArg::expr("2147483648");
  EXPECT_FALSE(big.value);
  EXPECT_EQ(big.integer(), std::optional<int64_t>(2147483648));
  EXPECT_THROW(DirectiveArg::expr("9223372036854775808"), InternalError);
  EXPECT_THROW(DirectiveArg::expr(""), InternalError);
  EXPECT_THROW(DirectiveArg::expr("i +"), InternalError);
  EXPECT_THROW(DirectiveArg::expr(Expr()), InternalError);
}

}  // namespace
}  // namespace t2s
