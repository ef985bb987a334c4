#include "libs/exec/compare.h"

#include <cmath>
#include <cstring>

#include "libs/runtime/array.h"

namespace t2s {

namespace {

bool is_nan_at(const NdArray& a, int64_t i) {
  if (!a.type.is_float()) return false;
  const uint8_t* p = &a.data[static_cast<size_t>(i) * a.element_size()];
  if (a.type.bits == 32) {
    float f;
    std::memcpy(&f, p, sizeof f);
    return std::isnan(f);
  }
  double d;
  std::memcpy(&d, p, sizeof d);
  return std::isnan(d);
}

bool same_element(const NdArray& e, const NdArray& a, int64_t i) {
  const size_t size = e.element_size();
  const uint8_t* p = &e.data[static_cast<size_t>(i) * size];
  const uint8_t* q = &a.data[static_cast<size_t>(i) * size];
  // numpy may hold bools as any non-zero byte; compare their truth values.
  if (e.type.is_bool()) return (*p != 0) == (*q != 0);
  if (std::memcmp(p, q, size) == 0) return true;
  return is_nan_at(e, i) && is_nan_at(a, i);
}

std::vector<int64_t> index_of(const std::vector<int64_t>& shape, int64_t linear) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
  return index;
}

void check_consistent(const NdArray& a, const char* which) {
  if (!is_npy_element_type(a.type))
    throw NpyError(std::string("the ") + which + " array has unsupported type " + a.type.name());
  if (static_cast<int64_t>(a.data.size()) !=
      a.num_elements() * static_cast<int64_t>(a.element_size()))
    throw NpyError(std::string("the ") + which + " array's data does not match its shape " +
                   format_index(a.shape));
}

}  // namespace

std::string format_index(const std::vector<int64_t>& index) { return t2s_rt::format_index(index); }

std::optional<Mismatch> compare_arrays(const NdArray& expected, const NdArray& actual) {
  if (expected.type != actual.type)
    throw NpyError("the arrays differ in type: expected " + expected.type.name() + ", actual " +
                   actual.type.name());
  if (expected.shape != actual.shape)
    throw NpyError("the arrays differ in shape: expected " + format_index(expected.shape) +
                   ", actual " + format_index(actual.shape));
  check_consistent(expected, "expected");
  check_consistent(actual, "actual");
  std::optional<Mismatch> result;
  const int64_t n = expected.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    if (same_element(expected, actual, i)) continue;
    if (!result) {
      result = Mismatch{index_of(expected.shape, i), format_element(expected, i),
                        format_element(actual, i), 0};
    }
    ++result->count;
  }
  return result;
}

std::string format_element(const NdArray& a, int64_t linear_index) {
  const uint8_t* p = &a.data.at(static_cast<size_t>(linear_index) * a.element_size());
  // The runtime's rules (generated programs print with them): every valid scalar type is one of
  // its dtypes, named as Type names it (a vector type prints its first lane, as it always has).
  const t2s_rt::DtypeInfo info = t2s_rt::dtype_info(a.type.element_of().name());
  if (!info.kind) throw NpyError("format_element: element type " + a.type.name() + " is invalid");
  return t2s_rt::format_value(info, p);
}

}  // namespace t2s
