// Scalar (and vector) element types, spelled as in Halide: Int(8..64), UInt(1..64), Float(32|64).
#pragma once

#include <array>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace t2s {

// A vectorized value (seed 002) is a base type with lanes: float32x16 for one vectorized loop,
// and a tensor, lanes per vectorized dimension, innermost first, for several: float32x4x8 is 8
// rows of 4 lanes. `lanes` is always the total (32), so elementwise code works on the flat lanes
// (lane (l0, l1) of float32x4x8 is flat lane l0 + 4 * l1); `outer` holds the lanes of the
// dimensions above the innermost one (0 where there is none). docs/ir-vectors.md.
struct Type {
  enum Code { kInt, kUInt, kFloat, kUnknown };
  Code code = kUnknown;
  int bits = 0;
  int lanes = 1;
  static constexpr int kMaxOuterDims = 3;
  std::array<int, kMaxOuterDims> outer{};

  static Type Int(int bits, int lanes = 1) { return {kInt, bits, lanes}; }
  static Type UInt(int bits, int lanes = 1) { return {kUInt, bits, lanes}; }
  static Type Float(int bits, int lanes = 1) { return {kFloat, bits, lanes}; }
  static Type Bool(int lanes = 1) { return {kUInt, 1, lanes}; }

  bool known() const { return code != kUnknown; }
  bool is_int() const { return code == kInt; }
  bool is_uint() const { return code == kUInt; }
  bool is_float() const { return code == kFloat; }
  bool is_bool() const { return code == kUInt && bits == 1; }
  // Integer or unsigned integer, not bool.
  bool is_integer() const { return (code == kInt || code == kUInt) && bits > 1; }
  Type element_of() const { return {code, bits, 1}; }
  // A flat vector (or the scalar, l = 1) of this element type.
  Type with_lanes(int l) const { return {code, bits, l}; }

  // Tensors. The shape lists the lanes of each dimension, innermost first: {} for a scalar, {16}
  // for a flat vector, {4, 8} for float32x4x8.
  bool is_tensor() const { return outer[0] != 0; }
  int dims() const;
  std::vector<int> shape() const;
  // Lanes of the innermost dimension (a row): all lanes for a flat vector.
  int row_lanes() const;
  // This element type with `shape` (innermost first; dimensions of 1 lane are dropped).
  Type with_shape(const std::vector<int>& shape) const;
  // This type's shape with scalar type `element` (a comparison of float32x4x8 is boolx4x8).
  Type with_element(Type element) const { return element.with_shape(shape()); }
  // Halide's nesting: the type of `n` values of this type, an outer dimension added (a ramp or
  // broadcast of a vector of type float32x4 by 8 is float32x4x8).
  Type with_outer(int n) const;
  bool same_shape(const Type& o) const { return lanes == o.lanes && outer == o.outer; }

  // IR spelling: "int32", "uint8", "float32", "bool", "float32x4" for vectors and "float32x4x8"
  // for tensors.
  std::string name() const;
  static std::optional<Type> from_name(const std::string& name);
  // Spec spelling: "Int(32)", "Float(32, 4)", "Bool()"; a tensor "Float(32, 4, 8)".
  std::string spec_name() const;
  // Whether bits/lanes form a type this language has (LANGUAGE.md section 3).
  bool valid() const;

  bool operator==(const Type& o) const {
    return code == o.code && bits == o.bits && lanes == o.lanes && outer == o.outer;
  }
  bool operator!=(const Type& o) const { return !(*this == o); }
};

// GoogleTest prints a Type by its IR name.
inline void PrintTo(const Type& t, std::ostream* os) { *os << t.name(); }

}  // namespace t2s
