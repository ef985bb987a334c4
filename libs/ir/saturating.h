// Saturating arithmetic on sizes and counts (non-negative int64 operands): INT64_MAX stands for
// "more than int64 can hold", so that a hostile extent, depth or loop size never makes a
// product wrap (undefined behaviour) and a caller can refuse it by that value.
#pragma once

#include <cstdint>

namespace t2s {

inline int64_t saturating_add(int64_t a, int64_t b) {
  return a > INT64_MAX - b ? INT64_MAX : a + b;
}

inline int64_t saturating_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > INT64_MAX / b ? INT64_MAX : a * b;
}

}  // namespace t2s
