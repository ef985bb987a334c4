// The golden IR helper finds the files of testdata/golden through the runfiles.
#include "libs/testing/golden.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace t2s {
namespace testing {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(GoldenIr, LoadsAStage) {
  Program p = load_golden_ir("gemm", "stt");
  EXPECT_EQ(p.stage, Stage::kStt);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].name, "A");
  EXPECT_EQ(p.registers.size(), 3u);
  EXPECT_EQ(load_golden_ir("ar_filter", "merged").stage, Stage::kMerged);
}

TEST(GoldenIr, TextIsTheFile) {
  std::string text = read_golden_text("gemm", "parsed");
  EXPECT_EQ(text.rfind("{", 0), 0u);
  EXPECT_NE(text.find("\"stage\": \"parsed\""), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
}

TEST(GoldenIr, MissingGoldenNamesItsPath) {
  try {
    load_golden_ir("no_such_spec", "stt");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("testdata/golden/no_such_spec/stt.json"),
              std::string::npos)
        << e.what();
  }
  // A stage a pipeline has no golden of (goldens are stage names, not targets).
  EXPECT_THROW(load_golden_ir("gemm", "kernel"), std::runtime_error);
}

TEST(GoldenIr, ListsSpecsByStage) {
  std::vector<std::string> merged = golden_specs("merged");
  EXPECT_GE(merged.size(), 20u);
  EXPECT_TRUE(std::is_sorted(merged.begin(), merged.end()));
  EXPECT_TRUE(contains(merged, "gemm"));
  EXPECT_TRUE(contains(merged, "vectorize_gather"));
  std::vector<std::string> gathered = golden_specs("gathered");
  EXPECT_TRUE(contains(gathered, "gemm"));
  EXPECT_TRUE(contains(gathered, "vectorize_gather"));
  EXPECT_EQ(golden_specs().size(), merged.size());
}

}  // namespace
}  // namespace testing
}  // namespace t2s
