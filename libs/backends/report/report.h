// The `report` and `report-json` targets of t2s-emit: a performance model of a lowered design
// (docs/report.md has every formula). Per kernel: its PEs, lanes, operations per time step,
// time steps, register and channel storage, the PE-steps where a PE does useful work (exact,
// counted with isl through libs/poly); for the design: multiply-adds per cycle, DSP blocks and
// M20K blocks per device family, the bottleneck kernel, the utilisation of the PE array and the
// predicted throughput at a clock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libs/ir/program.h"
#include "libs/ir/saturating.h"

namespace t2s {

// The device families the estimates know (docs/report.md, "Device constants").
struct DeviceFamily {
  const char* flag;          // the --device value
  const char* name;          // "Arria 10"
  const char* largest_part;  // the part whose capacity the report compares with
  int64_t dsp_blocks;        // DSP blocks of that part
  int64_t m20k_blocks;       // M20K blocks of that part
  const char* board;         // the board whose DDR the memory bound uses
  double memory_gb_per_s;    // its peak DDR bandwidth (10^9 bytes a second)
};
const std::vector<DeviceFamily>& device_families();
const DeviceFamily* find_device_family(const std::string& flag);

constexpr double kDefaultFmaxMhz = 250;
struct ReportOptions {
  std::string device = "arria10";     // a DeviceFamily flag
  double fmax_mhz = kDefaultFmaxMhz;  // the clock the throughput is predicted at
};

// Operations of one time step of a kernel: every operation of its body, once per PE and lane
// that instantiates it (the circuit a step runs), whatever conditions guard it.
struct OpCounts {
  int64_t multiply_adds = 0;  // an add or subtract one of whose operands is a product
  int64_t adds = 0;           // other adds and subtracts of data
  int64_t muls = 0;           // products not fused into a multiply-add
  int64_t loads = 0;          // reads of inputs and buffers (a vector read is one load)
  int64_t stores = 0;         // writes of buffers and the output
  int64_t channel_reads = 0;
  int64_t channel_writes = 0;
  // Arithmetic operations, a multiply-add counting two.
  int64_t arithmetic() const {
    return saturating_add(saturating_add(saturating_mul(2, multiply_adds), adds), muls);
  }
};

struct KernelModel {
  std::string name;
  Place place = Place::kDevice;
  int64_t pes = 1;                // PEs: the product of the ranges of its unrolled loops
  std::string pe_loops;           // "iii 10 x jjj 8"; empty for one PE
  int64_t lanes = 1;              // the widest vector a PE computes
  int64_t steps = 0;              // time steps (docs/report.md, "Time steps")
  std::string step_loops;         // the loops whose iterations are the steps
  OpCounts ops;                   // per step
  bool float_arithmetic = false;  // whether every counted arithmetic operation is on floats
  int64_t register_bits = 0;      // shift registers and FIFO registers of all its PEs
  int64_t channel_bits = 0;       // the channels it writes: depth (at least 1) x lanes x bits
  int64_t local_bits = 0;         // realize storage inside the kernel
  // Its double buffers (buffer directives), in the order of its body: what a period reads from
  // each and the producer writes into it.
  std::vector<DoubleBuffer> double_buffers;
  // PE-steps where a PE does useful work; nullopt when they cannot be counted (`why`).
  std::optional<int64_t> useful_pe_steps;
  bool useful_is_upper_bound = false;  // a condition was not affine: both branches counted
  std::string why;
  double dsp_blocks = 0;
  std::string dsp_note;  // what the DSP estimate leaves out (float64 arithmetic)
  int64_t m20k_blocks = 0;
  // Bytes it reads from and writes to global memory in the whole run (device kernels; nullopt
  // for a host kernel or when an access's points cannot be counted).
  std::optional<int64_t> global_bytes;
};

struct DesignModel {
  std::string stage;
  DeviceFamily device;
  double fmax_mhz = 0;
  std::vector<KernelModel> kernels;
  std::vector<size_t> design;  // the kernels that form the design (the device kernels, if any)
  int64_t multiply_adds_per_cycle = 0;
  double dsp_blocks = 0;
  int64_t m20k_blocks = 0;
  int64_t cycles = 0;         // the most steps of a design kernel, or the memory's cycles
  int64_t kernel_cycles = 0;  // the most steps of a design kernel
  std::optional<size_t> bottleneck;
  // Global memory: the design kernels' bytes (nullopt when one is not counted), the bytes a
  // cycle the board's DDR gives at fmax, the cycles it needs to move them; memory_bound when
  // that is more than kernel_cycles (then cycles = memory_cycles).
  std::optional<int64_t> global_bytes;
  double memory_bytes_per_cycle = 0;
  int64_t memory_cycles = 0;
  bool memory_bound = false;
  std::optional<size_t> compute;         // the design kernel with the most arithmetic per step
  std::optional<double> utilisation;     // of the compute kernel's PEs over `cycles`
  std::optional<double> operations;      // useful arithmetic operations of the whole run
  std::optional<double> ops_per_second;  // at fmax
};

// Throws Diagnostic (emit-stage) for a parsed-stage program, and for an unknown device.
DesignModel model_design(const Program& program, const ReportOptions& options);
std::string report_text(const DesignModel& model);
std::string report_json(const DesignModel& model);

// The targets (default options).
std::string emit_report(const Program& program);
std::string emit_report_json(const Program& program);
// t2s-emit's `--target report|report-json` with its --device and --fmax.
std::string emit_report_target(const Program& program, bool json, const ReportOptions& options);

}  // namespace t2s
