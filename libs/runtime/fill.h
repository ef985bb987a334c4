// fill.h: input data generated as t2s-run's --fill generates it (libs/exec/input_fill.h documents
// the formulas).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "libs/runtime/array.h"
#include "libs/runtime/common.h"

namespace t2s_rt {

// ---------------------------------------------------------------------------------------------
// Input data (t2s::fill_array)

inline uint64_t fnv1a64(const std::string& bytes) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001B3ull;
  }
  return hash;
}

inline uint64_t splitmix64_next(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ull;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

namespace detail {

// Fills `data` (zeroed, sized for `shape` of elements of `info`) with the data of input `name`:
// sequential (the row-major linear index, converted as a C cast converts) or random (SplitMix64
// from seed XOR FNV-1a(name)); the formulas are in libs/exec/input_fill.h.
inline void fill_data(DtypeInfo info, const std::vector<int64_t>& shape, bool random, uint64_t seed,
                      const std::string& name, std::vector<unsigned char>& data) {
  const size_t size = static_cast<size_t>(info.bytes);
  // Integers keep their low bits: a two's-complement wrap, like a C cast.
  auto store_integer = [&](unsigned char* element, uint64_t value) {
    for (size_t i = 0; i < size; ++i) element[i] = static_cast<unsigned char>(value >> (8 * i));
  };
  auto store_float = [&](unsigned char* element, double value) {
    if (size == 4) {
      float narrowed = static_cast<float>(value);
      std::memcpy(element, &narrowed, sizeof narrowed);
    } else {
      std::memcpy(element, &value, sizeof value);
    }
  };
  uint64_t state = seed ^ fnv1a64(name);
  detail::for_each_element_row_major(shape, [&](int64_t row_major, int64_t fortran) {
    unsigned char* element = &data[static_cast<size_t>(fortran) * size];
    if (!random) {
      if (info.kind == 'f') {
        store_float(element, static_cast<double>(row_major));
      } else if (info.kind == 'b') {
        *element = row_major % 2 != 0;
      } else {
        store_integer(element, static_cast<uint64_t>(row_major));
      }
      return;
    }
    uint64_t r = splitmix64_next(state);
    if (info.kind == 'f') {
      int64_t centred = static_cast<int64_t>(r >> 40) - 8388608;
      store_float(element, static_cast<double>(centred) / 8388608.0);
    } else if (info.kind == 'b') {
      *element = r & 1;
    } else if (info.kind == 'i') {
      store_integer(element, static_cast<uint64_t>(static_cast<int64_t>(r % 64) - 32));
    } else {
      store_integer(element, r % 64);
    }
  });
}

}  // namespace detail

// Data for input `name` as t2s-run's --fill generates it (detail::fill_data).
inline Array fill_array(const std::string& dtype, const std::vector<int64_t>& shape, bool random,
                        uint64_t seed, const std::string& name) {
  const std::string prefix = "input '" + name + "': ";
  detail::DtypeInfo info = detail::dtype_info(dtype);
  if (!info.kind) fail(prefix + "cannot generate data of type " + dtype);
  std::string error;
  const int64_t bytes = detail::data_bytes(shape, static_cast<size_t>(info.bytes), prefix, &error);
  if (bytes < 0) fail(error);
  Array a;
  a.dtype = dtype;
  a.shape = shape;
  a.data.assign(static_cast<size_t>(bytes), 0);
  detail::fill_data(info, shape, random, seed, name, a.data);
  return a;
}

// The rules other layers call (libs/exec, libs/cli, the OpenCL executor): their public names.
using detail::fill_data;

}  // namespace t2s_rt
