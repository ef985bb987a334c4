// NumPy .npy files: reading (format versions 1.0, 2.0, 3.0) and writing (version 1.0), to hold
// the inputs and outputs of a program's run as dense N-d arrays.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "libs/ir/type.h"

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
constexpr int64_t kMaxNpyDataBytes = int64_t{1} << 40;
constexpr size_t kMaxNpyDimensions = 64;

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
// .npy data, while NdArray keeps Fortran order.
template <typename Visit>
void for_each_element_row_major(const std::vector<int64_t>& shape, Visit visit) {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  if (count == 0) return;
  const size_t rank = shape.size();
  std::vector<int64_t> fortran_stride(rank);
  int64_t stride = 1;
  for (size_t d = 0; d < rank; ++d) {
    fortran_stride[d] = stride;
    stride *= shape[d];
  }
  std::vector<int64_t> index(rank, 0);
  int64_t fortran_position = 0;
  for (int64_t row_major_position = 0; row_major_position < count; ++row_major_position) {
    visit(row_major_position, fortran_position);
    // Odometer step: bump the last index, carrying into earlier ones.
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d]) {
        fortran_position += fortran_stride[d];
        break;
      }
      fortran_position -= (shape[d] - 1) * fortran_stride[d];
      index[d] = 0;
    }
  }
}

}  // namespace t2s
