// t2s-emit: code from IR of any lowered stage (merged on; a spec or parsed IR is lowered through
// every stage first): Intel FPGA OpenCL and its host program, a self-checking C++ emulation, a
// Graphviz picture of the array, or pseudo-code (libs/backends).
#include <string>

#include "libs/backends/cpp/cpp.h"
#include "libs/backends/dot/dot.h"
#include "libs/backends/opencl/opencl.h"
#include "libs/backends/text/text.h"
#include "libs/cli/tool.h"
#include "libs/ir/ir_json.h"
#include "libs/passes/gather/gather.h"
#include "libs/passes/merge/merge.h"
#include "libs/passes/stt/stt.h"
#include "libs/passes/vec/vec.h"

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-emit", "emit",
                 "Generate code from IR of any stage from merged on, as it is (a .t2s spec or "
                 "parsed IR is first lowered through t2s-merge, t2s-stt, t2s-vec and "
                 "t2s-gather).");
  tool.add_spec_options();
  std::string target;
  std::string host;
  tool.app()
      .add_option("--target", target,
                  "What to generate: opencl (one .cl file for Intel's FPGA OpenCL: a kernel per "
                  "device kernel, channels, shift registers), cpp (a self-contained C++17 "
                  "program that emulates the design with threads and bounded FIFOs and takes "
                  "t2s-run's --input/--fill/--seed/-o options), dot (a Graphviz picture of the "
                  "kernels, the PE array, channels and registers) or text (pseudo-code)")
      ->required()
      ->check(CLI::IsMember({"opencl", "cpp", "dot", "text"}));
  tool.app()
      .add_option("--host", host,
                  "With --target opencl: also write the host program (C++17, standard OpenCL "
                  "API) that loads the compiled binary, runs the kernels and writes the output")
      ->type_name("FILE.cpp");
  // Runs at the end of parsing: a wrong combination is a usage error (exit 2).
  tool.app().callback([&] {
    if (!host.empty() && target != "opencl") {
      throw CLI::ValidationError("--host", "only valid with --target opencl");
    }
  });
  return tool.run(argc, argv, [&] {
    t2s::Program program = tool.read_input_program_or_spec([](t2s::Stage) { return true; }, "");
    // IR of a lowered stage is emitted as it is (the stt stage of a design whose vectorize
    // directive t2s-vec cannot apply yet still runs as an emulation). A spec or parsed IR goes
    // through every stage first, as the Unix pipe would.
    if (program.stage == t2s::Stage::kParsed) {
      program = t2s::gather_program(
          t2s::vectorize_program(t2s::space_time_transform(t2s::merge_program(program))));
    }
    std::string code;
    std::string host_code;
    if (target == "opencl") {
      code = t2s::emit_opencl(program);
      if (!host.empty()) host_code = t2s::emit_opencl_host(program);
    } else if (target == "cpp") {
      code = t2s::emit_cpp(program);
    } else if (target == "dot") {
      code = t2s::emit_dot(program);
    } else {
      code = t2s::emit_text(program);
    }
    if (!host.empty()) tool.write_output_to(host, host_code);
    tool.write_output(code);
  });
}
