// Input data for a run when the user gives no file for an input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libs/exec/npy_files.h"
#include "libs/ir/type.h"
#include "libs/runtime/fill.h"

namespace t2s {

// How fill_array generates values. Both visit the elements in row-major order (last index
// fastest, as T2S's test utilities do) and store them in the NdArray in Fortran order.
//
// kSequential: the element at index (x0, ..., x{n-1}) of an array of extents (E0, ..., E{n-1})
//   gets its row-major linear index L = ((x0 * E1 + x1) * E2 + x2) ..., converted as a C cast
//   (or a Halide cast) converts: integers wrap modulo 2^bits (two's complement), bool is
//   L % 2 != 0, float32 is (float)L and float64 (double)L.
//
// kRandom: one SplitMix64 stream per input, started at
//   state = seed XOR fnv1a64(input_name)
// (FNV-1a 64-bit over the name's bytes: h = 0xCBF29CE484222325; for each byte b:
// h = (h XOR b) * 0x100000001B3). Each element, in row-major order, takes the next output r:
//   state += 0x9E3779B97F4A7C15; z = state;
//   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
//   r = z ^ (z >> 31)
// and becomes
//   signed integers (int8 too): (int64)(r % 64) - 32, in [-32, 31]
//   unsigned integers: r % 64, in [0, 63]
//   bool: r & 1
//   float32, float64: ((int64)(r >> 40) - 8388608) / 8388608.0, a multiple of 2^-23 in
//     [-1, 1), exact in float32.
// Small values keep integer sums and products of typical test sizes from overflowing.
enum class FillKind { kSequential, kRandom };

// A new array of `type` (a scalar type is_npy_element_type accepts) and `shape`. Throws NpyError
// naming `input_name` for an unsupported type or an absurd shape.
NdArray fill_array(Type type, const std::vector<int64_t>& shape, FillKind kind, uint64_t seed,
                   const std::string& input_name);

// The pieces of kRandom, for tests and for anyone reproducing the data elsewhere (the runtime's,
// libs/runtime/fill.h, which generates the same data in generated programs).
using t2s_rt::fnv1a64;
using t2s_rt::splitmix64_next;

}  // namespace t2s
