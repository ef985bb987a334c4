// Scalar (and vector) element types, spelled as in Halide: Int(8..64), UInt(1..64), Float(32|64).
#pragma once

#include <optional>
#include <string>

namespace t2s {

// Room for seed 002's vector and tensor types: a vectorized value is a base type with lanes per
// vectorized dimension (float32x16 for one, float32x4x8 for two). Today only one level exists
// (`lanes`); a tensor type will hold the lanes of each dimension, innermost first, where `lanes`
// is now, and everything that compares types (==), prints them (name(), spec_name()) or refuses
// vectors (the backends' lanes != 1 checks, the verifier's type rules) goes through this struct,
// so that is the one place the change lands.
struct Type {
  enum Code { kInt, kUInt, kFloat, kUnknown };
  Code code = kUnknown;
  int bits = 0;
  int lanes = 1;

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
  Type with_lanes(int l) const { return {code, bits, l}; }

  // IR spelling: "int32", "uint8", "float32", "bool", and "float32x4" for vectors.
  std::string name() const;
  static std::optional<Type> from_name(const std::string& name);
  // Spec spelling: "Int(32)", "Float(32, 4)", "Bool()".
  std::string spec_name() const;
  // Whether bits/lanes form a type this language has (LANGUAGE.md section 3).
  bool valid() const;

  bool operator==(const Type& o) const {
    return code == o.code && bits == o.bits && lanes == o.lanes;
  }
  bool operator!=(const Type& o) const { return !(*this == o); }
};

}  // namespace t2s
