#include "libs/cli/spec_lines.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "libs/cli/tool.h"
#include "libs/frontend/frontend.h"

namespace t2s {
namespace {

// Line 1 and 4 are comments on lines of their own; the others are code the IR locates.
constexpr const char* kSpec =
    "// a 1-D copy\n"
    "ImageParam a(Int(32), 1, \"a\");\n"
    "Var i;\n"
    "// the only Func\n"
    "Func f(Int(32), {i});\n"
    "f(i) = a(i) + 1;\n"
    "f.set_bounds(i, 0, 4);\n"
    "f.realize({4});\n";

std::string spec_lines_of(const std::string& text) {
  SourceManager sources;
  sources.add("", "dir/spec.t2s", text);
  Program program = parse_spec(sources, FrontendOptions{});
  return write_spec_lines(program, sources);
}

TEST(SpecLinesTest, RecordsTheLocatedLinesOnly) {
  nlohmann::json doc = nlohmann::json::parse(spec_lines_of(kSpec));
  EXPECT_EQ(doc["t2s_spec_lines"], 1);
  ASSERT_EQ(doc["files"].size(), 1u);
  const nlohmann::json& file = doc["files"][0];
  EXPECT_EQ(file["name"], "");
  EXPECT_EQ(file["display_name"], "dir/spec.t2s");
  ASSERT_FALSE(file["lines"].empty());
  for (const nlohmann::json& line : file["lines"]) {
    int n = line[0].get<int>();
    EXPECT_NE(n, 1) << "a comment line is recorded";
    EXPECT_NE(n, 4) << "a comment line is recorded";
  }
  // f's definition is located, with its text.
  bool found = false;
  for (const nlohmann::json& line : file["lines"])
    if (line[0] == 6) found = line[1] == "f(i) = a(i) + 1;";
  EXPECT_TRUE(found) << doc.dump(1);
}

TEST(SpecLinesTest, AnEditedCommentLeavesTheFileAlone) {
  std::string edited = kSpec;
  edited.replace(edited.find("the only Func"), 13, "f, edited comment text");
  EXPECT_EQ(spec_lines_of(kSpec), spec_lines_of(edited));
}

TEST(SpecLinesTest, ReadBackGivesTheLinesAndReadsNoFile) {
  SourceManager sources;
  read_spec_lines(spec_lines_of(kSpec), "spec_lines.json", &sources);
  EXPECT_EQ(sources.display_name(""), "dir/spec.t2s");
  EXPECT_EQ(sources.line("", 6), "f(i) = a(i) + 1;");
  EXPECT_EQ(sources.line("", 1), std::nullopt);  // not recorded
  EXPECT_EQ(sources.text(""), nullptr);          // only some lines are known
  // A file that is not in the spec-lines file is not read from disk either.
  EXPECT_EQ(sources.line("libs/cli/spec_lines_test.cc", 1), std::nullopt);
}

TEST(SpecLinesTest, RefusesAMalformedFile) {
  SourceManager sources;
  EXPECT_THROW(read_spec_lines("{}", "x.json", &sources), IoError);
  EXPECT_THROW(read_spec_lines("not json", "x.json", &sources), IoError);
  EXPECT_THROW(read_spec_lines(R"({"t2s_spec_lines": 2, "files": []})", "x.json", &sources),
               IoError);
  EXPECT_THROW(
      read_spec_lines(
          R"({"t2s_spec_lines": 1, "files": [{"name": "", "display_name": "s", "lines": [[1]]}]})",
          "x.json", &sources),
      IoError);
}

}  // namespace
}  // namespace t2s
