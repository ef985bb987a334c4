#include "libs/exec/input_fill.h"

namespace t2s {

NdArray fill_array(Type type, const std::vector<int64_t>& shape, FillKind kind, uint64_t seed,
                   const std::string& input_name) {
  const std::string prefix = "input '" + input_name + "': ";
  if (!is_npy_element_type(type)) {
    throw NpyError(prefix + "cannot generate data of type " + type.name());
  }
  NdArray array;
  array.type = type;
  array.shape = shape;
  const int64_t data_bytes = checked_data_bytes(shape, array.element_size(), prefix);
  array.data.assign(static_cast<size_t>(data_bytes), 0);
  t2s_rt::fill_data(t2s_rt::dtype_info(type.name()), shape, kind == FillKind::kRandom, seed,
                    input_name, array.data);
  return array;
}

}  // namespace t2s
