// Fuzz target: the IR reader and the verifier (every stage), as each tool reads its input.
#include <cstddef>
#include <cstdint>

#include "libs/ir/ir_json.h"
#include "libs/ir/verify.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  t2s::fuzz::run_one_input("ir_fuzzer", [&] {
    t2s::Program p = t2s::read_program(t2s::fuzz::as_text(data, size), "fuzz.json");
    t2s::verify_program(p, "fuzz.json");
  });
  return 0;
}
