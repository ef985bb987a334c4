// Reading and writing IR documents (JSON, docs/ir.md) with deterministic bytes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {

// The document for `program`: 2-space indent, fixed key order, trailing newline.
std::string write_program(const Program& program);

// Parses a document. `display_name` names it in diagnostics (a path or "<stdin>"). Throws
// Diagnostic (rule "ir") for malformed JSON, a missing or newer `t2s_ir`, an unknown stage, a
// missing field, or an expression that does not parse or type-check.
Program read_program(const std::string& text, const std::string& display_name);

// Name resolution for expressions inside a program: bare identifiers are Vars; calls go to the
// program's Funcs and inputs. Used by the IR reader and by passes that build expressions.
Expr resolve_in_program(const Expr& untyped, const Program& program);
// The same inside the bodies of `lets` (name and value type, innermost last), whose names stand
// for their values.
Expr resolve_in_program(const Expr& untyped, const Program& program,
                        const std::vector<std::pair<std::string, Type>>& lets);

}  // namespace t2s
