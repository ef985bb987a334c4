// emit_opencl_driver: a small test driver for the opencl target until t2s-emit calls it.
//
//   emit_opencl_driver device|host [--all-device] < IR.json > OUT
//
// Reads an IR document (stage merged or later) on stdin and writes the .cl file (`device`) or the
// host program (`host`) to stdout. --all-device is a test aid: it places every kernel on the
// device first, so that code of host-placed kernels (FIFO and shift registers, realizes) goes
// through the OpenCL syntax check too. Exit status: 0 success, 1 a diagnostic (printed as
// `<stdin>:LOC: error: MESSAGE [rule]`), 2 wrong usage, 3 an internal error.
#include <iostream>
#include <iterator>
#include <string>

#include "libs/backends/opencl/opencl.h"
#include "libs/ir/ir_json.h"

int main(int argc, char** argv) {
  const std::string usage = "usage: emit_opencl_driver device|host [--all-device] < IR.json";
  std::string mode;
  bool all_device = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--all-device") {
      all_device = true;
    } else if ((arg == "device" || arg == "host") && mode.empty()) {
      mode = arg;
    } else {
      std::cerr << usage << "\n";
      return 2;
    }
  }
  if (mode.empty()) {
    std::cerr << usage << "\n";
    return 2;
  }
  const std::string text((std::istreambuf_iterator<char>(std::cin)),
                         std::istreambuf_iterator<char>());
  try {
    t2s::Program program = t2s::read_program(text, "<stdin>");
    if (all_device) {
      for (t2s::Kernel& k : program.kernels) k.place = t2s::Place::kDevice;
    }
    std::cout << (mode == "device" ? t2s::emit_opencl(program) : t2s::emit_opencl_host(program));
    std::cout.flush();
    return std::cout ? 0 : 1;
  } catch (const t2s::Diagnostic& d) {
    std::cerr << "<stdin>" << (d.loc().valid() ? ":" + d.loc().str() : std::string())
              << ": error: " << d.message() << " [" << d.rule() << "]\n";
    return 1;
  } catch (const t2s::InternalError& e) {
    std::cerr << "internal error (emit opencl): " << e.what() << "\n";
    return 3;
  }
}
