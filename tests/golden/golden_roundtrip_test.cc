// Reading and writing every golden IR file reproduces it byte for byte; since the writer
// reprints every expression, this also checks print(parse(e)) == e for every expression in
// testdata.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "libs/ir/expr_parser.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/ir_json.h"
#include "libs/testing/golden.h"

namespace t2s {
namespace {

// (spec, stage) of every golden IR file, testdata/golden/SPEC/STAGE.json.
std::vector<std::pair<std::string, std::string>> golden_files() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const char* stage : {"parsed", "merged", "stt", "vectorized", "gathered"})
    for (const std::string& spec : testing::golden_specs(stage)) files.emplace_back(spec, stage);
  return files;
}

TEST(GoldenRoundTrip, EveryGoldenFileRoundTrips) {
  std::vector<std::pair<std::string, std::string>> files = golden_files();
  ASSERT_GE(files.size(), 20u) << "expected a golden file per spec in testdata/golden";
  for (const auto& [spec, stage] : files) {
    const std::string path = "testdata/golden/" + spec + "/" + stage + ".json";
    std::string text = testing::read_golden_text(spec, stage);
    Program p = read_program(text, path);
    EXPECT_EQ(write_program(p), text) << path << " does not round-trip";
    for (const Func& f : p.funcs) {
      if (!f.definition) continue;
      // The canonical text of each definition is a fixed point of parse + print.
      std::string printed = print_expr(f.definition);
      EXPECT_EQ(print_expr(resolve_in_program(parse_expr_text(printed, f.loc), p)), printed)
          << path << ": " << f.name;
    }
  }
}

}  // namespace
}  // namespace t2s
