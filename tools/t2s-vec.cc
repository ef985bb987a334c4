// t2s-vec: the `stt` stage to the `vectorized` stage: vectorized loops become vector operations
// (seed 002, libs/passes/vec).
#include <iostream>

#include "libs/cli/tool.h"
#include "libs/ir/ir_json.h"
#include "libs/passes/lower/lower.h"
#include "libs/passes/vec/vec.h"

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-vec", "vec",
                 "Vectorize stt-stage IR (or a spec or earlier IR, lowered first): each loop that "
                 "vectorize names becomes one operation on N lanes, with vector registers and "
                 "channels; what depends on an earlier lane of the same step is computed lane by "
                 "lane. The vectorized stage (JSON).");
  tool.add_spec_options();
  tool.add_lowering_options();
  bool report = false;
  tool.app()
      .add_flag("--report", report,
                "Also print on standard error each vectorized loop, its lanes, what was computed "
                "lane by lane or serialised and why, and how channel lanes were matched")
      ->capture_default_str();
  return tool.run(argc, argv, [&] {
    t2s::Program in = tool.read_input_program_or_spec(
        [](t2s::Stage s) { return static_cast<int>(s) <= static_cast<int>(t2s::Stage::kStt); },
        "parsed, merged or stt");
    t2s::VecReport vec_report;
    t2s::LowerHooks reports;
    reports.vec_report = &vec_report;
    t2s::Program out = t2s::lower_to(in, t2s::Stage::kVectorized, tool.lowering_hooks(reports));
    if (report) std::cerr << t2s::vec_report_text(vec_report);
    tool.write_output(t2s::write_program(out));
  });
}
