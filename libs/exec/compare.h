// Comparing and printing array elements, for checking a run's output against an expected one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libs/exec/npy_files.h"

namespace t2s {

struct Mismatch {
  std::vector<int64_t> index;    // the first differing element, in Fortran order
  std::string expected, actual;  // that element, printed by format_element
  int64_t count = 0;             // how many elements differ
};

// Bit-exact comparison: integers and bools by value, floats by bit pattern (so -0.0 differs
// from 0.0) except that any NaN equals any NaN. nullopt when equal. Throws NpyError when the
// types or shapes differ (the message says which, with both values).
std::optional<Mismatch> compare_arrays(const NdArray& expected, const NdArray& actual);

// One element: integers in decimal, bools as true/false, floats as the shortest decimal that
// reads back exactly (always with '.' or an exponent, as IR float literals without their 'f'),
// and nan, inf, -inf.
std::string format_element(const NdArray& a, int64_t linear_index);

// "(4, 0)"; "()" for no dimensions.
std::string format_index(const std::vector<int64_t>& index);

}  // namespace t2s
