// The canonical printer: one spelling per expression (LANGUAGE.md section 4 syntax), with the
// fewest parentheses that re-parse to the same tree. Golden files and the IR use it.
#pragma once

#include <string>

#include "libs/ir/expr.h"

namespace t2s {

std::string print_expr(const Expr& e);
// Canonical spelling of a literal of type `t` (e.g. "3", "3u", "2.5f", "true", "cast(Int(8), 3)").
std::string print_int_literal(int64_t value, Type t);
std::string print_float_literal(double value, Type t);

}  // namespace t2s
