// npy.h: .npy files, read (versions 1.0, 2.0, 3.0) and written (version 1.0), as the toolchain
// (libs/exec/npy_files.h) reads and writes them.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "libs/runtime/array.h"
#include "libs/runtime/common.h"

namespace t2s_rt {

// ---------------------------------------------------------------------------------------------
// .npy files

namespace detail {

// A Python literal of a .npy header.
struct PyValue {
  enum Kind { kString, kInt, kBool, kNone, kTuple, kList, kDict };
  Kind kind = kNone;
  std::string text;  // kString: the string; kInt: the digits as written (with sign)
  int64_t integer = 0;
  bool overflow = false;
  bool boolean = false;
  std::vector<PyValue> items;
  std::vector<std::pair<std::string, PyValue>> entries;
};

inline std::string repr(const PyValue& v) {
  switch (v.kind) {
    case PyValue::kString:
      return "'" + v.text + "'";
    case PyValue::kInt:
      return v.text;
    case PyValue::kBool:
      return v.boolean ? "True" : "False";
    case PyValue::kNone:
      return "None";
    case PyValue::kTuple:
    case PyValue::kList: {
      bool tuple = v.kind == PyValue::kTuple;
      std::string out = tuple ? "(" : "[";
      for (size_t i = 0; i < v.items.size(); ++i) out += (i ? ", " : "") + repr(v.items[i]);
      if (tuple && v.items.size() == 1) out += ",";
      return out + (tuple ? ")" : "]");
    }
    case PyValue::kDict: {
      std::string out = "{";
      for (size_t i = 0; i < v.entries.size(); ++i)
        out += (i ? ", '" : "'") + v.entries[i].first + "': " + repr(v.entries[i].second);
      return out + "}";
    }
  }
  return "?";
}

struct NpyError {
  std::string message;
};

// Recursive-descent parser of the dict literal of a .npy header (as libs/exec/npy_files.cc).
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& display_name)
      : text_(text), display_name_(display_name) {}

  PyValue parse() {
    PyValue value = parse_value(0);
    skip_space();
    if (pos_ != text_.size()) error("unexpected text after the end");
    return value;
  }

 private:
  static constexpr int kMaxDepth = 32;

