#include "libs/exec/fill.h"

#include <cstring>

namespace t2s {

uint64_t fnv1a64(const std::string& bytes) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (char c : bytes) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 0x100000001B3ull;
  }
  return hash;
}

uint64_t splitmix64_next(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ull;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

namespace {

// Stores `value` as the element type's bytes. Integers keep their low bits: a two's-complement
// wrap, the same for signed and unsigned, like a C cast on every compiler we build with.
void store_integer(uint8_t* element, size_t element_size, uint64_t value) {
  for (size_t i = 0; i < element_size; ++i) element[i] = static_cast<uint8_t>(value >> (8 * i));
}

void store_float(uint8_t* element, Type type, double value) {
  if (type.bits == 32) {
    float narrowed = static_cast<float>(value);
    std::memcpy(element, &narrowed, sizeof narrowed);
  } else {
    std::memcpy(element, &value, sizeof value);
  }
}

}  // namespace

NdArray fill_array(Type type, const std::vector<int64_t>& shape, FillKind kind, uint64_t seed,
                   const std::string& input_name) {
  const std::string prefix = "input '" + input_name + "': ";
  if (!is_npy_element_type(type)) {
    throw NpyError(prefix + "cannot generate data of type " + type.name());
  }
  NdArray array;
  array.type = type;
  array.shape = shape;
  const size_t element_size = array.element_size();
  const int64_t data_bytes = checked_data_bytes(shape, element_size, prefix);
  array.data.assign(static_cast<size_t>(data_bytes), 0);

  uint64_t state = seed ^ fnv1a64(input_name);
  for_each_element_row_major(shape, [&](int64_t row_major, int64_t fortran) {
    uint8_t* element = &array.data[static_cast<size_t>(fortran) * element_size];
    if (kind == FillKind::kSequential) {
      if (type.is_float()) {
        // row_major < 2^40 is exact in double, so narrowing it to float rounds as (float)L does.
        store_float(element, type, static_cast<double>(row_major));
      } else if (type.is_bool()) {
        *element = row_major % 2 != 0;
      } else {
        store_integer(element, element_size, static_cast<uint64_t>(row_major));
      }
      return;
    }
    uint64_t r = splitmix64_next(state);
    if (type.is_float()) {
      // 24 random bits centred on 0 and scaled by 2^-23: exact in float32 and float64.
      int64_t centred = static_cast<int64_t>(r >> 40) - 8388608;
      store_float(element, type, static_cast<double>(centred) / 8388608.0);
    } else if (type.is_bool()) {
      *element = r & 1;
    } else if (type.is_int()) {
      store_integer(element, element_size,
                    static_cast<uint64_t>(static_cast<int64_t>(r % 64) - 32));
    } else {
      store_integer(element, element_size, r % 64);
    }
  });
  return array;
}

}  // namespace t2s
