// storage.h: the storage of the emulation (inputs, Func storage, shift and FIFO registers),
// every access checked as the reference interpreter checks it.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <type_traits>
#include <vector>

#include "libs/runtime/array.h"
#include "libs/runtime/common.h"
#include "libs/runtime/vector.h"

namespace t2s_rt {

// ---------------------------------------------------------------------------------------------
// Storage of the emulation. Every access is checked as the reference interpreter checks it, with
// its messages: an out-of-bounds index or a read of a value never written fails instead of
// touching memory it should not.

namespace detail {

// How a T is held: bools as bytes (std::vector<bool> packs bits).
template <typename T>
using Cell = std::conditional_t<std::is_same<T, bool>::value, unsigned char, T>;

template <typename T>
const char* dtype_name() {
  if (std::is_same<T, bool>::value) return "bool";
  if (std::is_same<T, float>::value) return "float32";
  if (std::is_same<T, double>::value) return "float64";
  if (std::is_same<T, int8_t>::value) return "int8";
  if (std::is_same<T, int16_t>::value) return "int16";
  if (std::is_same<T, int32_t>::value) return "int32";
  if (std::is_same<T, int64_t>::value) return "int64";
  if (std::is_same<T, uint8_t>::value) return "uint8";
  if (std::is_same<T, uint16_t>::value) return "uint16";
  if (std::is_same<T, uint32_t>::value) return "uint32";
  if (std::is_same<T, uint64_t>::value) return "uint64";
  return "?";
}

// The largest storage in elements (as the interpreter's).
constexpr int64_t kMaxStorageElements = int64_t{1} << 32;
// The largest PE array of a register.
constexpr int64_t kMaxPes = int64_t{1} << 24;

}  // namespace detail

// A program input: an Array of the input's type, read with bounds checks.
template <typename T>
class InputArray {
 public:
  void init(const std::string& name, const Array& a) {
    if (a.dtype != detail::dtype_name<T>())
      fail("input '" + name + "' holds " + a.dtype + ", not " + detail::dtype_name<T>());
    name_ = name;
    shape_ = a.shape;
    strides_.assign(shape_.size(), 1);
    for (size_t d = 1; d < shape_.size(); ++d) strides_[d] = strides_[d - 1] * shape_[d - 1];
    const int64_t n = detail::num_elements(shape_);
    data_.resize(static_cast<size_t>(n));
    if (static_cast<int64_t>(a.data.size()) != n * static_cast<int64_t>(sizeof(detail::Cell<T>)))
      fail("the array for input '" + name + "' is inconsistent");
    if (n) std::memcpy(data_.data(), a.data.data(), a.data.size());
    if (std::is_same<T, bool>::value)
      for (auto& b : data_) b = b != 0;
  }

  template <size_t N>
  T read(const int64_t (&index)[N]) const {
    return read(index, N);
  }
  T read() const { return read(nullptr, 0); }
  T read(const int64_t* index, size_t n) const {
    int64_t linear = 0, stride = 1;
    for (size_t d = 0; d < n; ++d) {
      if (d >= shape_.size() || index[d] < 0 || index[d] >= shape_[d])
        fail("read of input '" + name_ + "' at " + detail::format_index(index, n) +
             " is outside its extents " + detail::format_index(shape_));
      linear += index[d] * stride;
      stride *= shape_[d];
    }
    return static_cast<T>(data_[static_cast<size_t>(linear)]);
  }
  // The element at an index t2s-emit proved inside the input's extents (the array may be larger
  // than them: it is indexed with its own shape, as read() does).
  template <size_t N>
  T get(const int64_t (&index)[N]) const {
    int64_t linear = 0;
    for (size_t d = 0; d < N; ++d) linear += index[d] * strides_[d];
    return static_cast<T>(data_[static_cast<size_t>(linear)]);
  }
  T get() const { return static_cast<T>(data_[0]); }

