#include "libs/exec/npy.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <utility>

namespace t2s {

size_t NdArray::element_size() const {
  return type.is_bool() ? 1 : static_cast<size_t>(type.bits) / 8;
}

int64_t NdArray::num_elements() const {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  return count;
}

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

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// numpy aligns the data to 64 bytes, and leaves room for the growing axis' extent to reach 21
// digits so that the header can be rewritten in place (numpy >= 1.23).
constexpr size_t kArrayAlign = 64;
constexpr size_t kGrowthAxisMaxDigits = 21;

// A Python literal as it appears in a .npy header.
struct PyValue {
  enum Kind { kString, kInt, kBool, kNone, kTuple, kList, kDict };
  Kind kind = kNone;
  std::string text;  // kString: the decoded string; kInt: the digits as written (with sign)
  int64_t integer = 0;
  bool overflow = false;  // kInt too large for int64
  bool boolean = false;
  std::vector<PyValue> items;                            // kTuple, kList
  std::vector<std::pair<std::string, PyValue>> entries;  // kDict, string keys only
};

// Python's repr of a value, enough for error messages.
std::string repr(const PyValue& v) {
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
      for (size_t i = 0; i < v.entries.size(); ++i) {
        out += (i ? ", '" : "'") + v.entries[i].first + "': " + repr(v.entries[i].second);
      }
      return out + "}";
    }
  }
  return "?";
}

