// t2s-gather: the `vectorized` stage to the `gathered` stage: `F.gather(A, v, strategy)` makes
// the PEs along v pass A's values to one exit PE over FIFOs (seed 003, libs/passes/gather).
#include <iostream>

#include "libs/cli/tool.h"
#include "libs/ir/ir_json.h"
#include "libs/passes/gather/gather.h"
#include "libs/passes/lower/lower.h"

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-gather", "gather",
                 "Gather along space loops in vectorized-stage IR (or a spec or earlier IR, "
                 "lowered first): F.gather(A, v, GatherStrategy::Up or ::Down) makes the PEs "
                 "along v pass the values F reads from A's channel to one exit PE over FIFOs. "
                 "The gathered stage (JSON).");
  tool.add_spec_options();
  tool.add_lowering_options();
  bool report = false;
  tool.app()
      .add_flag("--report", report,
                "Also print on standard error each gather (F, A, v, strategy, unrolled or "
                "vectorized), the FIFOs made with their depths and why, and what the exit PE "
                "writes")
      ->capture_default_str();
  return tool.run(argc, argv, [&] {
    t2s::Program in = tool.read_input_program_or_spec(
        [](t2s::Stage s) {
          return static_cast<int>(s) <= static_cast<int>(t2s::Stage::kVectorized);
        },
        "parsed, merged, stt or vectorized");
    t2s::GatherReport gather_report;
    t2s::LowerHooks reports;
    reports.gather_report = &gather_report;
    t2s::Program out = t2s::lower_to(in, t2s::Stage::kGathered, tool.lowering_hooks(reports));
    if (report) std::cerr << t2s::gather_report_text(gather_report);
    tool.write_output(t2s::write_program(out));
  });
}
