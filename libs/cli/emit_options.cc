#include "libs/cli/emit_options.h"

#include <vector>

namespace t2s {

namespace {

bool is_report(const std::string& target) { return target == "report" || target == "report-json"; }

}  // namespace

void add_emit_target_options(CLI::App& app, EmitTargetOptions* options) {
  std::vector<std::string> devices;
  for (const DeviceFamily& d : device_families()) devices.push_back(d.flag);
  options->device =
      app.add_option("--device", options->report.device,
                     "With --target report or report-json: the device family of "
                     "the DSP and M20K estimates and of the board DDR bandwidth, arria10 (default) "
                     "or stratix10")
          ->check(CLI::IsMember(devices));
  options->fmax = app.add_option("--fmax", options->report.fmax_mhz,
                                 "With --target report or report-json: the clock in MHz the "
                                 "throughput is predicted at (default 250)")
                      ->type_name("MHZ")
                      ->check(CLI::Range(0.001, 1e6));
  options->profile = app.add_flag(
      "--profile", options->cpp.profile,
      "With --target cpp: the emulation counts each kernel's time steps and useful PE-steps "
      "while it runs and prints them at exit on stderr, as the report's utilisation lines "
      "(docs/report.md)");
  options->checked = app.add_flag(
      "--checked", options->cpp.checked,
      "With --target cpp: check every access at run time as t2s-run does (by default an access "
      "isl proves in bounds, and a read it proves to find a written value, is a plain array "
      "access; docs/emulation.md)");
}

void check_emit_target_options(const EmitTargetOptions& options, const std::string& target) {
  if ((options.device->count() || options.fmax->count()) && !is_report(target))
    throw CLI::ValidationError("--device/--fmax", "only valid with --target report or report-json");
  if (options.profile->count() && target != "cpp")
    throw CLI::ValidationError("--profile", "only valid with --target cpp");
  if (options.checked->count() && target != "cpp")
    throw CLI::ValidationError("--checked", "only valid with --target cpp");
}

std::string emit_with_options(const EmitTarget& target, const Program& program,
                              const EmitTargetOptions& options) {
  const std::string name = target.name;
  if (is_report(name)) return emit_report_target(program, name == "report-json", options.report);
  if (name == "cpp") return emit_cpp(program, options.cpp);
  return target.emit(program);
}

}  // namespace t2s