// Recursive-descent parser for the Python dict literal of a .npy header: strings in single or
// double quotes, integers, True/False/None, tuples, lists and dicts, with Python's free
// spacing and trailing commas.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& display_name)
      : text_(text), display_name_(display_name) {}

  PyValue parse() {
    PyValue value = parse_value(0);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the end");
    return value;
  }

 private:
  // Nesting deep enough for any real header, shallow enough to keep the stack small.
  static constexpr int kMaxDepth = 32;

  [[noreturn]] void fail(const std::string& what) const {
    throw NpyError(display_name_ + ": malformed .npy header: " + what + " at byte " +
                   std::to_string(pos_) + " of the header");
  }

  void skip_space() {
    while (pos_ < text_.size() && std::strchr(" \t\n\r\f\v", text_[pos_]) && text_[pos_] != '\0') {
      ++pos_;
    }
  }

  bool at(char c) {
    skip_space();
    return pos_ < text_.size() && text_[pos_] == c;
  }

  void expect(char c) {
    if (!at(c)) fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  PyValue parse_value(int depth) {
    if (depth > kMaxDepth) fail("nesting too deep");
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end");
    char c = text_[pos_];
    if (c == '\'' || c == '"') return parse_string();
    if (c == '(') return parse_sequence(PyValue::kTuple, ')', depth);
    if (c == '[') return parse_sequence(PyValue::kList, ']', depth);
    if (c == '{') return parse_dict(depth);
    if (c == '-' || c == '+' || (c >= '0' && c <= '9')) return parse_int();
    if (std::isalpha(static_cast<unsigned char>(c))) return parse_name();
    fail(std::string("unexpected character '") + c + "'");
  }

  PyValue parse_string() {
    PyValue v;
    v.kind = PyValue::kString;
    char quote = text_[pos_++];
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') fail("unterminated string");
      char c = text_[pos_++];
      if (c == quote) break;
      // Escapes only matter for quotes and backslashes: every other escape is in strings this
      // reader refuses anyway (field names of structured dtypes).
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
    skip_space();  // Python allows "- 1"
    if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      fail("expected a digit");
    }
    uint64_t magnitude = 0;
    std::string digits;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      int digit = text_[pos_] - '0';
      digits += text_[pos_++];
      if (magnitude > (UINT64_MAX - digit) / 10) v.overflow = true;
      magnitude = magnitude * 10 + digit;
    }
    // Python 2's numpy wrote longs as "3L".
    if (pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l')) ++pos_;
    if (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_]))) {
      pos_ = start;
      fail("bad integer");
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
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    std::string name = text_.substr(start, pos_ - start);
    PyValue v;
    if (name == "True" || name == "False") {
      v.kind = PyValue::kBool;
      v.boolean = name == "True";
    } else if (name == "None") {
      v.kind = PyValue::kNone;
    } else {
      pos_ = start;
      fail("unexpected name '" + name + "'");
    }
    return v;
  }

  // "(x)" is x itself, as in Python; "(x,)" and "()" are tuples.
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
        fail("dict key " + repr(key) + " is not a string");
      }
      for (const auto& entry : v.entries) {
        if (entry.first == key.text) {
          pos_ = key_pos;
          fail("duplicate key '" + key.text + "'");
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

// What a .npy descr string says about the elements.
struct Dtype {
  Type type;
  bool big_endian = false;
};

const char kSupportedDtypes[] = "bool, int8..int64, uint8..uint64, float32, float64";

Dtype parse_descr(const std::string& descr, const std::string& display_name) {
  auto fail = [&](const std::string& why) -> Dtype {
    throw NpyError(display_name + ": unsupported dtype '" + descr + "'" + why +
                   "; supported: " + kSupportedDtypes);
  };
  Dtype dtype;
  std::string rest = descr;
  // '|' means byte order does not apply, '=' native: both little-endian on the hosts we run on.
  if (!rest.empty() && std::strchr("<>|=", rest[0])) {
    dtype.big_endian = rest[0] == '>';
    rest = rest.substr(1);
  }
  if (rest == "O" || rest.rfind("O", 0) == 0) {
    throw NpyError(display_name + ": object arrays are not supported (dtype '" + descr + "')");
  }
  if (rest.size() < 2 || rest.find_first_not_of("0123456789", 1) != std::string::npos ||
      rest.size() > 3) {
    return fail("");
  }
  char kind = rest[0];
  int bytes = std::stoi(rest.substr(1));
  int bits = bytes * 8;
  bool power_of_two = bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
  switch (kind) {
    case 'b':
      if (bytes != 1) return fail("");
      dtype.type = Type::Bool();
      return dtype;
    case 'i':
      if (!power_of_two) return fail("");
      dtype.type = Type::Int(bits);
      return dtype;
    case 'u':
      if (!power_of_two) return fail("");
      dtype.type = Type::UInt(bits);
      return dtype;
    case 'f':
      if (bytes != 4 && bytes != 8) return fail(" (float" + std::to_string(bits) + ")");
      dtype.type = Type::Float(bits);
      return dtype;
    case 'c':
      return fail(" (complex" + std::to_string(bits) + ")");
    case 'S':
    case 'a':
    case 'U':
      return fail(" (strings)");
    case 'V':
      return fail(" (raw bytes)");
    case 'M':
    case 'm':
      return fail(" (dates and times)");
    default:
      return fail("");
  }
}

std::string descr_of(Type type) {
  if (type.is_bool()) return "|b1";
  char kind = type.is_int() ? 'i' : type.is_uint() ? 'u' : 'f';
  return std::string(type.bits == 8 ? "|" : "<") + kind + std::to_string(type.bits / 8);
}

// Python's repr of a shape tuple: "()", "(4,)", "(2, 3)".
std::string shape_repr(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t d = 0; d < shape.size(); ++d) out += (d ? ", " : "") + std::to_string(shape[d]);
  if (shape.size() == 1) out += ",";
  return out + ")";
}

}  // namespace

int64_t checked_data_bytes(const std::vector<int64_t>& shape, size_t element_size,
                           const std::string& prefix) {
  if (shape.size() > kMaxNpyDimensions) {
    throw NpyError(prefix + "shape has " + std::to_string(shape.size()) +
                   " dimensions, more than " + std::to_string(kMaxNpyDimensions));
  }
  for (int64_t extent : shape) {
    if (extent < 0) {
      throw NpyError(prefix + "bad shape " + shape_repr(shape) + ": extent " +
                     std::to_string(extent) + " is negative");
    }
  }
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  int64_t bytes = static_cast<int64_t>(element_size);
  for (int64_t extent : shape) {
    // Dividing first keeps the check itself from overflowing.
    if (extent > kMaxNpyDataBytes / bytes) {
      throw NpyError(prefix + "shape " + shape_repr(shape) + " is too large: over 2^40 bytes");
    }
    bytes *= extent;
  }
  return bytes;
}

