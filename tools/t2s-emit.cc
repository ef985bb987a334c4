// t2s-emit: code from IR of any lowered stage (merged on; a spec or parsed IR is lowered through
// every stage first) for one of the targets of libs/backends/targets.
#include <string>

#include "libs/backends/targets/targets.h"
#include "libs/cli/emit_options.h"
#include "libs/cli/tool.h"
#include "libs/passes/lower/lower.h"

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-emit", "emit",
                 "Generate code from IR of any stage from merged on, as it is (a .t2s spec or "
                 "parsed IR is first lowered through t2s-merge, t2s-stt, t2s-vec and "
                 "t2s-gather).");
  tool.add_spec_options();
  tool.add_lowering_options();
  std::string target_name, host;
  std::vector<std::string> names;
  std::string help = "What to generate: ";
  for (const t2s::EmitTarget& t : t2s::emit_targets()) {
    help += std::string(names.empty()                                    ? ""
                        : names.size() + 1 == t2s::emit_targets().size() ? " or "
                                                                         : ", ") +
            t.name + " (" + t.description + ")";
    names.push_back(t.name);
  }
  tool.app().add_option("--target", target_name, help)->required()->check(CLI::IsMember(names));
  tool.app()
      .add_option("--host", host,
                  "With --target opencl: also write the host program (C++17, standard OpenCL "
                  "API) that loads the compiled binary, runs the kernels and writes the output")
      ->type_name("FILE.cpp");
  t2s::EmitTargetOptions options;
  t2s::add_emit_target_options(tool.app(), &options);
  // Runs at the end of parsing: a wrong combination is a usage error (exit 2).
  tool.app().callback([&] {
    if (!host.empty() && !t2s::find_emit_target(target_name)->emit_host)
      throw CLI::ValidationError("--host", "only valid with --target opencl");
    t2s::check_emit_target_options(options, target_name);
  });
  return tool.run(argc, argv, [&] {
    t2s::Program program = tool.read_input_program_or_spec([](t2s::Stage) { return true; }, "");
    // IR of a lowered stage is emitted as it is; a spec or parsed IR goes through every stage
    // first, as the Unix pipe would.
    if (program.stage == t2s::Stage::kParsed)
      program = t2s::lower_to(program, t2s::Stage::kGathered, tool.lowering_hooks());
    const t2s::EmitTarget& target = *t2s::find_emit_target(target_name);
    const std::string code = t2s::emit_with_options(target, program, options);
    // Both files or neither.
    if (host.empty())
      tool.write_output(code);
    else
      tool.write_outputs({{tool.output_path(), code}, {host, target.emit_host(program)}});
  });
}
