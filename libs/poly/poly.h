// A small layer over isl (through isl's own C++ bindings, <isl/cpp.h>): IR expressions as isl
// text, and the polyhedral questions the passes ask. Passes never call isl directly.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "libs/ir/expr.h"

namespace t2s::poly {

// isl names for the loop variables of an expression: isl has keywords (and, or, mod, floor,
// min, max, ...) that a spec may use as Var names, so every variable gets a neutral isl name.
using IslNames = std::map<std::string, std::string>;

// The isl text of an integer expression over the variables in `names`, or nullopt when it is
// not quasi-affine (products of variables, division by a non-constant, calls, ...). Division
// and modulo by a positive constant become isl's floor and mod, which are Halide's semantics.
std::optional<std::string> affine_text(const Expr& e, const IslNames& names);
// The isl text of a boolean condition built from comparisons of quasi-affine expressions with
// &&, || and !; nullopt otherwise.
std::optional<std::string> condition_text(const Expr& e, const IslNames& names);

struct Interval {
  int64_t min = 0, max = 0;
};

// The smallest and largest value of each of `exprs` (isl texts) over the integer points of
// { [vars] : constraints } (`vars` are isl names, `constraints` isl conditions joined by
// "and"). nullopt when the set is empty; an entry is nullopt when that value is unbounded.
std::optional<std::vector<std::optional<Interval>>> value_ranges(
    const std::vector<std::string>& vars, const std::vector<std::string>& constraints,
    const std::vector<std::string>& exprs);

}  // namespace t2s::poly
