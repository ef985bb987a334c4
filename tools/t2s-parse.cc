// t2s-parse: a T2S spec (.t2s) to the `parsed` stage of the IR.
#include "libs/cli/spec_lines.h"
#include "libs/cli/tool.h"
#include "libs/frontend/frontend.h"
#include "libs/ir/ir_json.h"

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-parse", "parse",
                 "Preprocess, parse and type-check a T2S spec and write its parsed-stage IR "
                 "(JSON). Directives are recorded in program order, not applied.");
  tool.add_frontend_options();
  std::string spec_lines_out;
  tool.app()
      .add_option("--spec-lines-out", spec_lines_out,
                  "Also write the spec lines the IR's locations point at (JSON) to FILE, for "
                  "the later stages' --spec-lines: their diagnostics then show the spec's "
                  "lines without reading the spec")
      ->type_name("FILE");
  return tool.run(argc, argv, [&] {
    tool.read_input_as_spec();
    t2s::Program program = t2s::parse_spec(tool.sources(), tool.frontend_options());
    std::string ir = t2s::write_program(program);
    if (spec_lines_out.empty()) return tool.write_output(ir);
    tool.write_outputs({{tool.output_path(), ir},
                        {spec_lines_out, t2s::write_spec_lines(program, tool.sources())}});
  });
}
