// Fuzz target: the spec front end (preprocessor, parser, type checks) on arbitrary bytes, as
// t2s-parse reads them. #include searches no directory but the (nonexistent) spec's own.
#include <cstddef>
#include <cstdint>

#include "libs/frontend/frontend.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  t2s::fuzz::run_one_input("spec_fuzzer", [&] {
    t2s::SourceManager sources;
    sources.add("", "fuzz.t2s", t2s::fuzz::as_text(data, size));
    sources.set_base_dir("/nonexistent-t2s-fuzz");
    t2s::parse_spec(sources, t2s::FrontendOptions{});
  });
  return 0;
}
