#include "libs/backends/targets/targets.h"

#include "libs/backends/cpp/cpp.h"
#include "libs/backends/dot/dot.h"
#include "libs/backends/opencl/opencl.h"
#include "libs/backends/report/report.h"
#include "libs/backends/text/text.h"

namespace t2s {

const std::vector<EmitTarget>& emit_targets() {
  static const std::vector<EmitTarget> kTargets = {
      {"opencl",
       "one .cl file for Intel's FPGA OpenCL: a kernel per device kernel, channels, shift "
       "registers",
       emit_opencl, emit_opencl_host},
      {"cpp",
       "a self-contained C++17 program that emulates the design with threads and bounded FIFOs "
       "and takes t2s-run's --input/--fill/--seed/-o options",
       emit_cpp, nullptr},
      {"dot", "a Graphviz picture of the kernels, the PE array, channels and registers", emit_dot,
       nullptr},
      {"text", "pseudo-code", emit_text, nullptr},
      {"report",
       "the performance model (docs/report.md): per kernel PEs, lanes, operations per step, time "
       "steps, storage, utilisation; DSP and M20K estimates, bottleneck, throughput at --fmax",
       emit_report, nullptr},
      {"report-json", "the report as JSON", emit_report_json, nullptr},
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
