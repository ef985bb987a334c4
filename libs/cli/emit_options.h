// t2s-emit's options of particular targets: --device and --fmax (report, report-json),
// --profile and --checked (cpp), and the code of a target with them; kept here so that the
// tool stays thin.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "libs/backends/cpp/cpp.h"
#include "libs/backends/report/report.h"
#include "libs/backends/targets/targets.h"

namespace t2s {

struct EmitTargetOptions {
  ReportOptions report;
  CppOptions cpp;
  CLI::Option* device = nullptr;
  CLI::Option* fmax = nullptr;
  CLI::Option* profile = nullptr;
  CLI::Option* checked = nullptr;
};

// Registers --device, --fmax, --profile and --checked on `app`.
void add_emit_target_options(CLI::App& app, EmitTargetOptions* options);
// Throws CLI::ValidationError (a usage error) for an option given with a target it does not
// concern.
void check_emit_target_options(const EmitTargetOptions& options, const std::string& target);
// The code of `target` for `program`, with the options that concern it.
std::string emit_with_options(const EmitTarget& target, const Program& program,
                              const EmitTargetOptions& options);

}  // namespace t2s
