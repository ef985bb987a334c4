// A stage that is not built yet but must exist in the pipeline: it checks its input stage,
// refuses the directive it would apply (never ignoring it), and otherwise passes the program
// through with only its stage changed.
#pragma once

#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {

// Throws Diagnostic (rule "stage") when `in` is not at stage `from`, and Diagnostic (rule
// "unsupported-directive", at the directive) at the first directive named in `directives`;
// otherwise returns `in` at stage `to`. `tool` names the tool in messages.
Program pass_through_stage(const Program& in, Stage from, Stage to, const std::string& tool,
                           const std::vector<std::string>& directives);

}  // namespace t2s
