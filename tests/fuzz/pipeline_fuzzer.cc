// Fuzz target: a spec lowered through every stage (t2s-parse, t2s-merge, t2s-stt, t2s-vec,
// t2s-gather), every emit target run on each lowered stage (t2s-emit takes any of them), and
// each stage's IR written and read back (the bytes a tool hands the next one).
#include <cstddef>
#include <cstdint>

#include "libs/backends/targets/targets.h"
#include "libs/frontend/frontend.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/verify.h"
#include "libs/passes/lower/lower.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  t2s::fuzz::run_one_input("pipeline_fuzzer", [&] {
    t2s::SourceManager sources;
    sources.add("", "fuzz.t2s", t2s::fuzz::as_text(data, size));
    sources.set_base_dir("/nonexistent-t2s-fuzz");
    t2s::Program p = t2s::parse_spec(sources, t2s::FrontendOptions{});
    for (t2s::Stage stage :
         {t2s::Stage::kMerged, t2s::Stage::kStt, t2s::Stage::kVectorized, t2s::Stage::kGathered}) {
      // What the next tool reads: the document, read back and verified.
      p = t2s::read_program(t2s::write_program(p), "fuzz.json");
      t2s::verify_program(p, "fuzz.json");
      p = t2s::lower_to(p, stage);
      for (const t2s::EmitTarget& target : t2s::emit_targets()) {
        target.emit(p, {});
        if (target.emit_host) target.emit_host(p);
      }
    }
  });
  return 0;
}
