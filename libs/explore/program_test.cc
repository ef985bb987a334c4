#include "libs/explore/program.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace t2s::explore {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ProgramTest, ReadsTheThreePolytopeExample) {
  PolyProgram p = read_poly_program(read_file("testdata/explore/three_polytopes.json"), "");
  ASSERT_EQ(p.statements.size(), 3u);
  EXPECT_EQ(p.params, (Params{{"N", 5}}));
  EXPECT_EQ(p.space, (std::vector<std::string>{"x1", "x2"}));
  EXPECT_EQ(p.statements[0].domain.count(100), 15);
  EXPECT_EQ(p.statements[1].reads.size(), 2u);
  EXPECT_EQ(p.statements[1].reads[0].array, "a");
  ASSERT_EQ(p.placements.size(), 3u);
  EXPECT_EQ(p.placements[2].name, "final");
  // C[k, l] -> [l - k + N + 2, k]
  EXPECT_EQ(p.placements[2].maps[2].apply({2, 1}), (Point{6, 2}));
  ASSERT_EQ(p.orderings.size(), 3u);
  EXPECT_EQ(p.orderings[2].rows, (std::vector<std::vector<int64_t>>{{0, 1}, {1, 0}}));
  EXPECT_EQ(ordering_text(p.orderings[2].rows, p.space), "(x2, x1)");
  EXPECT_EQ(ordering_text(p.orderings[1].rows, p.space), "[1, 1]");
  // A parameter given on the command line wins.
  PolyProgram p7 =
      read_poly_program(read_file("testdata/explore/three_polytopes.json"), "", {{"N", 7}});
  EXPECT_EQ(p7.statements[0].domain.count(100), 28);
}

TEST(ProgramTest, DefaultsToIdentityPlacementAndTextualOrder) {
  PolyProgram p = read_poly_program(R"({"t2s_explore": 1, "statements": [
    {"name": "S", "domain": "{ S[i] : 0 <= i < 4 }", "writes": ["{ S[i] -> x[i] }"]},
    {"name": "T", "domain": "{ T[i] : 0 <= i < 4 }", "reads": ["{ T[i] -> x[i] }"]}]})",
                                    "");
  ASSERT_EQ(p.placements.size(), 1u);
  EXPECT_EQ(p.placements[0].name, "identity");
  EXPECT_EQ(p.space, (std::vector<std::string>{"x1"}));
  // S[i] -> [0, i], T[i] -> [1, i].
  auto sched = p.statements[1].schedule.pairs(10);
  EXPECT_EQ(sched[0].second, (Point{1, 0}));
}

struct Expected {
  int line, col;
  std::string rule, message_part;
};

void expect_error(const std::string& text, const Expected& e) {
  try {
    read_poly_program(text, "");
    ADD_FAILURE() << "no error for " << text;
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.loc().line, e.line) << d.message();
    EXPECT_EQ(d.loc().col, e.col) << d.message();
    EXPECT_EQ(d.rule(), e.rule) << d.message();
    EXPECT_NE(d.message().find(e.message_part), std::string::npos) << d.message();
  }
}

TEST(ProgramTest, StatementsOfDifferentDimensionsArePadded) {
  // Without placements, a statement of fewer dims than the widest sits at zero in the others.
  PolyProgram p = read_poly_program(R"({"t2s_explore": 1, "statements": [
  {"name": "S", "domain": "{ S[i] : 0 <= i < 3 }"},
  {"name": "T", "domain": "{ T[i, j] : 0 <= i < 3 and 0 <= j < 2 }"}]})",
                                    "");
  ASSERT_EQ(p.placements.size(), 1u);
  EXPECT_EQ(p.placements[0].name, "padded");
  EXPECT_EQ(p.space, (std::vector<std::string>{"x1", "x2"}));
  EXPECT_EQ(p.placements[0].maps[0].apply({2}), (Point{2, 0}));
  EXPECT_EQ(p.placements[0].maps[1].apply({2, 1}), (Point{2, 1}));
}

TEST(ProgramTest, ErrorsAreLocated) {
  expect_error("{\"t2s_explore\": 2}", {1, 17, "explore-format", "must be 1"});
  expect_error("{\"t2s_explore\": 1,\n \"statments\": []}",
               {2, 2, "explore-format", "unknown field"});
  expect_error(
      "{\"t2s_explore\": 1, \"statements\": [\n  {\"name\": \"S\", \"domain\": \"{ S[i] : 0 <= i < "
      "}\"}]}",
      {2, 27, "explore-set", "isl cannot read it"});
  expect_error(
      "{\"t2s_explore\": 1, \"statements\": [\n  {\"name\": \"S\", \"domain\": \"{ S[i] : 0 <= i < "
      "M }\"}]}",
      {2, 27, "explore-set", "'M' is neither a dim nor a parameter"});
  expect_error(
      "{\"t2s_explore\": 1, \"statements\": [\n  {\"name\": \"S\", \"domain\": \"{ T[i] : 0 <= i < "
      "3 }\"}]}",
      {2, 27, "explore-set", "must be a set of S[...] tuples"});
  expect_error(
      "{\"t2s_explore\": 1, \"statements\": [\n  {\"name\": \"S\", \"domain\": \"{ S[i] : 0 <= i "
      "}\"}]}",
      {2, 27, "explore-set", "must be bounded"});
  expect_error(R"({"t2s_explore": 1, "statements": [
  {"name": "S", "domain": "{ S[i] : 0 <= i < 3 }",
   "reads": ["{ S[i] -> a[j] }"]}]})",
               {3, 14, "explore-access", "not single-valued"});
  expect_error(R"({"t2s_explore": 1, "statements": [
  {"name": "S", "domain": "{ S[i] : 0 <= i < 3 }"}],
  "placements": [{"name": "p", "maps": {"S": "{ S[i] -> [floor(i / 2)] }"}}]})",
               {3, 46, "explore-placement", "one affine function"});
  expect_error(R"({"t2s_explore": 1, "statements": [
  {"name": "S", "domain": "{ S[i] : 0 <= i < 3 }"}],
  "placements": [{"name": "p", "maps": {"S": "{ S[i] -> [0] }"}}]})",
               {3, 46, "explore-placement", "onto one point"});
  expect_error(R"({"t2s_explore": 1, "statements": [
  {"name": "S", "domain": "{ S[i] : 0 <= i < 3 }"}],
  "orderings": [{"name": "o", "loops": ["y"]}]})",
               {3, 41, "explore-ordering", "'y' is not a dim"});
  expect_error(R"({"t2s_explore": 1, "statements": [
  {"name": "S", "domain": "{ S[i] : 0 <= i < 3 }", "schedule": "{ S[i] -> [0] }"}]})",
               {2, 3, "explore-schedule", "the same time"});
}

}  // namespace
}  // namespace t2s::explore