namespace {

void swap_element_bytes(std::vector<uint8_t>& data, size_t element_size) {
  for (size_t i = 0; i + element_size <= data.size(); i += element_size) {
    std::reverse(data.begin() + i, data.begin() + i + element_size);
  }
}

uint64_t read_little_endian(const std::string& bytes, size_t offset, size_t size) {
  uint64_t value = 0;
  for (size_t i = size; i-- > 0;) value = value << 8 | static_cast<uint8_t>(bytes[offset + i]);
  return value;
}

}  // namespace

NdArray read_npy(const std::string& bytes, const std::string& display_name) {
  const std::string prefix = display_name + ": ";
  const size_t magic_present = std::min(bytes.size(), kMagicSize);
  if (bytes.empty() || bytes.compare(0, magic_present, kMagic, magic_present) != 0) {
    throw NpyError(prefix + "not a .npy file (bad magic string)");
  }
  if (bytes.size() < kMagicSize + 2) {
    throw NpyError(prefix + "truncated .npy file: " + std::to_string(bytes.size()) +
                   " bytes end inside the preamble");
  }
  int major = static_cast<uint8_t>(bytes[6]);
  int minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    throw NpyError(prefix + "unsupported .npy format version " + std::to_string(major) + "." +
                   std::to_string(minor) + " (known: 1.0, 2.0, 3.0)");
  }
  // Version 1.0 has a 2-byte header length, 2.0 and 3.0 (UTF-8 header) a 4-byte one.
  size_t length_size = major == 1 ? 2 : 4;
  size_t header_start = kMagicSize + 2 + length_size;
  if (bytes.size() < header_start) {
    throw NpyError(prefix + "truncated .npy file: " + std::to_string(bytes.size()) +
                   " bytes end inside the preamble");
  }
  uint64_t header_size = read_little_endian(bytes, kMagicSize + 2, length_size);
  if (bytes.size() - header_start < header_size) {
    throw NpyError(prefix + "truncated .npy file: the header needs " +
                   std::to_string(header_start + header_size) + " bytes, the file has " +
                   std::to_string(bytes.size()));
  }
  std::string header_text = bytes.substr(header_start, header_size);
  PyValue header = HeaderParser(header_text, display_name).parse();
  if (header.kind != PyValue::kDict) {
    throw NpyError(prefix + "malformed .npy header: " + repr(header) + " is not a dict");
  }

  const PyValue* descr = nullptr;
  const PyValue* fortran_order = nullptr;
  const PyValue* shape_value = nullptr;
  for (const auto& [key, value] : header.entries) {
    if (key == "descr") {
      descr = &value;
    } else if (key == "fortran_order") {
      fortran_order = &value;
    } else if (key == "shape") {
      shape_value = &value;
    } else {
      throw NpyError(prefix + "malformed .npy header: unexpected key '" + key + "'");
    }
  }
  const std::pair<const char*, const PyValue*> required[] = {
      {"descr", descr}, {"fortran_order", fortran_order}, {"shape", shape_value}};
  for (const auto& [name, value] : required) {
    if (!value) throw NpyError(prefix + "malformed .npy header: missing key '" + name + "'");
  }

  // A structured dtype's descr is a list of (name, type) fields.
  if (descr->kind == PyValue::kList) {
    throw NpyError(prefix + "structured dtypes are not supported (descr " + repr(*descr) + ")");
  }
  if (descr->kind != PyValue::kString) {
    throw NpyError(prefix + "unsupported dtype " + repr(*descr) +
                   "; supported: " + kSupportedDtypes);
  }
  Dtype dtype = parse_descr(descr->text, display_name);
  if (fortran_order->kind != PyValue::kBool) {
    throw NpyError(prefix + "malformed .npy header: 'fortran_order' is " + repr(*fortran_order) +
                   ", not True or False");
  }
  bool shape_ok = shape_value->kind == PyValue::kTuple;
  for (const PyValue& extent : shape_value->items) shape_ok &= extent.kind == PyValue::kInt;
  if (!shape_ok) {
    throw NpyError(prefix + "malformed .npy header: 'shape' is " + repr(*shape_value) +
                   ", not a tuple of integers");
  }

  NdArray array;
  array.type = dtype.type;
  for (const PyValue& extent : shape_value->items) {
    if (extent.overflow) {
      throw NpyError(prefix + "shape " + repr(*shape_value) + " is too large: over 2^40 bytes");
    }
    array.shape.push_back(extent.integer);
  }
  const size_t element_size = array.element_size();
  const int64_t data_bytes = checked_data_bytes(array.shape, element_size, prefix);
  const size_t data_start = header_start + header_size;
  const size_t file_data_bytes = bytes.size() - data_start;
  if (file_data_bytes != static_cast<uint64_t>(data_bytes)) {
    throw NpyError(prefix + "data size does not match shape " + shape_repr(array.shape) + " of " +
                   array.type.name() + ": expected " + std::to_string(data_bytes) +
                   " bytes, found " + std::to_string(file_data_bytes));
  }

  const uint8_t* source = reinterpret_cast<const uint8_t*>(bytes.data()) + data_start;
  if (fortran_order->boolean || array.shape.size() <= 1) {
    array.data.assign(source, source + data_bytes);
  } else {
    array.data.resize(data_bytes);
    for_each_element_row_major(array.shape, [&](int64_t row_major, int64_t fortran) {
      std::memcpy(&array.data[fortran * element_size], source + row_major * element_size,
                  element_size);
    });
  }
  if (dtype.big_endian && element_size > 1) swap_element_bytes(array.data, element_size);
  // numpy only writes 0 and 1 as bools; keep other bytes from reaching code that assumes so.
  if (array.type.is_bool()) {
    for (uint8_t& b : array.data) b = b != 0;
  }
  return array;
}

