// Fuzz target: IR that the verifier accepts goes through the pass of the tool that takes its
// stage (t2s-merge, t2s-stt, t2s-vec, t2s-gather) and every emit target (t2s-emit) of the
// stage reached. A pass may refuse the IR (a located diagnostic) but not fail inside.
#include <cstddef>
#include <cstdint>

#include "libs/backends/targets/targets.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/verify.h"
#include "libs/passes/lower/lower.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  t2s::fuzz::run_one_input("ir_pass_fuzzer", [&] {
    t2s::Program p = t2s::read_program(t2s::fuzz::as_text(data, size), "fuzz.json");
    t2s::verify_program(p, "fuzz.json");
    if (p.stage != t2s::Stage::kGathered)
      p = t2s::lower_to(p, static_cast<t2s::Stage>(static_cast<int>(p.stage) + 1));
    if (p.stage == t2s::Stage::kParsed) return;
    for (const t2s::EmitTarget& target : t2s::emit_targets()) {
      target.emit(p);
      if (target.emit_host) target.emit_host(p);
    }
  });
  return 0;
}
