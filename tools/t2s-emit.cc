// t2s-emit: code from IR of any lowered stage (merged on; a spec or parsed IR is lowered through
// every stage first) for one of the targets of libs/backends/targets.
#include <string>

#include "libs/backends/cpp/cpp.h"
#include "libs/backends/report/report.h"
#include "libs/backends/targets/targets.h"
#include "libs/cli/tool.h"
#include "libs/passes/lower/lower.h"

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-emit", "emit",
                 "Generate code from IR of any stage from merged on, as it is (a .t2s spec or "
                 "parsed IR is first lowered through t2s-merge, t2s-stt, t2s-vec and "
                 "t2s-gather).");
  tool.add_spec_options();
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
  t2s::ReportOptions report;
  std::vector<std::string> devices;
  for (const t2s::DeviceFamily& d : t2s::device_families()) devices.push_back(d.flag);
  CLI::Option* device =
      tool.app()
          .add_option("--device", report.device,
                      "With --target report or report-json: the device family of the DSP and "
                      "M20K estimates, arria10 (default) or stratix10")
          ->check(CLI::IsMember(devices));
  CLI::Option* fmax = tool.app()
                          .add_option("--fmax", report.fmax_mhz,
                                      "With --target report or report-json: the clock in MHz the "
                                      "throughput is predicted at (default 250)")
                          ->type_name("MHZ")
                          ->check(CLI::Range(0.001, 1e6));
  t2s::CppOptions cpp;
  CLI::Option* profile = tool.app().add_flag(
      "--profile", cpp.profile,
      "With --target cpp: the emulation counts each kernel's time steps and useful PE-steps "
      "while it runs and prints them at exit on stderr, as the report's utilisation lines "
      "(docs/report.md)");
  const auto is_report = [&] { return target_name == "report" || target_name == "report-json"; };
  // Runs at the end of parsing: a wrong combination is a usage error (exit 2).
  tool.app().callback([&] {
    if (!host.empty() && !t2s::find_emit_target(target_name)->emit_host)
      throw CLI::ValidationError("--host", "only valid with --target opencl");
    if ((device->count() || fmax->count()) && !is_report())
      throw CLI::ValidationError("--device/--fmax", "only valid with --target report or report-json");
    if (profile->count() && target_name != "cpp")
      throw CLI::ValidationError("--profile", "only valid with --target cpp");
  });
  return tool.run(argc, argv, [&] {
    t2s::Program program = tool.read_input_program_or_spec([](t2s::Stage) { return true; }, "");
    // IR of a lowered stage is emitted as it is; a spec or parsed IR goes through every stage
    // first, as the Unix pipe would.
    if (program.stage == t2s::Stage::kParsed)
      program = t2s::lower_to(program, t2s::Stage::kGathered);
    const t2s::EmitTarget& target = *t2s::find_emit_target(target_name);
    std::string code = is_report()       ? t2s::emit_report_target(program,
                                                                   target_name == "report-json", report)
                       : target_name == "cpp" ? t2s::emit_cpp(program, cpp)
                                              : target.emit(program);
    // Both files or neither.
    if (host.empty())
      tool.write_output(code);
    else
      tool.write_outputs({{tool.output_path(), code}, {host, target.emit_host(program)}});
  });
}
