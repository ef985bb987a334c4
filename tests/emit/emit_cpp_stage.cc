// emit_cpp_stage IR.json [-o OUT.cpp]: the cpp target of exactly the given stage (t2s-emit
// lowers every program to the gathered stage first; the emulation tests need the merged and stt
// stages as they are). A test tool, not a user tool.
#include <string>

#include "libs/backends/cpp/cpp.h"
#include "libs/cli/tool.h"
#include "libs/ir/ir_json.h"

int main(int argc, char** argv) {
  t2s::Tool tool("emit_cpp_stage", "emit",
                 "Emit the cpp emulation of IR of any stage from merged on, without lowering it.");
  return tool.run(argc, argv, [&] {
    t2s::Program program = tool.read_input_program([](t2s::Stage) { return true; }, "");
    tool.write_output(t2s::emit_cpp(program));
  });
}
