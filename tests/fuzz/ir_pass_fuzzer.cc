// Fuzz target: IR that the verifier accepts is run by the interpreter (t2s-run, with small
// memory and step budgets), then goes through the pass of the tool that takes its stage
// (t2s-merge, t2s-stt, t2s-vec, t2s-gather) and every emit target (t2s-emit) of the stage
// reached. Each may refuse the IR (a located diagnostic) but not fail inside.
#include <cstddef>
#include <cstdint>

#include "libs/backends/targets/targets.h"
#include "libs/exec/interpreter.h"
#include "libs/exec/run_support.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/verify.h"
#include "libs/passes/lower/lower.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  t2s::fuzz::run_one_input("ir_pass_fuzzer", [&] {
    t2s::Program p = t2s::read_program(t2s::fuzz::as_text(data, size), "fuzz.json");
    t2s::verify_program(p, "fuzz.json");
    if (p.stage != t2s::Stage::kParsed) {
      t2s::check_run_memory(p, int64_t{1} << 24);
      t2s::RunOptions options;
      options.max_steps = 200000;
      t2s::run_program(p, t2s::complete_inputs(p, {}, t2s::FillKind::kSequential, 0), options);
    }
    if (p.stage != t2s::Stage::kGathered)
      p = t2s::lower_to(p, static_cast<t2s::Stage>(static_cast<int>(p.stage) + 1));
    if (p.stage == t2s::Stage::kParsed) return;
    for (const t2s::EmitTarget& target : t2s::emit_targets()) {
      target.emit(p, {});
      if (target.emit_host) target.emit_host(p);
    }
  });
  return 0;
}
