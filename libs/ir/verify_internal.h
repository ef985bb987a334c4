// Pieces of the IR verifier (libs/ir/verify.cc) that live in files of their own: the
// diagnostic every check throws, and the checks of directives (verify_directives.cc).
#pragma once

#include <cstddef>
#include <string>

#include "libs/ir/diagnostic.h"
#include "libs/ir/program.h"

namespace t2s::verify_internal {

// Throws the verifier's diagnostic: located in the IR document `file`, `where` (a JSON path)
// before the message, a note at the entity's source location when it has one.
[[noreturn]] void fail(const std::string& file, const std::string& where,
                       const std::string& message, const std::string& rule,
                       const SourceLoc& entity);

// ir-directive: directive `i` has the argument count of its normal form.
void directive_shape(const Program& program, size_t i, const std::string& file);
// ir-unknown-func: the arguments of directive `i` that name Funcs name Funcs of the program.
void directive_funcs(const Program& program, size_t i, const std::string& file);
// ir-isolation: each isolated Func is defined once, and no chain of isolations is a cycle.
void isolations(const Program& program, const std::string& file);
// Whether an isolation directive defines `func`.
bool defined_by_isolation(const Program& program, const std::string& func);

}  // namespace t2s::verify_internal
