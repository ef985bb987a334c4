// The IR verifier (LLVM's Verifier): one well-formedness check of a whole program, which every
// tool runs on the IR it reads and every pass test runs on what a pass produces, so that no
// later stage, backend or the interpreter meets a dangling name or a statement that cannot be
// executed. docs/ir.md ("Well-formedness") lists the rules.
#pragma once

#include <string>

#include "libs/ir/program.h"

namespace t2s {

// Throws Diagnostic when `program` is not well formed. The diagnostic is located in the IR
// document (`display_name`, with a JSON path such as `kernels[0].body[0]` in the message) and
// carries a note at the user's source location of the entity involved, when it has one. Rule
// ids: ir-duplicate, ir-unknown-func, ir-unknown-kernel, ir-stage, ir-pending-order, ir-output,
// ir-directive, ir-isolation, ir-unbound, ir-rebound, ir-storage, ir-input, ir-channel,
// ir-kernel-cycle, ir-register, ir-type.
void verify_program(const Program& program, const std::string& display_name);

}  // namespace t2s
