// Linear forms of integer index expressions, for the URE checks and the passes that read
// dependence distances from Func arguments.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "libs/ir/expr.h"

namespace t2s {

// Adds `scale` times the linear form sum(coeff * var) + constant of `e` to *coeffs and
// *constant, for an integer expression built from Vars, literals, +, -, unary - and
// multiplication by a literal; false for anything else.
bool linear_form(const Expr& e, std::map<std::string, int64_t>* coeffs, int64_t* constant,
                 int64_t scale = 1);

// `v + c` in any arrangement that simplifies to it (`kkk + KKK - 1` after macro expansion):
// sets *var and *offset.
bool simple_arg(const Expr& e, std::string* var, int64_t* offset);

}  // namespace t2s
