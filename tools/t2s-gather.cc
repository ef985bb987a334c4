// t2s-gather: the `vectorized` stage to the `gathered` stage (libs/passes/gather). Gathering is not
// built yet: programs without `gather` directives pass through; `gather` is refused.
#include "libs/cli/tool.h"
#include "libs/ir/ir_json.h"
#include "libs/passes/lower/lower.h"

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-gather", "gather",
                 "Gather along space loops in vectorized-stage IR: the gathered stage (JSON). Not "
                 "built yet: a program without gather directives passes through with its stage "
                 "changed; a gather directive is refused with a located error.");
  tool.add_spec_options();
  return tool.run(argc, argv, [&] {
    t2s::Program in = tool.read_input_program_or_spec(
        [](t2s::Stage s) { return s == t2s::Stage::kVectorized; }, "vectorized");
    tool.write_output(t2s::write_program(t2s::lower_to(in, t2s::Stage::kGathered)));
  });
}
