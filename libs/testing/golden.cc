#include "libs/testing/golden.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "libs/ir/ir_json.h"

namespace t2s {
namespace testing {

namespace {

bool is_file(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string golden_path(const std::string& spec, const std::string& stage) {
  return "testdata/golden/" + spec + "/" + stage + ".json";
}

}  // namespace

std::string runfile(const std::string& path) {
  // The runfiles tree names the t2s repository "t2s" whether it is the main workspace (its
  // WORKSPACE says so) or an external one.
  const char* srcdir = std::getenv("TEST_SRCDIR");
  if (srcdir && *srcdir) return std::string(srcdir) + "/t2s/" + path;
  return path;
}

std::string read_golden_text(const std::string& spec, const std::string& stage) {
  const std::string path = runfile(golden_path(spec, stage));
  std::ifstream in(path, std::ios::binary);
  if (!is_file(path) || !in)
    throw std::runtime_error("cannot read golden IR " + path +
                             " (is //testdata:golden_ir a data dependency of the test, and is "
                             "there a golden of that spec and stage?)");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Program load_golden_ir(const std::string& spec, const std::string& stage) {
  return read_program(read_golden_text(spec, stage), golden_path(spec, stage));
}

std::vector<std::string> golden_specs(const std::string& stage) {
  const std::string root = runfile("testdata/golden");
  std::vector<std::string> specs;
  DIR* dir = opendir(root.c_str());
  if (!dir) throw std::runtime_error("cannot open " + root);
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.empty() || name[0] == '.') continue;
    struct stat st;
    if (stat((root + "/" + name).c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    if (!stage.empty() && !is_file(root + "/" + name + "/" + stage + ".json")) continue;
    specs.push_back(name);
  }
  closedir(dir);
  std::sort(specs.begin(), specs.end());
  return specs;
}

}  // namespace testing
}  // namespace t2s
