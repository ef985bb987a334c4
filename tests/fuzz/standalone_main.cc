// The driver of the fuzz targets outside --config=fuzz (gcc, or the asan/ubsan configs): runs
// LLVMFuzzerTestOneInput once on each file named on the command line, and on every file under
// each directory named, as libFuzzer does with -runs=0. Arguments starting with '-' (libFuzzer's
// flags) are ignored, except `-t2s_mutations=N`: for a target with a custom mutator
// (LLVMFuzzerCustomMutator), each input is also mutated N times (mutator seeds 1 to N, each from
// the input) and each result run, a small deterministic campaign. The regression tests of
// tests/fuzz/BUILD run the seed corpora and the saved findings through it.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) __attribute__((weak));

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  unsigned mutations = 0;
  const std::string mutations_flag = "-t2s_mutations=";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind(mutations_flag, 0) == 0)
      mutations = static_cast<unsigned>(std::stoul(arg.substr(mutations_flag.size())));
    if (!arg.empty() && arg[0] == '-') continue;
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(arg))
        if (e.is_regular_file()) files.push_back(e.path());
    } else {
      files.push_back(arg);
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 1;
    }
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "running %s (%zu bytes)\n", path.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    if (!LLVMFuzzerCustomMutator) continue;
    for (unsigned seed = 1; seed <= mutations; ++seed) {
      std::vector<uint8_t> mutated(bytes.begin(), bytes.end());
      mutated.resize(std::max<size_t>(2 * bytes.size(), 4096));
      const size_t size =
          LLVMFuzzerCustomMutator(mutated.data(), bytes.size(), mutated.size(), seed);
      // The input being run, for keeping a finding: T2S_MUTATION_OUT=FILE.
      if (const char* keep = std::getenv("T2S_MUTATION_OUT")) {
        std::ofstream(keep, std::ios::binary)
            .write(reinterpret_cast<const char*>(mutated.data()),
                   static_cast<std::streamsize>(size));
      }
      LLVMFuzzerTestOneInput(mutated.data(), size);
    }
  }
  std::fprintf(stderr, "%zu inputs, no finding\n", files.size());
  return 0;
}