std::string write_npy(const NdArray& a) {
  const std::string prefix = "write_npy: ";
  if (!is_npy_element_type(a.type)) {
    throw NpyError(prefix + "element type " + a.type.name() + " has no .npy dtype");
  }
  const int64_t data_bytes = checked_data_bytes(a.shape, a.element_size(), prefix);
  if (a.data.size() != static_cast<uint64_t>(data_bytes)) {
    throw NpyError(prefix + "array of shape " + shape_repr(a.shape) + " and type " + a.type.name() +
                   " holds " + std::to_string(a.data.size()) + " bytes, not " +
                   std::to_string(data_bytes));
  }
  // numpy sorts the keys; the trailing ", }" is numpy's too.
  std::string header = "{'descr': '" + descr_of(a.type) +
                       "', 'fortran_order': True, 'shape': " + shape_repr(a.shape) + ", }";
  if (!a.shape.empty()) {
    size_t digits = std::to_string(a.shape.back()).size();
    header.append(kGrowthAxisMaxDigits - std::min(digits, kGrowthAxisMaxDigits), ' ');
  }
  const size_t preamble_size = kMagicSize + 2 + 2;
  // Always at least one space of padding (a whole 64 when already aligned), then the newline.
  size_t unpadded = preamble_size + header.size() + 1;
  header.append(kArrayAlign - unpadded % kArrayAlign, ' ');
  header += '\n';
  if (header.size() > 0xFFFF) {
    throw NpyError(prefix + "header of " + std::to_string(header.size()) +
                   " bytes is too long for .npy version 1.0");
  }
  std::string out(kMagic, kMagicSize);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(a.data.data()), a.data.size());
  return out;
}

}  // namespace t2s
