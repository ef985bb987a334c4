#include "libs/backends/targets/targets.h"

#include "libs/backends/cpp/cpp.h"
#include "libs/backends/dot/dot.h"
#include "libs/backends/opencl/opencl.h"
#include "libs/backends/text/text.h"

namespace t2s {

const std::vector<EmitTarget>& emit_targets() {
  static const std::vector<EmitTarget> kTargets = {
      {"opencl",
       "one .cl file for Intel's FPGA OpenCL: a kernel per device kernel, channels, shift "
       "registers",
       [](const Program& p, const EmitOptions&) { return emit_opencl(p); }, emit_opencl_host},
      {"cpp",
       "a self-contained C++17 program that emulates the design with threads and bounded FIFOs "
       "and takes t2s-run's --input/--fill/--seed/-o options",
       [](const Program& p, const EmitOptions& o) { return emit_cpp(p, {o.checked}); }, nullptr},
      {"dot", "a Graphviz picture of the kernels, the PE array, channels and registers",
       [](const Program& p, const EmitOptions&) { return emit_dot(p); }, nullptr},
      {"text", "pseudo-code", [](const Program& p, const EmitOptions&) { return emit_text(p); },
       nullptr},
  };
  return kTargets;
}

const EmitTarget* find_emit_target(const std::string& name) {
  for (const EmitTarget& t : emit_targets()) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

}  // namespace t2s
