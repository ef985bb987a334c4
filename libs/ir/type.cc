#include "libs/ir/type.h"

#include "libs/ir/strings.h"

namespace t2s {

std::string Type::name() const {
  std::string base;
  switch (code) {
    case kInt:
      base = "int" + std::to_string(bits);
      break;
    case kUInt:
      base = bits == 1 ? "bool" : "uint" + std::to_string(bits);
      break;
    case kFloat:
      base = "float" + std::to_string(bits);
      break;
    case kUnknown:
      return "unknown";
  }
  for (int d : shape()) base += "x" + std::to_string(d);
  return base;
}

int Type::dims() const {
  if (lanes == 1) return 0;
  int d = 1;
  while (d - 1 < kMaxOuterDims && outer[d - 1] != 0) ++d;
  return d;
}

int Type::row_lanes() const {
  int row = lanes;
  for (int o : outer)
    if (o != 0) row /= o;
  return row;
}

std::vector<int> Type::shape() const {
  std::vector<int> s;
  if (lanes == 1) return s;
  s.push_back(row_lanes());
  for (int o : outer)
    if (o != 0) s.push_back(o);
  return s;
}

Type Type::with_shape(const std::vector<int>& shape) const {
  std::vector<int> kept;
  for (int d : shape)
    if (d != 1) kept.push_back(d);
  Type t = element_of();
  t.lanes = 1;
  for (int d : kept) t.lanes *= d;
  for (size_t i = 1; i < kept.size() && i - 1 < static_cast<size_t>(kMaxOuterDims); ++i)
    t.outer[i - 1] = kept[i];
  if (kept.size() > static_cast<size_t>(kMaxOuterDims) + 1) t.lanes = -1;  // not valid()
  return t;
}

Type Type::with_outer(int n) const {
  std::vector<int> s = shape();
  s.push_back(n);
  return with_shape(s);
}

std::optional<Type> Type::from_name(const std::string& name) {
  std::string base = name;
  std::vector<int> shape;
  size_t x = name.find('x');
  if (x != std::string::npos) {
    base = name.substr(0, x);
    while (x != std::string::npos) {
      size_t next = name.find('x', x + 1);
      std::string l = name.substr(x + 1, next == std::string::npos ? next : next - x - 1);
      if (l.empty() || l.size() > 3 || l.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
      int64_t lanes_here = 0;
      parse_int64(l, &lanes_here);  // at most 3 digits, checked above
      shape.push_back(static_cast<int>(lanes_here));
      if (shape.back() < 2 && !(shape.size() == 1 && next == std::string::npos))
        return std::nullopt;  // a tensor's dimensions have 2 lanes at least
      x = next;
    }
  }
  const int lanes = 1;
  Type t;
  auto bits_of = [](const std::string& s) -> int {
    if (s.empty() || s.size() > 2 || s.find_first_not_of("0123456789") != std::string::npos)
      return -1;
    int64_t bits = -1;
    parse_int64(s, &bits);  // at most 2 digits, checked above
    return static_cast<int>(bits);
  };
  if (base == "bool") {
    t = Bool(lanes);
  } else if (base.rfind("uint", 0) == 0) {
    t = UInt(bits_of(base.substr(4)), lanes);
  } else if (base.rfind("int", 0) == 0) {
    t = Int(bits_of(base.substr(3)), lanes);
  } else if (base.rfind("float", 0) == 0) {
    t = Float(bits_of(base.substr(5)), lanes);
  } else {
    return std::nullopt;
  }
  if (shape.size() > 1) t = t.with_shape(shape);
  if (shape.size() == 1) t = t.with_lanes(shape[0]);
  if (!t.valid() || (t.is_uint() && t.bits == 1 && base != "bool")) return std::nullopt;
  return t;
}

std::string Type::spec_name() const {
  std::string lanes_suffix;
  for (int d : shape()) lanes_suffix += ", " + std::to_string(d);
  switch (code) {
    case kInt:
      return "Int(" + std::to_string(bits) + lanes_suffix + ")";
    case kUInt:
      if (bits == 1) return lanes == 1 ? "Bool()" : "Bool(" + lanes_suffix.substr(2) + ")";
      return "UInt(" + std::to_string(bits) + lanes_suffix + ")";
    case kFloat:
      return "Float(" + std::to_string(bits) + lanes_suffix + ")";
    case kUnknown:
      break;
  }
  return "unknown";
}

bool Type::valid() const {
  if (lanes < 1 || lanes > 64) return false;
  if (is_tensor()) {  // dimensions of 2 lanes at least, multiplying to `lanes`, no gaps
    int product = 1;
    bool ended = false;
    for (int o : outer) {
      if (o == 0) {
        ended = true;
      } else if (ended || o < 2) {
        return false;
      } else {
        product *= o;
      }
    }
    if (lanes % product != 0 || lanes / product < 2) return false;
  } else if (outer != std::array<int, kMaxOuterDims>{}) {
    return false;
  }
  switch (code) {
    case kInt:
      return bits == 8 || bits == 16 || bits == 32 || bits == 64;
    case kUInt:
      return bits == 1 || bits == 8 || bits == 16 || bits == 32 || bits == 64;
    case kFloat:
      return bits == 32 || bits == 64;
    case kUnknown:
      return false;
  }
  return false;
}

}  // namespace t2s