  [[noreturn]] void error(const std::string& what) const {
    throw NpyError{display_name_ + ": malformed .npy header: " + what + " at byte " +
                   std::to_string(pos_) + " of the header"};
  }
  static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
  void skip_space() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  }
  bool at(char c) {
    skip_space();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  void expect(char c) {
    if (!at(c)) error(std::string("expected '") + c + "'");
    ++pos_;
  }

  PyValue parse_value(int depth) {
    if (depth > kMaxDepth) error("nesting too deep");
    skip_space();
    if (pos_ >= text_.size()) error("unexpected end");
    char c = text_[pos_];
    if (c == '\'' || c == '"') return parse_string();
    if (c == '(') return parse_sequence(PyValue::kTuple, ')', depth);
    if (c == '[') return parse_sequence(PyValue::kList, ']', depth);
    if (c == '{') return parse_dict(depth);
    if (c == '-' || c == '+' || is_digit(c)) return parse_int();
    if (is_alpha(c)) return parse_name();
    error(std::string("unexpected character '") + c + "'");
  }

  PyValue parse_string() {
    PyValue v;
    v.kind = PyValue::kString;
    char quote = text_[pos_++];
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') error("unterminated string");
      char c = text_[pos_++];
      if (c == quote) break;
      if (c == '\\' && pos_ < text_.size()) c = text_[pos_++];
      v.text += c;
    }
    return v;
  }

  PyValue parse_int() {
    PyValue v;
    v.kind = PyValue::kInt;
    size_t start = pos_;
    bool negative = text_[pos_] == '-';
    if (text_[pos_] == '-' || text_[pos_] == '+') ++pos_;
    skip_space();
    if (pos_ >= text_.size() || !is_digit(text_[pos_])) error("expected a digit");
    uint64_t magnitude = 0;
    std::string digits;
    while (pos_ < text_.size() && is_digit(text_[pos_])) {
      int digit = text_[pos_] - '0';
      digits += text_[pos_++];
      if (magnitude > (UINT64_MAX - static_cast<uint64_t>(digit)) / 10) v.overflow = true;
      magnitude = magnitude * 10 + static_cast<uint64_t>(digit);
    }
    if (pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l')) ++pos_;
    if (pos_ < text_.size() && (is_alpha(text_[pos_]) || is_digit(text_[pos_]))) {
      pos_ = start;
      error("bad integer");
    }
    if (magnitude > static_cast<uint64_t>(INT64_MAX)) v.overflow = true;
    int64_t value = v.overflow ? 0 : static_cast<int64_t>(magnitude);
    v.integer = negative ? -value : value;
    v.text = (negative ? "-" : "") + digits;
    return v;
  }

  PyValue parse_name() {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (is_alpha(text_[pos_]) || is_digit(text_[pos_]) || text_[pos_] == '_'))
      ++pos_;
    std::string name = text_.substr(start, pos_ - start);
    PyValue v;
    if (name == "True" || name == "False") {
      v.kind = PyValue::kBool;
      v.boolean = name == "True";
    } else if (name == "None") {
      v.kind = PyValue::kNone;
    } else {
      pos_ = start;
      error("unexpected name '" + name + "'");
    }
    return v;
  }

  PyValue parse_sequence(PyValue::Kind kind, char close, int depth) {
    ++pos_;
    PyValue v;
    v.kind = kind;
    bool saw_comma = false;
    while (!at(close)) {
      v.items.push_back(parse_value(depth + 1));
      if (at(close)) break;
      expect(',');
      saw_comma = true;
    }
    ++pos_;
    if (kind == PyValue::kTuple && v.items.size() == 1 && !saw_comma) return v.items[0];
    return v;
  }

  PyValue parse_dict(int depth) {
    ++pos_;
    PyValue v;
    v.kind = PyValue::kDict;
    while (!at('}')) {
      skip_space();
      size_t key_pos = pos_;
      PyValue key = parse_value(depth + 1);
      if (key.kind != PyValue::kString) {
        pos_ = key_pos;
        error("dict key " + repr(key) + " is not a string");
      }
      for (const auto& entry : v.entries) {
        if (entry.first == key.text) {
          pos_ = key_pos;
          error("duplicate key '" + key.text + "'");
        }
      }
      expect(':');
      v.entries.emplace_back(key.text, parse_value(depth + 1));
      if (at('}')) break;
      expect(',');
    }
    ++pos_;
    return v;
  }

  const std::string& text_;
  const std::string& display_name_;
  size_t pos_ = 0;
};

constexpr const char* kSupportedDtypes = "bool, int8..int64, uint8..uint64, float32, float64";

// The dtype name and byte order of a .npy descr string.
inline std::string parse_descr(const std::string& descr, const std::string& display_name,
                               bool* big_endian) {
  auto unsupported = [&](const std::string& why) -> std::string {
    throw NpyError{display_name + ": unsupported dtype '" + descr + "'" + why +
                   "; supported: " + kSupportedDtypes};
  };
  std::string rest = descr;
  *big_endian = false;
  if (!rest.empty() && std::strchr("<>|=", rest[0])) {
    *big_endian = rest[0] == '>';
    rest = rest.substr(1);
  }
  if (rest.rfind("O", 0) == 0)
    throw NpyError{display_name + ": object arrays are not supported (dtype '" + descr + "')"};
  if (rest.size() < 2 || rest.size() > 3 ||
      rest.find_first_not_of("0123456789", 1) != std::string::npos)
    return unsupported("");
  char kind = rest[0];
  int bytes = std::atoi(rest.c_str() + 1);
  int bits = bytes * 8;
  bool power_of_two = bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
  switch (kind) {
    case 'b':
      if (bytes != 1) return unsupported("");
      return "bool";
    case 'i':
      if (!power_of_two) return unsupported("");
      return "int" + std::to_string(bits);
    case 'u':
      if (!power_of_two) return unsupported("");
      return "uint" + std::to_string(bits);
    case 'f':
      if (bytes != 4 && bytes != 8) return unsupported(" (float" + std::to_string(bits) + ")");
      return "float" + std::to_string(bits);
    case 'c':
      return unsupported(" (complex" + std::to_string(bits) + ")");
    case 'S':
    case 'a':
    case 'U':
      return unsupported(" (strings)");
    case 'V':
      return unsupported(" (raw bytes)");
    case 'M':
    case 'm':
      return unsupported(" (dates and times)");
    default:
      return unsupported("");
  }
}

