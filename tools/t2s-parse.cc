// t2s-parse: a T2S spec (.t2s) to the `parsed` stage of the IR.
#include "libs/cli/tool.h"
#include "libs/frontend/frontend.h"
#include "libs/ir/ir_json.h"

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-parse", "parse",
                 "Preprocess, parse and type-check a T2S spec and write its parsed-stage IR "
                 "(JSON). Directives are recorded in program order, not applied.");
  t2s::FrontendOptions options;
  tool.app()
      .add_option("-D,--define", options.preprocess.defines,
                  "Define macro NAME (as 1) or NAME=VALUE before the spec, as cc -D does; "
                  "repeatable")
      ->allow_extra_args(false)
      ->type_name("NAME[=VALUE]");
  tool.app()
      .add_option("-I,--include-dir", options.preprocess.include_dirs,
                  "Search DIR for #include \"...\" files after the including file's directory; "
                  "repeatable")
      ->allow_extra_args(false)
      ->type_name("DIR");
  bool no_builtins = false;
  tool.app().add_flag("--no-t2s-macros", no_builtins,
                      "Do not predefine PLACE0 (Place::Host) and PLACE1 (Place::Device), the "
                      "macros of T2S's test utilities");
  return tool.run(argc, argv, [&] {
    options.t2s_builtin_macros = !no_builtins;
    tool.read_input_as_spec();
    t2s::Program program = t2s::parse_spec(tool.sources(), options);
    tool.write_output(t2s::write_program(program));
  });
}
