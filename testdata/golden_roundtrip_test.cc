// Reading and writing every golden IR file reproduces it byte for byte; since the writer
// reprints every expression, this also checks print(parse(e)) == e for every expression in
// testdata.
#include <dirent.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "libs/ir/expr_parser.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/ir_json.h"

namespace t2s {
namespace {

std::vector<std::string> golden_files() {
  std::vector<std::string> files;
  const std::string root = "testdata/golden";
  DIR* dir = opendir(root.c_str());
  if (!dir) return files;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    DIR* sub = opendir((root + "/" + name).c_str());
    if (!sub) continue;
    while (dirent* f = readdir(sub)) {
      std::string file = f->d_name;
      if (file.size() > 5 && file.compare(file.size() - 5, 5, ".json") == 0)
        files.push_back(root + "/" + name + "/" + file);
    }
    closedir(sub);
  }
  closedir(dir);
  std::sort(files.begin(), files.end());
  return files;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(GoldenRoundTrip, EveryGoldenFileRoundTrips) {
  std::vector<std::string> files = golden_files();
  ASSERT_GE(files.size(), 20u) << "expected a golden file per spec in testdata/golden";
  for (const std::string& path : files) {
    std::string text = read(path);
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
