// The naive native GEMM that bench/emulation_bench.sh times the emulation against:
// c(i, j) = sum over k of a(i, k) * b(k, j), in float, k from 0 up (the emulation's order, so
// that with -ffp-contract=off both give the same bits). Writes the inputs (a.npy, b.npy, Fortran
// order, deterministic values) for the emulation and t2s-run, then runs the triple loop, writes
// c's bytes (Fortran order, no header) to c.bin and prints the loop's time in seconds.
//   emulation_native_gemm DIR N
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

bool write_file(const std::string& path, const std::string& header, const std::vector<float>& v) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
                  std::fwrite(v.data(), sizeof(float), v.size(), f) == v.size();
  return std::fclose(f) == 0 && ok;
}

// A float32 .npy header for a Fortran-order n x n array (version 1.0, 64-byte aligned).
std::string npy_header(int n) {
  std::string dict = "{'descr': '<f4', 'fortran_order': True, 'shape': (" + std::to_string(n) +
                     ", " + std::to_string(n) + "), }";
  while ((10 + dict.size() + 1) % 64) dict += ' ';
  dict += '\n';
  std::string h = "\x93NUMPY";
  h += '\x01';
  h += '\x00';
  h += static_cast<char>(dict.size() & 0xFF);
  h += static_cast<char>(dict.size() >> 8);
  return h + dict;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: emulation_native_gemm DIR N\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int n = std::atoi(argv[2]);
  std::vector<float> a(static_cast<size_t>(n) * n), b(a.size()), c(a.size());
  uint32_t state = 12345;
  for (std::vector<float>* v : {&a, &b})
    for (float& x : *v) {
      state = state * 1664525u + 1013904223u;
      x = static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
    }
  if (!write_file(dir + "/a.npy", npy_header(n), a) ||
      !write_file(dir + "/b.npy", npy_header(n), b)) {
    std::fprintf(stderr, "emulation_native_gemm: cannot write the inputs in %s\n", dir.c_str());
    return 1;
  }
  const auto start = std::chrono::steady_clock::now();
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      float sum = 0.0f;
      for (int k = 0; k < n; ++k)
        sum = sum + a[i + static_cast<size_t>(n) * k] * b[k + static_cast<size_t>(n) * j];
      c[i + static_cast<size_t>(n) * j] = sum;
    }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!write_file(dir + "/c.bin", "", c)) {
    std::fprintf(stderr, "emulation_native_gemm: cannot write %s/c.bin\n", dir.c_str());
    return 1;
  }
  std::printf("%.6f\n", seconds);
  return 0;
}
