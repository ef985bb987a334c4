// //tests/run:inline_size_test: inlining shares repeated calls. A diamond of inlined Funcs
// (F1 = a(x) % 100; F2 = F1 + F1; F3 = F2 * F2 % 1009; ...; out = Fn) is merged at depths 10,
// 20 and 40: every inlined Func read twice is bound once with a `let`, so the merged IR grows
// linearly with the depth (copying the trees would double it with every level).
//
// Bazel runs the test in the runfiles root of the `t2s` workspace: the tool is tools/t2s-merge.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string TmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

std::string Diamond(int depth) {
  std::ostringstream s;
  s << "ImageParam a(Int(32), 1, \"a\");\nVar x;\nFunc out(Place::Device);\n";
  for (int n = 1; n <= depth; ++n) s << "Func F" << n << ";\n";
  s << "F1(x) = a(x) % 100;\n";
  for (int n = 2; n <= depth; ++n) {
    if (n % 2 == 0) {
      s << "F" << n << "(x) = F" << n - 1 << "(x) + F" << n - 1 << "(x);\n";
    } else {
      s << "F" << n << "(x) = (F" << n - 1 << "(x) * F" << n - 1 << "(x)) % 1009;\n";
    }
  }
  s << "out(x) = F" << depth << "(x);\nout.realize({8});\n";
  return s.str();
}

// The size in bytes of the merged IR of the diamond of `depth` without the indentation of its
// lines (the lets nest, and the JSON writer indents each level); -1 when t2s-merge fails.
int64_t MergedSize(int depth) {
  const std::string spec = TmpDir() + "/diamond" + std::to_string(depth) + ".t2s";
  const std::string merged = TmpDir() + "/diamond" + std::to_string(depth) + ".json";
  {
    std::ofstream out(spec, std::ios::trunc);
    out << Diamond(depth);
  }
  const std::string command = "tools/t2s-merge '" + spec + "' -o '" + merged + "'";
  const int raw = std::system(command.c_str());
  if (raw == -1 || !WIFEXITED(raw) || WEXITSTATUS(raw) != 0) return -1;
  std::ifstream in(merged, std::ios::binary);
  int64_t size = 0;
  for (std::string line; std::getline(in, line);) {
    size += static_cast<int64_t>(line.size() - std::min(line.size(), line.find_first_not_of(' ')));
  }
  return size;
}

TEST(InlineSizeTest, DiamondGrowsLinearly) {
  const int64_t s10 = MergedSize(10), s20 = MergedSize(20), s40 = MergedSize(40);
  ASSERT_GT(s10, 0);
  ASSERT_GT(s20, 0);
  ASSERT_GT(s40, 0);
  // Linear: each 10 levels add about the same number of bytes (the `funcs` and the lets).
  const int64_t step1 = s20 - s10, step2 = (s40 - s20) / 2;
  EXPECT_GT(step1, 0);
  EXPECT_LE(step2, step1 * 3 / 2) << s10 << " " << s20 << " " << s40;
  EXPECT_GE(step2, step1 * 2 / 3) << s10 << " " << s20 << " " << s40;
  // Depth 40 copied would be 2^40 leaves; shared, a few hundred bytes per level.
  EXPECT_LT(s40, 64 * 1024) << s40;
}

}  // namespace
