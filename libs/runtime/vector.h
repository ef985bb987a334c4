// vector.h: vector values in generated code (docs/ir.md, "Vector values"): a value of N lanes
// is a Vec, and the messages about values held in channels and FIFO registers count lanes, as
// the reference interpreter counts them.
#pragma once

#include <cstdint>
#include <tuple>

namespace t2s_rt {

// N lanes of T; lane l is lane[l]. An aggregate: generated code builds one with
// `Vec<float, 4>{{a, b, c, d}}`, whose lanes C++ evaluates left to right, and the helpers of
// vector operations take several operands as one std::tuple built from a braced list, likewise
// evaluated left to right.
template <typename T, int N>
struct Vec {
  T lane[N];
};

// The number of scalar values in a T: N for a Vec<U, N>, else 1.
template <typename T>
struct LanesOf {
  static constexpr int64_t value = 1;
};
template <typename T, int N>
struct LanesOf<Vec<T, N>> {
  static constexpr int64_t value = N;
};

}  // namespace t2s_rt
