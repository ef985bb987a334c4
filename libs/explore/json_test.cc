#include "libs/explore/json.h"

#include <gtest/gtest.h>

namespace t2s::explore::json {
namespace {

TEST(JsonTest, RemembersWhereValuesStart) {
  Value v =
      parse("{\n  \"a\": [1, -2.5e1, \"x\\u00e9\"],\n  \"b\": {\"c\": null, \"d\": true}\n}", "f");
  ASSERT_TRUE(v.is_object());
  const Value* a = v.find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->items.size(), 3u);
  EXPECT_EQ(a->loc.line, 2);
  EXPECT_EQ(a->loc.col, 8);
  EXPECT_EQ(a->items[0].integer, 1);
  EXPECT_DOUBLE_EQ(a->items[1].real, -25.0);
  EXPECT_EQ(a->items[2].string, "x\xc3\xa9");
  EXPECT_EQ(a->items[2].loc.col, 20);
  const Value* b = v.find("b");
  EXPECT_EQ(b->fields[1].second.boolean, true);
  EXPECT_EQ(v.key_locs[1].line, 3);
  EXPECT_EQ(v.key_locs[1].col, 3);
  EXPECT_EQ(b->find("c")->kind, Value::kNull);
}

SourceLoc error_at(const std::string& text) {
  try {
    parse(text, "");
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "json");
    return d.loc();
  }
  ADD_FAILURE() << "no error for " << text;
  return {};
}

TEST(JsonTest, ErrorsNameTheirPlace) {
  EXPECT_EQ(error_at("{\"a\": 1,\n \"a\": 2}").line, 2);
  EXPECT_EQ(error_at("{\"a\": 1,\n \"a\": 2}").col, 2);
  EXPECT_EQ(error_at("[1, 2").col, 6);
  EXPECT_EQ(error_at("[1 2]").col, 4);
  EXPECT_EQ(error_at("\"abc").col, 5);
  EXPECT_EQ(error_at("99999999999999999999").col, 1);
  EXPECT_EQ(error_at("{} x").col, 4);
  EXPECT_EQ(error_at("").col, 1);
  EXPECT_EQ(error_at(std::string(300, '[')).col, 202);
}

}  // namespace
}  // namespace t2s::explore::json
