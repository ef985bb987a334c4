#include "libs/explore/json.h"

#include <cerrno>
#include <cstdlib>
#include <limits>

namespace t2s::explore::json {

const Value* Value::find(const std::string& key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return &v;
  return nullptr;
}

const char* Value::kind_name() const {
  switch (kind) {
    case kNull:
      return "null";
    case kBool:
      return "a boolean";
    case kInt:
      return "an integer";
    case kReal:
      return "a real number";
    case kString:
      return "a string";
    case kArray:
      return "an array";
    case kObject:
      return "an object";
  }
  return "a value";
}

namespace {

constexpr int kMaxDepth = 200;

class Parser {
 public:
  Parser(const std::string& text, const std::string& file) : text_(text), file_(file) {}

  Value document() {
    skip_space();
    Value v = value(0);
    skip_space();
    if (pos_ < text_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& message) { fail_at(here(), message); }
  [[noreturn]] void fail_at(const SourceLoc& loc, const std::string& message) {
    throw Diagnostic(loc, "malformed JSON: " + message, "json");
  }

  SourceLoc here() const { return SourceLoc{file_, line_, col_}; }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool at_end() const { return pos_ >= text_.size(); }

  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  void skip_space() {
    while (!at_end()) {
      char c = peek();
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      advance();
    }
  }

  void expect(char c, const char* what) {
    if (peek() != c) fail(std::string("expected ") + what);
    advance();
  }

  Value value(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than 200 levels");
    if (at_end()) fail("unexpected end of input, expected a value");
    Value v;
    v.loc = here();
    char c = peek();
    if (c == '{') {
      object(depth, &v);
    } else if (c == '[') {
      array(depth, &v);
    } else if (c == '"') {
      v.kind = Value::kString;
      v.string = string();
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      number(&v);
    } else if (literal("true")) {
      v.kind = Value::kBool;
      v.boolean = true;
    } else if (literal("false")) {
      v.kind = Value::kBool;
    } else if (literal("null")) {
      v.kind = Value::kNull;
    } else {
      fail(std::string("unexpected character '") + c + "', expected a value");
    }
    return v;
  }

  bool literal(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (text_.compare(pos_, n, word) != 0) return false;
    for (size_t i = 0; i < n; ++i) advance();
    return true;
  }

  void object(int depth, Value* v) {
    v->kind = Value::kObject;
    advance();  // {
    skip_space();
    if (peek() == '}') {
      advance();
      return;
    }
    for (;;) {
      skip_space();
      if (peek() != '"') fail("expected a string key");
      SourceLoc key_loc = here();
      std::string key = string();
      for (const auto& f : v->fields)
        if (f.first == key) fail_at(key_loc, "duplicate key '" + key + "'");
      skip_space();
      expect(':', "':' after the key");
      skip_space();
      Value item = value(depth + 1);
      v->fields.emplace_back(std::move(key), std::move(item));
      v->key_locs.push_back(key_loc);
      skip_space();
      if (peek() == ',') {
        advance();
        continue;
      }
      expect('}', "',' or '}'");
      return;
    }
  }

  void array(int depth, Value* v) {
    v->kind = Value::kArray;
    advance();  // [
    skip_space();
    if (peek() == ']') {
      advance();
      return;
    }
    for (;;) {
      skip_space();
      v->items.push_back(value(depth + 1));
      skip_space();
      if (peek() == ',') {
        advance();
        continue;
      }
      expect(']', "',' or ']'");
      return;
    }
  }

  static void append_utf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xC0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      *out += static_cast<char>(0xE0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | (cp >> 18));
      *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  uint32_t hex4() {
    uint32_t cp = 0;
    for (int i = 0; i < 4; ++i) {
      char c = peek();
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0) fail("expected four hexadecimal digits after \\u");
      cp = cp * 16 + static_cast<uint32_t>(d);
      advance();
    }
    return cp;
  }

  std::string string() {
    advance();  // "
    std::string out;
    for (;;) {
      if (at_end()) fail("unterminated string");
      char c = peek();
      if (c == '"') {
        advance();
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        advance();
        continue;
      }
      advance();
      char e = peek();
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          advance();
          uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && text_.compare(pos_, 2, "\\u") == 0) {
            advance();
            advance();
            uint32_t low = hex4();
            if (low < 0xDC00 || low >= 0xE000) fail("invalid surrogate pair");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(cp, &out);
          continue;
        }
        default:
          fail("invalid escape in a string");
      }
      advance();
    }
  }

  void number(Value* v) {
    size_t start = pos_;
    bool real = false;
    if (peek() == '-') advance();
    if (peek() == '0') {
      advance();
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') advance();
    } else {
      fail("expected a digit");
    }
    if (peek() == '.') {
      real = true;
      advance();
      if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit after '.'");
      while (peek() >= '0' && peek() <= '9') advance();
    }
    if (peek() == 'e' || peek() == 'E') {
      real = true;
      advance();
      if (peek() == '+' || peek() == '-') advance();
      if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit in the exponent");
      while (peek() >= '0' && peek() <= '9') advance();
    }
    std::string digits = text_.substr(start, pos_ - start);
    errno = 0;
    if (real) {
      v->kind = Value::kReal;
      v->real = std::strtod(digits.c_str(), nullptr);
      return;
    }
    long long n = std::strtoll(digits.c_str(), nullptr, 10);
    if (errno == ERANGE) fail_at(v->loc, "integer " + digits + " does not fit in 64 bits");
    v->kind = Value::kInt;
    v->integer = n;
  }

  const std::string& text_;
  std::string file_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
};

}  // namespace

Value parse(const std::string& text, const std::string& file) {
  return Parser(text, file).document();
}

}  // namespace t2s::explore::json
