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

// An integer set { [vars] : constraints } in isl text: `vars` are isl names, `constraints`
// isl conditions, all of which hold (joined by "and").
struct SetText {
  std::vector<std::string> vars;
  std::vector<std::string> constraints;
};

// Whether the set has no integer point.
bool is_empty(const SetText& set);
// An integer point of the set (one value per var), or nullopt when it is empty.
std::optional<std::vector<int64_t>> sample(const SetText& set);
// The value of `expr` (isl text over the set's vars) when it is the same at every point of the
// non-empty set; nullopt when it takes several values or the set is empty.
std::optional<int64_t> single_value(const SetText& set, const std::string& expr);

// Questions about points grouped by `keys` (isl texts over the set's vars: a PE's coordinates)
// and ordered by `time` (isl text; distinct points with equal keys must have distinct times).
// The successor of a point is the next point of the same key in time; isl computes it as a
// piecewise quasi-affine function (lexmin), never by enumerating points.
//
// The time from a point to its successor when it is the same for every point that has one: 0
// when no key has two points; nullopt when it varies.
std::optional<int64_t> uniform_step(const SetText& set, const std::vector<std::string>& keys,
                                    const std::string& time);
// The largest number of points of one key whose times all lie within `span` of each other (so
// 0 for an empty set). Found by composing the successor function: n points fit when some n-th
// successor is at most `span` away. Returns `limit` + 1 when the answer exceeds `limit`.
int64_t max_points_within(const SetText& set, const std::vector<std::string>& keys,
                          const std::string& time, int64_t span, int64_t limit);

}  // namespace t2s::poly