 private:
  std::string name_;
  std::vector<int64_t> shape_, strides_;
  std::vector<detail::Cell<T>> data_;
};

// The storage of one Func (a program buffer or a realize): bounds [min, min + extent) per
// dimension, Fortran order, with a flag per element that says whether it was computed.
template <typename T>
class FuncStorage {
 public:
  FuncStorage() = default;
  FuncStorage(const std::string& name, const std::vector<int64_t>& mins,
              const std::vector<int64_t>& extents) {
    allocate(name, mins, extents);
  }
  // Folded storage (Halide's storage folding; t2s-emit decides it, libs/backends/cpp/
  // emu_proofs.cc): `folds` gives per dimension 0 (all its elements stored) or a power of two F
  // (F elements, index - min taken modulo F). Only accesses t2s-emit proved in bounds and, for
  // reads, written use such storage (offset(), get(), store()).
  FuncStorage(const std::string& name, const std::vector<int64_t>& mins,
              const std::vector<int64_t>& extents, const std::vector<int64_t>& folds) {
    if (folds.size() != extents.size()) fail("storage of '" + name + "' has bad folds");
    std::vector<int64_t> stored = extents;
    for (size_t d = 0; d < folds.size(); ++d)
      if (folds[d] > 0 && folds[d] < extents[d]) stored[d] = folds[d];
    allocate(name, mins, stored);
    extents_ = extents;
    for (size_t d = 0; d < folds.size(); ++d)
      if (stored[d] != extents[d]) masks_[d] = stored[d] - 1;
  }
  FuncStorage(const FuncStorage&) = delete;
  FuncStorage& operator=(const FuncStorage&) = delete;

  void allocate(const std::string& name, const std::vector<int64_t>& mins,
                const std::vector<int64_t>& extents) {
    name_ = name;
    mins_ = mins;
    extents_ = extents;
    strides_.assign(mins.size(), 0);
    masks_.assign(mins.size(), ~int64_t{0});
    if (mins.size() != extents.size()) fail("storage of '" + name + "' has bad bounds");
    int64_t size = 1;
    for (size_t d = 0; d < extents.size(); ++d) {
      if (extents[d] < 0)
        fail("storage of '" + name + "' has negative extent " + std::to_string(extents[d]));
      strides_[d] = size;
      if (extents[d] != 0 && size > detail::kMaxStorageElements / extents[d]) size = -1;
      if (size < 0) break;
      size *= extents[d];
    }
    if (size < 0 || size > detail::kMaxStorageElements)
      fail("storage of '" + name + "' with bounds " + bounds_text() +
           " is too large for the emulation (more than 2^32 elements)");
    try {
      data_.assign(static_cast<size_t>(size), detail::Cell<T>());
      written_.assign(static_cast<size_t>(size), 0);
    } catch (const std::bad_alloc&) {
      fail("not enough memory for the storage of '" + name + "' (" + std::to_string(size) +
           " elements)");
    }
  }

  template <size_t N>
  T read(const int64_t (&index)[N]) const {
    return read(index, N);
  }
  T read() const { return read(nullptr, 0); }
  T read(const int64_t* index, size_t n) const {
    const int64_t at = position(index, n, "read");
    if (!written_[static_cast<size_t>(at)])
      fail("read of '" + name_ + "' at " + detail::format_index(index, n) +
           " before it was computed");
    return static_cast<T>(data_[static_cast<size_t>(at)]);
  }

  // The position of the element at `index` for a write (checked), then store() the value: the
  // index is evaluated before the value, as in the interpreter.
  template <size_t N>
  int64_t locate_write(const int64_t (&index)[N]) const {
    return position(index, N, "write");
  }
  int64_t locate_write() const { return position(nullptr, 0, "write"); }
  void store(int64_t at, T value) {
    data_[static_cast<size_t>(at)] = static_cast<detail::Cell<T>>(value);
    written_[static_cast<size_t>(at)] = 1;
  }

  // Unchecked access, for indices t2s-emit proved inside the bounds: the position of `index`,
  // a read there that still checks that the element was computed, and one that does not.
  template <size_t N>
  int64_t offset(const int64_t (&index)[N]) const {
    int64_t linear = 0;
    for (size_t d = 0; d < N; ++d) linear += ((index[d] - mins_[d]) & masks_[d]) * strides_[d];
    return linear;
  }
  int64_t offset() const { return 0; }
  T read_at(int64_t at) const {
    if (!written_[static_cast<size_t>(at)]) fail_unwritten(at);
    return static_cast<T>(data_[static_cast<size_t>(at)]);
  }
  T get(int64_t at) const { return static_cast<T>(data_[static_cast<size_t>(at)]); }
  // A store that leaves the written flag: for a realize whose every read t2s-emit proved to find
  // its element written (the flags are never consulted).
  void put(int64_t at, T value) {
    data_[static_cast<size_t>(at)] = static_cast<detail::Cell<T>>(value);
  }

