// Internal to libs/poly: the nodes behind Aff and Cond, which the expression builders
// (expressions.cc), the isl builders and questions (poly.cc) and the enumeration of small sets
// (small_set_points.h) share. poly.h is the interface.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libs/poly/poly.h"

namespace t2s::poly {

struct Aff::Node {
  enum Kind { kConst, kDim, kLinear, kNeg, kAdd, kSub, kMul, kFloorDiv, kMod } kind;
  int64_t value = 0;              // kConst; the divisor of kFloorDiv and kMod; kLinear's constant
  std::string name;               // kDim
  std::vector<Aff> ops;           // operands
  std::vector<int64_t> coeff;     // kLinear
  std::vector<std::string> dims;  // kLinear
};

struct Cond::Node {
  enum Kind { kBool, kEQ, kNE, kLT, kLE, kGT, kGE, kRange, kNot, kAnd, kOr } kind;
  bool value = false;     // kBool
  std::vector<Aff> affs;  // comparison operands; kRange: lo, x, hi
  std::vector<Cond> ops;  // kNot, kAnd, kOr
};

// Sets of at most this many points are enumerated instead of asking isl (poly.cc;
// set_max_enumerated_points in poly_testing.h changes it).
int64_t enumeration_limit();

}  // namespace t2s::poly
