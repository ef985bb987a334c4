// t2s-stt: the `merged` stage to the `stt` stage: space-time transforms, time loops with exact
// bounds, index recovery, and minimal shift registers / FIFOs (libs/passes/stt).
#include <iostream>

#include "libs/cli/tool.h"
#include "libs/ir/ir_json.h"
#include "libs/passes/lower/lower.h"
#include "libs/passes/stt/stt.h"

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-stt", "stt",
                 "Apply the space_time_transform directives of merged-stage IR (or of parsed IR "
                 "or a .t2s spec, merged first): PE arrays, time loops and the registers that "
                 "carry values between time steps: the stt stage (JSON).");
  tool.add_spec_options();
  tool.add_lowering_options();
  bool report = false;
  tool.app()
      .add_flag("--report", report,
                "Also print a table on standard error: per transformed kernel the PE array and "
                "the time steps, per register the naive and the allocated storage, and totals")
      ->capture_default_str();
  return tool.run(argc, argv, [&] {
    t2s::Program in = tool.read_input_program_or_spec(
        [](t2s::Stage s) { return s == t2s::Stage::kParsed || s == t2s::Stage::kMerged; },
        "parsed or merged");
    t2s::Program out = t2s::lower_to(in, t2s::Stage::kStt, tool.lowering_hooks());
    if (report) std::cerr << t2s::stt_report(out);
    tool.write_output(t2s::write_program(out));
  });
}
