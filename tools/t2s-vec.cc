// t2s-vec: the `stt` stage to the `vectorized` stage (libs/passes/vec). Vectorization is not
// built yet: programs without `vectorize` directives pass through; `vectorize` is refused.
#include "libs/cli/tool.h"
#include "libs/ir/ir_json.h"
#include "libs/passes/lower/lower.h"

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-vec", "vec",
                 "Vectorize stt-stage IR: the vectorized stage (JSON). Not built yet: a program "
                 "without vectorize directives passes through with its stage changed; a "
                 "vectorize directive is refused with a located error.");
  tool.add_spec_options();
  return tool.run(argc, argv, [&] {
    t2s::Program in =
        tool.read_input_program_or_spec([](t2s::Stage s) { return s == t2s::Stage::kStt; }, "stt");
    tool.write_output(t2s::write_program(t2s::lower_to(in, t2s::Stage::kVectorized)));
  });
}