inline std::string descr_of(const std::string& dtype) {
  DtypeInfo info = dtype_info(dtype);
  if (info.kind == 'b') return "|b1";
  return std::string(info.bytes == 1 ? "|" : "<") + info.kind + std::to_string(info.bytes);
}

inline uint64_t read_little_endian(const std::string& bytes, size_t offset, size_t size) {
  uint64_t value = 0;
  for (size_t i = size; i-- > 0;)
    value = value << 8 | static_cast<unsigned char>(bytes[offset + i]);
  return value;
}

// The bytes of a .npy file (versions 1.0, 2.0, 3.0; C or Fortran order) as an Array. Throws
// NpyError with messages as t2s::read_npy's.
inline Array parse_npy(const std::string& bytes, const std::string& display_name) {
  const std::string prefix = display_name + ": ";
  static const char kMagic[] = "\x93NUMPY";
  const size_t kMagicSize = 6;
  const size_t magic_present = std::min(bytes.size(), kMagicSize);
  if (bytes.empty() || bytes.compare(0, magic_present, kMagic, magic_present) != 0)
    throw NpyError{prefix + "not a .npy file (bad magic string)"};
  if (bytes.size() < kMagicSize + 2)
    throw NpyError{prefix + "truncated .npy file: " + std::to_string(bytes.size()) +
                   " bytes end inside the preamble"};
  int major = static_cast<unsigned char>(bytes[6]);
  int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    throw NpyError{prefix + "unsupported .npy format version " + std::to_string(major) + "." +
                   std::to_string(minor) + " (known: 1.0, 2.0, 3.0)"};
  size_t length_size = major == 1 ? 2 : 4;
  size_t header_start = kMagicSize + 2 + length_size;
  if (bytes.size() < header_start)
    throw NpyError{prefix + "truncated .npy file: " + std::to_string(bytes.size()) +
                   " bytes end inside the preamble"};
  uint64_t header_size = read_little_endian(bytes, kMagicSize + 2, length_size);
  if (bytes.size() - header_start < header_size)
    throw NpyError{prefix + "truncated .npy file: the header needs " +
                   std::to_string(header_start + header_size) + " bytes, the file has " +
                   std::to_string(bytes.size())};
  std::string header_text = bytes.substr(header_start, static_cast<size_t>(header_size));
  PyValue header = HeaderParser(header_text, display_name).parse();
  if (header.kind != PyValue::kDict)
    throw NpyError{prefix + "malformed .npy header: " + repr(header) + " is not a dict"};
  const PyValue* descr = nullptr;
  const PyValue* fortran_order = nullptr;
  const PyValue* shape_value = nullptr;
  for (const auto& entry : header.entries) {
    if (entry.first == "descr") {
      descr = &entry.second;
    } else if (entry.first == "fortran_order") {
      fortran_order = &entry.second;
    } else if (entry.first == "shape") {
      shape_value = &entry.second;
    } else {
      throw NpyError{prefix + "malformed .npy header: unexpected key '" + entry.first + "'"};
    }
  }
  const std::pair<const char*, const PyValue*> required[] = {
      {"descr", descr}, {"fortran_order", fortran_order}, {"shape", shape_value}};
  for (const auto& r : required)
    if (!r.second) throw NpyError{prefix + "malformed .npy header: missing key '" + r.first + "'"};
  if (descr->kind == PyValue::kList)
    throw NpyError{prefix + "structured dtypes are not supported (descr " + repr(*descr) + ")"};
  if (descr->kind != PyValue::kString)
    throw NpyError{prefix + "unsupported dtype " + repr(*descr) +
                   "; supported: " + kSupportedDtypes};
  bool big_endian = false;
  Array array;
  array.dtype = parse_descr(descr->text, display_name, &big_endian);
  if (fortran_order->kind != PyValue::kBool)
    throw NpyError{prefix + "malformed .npy header: 'fortran_order' is " + repr(*fortran_order) +
                   ", not True or False"};
  bool shape_ok = shape_value->kind == PyValue::kTuple;
  for (const PyValue& extent : shape_value->items) shape_ok &= extent.kind == PyValue::kInt;
  if (!shape_ok)
    throw NpyError{prefix + "malformed .npy header: 'shape' is " + repr(*shape_value) +
                   ", not a tuple of integers"};
  for (const PyValue& extent : shape_value->items) {
    if (extent.overflow)
      throw NpyError{prefix + "shape " + repr(*shape_value) + " is too large: over 2^40 bytes"};
    array.shape.push_back(extent.integer);
  }
  const size_t element_size = static_cast<size_t>(dtype_info(array.dtype).bytes);
  std::string error;
  const int64_t data_bytes_needed = data_bytes(array.shape, element_size, prefix, &error);
  if (data_bytes_needed < 0) throw NpyError{error};
  const size_t data_start = header_start + static_cast<size_t>(header_size);
  const size_t file_data_bytes = bytes.size() - data_start;
  if (file_data_bytes != static_cast<uint64_t>(data_bytes_needed))
    throw NpyError{prefix + "data size does not match shape " + shape_repr(array.shape) + " of " +
                   array.dtype + ": expected " + std::to_string(data_bytes_needed) +
                   " bytes, found " + std::to_string(file_data_bytes)};
  const unsigned char* source = reinterpret_cast<const unsigned char*>(bytes.data()) + data_start;
  if (fortran_order->boolean || array.shape.size() <= 1) {
    array.data.assign(source, source + data_bytes_needed);
  } else {
    array.data.resize(static_cast<size_t>(data_bytes_needed));
    for_each_element_row_major(array.shape, [&](int64_t row_major, int64_t fortran) {
      std::memcpy(&array.data[static_cast<size_t>(fortran) * element_size],
                  source + static_cast<size_t>(row_major) * element_size, element_size);
    });
  }
  if (big_endian && element_size > 1) {
    for (size_t i = 0; i + element_size <= array.data.size(); i += element_size)
      std::reverse(array.data.begin() + static_cast<std::ptrdiff_t>(i),
                   array.data.begin() + static_cast<std::ptrdiff_t>(i + element_size));
  }
  if (array.dtype == "bool")
    for (unsigned char& b : array.data) b = b != 0;
  return array;
}

