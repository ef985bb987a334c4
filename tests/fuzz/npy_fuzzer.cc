// Fuzz target: the .npy reader (t2s-run --input, and the runtime's reader that generated
// programs embed shares its rules); what it accepts is written and read back unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "libs/exec/npy_files.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  t2s::fuzz::run_one_input("npy_fuzzer", [&] {
    t2s::NdArray a;
    try {
      a = t2s::read_npy(t2s::fuzz::as_text(data, size), "fuzz.npy");
    } catch (const t2s::NpyError&) {
      return;  // a refused file: exit 1 in t2s-run
    }
    t2s::NdArray b = t2s::read_npy(t2s::write_npy(a), "written.npy");
    if (!(a.type == b.type) || a.shape != b.shape || a.data != b.data) {
      std::fprintf(stderr, "npy_fuzzer: finding: the array written does not read back\n");
      std::abort();
    }
  });
  return 0;
}
