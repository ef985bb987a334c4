// array.h: the runtime's arrays (dtype, shape, Fortran-order little-endian data), their sizes,
// and how an element is printed.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "libs/runtime/common.h"

namespace t2s_rt {

// ---------------------------------------------------------------------------------------------
// Arrays and element types

struct Array {
  std::string dtype;           // "int8".."int64", "uint8".."uint64", "float32", "float64", "bool"
  std::vector<int64_t> shape;  // one extent per dimension; empty for a 0-d array (1 element)
  std::vector<unsigned char> data;  // Fortran order, little endian
};

namespace detail {

// The largest array read, written or generated (t2s::kMaxNpyDataBytes, kMaxNpyDimensions).
constexpr int64_t kMaxDataBytes = int64_t{1} << 40;
constexpr size_t kMaxDimensions = 64;

struct DtypeInfo {
  char kind = 0;  // 'i', 'u', 'f', 'b'; 0 for an unknown name
  int bytes = 0;
};

inline DtypeInfo dtype_info(const std::string& dtype) {
  if (dtype == "bool") return {'b', 1};
  static const struct {
    const char* name;
    char kind;
    int bytes;
  } kTypes[] = {{"int8", 'i', 1},    {"int16", 'i', 2},  {"int32", 'i', 4},  {"int64", 'i', 8},
                {"uint8", 'u', 1},   {"uint16", 'u', 2}, {"uint32", 'u', 4}, {"uint64", 'u', 8},
                {"float32", 'f', 4}, {"float64", 'f', 8}};
  for (const auto& t : kTypes)
    if (dtype == t.name) return {t.kind, t.bytes};
  return {};
}

inline DtypeInfo checked_dtype(const std::string& dtype, const std::string& what) {
  DtypeInfo info = dtype_info(dtype);
  if (!info.kind) fail(what + ": unsupported element type '" + dtype + "'");
  return info;
}

// "(4, 0)"; "()" for no dimensions (t2s::format_index).
inline std::string format_index(const int64_t* index, size_t n) {
  std::string s = "(";
  for (size_t i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += std::to_string(index[i]);
  }
  return s + ")";
}
inline std::string format_index(const std::vector<int64_t>& index) {
  return format_index(index.data(), index.size());
}

// Python's repr of a shape tuple: "()", "(4,)", "(2, 3)".
inline std::string shape_repr(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t d = 0; d < shape.size(); ++d) out += (d ? ", " : "") + std::to_string(shape[d]);
  if (shape.size() == 1) out += ",";
  return out + ")";
}

// The data size of `shape` in bytes, checked as t2s::checked_data_bytes checks it; on error
// returns -1 and sets `error` (messages start with `prefix`).
inline int64_t data_bytes(const std::vector<int64_t>& shape, size_t element_size,
                          const std::string& prefix, std::string* error) {
  if (shape.size() > kMaxDimensions) {
    *error = prefix + "shape has " + std::to_string(shape.size()) + " dimensions, more than " +
             std::to_string(kMaxDimensions);
    return -1;
  }
  for (int64_t extent : shape) {
    if (extent < 0) {
      *error = prefix + "bad shape " + shape_repr(shape) + ": extent " + std::to_string(extent) +
               " is negative";
      return -1;
    }
  }
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  int64_t bytes = static_cast<int64_t>(element_size);
  for (int64_t extent : shape) {
    if (extent > kMaxDataBytes / bytes) {
      *error = prefix + "shape " + shape_repr(shape) + " is too large: over 2^40 bytes";
      return -1;
    }
    bytes *= extent;
  }
  return bytes;
}

// The product of the extents: 0 when one is 0 (checked first: the others may be any size, as
// in a .npy header's shape (0, 2^40, 2^40)), saturating at INT64_MAX.
inline int64_t num_elements(const std::vector<int64_t>& shape) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  int64_t n = 1;
  for (int64_t e : shape) n = e > 0 && n > INT64_MAX / e ? INT64_MAX : n * e;
  return n;
}

// Calls visit(row_major_position, fortran_position) for every element of an array of `shape`
// in row-major order (t2s::for_each_element_row_major).
template <typename Visit>
void for_each_element_row_major(const std::vector<int64_t>& shape, Visit visit) {
  int64_t count = num_elements(shape);
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

// The shortest decimal that reads back to the same value at the type's precision, always with
// '.' or an exponent (t2s::print_float_literal without float32's 'f').
inline std::string format_float(double value, bool is_float32) {
  char buffer[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (is_float32) {
      if (std::strtof(buffer, nullptr) == static_cast<float>(value)) break;
    } else if (std::strtod(buffer, nullptr) == value) {
      break;
    }
  }
  std::string text = buffer;
  size_t e = text.find('e');
  if (e != std::string::npos) {
    int exponent = std::atoi(text.c_str() + e + 1);
    int digits = 0;
    for (size_t i = 0; i < e; ++i) digits += text[i] >= '0' && text[i] <= '9';
    if (exponent >= -5 && exponent < 16) {
      std::snprintf(buffer, sizeof(buffer), "%.*f", std::max(0, digits - 1 - exponent), value);
      text = buffer;
    }
  }
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

}  // namespace detail

// A zeroed array. fail()s for an unknown dtype or an absurd shape.
inline Array make_array(const std::string& dtype, const std::vector<int64_t>& shape) {
  detail::DtypeInfo info = detail::checked_dtype(dtype, "make_array");
  std::string error;
  int64_t bytes =
      detail::data_bytes(shape, static_cast<size_t>(info.bytes), "make_array: ", &error);
  if (bytes < 0) fail(error);
  Array a;
  a.dtype = dtype;
  a.shape = shape;
  a.data.assign(static_cast<size_t>(bytes), 0);
  return a;
}

namespace detail {

// The element at `p` of type `info`, as format_element prints it.
inline std::string format_value(DtypeInfo info, const unsigned char* p) {
  if (info.kind == 'b') return *p ? "true" : "false";
  if (info.kind == 'f') {
    double v;
    if (info.bytes == 4) {
      float f;
      std::memcpy(&f, p, sizeof f);
      v = f;
    } else {
      std::memcpy(&v, p, sizeof v);
    }
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    return format_float(v, info.bytes == 4);
  }
  uint64_t bits = 0;
  std::memcpy(&bits, p, static_cast<size_t>(info.bytes));  // little endian: the low bytes
  if (info.kind == 'u') return std::to_string(bits);
  int shift = 64 - 8 * info.bytes;
  return std::to_string(static_cast<int64_t>(bits << shift) >> shift);
}

}  // namespace detail

// One element, as t2s::format_element prints it: integers in decimal, bools as true/false,
// floats as the shortest decimal that reads back exactly, nan, inf, -inf.
inline std::string format_element(const Array& a, int64_t linear_index) {
  detail::DtypeInfo info = detail::checked_dtype(a.dtype, "format_element");
  return detail::format_value(info, &a.data.at(static_cast<size_t>(linear_index) * info.bytes));
}

// The rules other layers call (libs/exec, libs/cli, the OpenCL executor): their public names.
using detail::data_bytes;
using detail::dtype_info;
using detail::DtypeInfo;
using detail::for_each_element_row_major;
using detail::format_float;
using detail::format_index;
using detail::format_value;
using detail::kMaxDataBytes;
using detail::kMaxDimensions;
using detail::num_elements;

}  // namespace t2s_rt