  // The realized output as an Array of `dtype` (mins must be 0); fails when some element was
  // never computed, as the interpreter does.
  Array to_output() const {
    for (int64_t m : mins_)
      if (m != 0) fail("the output buffer '" + name_ + "' does not start at 0 in every dimension");
    int64_t unwritten = 0, first = -1;
    for (size_t i = 0; i < written_.size(); ++i) {
      if (written_[i]) continue;
      if (first < 0) first = static_cast<int64_t>(i);
      ++unwritten;
    }
    if (unwritten > 0) {
      std::vector<int64_t> index;
      for (int64_t extent : extents_) {
        index.push_back(first % extent);
        first /= extent;
      }
      fail(std::to_string(unwritten) + " of the " + std::to_string(written_.size()) +
           " elements of output '" + name_ + "' were never computed; the first is at " +
           detail::format_index(index));
    }
    Array a = make_array(detail::dtype_name<T>(), extents_);
    if (!data_.empty()) std::memcpy(a.data.data(), data_.data(), a.data.size());
    return a;
  }

 private:
  std::string bounds_text() const {
    std::string s;
    for (size_t d = 0; d < mins_.size(); ++d) {
      if (d) s += " x ";
      s += "[" + std::to_string(mins_[d]) + ", " + std::to_string(mins_[d] + extents_[d]) + ")";
    }
    return s;
  }
  [[noreturn]] __attribute__((noinline, cold)) void fail_unwritten(int64_t at) const {
    std::vector<int64_t> index;
    for (size_t d = 0; d < mins_.size(); ++d) {
      const int64_t stored = masks_[d] >= 0 ? masks_[d] + 1 : extents_[d];
      index.push_back(mins_[d] + (stored ? at / strides_[d] % stored : 0));
    }
    fail("read of '" + name_ + "' at " + detail::format_index(index) + " before it was computed");
  }
  int64_t position(const int64_t* index, size_t n, const char* what) const {
    if (n != mins_.size())
      fail(std::string(what) + " of '" + name_ + "' with " + std::to_string(n) +
           " indices; its storage has " + std::to_string(mins_.size()) + " dimensions");
    int64_t linear = 0;
    for (size_t d = 0; d < n; ++d) {
      const int64_t offset = index[d] - mins_[d];
      if (offset < 0 || offset >= extents_[d])
        fail(std::string(what) + " of '" + name_ + "' at " + detail::format_index(index, n) +
             " is outside its bounds " + bounds_text());
      linear += (offset & masks_[d]) * strides_[d];
    }
    return linear;
  }

  std::string name_;
  // extents_: the bounds; a folded dimension stores masks_[d] + 1 elements (else the mask is
  // all ones).
  std::vector<int64_t> mins_, extents_, strides_, masks_;
  std::vector<detail::Cell<T>> data_;
  std::vector<unsigned char> written_;
};

namespace detail {

// The PE array of a register: checks a PE index and gives its linear number (Fortran order).
class PeArray {
 public:
  PeArray(const std::string& kind, const std::string& name, const std::vector<int64_t>& shape,
          int64_t depth)
      : kind_(kind), name_(name), shape_(shape), depth_(depth) {
    for (int64_t d : shape_) {
      if (d < 1 || pes_ > kMaxPes / d)
        fail(kind_ + " '" + name_ + "' has bad shape " + format_index(shape_));
      pes_ *= d;
    }
    if (depth_ < 1) fail(kind_ + " '" + name_ + "' has depth " + std::to_string(depth_));
  }
  int64_t pes() const { return pes_; }
  int64_t depth() const { return depth_; }
  const std::string& name() const { return name_; }
  const std::vector<int64_t>& shape() const { return shape_; }

  // The PE's linear number; with `slot`, index[n - 1] is a slot that must be below the depth.
  int64_t pe(const int64_t* index, size_t n, bool slot, const std::string& what) const {
    const size_t expected = shape_.size() + (slot ? 1 : 0);
    bool inside = n == expected;
    int64_t linear = 0, stride = 1;
    for (size_t d = 0; inside && d < shape_.size(); ++d) {
      if (index[d] < 0 || index[d] >= shape_[d]) inside = false;
      linear += index[d] * stride;
      stride *= shape_[d];
    }
    if (inside && slot && (index[n - 1] < 0 || index[n - 1] >= depth_)) inside = false;
    if (!inside)
      fail(what + " '" + name_ + "' at " + format_index(index, n) + " is outside its PE array " +
           format_index(shape_) + (slot ? " x " + std::to_string(depth_) + " slots" : ""));
    return linear;
  }
  std::string pe_text(int64_t pe) const {
    std::vector<int64_t> index;
    for (int64_t d : shape_) {
      index.push_back(pe % d);
      pe /= d;
    }
    return format_index(index);
  }