// The bytes of a .npy file holding an array, byte for byte as t2s::write_npy writes them: version
// 1.0, fortran_order True, the header padded as numpy 1.24 pads it. Throws NpyError.
inline std::string encode_npy(const std::string& dtype, const std::vector<int64_t>& shape,
                              const unsigned char* data, size_t size) {
  const std::string prefix = "write_npy: ";
  DtypeInfo info = dtype_info(dtype);
  if (!info.kind) throw NpyError{prefix + "element type " + dtype + " has no .npy dtype"};
  std::string error;
  const int64_t bytes = data_bytes(shape, static_cast<size_t>(info.bytes), prefix, &error);
  if (bytes < 0) throw NpyError{error};
  if (size != static_cast<uint64_t>(bytes))
    throw NpyError{prefix + "array of shape " + shape_repr(shape) + " and type " + dtype +
                   " holds " + std::to_string(size) + " bytes, not " + std::to_string(bytes)};
  std::string header = "{'descr': '" + descr_of(dtype) +
                       "', 'fortran_order': True, 'shape': " + shape_repr(shape) + ", }";
  const size_t kGrowthAxisMaxDigits = 21, kArrayAlign = 64;
  if (!shape.empty()) {
    size_t digits = std::to_string(shape.back()).size();
    header.append(kGrowthAxisMaxDigits - std::min(digits, kGrowthAxisMaxDigits), ' ');
  }
  const size_t preamble_size = 6 + 2 + 2;
  size_t unpadded = preamble_size + header.size() + 1;
  header.append(kArrayAlign - unpadded % kArrayAlign, ' ');
  header += '\n';
  if (header.size() > 0xFFFF)
    throw NpyError{prefix + "header of " + std::to_string(header.size()) +
                   " bytes is too long for .npy version 1.0"};
  std::string out("\x93NUMPY", 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(data), size);
  return out;
}

}  // namespace detail

// The bytes of a .npy file holding `a` (detail::encode_npy); fail()s if `a` is inconsistent.
inline std::string npy_bytes(const Array& a) {
  try {
    return detail::encode_npy(a.dtype, a.shape, a.data.data(), a.data.size());
  } catch (const detail::NpyError& e) {
    fail(e.message);
  }
}

// The rules other layers call (libs/exec, libs/cli, the OpenCL executor): their public names.
using detail::encode_npy;
using detail::NpyError;
using detail::parse_npy;

}  // namespace t2s_rt
