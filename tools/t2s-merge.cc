// t2s-merge: the `parsed` stage to the `merged` stage: URE checks, merge_ures into loop nests,
// isolation into device kernels connected by channels (libs/passes/merge).
#include "libs/cli/tool.h"
#include "libs/ir/ir_json.h"
#include "libs/passes/lower/lower.h"

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-merge", "merge",
                 "Check the URE rules and lower parsed-stage IR (or a .t2s spec) to loop nests: "
                 "the merged stage (JSON), the meaning every later stage is checked against.");
  tool.add_spec_options();
  tool.add_lowering_options();
  return tool.run(argc, argv, [&] {
    t2s::Program parsed = tool.read_input_program_or_spec(
        [](t2s::Stage s) { return s == t2s::Stage::kParsed; }, "parsed");
    tool.write_output(
        t2s::write_program(t2s::lower_to(parsed, t2s::Stage::kMerged, tool.lowering_hooks())));
  });
}
