// t2s-merge: the `parsed` stage to the `merged` stage (seed 001, LANGUAGE.md sections 5 and 6).
//
// Checks the URE rules, then lowers every Func to loop nests: the UREs of a merge_ures group
// share their representative's loop nest, a Func that is not merged gets its own loop nest or
// is inlined, and the isolation directives split the program into kernels connected by
// channels. docs/ir.md ("The merged stage") describes the result.
#pragma once

#include "libs/ir/program.h"

namespace t2s {

// Throws Diagnostic (with the user's source location and a rule id) when the spec breaks a
// rule. `parsed` must be at stage parsed.
Program merge_pass(const Program& parsed);

// The parsed stage of a program of any later stage: lowered stages keep `funcs`, `directives`
// and `output` as the spec gave them, so merging the result again gives the merged reference.
Program as_parsed(const Program& lowered);

}  // namespace t2s
