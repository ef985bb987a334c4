// NumPy .npy files: reading (format versions 1.0, 2.0, 3.0) and writing (version 1.0), to hold
// the inputs and outputs of a program's run as dense N-d arrays. The rules are the runtime's
// (libs/runtime/npy.h), which generated programs embed: both read and write alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "libs/ir/type.h"
#include "libs/runtime/array.h"

namespace t2s {

// A dense N-d array stored in Fortran order (first index fastest), the order in which Halide
// lays out a buffer: element (x0, x1, ...) is at linear position
// x0 + shape[0] * (x1 + shape[1] * (x2 + ...)).
struct NdArray {
  Type type;                   // scalar element type: Int/UInt 8..64, Float 32/64, Bool
  std::vector<int64_t> shape;  // one extent per dimension; empty for a 0-d array (1 element)
  std::vector<uint8_t> data;   // element_size() * num_elements() bytes, little-endian

  size_t element_size() const;  // bytes per element (bool = 1)
  int64_t num_elements() const;
  // Fortran-order position of `index`; the caller guarantees it is in bounds.
  int64_t linear_index(const std::vector<int64_t>& index) const;
};

class NpyError : public std::runtime_error {
 public:
  using runtime_error::runtime_error;
};

// Whether NdArray and .npy files support `type` as an element type (scalars only).
bool is_npy_element_type(Type type);

// The largest array read, written or filled: 2^40 bytes of data, and 64 dimensions (numpy 2's
// limit).
constexpr int64_t kMaxNpyDataBytes = t2s_rt::kMaxDataBytes;
constexpr size_t kMaxNpyDimensions = t2s_rt::kMaxDimensions;

// Checks `shape` (no negative extent, at most kMaxNpyDimensions dimensions, at most
// kMaxNpyDataBytes of data) and returns its data size in bytes. Messages start with
// `error_prefix`.
int64_t checked_data_bytes(const std::vector<int64_t>& shape, size_t element_size,
                           const std::string& error_prefix);

// Parses the bytes of a .npy file. Errors (NpyError) start with "display_name: ".
NdArray read_npy(const std::string& bytes, const std::string& display_name);

// The bytes of a .npy file holding `a`: version 1.0, fortran_order True, the header laid out
// byte for byte as numpy 1.24 lays it out. Throws NpyError if `a` is inconsistent.
std::string write_npy(const NdArray& a);

// Calls visit(row_major_position, fortran_position) for every element of an array of `shape`,
// in row-major order (last index fastest): the order of T2S's test utilities and of C-order
// .npy data, while NdArray keeps Fortran order. The runtime's, which generated programs embed.
using t2s_rt::for_each_element_row_major;

}  // namespace t2s
