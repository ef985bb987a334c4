// t2s-parse: a T2S spec (.t2s) to the `parsed` stage of the IR.
#include "libs/cli/tool.h"
#include "libs/frontend/frontend.h"
#include "libs/ir/ir_json.h"

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-parse", "parse",
                 "Preprocess, parse and type-check a T2S spec and write its parsed-stage IR "
                 "(JSON). Directives are recorded in program order, not applied.");
  tool.add_frontend_options();
  return tool.run(argc, argv, [&] {
    tool.read_input_as_spec();
    t2s::Program program = t2s::parse_spec(tool.sources(), tool.frontend_options());
    tool.write_output(t2s::write_program(program));
  });
}
