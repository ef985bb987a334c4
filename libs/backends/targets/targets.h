// The table of t2s-emit's targets: adding a backend is one row in targets.cc (and its library in
// BUILD); t2s-emit's --target choices and help text come from this table.
#pragma once

#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {

// What t2s-emit's flags ask of a target beyond the IR.
struct EmitOptions {
  bool checked = false;  // --checked (cpp): keep every run-time check of the emulation
};

struct EmitTarget {
  const char* name;         // the --target value
  const char* description;  // one phrase for --help
  std::string (*emit)(const Program& lowered, const EmitOptions& options);
  // The host program that goes with the code (--host), or null when the target has none.
  std::string (*emit_host)(const Program& lowered);
};

// Every target, in the order --help lists them.
const std::vector<EmitTarget>& emit_targets();
// The target called `name`, or null.
const EmitTarget* find_emit_target(const std::string& name);

}  // namespace t2s