 private:
  std::string kind_, name_;
  std::vector<int64_t> shape_;
  int64_t depth_;
  int64_t pes_ = 1;
};

}  // namespace detail

// A shift register of `depth` slots per PE (docs/ir.md, "The stt stage"): fresh storage holds no
// value; shift() moves slot m - 1 to slot m for every m from the deepest down (slot 0 keeps its
// value); reading a slot no value has reached fails.
template <typename T>
class ShiftRegister {
 public:
  ShiftRegister(const std::string& name, const std::vector<int64_t>& shape, int64_t depth)
      : pes_("shift register", name, shape, depth) {
    if (depth > detail::kMaxStorageElements / pes_.pes())
      fail("storage of shift register '" + name + "' (" + std::to_string(pes_.pes()) + " PEs x " +
           std::to_string(depth) +
           " slots) is too large for the emulation (more than 2^32 elements)");
    const size_t size = static_cast<size_t>(pes_.pes() * depth);
    try {
      data_.assign(size, detail::Cell<T>());
      written_.assign(size, 0);
      head_.assign(static_cast<size_t>(pes_.pes()), 0);
    } catch (const std::bad_alloc&) {
      fail("not enough memory for the storage of register '" + name + "'");
    }
  }

  // `index`: the PE index, then the slot.
  template <size_t N>
  T read(const int64_t (&index)[N]) const {
    const int64_t pe = pes_.pe(index, N, true, "read of shift register");
    const int64_t slot = index[N - 1];
    const size_t at = position(pe, slot);
    if (!written_[at])
      fail("read of slot " + std::to_string(slot) + " of shift register '" + pes_.name() +
           "' of PE " + pes_.pe_text(pe) + " before any value reached it");
    return static_cast<T>(data_[at]);
  }

  // The position of a slot for a write (checked); then store() the value.
  template <size_t N>
  int64_t locate_write(const int64_t (&index)[N]) const {
    const int64_t pe = pes_.pe(index, N, true, "write of shift register");
    return static_cast<int64_t>(position(pe, index[N - 1]));
  }
  void store(int64_t at, T value) {
    data_[static_cast<size_t>(at)] = static_cast<detail::Cell<T>>(value);
    written_[static_cast<size_t>(at)] = 1;
  }
  // A store that leaves the written flag: for a register whose every read t2s-emit proved to
  // find its slot written (the flags are never consulted).
  void put(int64_t at, T value) {
    data_[static_cast<size_t>(at)] = static_cast<detail::Cell<T>>(value);
  }

  // Unchecked access, for a PE (its linear number) and slot t2s-emit proved inside the array:
  // the slot's position (the PE's number itself at depth 1, where shifts move nothing), a read
  // that still checks that a value reached the slot, one that does not (a value provably did),
  // and shift_pe() for a PE proved inside the array.
  int64_t at(int64_t pe, int64_t slot) const { return static_cast<int64_t>(position(pe, slot)); }
  T read_at(int64_t at) const {
    if (!written_[static_cast<size_t>(at)]) fail_unwritten(at);
    return static_cast<T>(data_[static_cast<size_t>(at)]);
  }
  T get(int64_t at) const { return static_cast<T>(data_[static_cast<size_t>(at)]); }

  template <size_t N>
  void shift(const int64_t (&index)[N]) {
    shift(index, N);
  }
  void shift() { shift(nullptr, 0); }
  void shift(const int64_t* index, size_t n) {
    shift_pe(pes_.pe(index, n, false, "shift of shift register"));
  }
  // Out of line, so that read_at() stays small enough to inline.
  [[noreturn]] __attribute__((noinline, cold)) void fail_unwritten(int64_t at) const {
    const int64_t depth = pes_.depth(), pe = at / depth;
    const int64_t slot = (at % depth - head_[static_cast<size_t>(pe)] + depth) % depth;
    fail("read of slot " + std::to_string(slot) + " of shift register '" + pes_.name() +
         "' of PE " + pes_.pe_text(pe) + " before any value reached it");
  }

  void shift_pe(int64_t pe) {
    const int64_t depth = pes_.depth();
    if (depth == 1) return;
    // The ring's head moves back one place onto the old deepest slot, which takes slot 0's
    // value (slot 0 keeps it).
    int64_t& head = head_[static_cast<size_t>(pe)];
    const size_t from = position(pe, 0);
    head = head == 0 ? depth - 1 : head - 1;
    const size_t to = position(pe, 0);
    data_[to] = data_[from];
    written_[to] = written_[from];
  }

