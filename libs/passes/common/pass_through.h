// A stage that passes a program through: it checks its input stage, refuses the directives its
// stage would apply and does not implement yet (never ignoring them), and otherwise passes the
// program through with only its stage changed.
#pragma once

#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {

// Throws Diagnostic (rule "stage") when `in` is not at stage `from`, and Diagnostic (rule
// "unsupported-directive", at the directive) at the first directive whose declaration says
// `stage` applies it and is not implemented (libs/ir/directive_decl.h); otherwise returns `in` at
// stage `to`. `tool` names the tool in messages.
Program pass_through_stage(const Program& in, Stage from, Stage to, const std::string& tool,
                           DirectiveStage stage);

}  // namespace t2s
