// The report's text and JSON forms (report.h); docs/report.md explains every line.
#include "libs/backends/report/report.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

namespace t2s {

namespace {

using Json = nlohmann::ordered_json;

// Fixed decimals, the same bytes on every machine.
std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string percent(double fraction) { return fixed(100 * fraction, 2) + "%"; }

// DSP blocks are whole; half blocks (18-bit products) round up.
int64_t whole_blocks(double dsp) { return static_cast<int64_t>(std::ceil(dsp - 1e-9)); }

std::string ops_text(const OpCounts& o) {
  return "multiply-adds " + std::to_string(o.multiply_adds) + ", adds " + std::to_string(o.adds) +
         ", muls " + std::to_string(o.muls) + ", loads " + std::to_string(o.loads) + ", stores " +
         std::to_string(o.stores) + ", channel reads " + std::to_string(o.channel_reads) +
         ", channel writes " + std::to_string(o.channel_writes);
}

// "1 PE", "80 PEs".
std::string count_of(int64_t n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

bool all_float(const DesignModel& d) {
  for (size_t i : d.design)
    if (d.kernels[i].ops.arithmetic() > 0 && !d.kernels[i].float_arithmetic) return false;
  return true;
}

std::string useful_text(const KernelModel& k) {
  if (!k.useful_pe_steps) return "not counted (" + k.why + ")";
  const int64_t all = k.pes * k.steps;
  std::string text = std::to_string(*k.useful_pe_steps) + " useful PE-steps of " +
                     count_of(k.pes, "PE") + " x " + count_of(k.steps, "step");
  if (all > 0) text += " = " + percent(static_cast<double>(*k.useful_pe_steps) / all);
  if (k.useful_is_upper_bound) text += " (at most: a condition is not affine)";
  return text;
}

}  // namespace

std::string report_text(const DesignModel& d) {
  std::ostringstream out;
  out << "// t2s performance model, stage " << d.stage << ", device " << d.device.name << ", fmax "
      << fixed(d.fmax_mhz, 1) << " MHz (docs/report.md)\n";
  for (const KernelModel& k : d.kernels) {
    out << "\nkernel " << k.name << " (" << (k.place == Place::kDevice ? "device" : "host")
        << "): " << k.pes << " PE" << (k.pes == 1 ? "" : "s")
        << (k.pe_loops.empty() ? "" : " (" + k.pe_loops + ")") << ", " << k.lanes << " lane"
        << (k.lanes == 1 ? "" : "s") << " per PE, " << k.steps << " time step"
        << (k.steps == 1 ? "" : "s") << (k.step_loops.empty() ? "" : " (" + k.step_loops + ")")
        << "\n";
    out << "  per step: " << ops_text(k.ops) << "\n";
    out << "  storage: registers " << k.register_bits << " bits, channels " << k.channel_bits
        << " bits" << (k.local_bits ? ", local " + std::to_string(k.local_bits) + " bits" : "")
        << "\n";
    for (const DoubleBuffer& b : k.double_buffers)
      out << "  double buffer of " << b.producer << " at " << b.loop << ": " << b.reads
          << " reads and " << b.writes << " writes a period (reads >= writes: the producer "
          << (b.reads == b.writes
                  ? "keeps pace"
                  : "idles " + std::to_string(b.reads - b.writes) + " cycles a period")
          << ")\n";
    out << "  utilisation: " << useful_text(k) << "\n";
    out << "  estimate: " << whole_blocks(k.dsp_blocks) << " DSP blocks, " << k.m20k_blocks
        << " M20K blocks" << (k.dsp_note.empty() ? "" : " (" + k.dsp_note + ")") << "\n";
    if (k.place == Place::kDevice) {
      out << "  global memory: ";
      if (k.global_bytes)
        out << *k.global_bytes << " bytes"
            << (k.steps > 0
                    ? " (" + fixed(static_cast<double>(*k.global_bytes) / k.steps, 2) + " a step)"
                    : std::string())
            << "\n";
      else
        out << "not counted\n";
    }
  }
  out << "\ndesign (";
  for (size_t n = 0; n < d.design.size(); ++n)
    out << (n ? ", " : "") << d.kernels[d.design[n]].name;
  out << "):\n";
  out << "  multiply-adds per cycle: " << d.multiply_adds_per_cycle << "\n";
  out << "  DSP blocks: " << whole_blocks(d.dsp_blocks) << " of " << d.device.dsp_blocks << " ("
      << d.device.largest_part << "), M20K blocks: " << d.m20k_blocks << " of "
      << d.device.m20k_blocks << "\n";
  if (d.global_bytes) {
    out << "  global memory: " << *d.global_bytes << " bytes in " << d.kernel_cycles
        << (d.kernel_cycles == 1 ? " cycle" : " cycles") << " = "
        << fixed(d.kernel_cycles ? static_cast<double>(*d.global_bytes) / d.kernel_cycles : 0, 2)
        << " bytes per cycle; the board's DDR gives " << fixed(d.memory_bytes_per_cycle, 2)
        << " at " << fixed(d.fmax_mhz, 1) << " MHz (" << d.device.board << ", "
        << fixed(d.device.memory_gb_per_s, 1) << " GB/s)\n";
  } else {
    out << "  global memory: not counted\n";
  }
  if (d.memory_bound) {
    out << "  bottleneck: global memory, " << d.memory_cycles
        << " cycles to move the design's bytes, more than its kernels' " << d.kernel_cycles
        << " steps\n";
  } else if (d.bottleneck) {
    const KernelModel& b = d.kernels[*d.bottleneck];
    out << "  bottleneck: " << b.name << ", " << b.steps << (b.steps == 1 ? " step" : " steps")
        << ", the most of any kernel (";
    bool first = true;
    for (size_t i : d.design) {
      if (i == *d.bottleneck) continue;
      out << (first ? "" : ", ") << d.kernels[i].name << " " << d.kernels[i].steps;
      first = false;
    }
    out << (first ? "no other kernel" : "") << "): at one step per cycle the design takes "
        << d.cycles << (d.cycles == 1 ? " cycle\n" : " cycles\n");
  }
  if (d.compute) {
    const KernelModel& c = d.kernels[*d.compute];
    out << "  PE array utilisation: " << c.name << ": ";
    if (d.utilisation)
      out << *c.useful_pe_steps << " useful PE-steps of " << count_of(c.pes, "PE") << " x "
          << count_of(d.cycles, "cycle") << " = " << percent(*d.utilisation) << "\n";
    else
      out << "not counted (" << c.why << ")\n";
  }
  if (d.ops_per_second) {
    const bool flops = all_float(d);
    out << "  throughput at " << fixed(d.fmax_mhz, 1)
        << " MHz: " << fixed(*d.ops_per_second / 1e9, 2) << (flops ? " GFLOPS" : " GOPS") << " ("
        << fixed(*d.operations, 0) << " arithmetic operations in " << d.cycles
        << (d.cycles == 1 ? " cycle" : " cycles") << ", a multiply-add counting 2)\n";
  } else {
    out << "  throughput: not predicted (no kernel with arithmetic, or a count is missing)\n";
  }
  return out.str();
}

std::string report_json(const DesignModel& d) {
  Json j;
  j["t2s_report"] = 1;
  j["stage"] = d.stage;
  j["device"] = d.device.flag;
  j["fmax_mhz"] = d.fmax_mhz;
  Json kernels = Json::array();
  for (const KernelModel& k : d.kernels) {
    Json kj;
    kj["name"] = k.name;
    kj["place"] = k.place == Place::kDevice ? "device" : "host";
    kj["pes"] = k.pes;
    kj["pe_loops"] = k.pe_loops;
    kj["lanes"] = k.lanes;
    kj["steps"] = k.steps;
    kj["step_loops"] = k.step_loops;
    kj["ops_per_step"] = {{"multiply_adds", k.ops.multiply_adds},
                          {"adds", k.ops.adds},
                          {"muls", k.ops.muls},
                          {"loads", k.ops.loads},
                          {"stores", k.ops.stores},
                          {"channel_reads", k.ops.channel_reads},
                          {"channel_writes", k.ops.channel_writes}};
    kj["register_bits"] = k.register_bits;
    kj["channel_bits"] = k.channel_bits;
    kj["local_bits"] = k.local_bits;
    if (!k.double_buffers.empty()) {
      Json buffers = Json::array();
      for (const DoubleBuffer& b : k.double_buffers)
        buffers.push_back(
            {{"producer", b.producer}, {"loop", b.loop}, {"reads", b.reads}, {"writes", b.writes}});
      kj["double_buffers"] = buffers;
    }
    if (k.useful_pe_steps)
      kj["useful_pe_steps"] = *k.useful_pe_steps;
    else
      kj["useful_pe_steps"] = nullptr;
    kj["useful_is_upper_bound"] = k.useful_is_upper_bound;
    if (!k.why.empty()) kj["why_not_counted"] = k.why;
    kj["dsp_blocks"] = whole_blocks(k.dsp_blocks);
    kj["m20k_blocks"] = k.m20k_blocks;
    if (k.place == Place::kDevice)
      kj["global_bytes"] = k.global_bytes ? Json(*k.global_bytes) : Json(nullptr);
    kernels.push_back(kj);
  }
  j["kernels"] = kernels;
  Json dj;
  Json names = Json::array();
  for (size_t i : d.design) names.push_back(d.kernels[i].name);
  dj["kernels"] = names;
  dj["multiply_adds_per_cycle"] = d.multiply_adds_per_cycle;
  dj["dsp_blocks"] = whole_blocks(d.dsp_blocks);
  dj["dsp_blocks_available"] = d.device.dsp_blocks;
  dj["m20k_blocks"] = d.m20k_blocks;
  dj["m20k_blocks_available"] = d.device.m20k_blocks;
  dj["cycles"] = d.cycles;
  dj["kernel_cycles"] = d.kernel_cycles;
  dj["global_bytes"] = d.global_bytes ? Json(*d.global_bytes) : Json(nullptr);
  dj["memory_bytes_per_cycle"] = d.memory_bytes_per_cycle;
  dj["memory_cycles"] = d.memory_cycles;
  dj["bottleneck"] = d.memory_bound ? Json("global memory")
                     : d.bottleneck ? Json(d.kernels[*d.bottleneck].name)
                                    : Json(nullptr);
  dj["compute_kernel"] = d.compute ? Json(d.kernels[*d.compute].name) : Json(nullptr);
  dj["utilisation"] = d.utilisation ? Json(*d.utilisation) : Json(nullptr);
  dj["operations"] = d.operations ? Json(*d.operations) : Json(nullptr);
  dj["ops_per_second"] = d.ops_per_second ? Json(*d.ops_per_second) : Json(nullptr);
  dj["floating_point"] = all_float(d);
  j["design"] = dj;
  return j.dump(2) + "\n";
}

std::string emit_report_target(const Program& program, bool json, const ReportOptions& options) {
  const DesignModel model = model_design(program, options);
  return json ? report_json(model) : report_text(model);
}

std::string emit_report(const Program& program) {
  return emit_report_target(program, false, ReportOptions{});
}

std::string emit_report_json(const Program& program) {
  return emit_report_target(program, true, ReportOptions{});
}

}  // namespace t2s