 private:
  size_t position(int64_t pe, int64_t slot) const {
    const int64_t depth = pes_.depth();
    int64_t p = head_[static_cast<size_t>(pe)] + slot;
    if (p >= depth) p -= depth;
    return static_cast<size_t>(pe * depth + p);
  }

  detail::PeArray pes_;
  std::vector<detail::Cell<T>> data_;
  std::vector<unsigned char> written_;
  std::vector<int64_t> head_;
};

// A FIFO register: per PE a queue of at most `depth` values. Pushing to a full one or popping
// from an empty one fails (a kernel owns its registers: these are errors, never waits).
template <typename T>
class FifoRegister {
 public:
  FifoRegister(const std::string& name, const std::vector<int64_t>& shape, int64_t depth)
      : pes_("FIFO", name, shape, depth) {
    try {
      queues_.resize(static_cast<size_t>(pes_.pes()));
    } catch (const std::bad_alloc&) {
      fail("not enough memory for the storage of register '" + name + "'");
    }
  }

  // The PE of a push (checked); then push() the value, so that the PE index is evaluated
  // before the value as in the interpreter.
  template <size_t N>
  int64_t locate_push(const int64_t (&index)[N]) const {
    return pes_.pe(index, N, false, "push to FIFO");
  }
  int64_t locate_push() const { return pes_.pe(nullptr, 0, false, "push to FIFO"); }
  void push(int64_t pe, T value) {
    Queue& q = queues_[static_cast<size_t>(pe)];
    if (static_cast<int64_t>(q.count) >= pes_.depth())
      fail("FIFO '" + pes_.name() + "' of PE " + pes_.pe_text(pe) +
           " overflows: it already holds its depth of " + std::to_string(pes_.depth()) + " value" +
           (pes_.depth() == 1 ? "" : "s"));
    if (q.count == q.ring.size()) {
      // Grow (doubling, up to the depth): memory only for what the FIFO holds.
      size_t grown = std::min<size_t>(std::max<size_t>(4, q.ring.size() * 2),
                                      static_cast<size_t>(pes_.depth()));
      std::vector<detail::Cell<T>> bigger(std::max(grown, q.count + 1));
      for (size_t i = 0; i < q.count; ++i) bigger[i] = q.ring[(q.head + i) % q.ring.size()];
      q.ring.swap(bigger);
      q.head = 0;
    }
    q.ring[(q.head + q.count) % q.ring.size()] = static_cast<detail::Cell<T>>(value);
    ++q.count;
  }

  template <size_t N>
  T pop(const int64_t (&index)[N]) {
    return pop(index, N);
  }
  T pop() { return pop(nullptr, 0); }
  T pop(const int64_t* index, size_t n) {
    return pop_at(pes_.pe(index, n, false, "pop from FIFO"));
  }
  // A pop from a PE (its linear number) t2s-emit proved inside the array; checks emptiness.
  T pop_at(int64_t pe) {
    Queue& q = queues_[static_cast<size_t>(pe)];
    if (q.count == 0)
      fail("pop from FIFO '" + pes_.name() + "' of PE " + pes_.pe_text(pe) + ", which is empty");
    T value = static_cast<T>(q.ring[q.head]);
    q.head = (q.head + 1) % q.ring.size();
    --q.count;
    return value;
  }

  // Fails when a PE's FIFO still holds values after its kernel finished (the first such PE in
  // Fortran order). Counts lanes, as the interpreter does: a vector of 4 lanes is 4 values.
  void check_empty(const std::string& kernel) const {
    for (size_t pe = 0; pe < queues_.size(); ++pe) {
      const size_t count = queues_[pe].count * static_cast<size_t>(LanesOf<T>::value);
      if (count == 0) continue;
      fail("FIFO '" + pes_.name() + "' of PE " + pes_.pe_text(static_cast<int64_t>(pe)) +
           " still holds " + std::to_string(count) + " value" + (count == 1 ? "" : "s") +
           " after kernel '" + kernel + "' finished");
    }
  }

 private:
  struct Queue {
    std::vector<detail::Cell<T>> ring;
    size_t head = 0, count = 0;
  };
  detail::PeArray pes_;
  std::vector<Queue> queues_;
};

}  // namespace t2s_rt
