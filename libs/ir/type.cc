#include "libs/ir/type.h"

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
  return lanes == 1 ? base : base + "x" + std::to_string(lanes);
}

std::optional<Type> Type::from_name(const std::string& name) {
  std::string base = name;
  int lanes = 1;
  size_t x = name.find('x');
  if (x != std::string::npos) {
    base = name.substr(0, x);
    std::string l = name.substr(x + 1);
    if (l.empty() || l.size() > 3 || l.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    lanes = std::stoi(l);
  }
  Type t;
  auto bits_of = [](const std::string& s) -> int {
    if (s.empty() || s.size() > 2 || s.find_first_not_of("0123456789") != std::string::npos)
      return -1;
    return std::stoi(s);
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
  if (!t.valid() || (t.is_uint() && t.bits == 1 && base != "bool")) return std::nullopt;
  return t;
}

std::string Type::spec_name() const {
  std::string lanes_suffix = lanes == 1 ? "" : ", " + std::to_string(lanes);
  switch (code) {
    case kInt:
      return "Int(" + std::to_string(bits) + lanes_suffix + ")";
    case kUInt:
      if (bits == 1) return lanes == 1 ? "Bool()" : "Bool(" + std::to_string(lanes) + ")";
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
