#include "libs/exec/npy_files.h"

#include <cstdint>
#include <utility>

#include "libs/runtime/npy.h"

namespace t2s {

size_t NdArray::element_size() const {
  return type.is_bool() ? 1 : static_cast<size_t>(type.bits) / 8;
}

int64_t NdArray::num_elements() const { return t2s_rt::num_elements(shape); }

int64_t NdArray::linear_index(const std::vector<int64_t>& index) const {
  int64_t position = 0;
  for (size_t d = shape.size(); d-- > 0;) position = position * shape[d] + index[d];
  return position;
}

bool is_npy_element_type(Type type) {
  if (type.lanes != 1) return false;
  if (type.is_bool()) return true;
  if (type.is_int() || type.is_uint()) {
    return type.bits == 8 || type.bits == 16 || type.bits == 32 || type.bits == 64;
  }
  if (type.is_float()) return type.bits == 32 || type.bits == 64;
  return false;
}

int64_t checked_data_bytes(const std::vector<int64_t>& shape, size_t element_size,
                           const std::string& prefix) {
  std::string error;
  int64_t bytes = t2s_rt::data_bytes(shape, element_size, prefix, &error);
  if (bytes < 0) throw NpyError(error);
  return bytes;
}

NdArray read_npy(const std::string& bytes, const std::string& display_name) {
  try {
    t2s_rt::Array a = t2s_rt::parse_npy(bytes, display_name);
    NdArray array;
    array.type = *Type::from_name(a.dtype);  // parse_npy gives only the dtypes Type names
    array.shape = std::move(a.shape);
    array.data = std::move(a.data);
    return array;
  } catch (const t2s_rt::NpyError& e) {
    throw NpyError(e.message);
  }
}

std::string write_npy(const NdArray& a) {
  if (!is_npy_element_type(a.type)) {
    throw NpyError("write_npy: element type " + a.type.name() + " has no .npy dtype");
  }
  try {
    return t2s_rt::encode_npy(a.type.name(), a.shape, a.data.data(), a.data.size());
  } catch (const t2s_rt::NpyError& e) {
    throw NpyError(e.message);
  }
}

}  // namespace t2s
