#include "libs/ir/expr_parser.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace t2s {

namespace {

[[noreturn]] void fail(const ExprToken& at, const std::string& message,
                       const char* rule = "syntax") {
  throw Diagnostic(at.loc, message, rule);
}

std::string describe(const ExprToken& t) {
  if (t.kind == ExprToken::kEnd) return "end of input";
  return "'" + t.text + "'";
}

bool is_punct(ExprTokenSource& ts, const char* text, size_t ahead = 0) {
  const ExprToken& t = ts.peek(ahead);
  return t.kind == ExprToken::kPunct && t.text == text;
}

bool is_ident(ExprTokenSource& ts, const char* text, size_t ahead = 0) {
  const ExprToken& t = ts.peek(ahead);
  return t.kind == ExprToken::kIdentifier && t.text == text;
}

void expect(ExprTokenSource& ts, const char* text, const char* context) {
  if (!is_punct(ts, text))
    fail(ts.peek(),
         std::string("expected '") + text + "' " + context + ", found " + describe(ts.peek()));
  ts.advance();
}

// Caps nesting so that a hostile input cannot overflow the stack: kMaxDepth bounds the
// parser's own recursion, kMaxTreeDepth the depth of the tree it builds (a chain a + b + c ...
// is a left-deep tree), which every later recursive walk inherits.
constexpr int kMaxDepth = 400;
constexpr int kMaxTreeDepth = 10000;

class Parser {
 public:
  explicit Parser(ExprTokenSource& ts) : ts_(ts) {}

  Expr expr() {
    if (++depth_ > kMaxDepth) fail(ts_.peek(), "expression nested too deeply");
    Expr e = binary(1);
    --depth_;
    return e;
  }

  Type type() {
    const ExprToken& t = ts_.peek();
    if (t.kind != ExprToken::kIdentifier) fail(t, "expected a type, found " + describe(t));
    std::string name = t.text;
    SourceLoc loc = t.loc;
    ts_.advance();
    if (name == "type_of") {
      expect(ts_, "<", "after 'type_of'");
      Type result = c_type();
      expect(ts_, ">", "after the type of 'type_of'");
      expect(ts_, "(", "after 'type_of<...>'");
      expect(ts_, ")", "to close 'type_of<...>('");
      return result;
    }
    Type result;
    if (name == "Int")
      result.code = Type::kInt;
    else if (name == "UInt")
      result.code = Type::kUInt;
    else if (name == "Float")
      result.code = Type::kFloat;
    else if (name == "Bool")
      result = Type::Bool();
    else
      fail(t, "expected a type (Int, UInt, Float, Bool or type_of<T>()), found '" + name + "'");
    expect(ts_, "(", ("after '" + name + "'").c_str());
    std::vector<int> shape;  // lanes, then the lanes of a tensor's outer dimensions
    if (name == "Bool") {
      if (!is_punct(ts_, ")")) shape.push_back(small_int("lane count"));
    } else {
      result.bits = small_int("bit width");
      if (is_punct(ts_, ",")) {
        ts_.advance();
        shape.push_back(small_int("lane count"));
      }
    }
    while (!shape.empty() && is_punct(ts_, ",")) {
      ts_.advance();
      shape.push_back(small_int("lane count"));
    }
    if (shape.size() == 1) result.lanes = shape[0];
    if (shape.size() > 1) {
      for (int d : shape)
        if (d < 2)
          throw Diagnostic(
              loc, "a tensor type's dimensions have 2 lanes at least, not " + std::to_string(d),
              "type");
      result = result.with_shape(shape);
    }
    expect(ts_, ")", ("to close '" + name + "('").c_str());
    if (!result.valid()) {
      throw Diagnostic(loc,
                       "'" + result.spec_name() + "' is not a type of this language " +
                           "(Int(8|16|32|64), UInt(1|8|16|32|64), Float(32|64), Bool(), " +
                           "lanes 1..64)",
                       "type");
    }
    return result;
  }

 private:
  int small_int(const char* what) {
    const ExprToken& t = ts_.peek();
    if (t.kind != ExprToken::kInteger)
      fail(t, std::string("expected the ") + what + ", found " + describe(t));
    Expr v = integer_literal(t, false);
    ts_.advance();
    if (v->int_value > 1024) fail(t, std::string("the ") + what + " is too large", "type");
    return static_cast<int>(v->int_value);
  }

  // C type names, as in type_of<int>() and cast<float>(e).
  Type c_type() {
    const ExprToken& t = ts_.peek();
    if (t.kind != ExprToken::kIdentifier) fail(t, "expected a C type, found " + describe(t));
    std::string name = t.text;
    ts_.advance();
    if (name == "unsigned") {
      if (is_ident(ts_, "int")) ts_.advance();
      return Type::UInt(32);
    }
    static const struct {
      const char* name;
      Type type;
    } kTypes[] = {
        {"bool", Type::Bool()},       {"int", Type::Int(32)},       {"float", Type::Float(32)},
        {"double", Type::Float(64)},  {"int8_t", Type::Int(8)},     {"int16_t", Type::Int(16)},
        {"int32_t", Type::Int(32)},   {"int64_t", Type::Int(64)},   {"uint8_t", Type::UInt(8)},
        {"uint16_t", Type::UInt(16)}, {"uint32_t", Type::UInt(32)}, {"uint64_t", Type::UInt(64)},
        {"char", Type::Int(8)},       {"short", Type::Int(16)},     {"long", Type::Int(64)},
    };
    for (const auto& k : kTypes)
      if (name == k.name) return k.type;
    throw Diagnostic(t.loc, "unknown C type '" + name + "'", "type");
  }

  static bool binary_op_at(const ExprToken& t, int level, BinaryOp* op) {
    if (t.kind != ExprToken::kPunct) return false;
    static const struct {
      const char* text;
      int level;
      BinaryOp op;
    } kOps[] = {
        {"||", 1, BinaryOp::kOr}, {"&&", 2, BinaryOp::kAnd}, {"==", 3, BinaryOp::kEQ},
        {"!=", 3, BinaryOp::kNE}, {"<", 4, BinaryOp::kLT},   {"<=", 4, BinaryOp::kLE},
        {">", 4, BinaryOp::kGT},  {">=", 4, BinaryOp::kGE},  {"+", 5, BinaryOp::kAdd},
        {"-", 5, BinaryOp::kSub}, {"*", 6, BinaryOp::kMul},  {"/", 6, BinaryOp::kDiv},
        {"%", 6, BinaryOp::kMod},
    };
    for (const auto& k : kOps) {
      if (k.level == level && t.text == k.text) {
        *op = k.op;
        return true;
      }
    }
    return false;
  }

  Expr binary(int level) {
    if (level > 6) return unary();
    Expr lhs = binary(level + 1);
    BinaryOp op;
    int chain = 0;
    while (binary_op_at(ts_.peek(), level, &op)) {
      SourceLoc loc = ts_.peek().loc;
      if (depth_ + chain_depth_ >= kMaxTreeDepth) {
        chain_depth_ -= chain;
        fail(ts_.peek(), "expression too deep (more than " + std::to_string(kMaxTreeDepth) +
                             " nested operations)");
      }
      ++chain;
      ++chain_depth_;
      ts_.advance();
      Expr rhs = binary(level + 1);
      lhs = make_binary(op, lhs, rhs, Type(), loc);
    }
    chain_depth_ -= chain;
    return lhs;
  }

  Expr unary() {
    const ExprToken& t = ts_.peek();
    if (t.kind == ExprToken::kPunct && (t.text == "-" || t.text == "!" || t.text == "+")) {
      if (++depth_ > kMaxDepth) fail(t, "expression nested too deeply");
      std::string op = t.text;
      SourceLoc loc = t.loc;
      ts_.advance();
      Expr result;
      if (op == "-" && ts_.peek().kind == ExprToken::kInteger) {
        // Fold the sign into the literal so that -2147483648 is an int32.
        result = integer_literal(ts_.peek(), true);
        ts_.advance();
      } else {
        Expr operand = unary();
        if (op == "+")
          result = operand;
        else
          result = make_unary(op == "-" ? UnaryOp::kNeg : UnaryOp::kNot, operand, Type(), loc);
      }
      --depth_;
      return result;
    }
    return primary();
  }

  std::vector<Expr> call_args(const std::string& callee) {
    expect(ts_, "(", ("after '" + callee + "'").c_str());
    std::vector<Expr> args;
    if (!is_punct(ts_, ")")) {
      while (true) {
        args.push_back(expr());
        if (!is_punct(ts_, ",")) break;
        ts_.advance();
      }
    }
    expect(ts_, ")", ("to close the call to '" + callee + "'").c_str());
    return args;
  }

  Expr primary() {
    const ExprToken t = ts_.peek();
    switch (t.kind) {
      case ExprToken::kInteger: {
        ts_.advance();
        return integer_literal(t, false);
      }
      case ExprToken::kFloat: {
        ts_.advance();
        return float_literal(t);
      }
      case ExprToken::kPunct:
        if (t.text == "(") {
          ts_.advance();
          Expr e = expr();
          expect(ts_, ")", "to close '('");
          return e;
        }
        fail(t, "expected an expression, found " + describe(t));
      case ExprToken::kIdentifier:
        break;
      default:
        fail(t, "expected an expression, found " + describe(t));
    }
    ts_.advance();
    if (t.text == "true" || t.text == "false") return make_bool(t.text == "true", t.loc);
    if (t.text == "cast") return cast(t);
    if (!is_punct(ts_, "(")) return make_var(t.text, t.loc);
    std::vector<Expr> args = call_args(t.text);
    if (t.text == "select") {
      if (args.size() != 2 && args.size() != 3)
        throw Diagnostic(t.loc, "select takes 2 or 3 arguments, got " + std::to_string(args.size()),
                         "arguments");
      return make_select(args[0], args[1], args.size() == 3 ? args[2] : nullptr, Type(), t.loc);
    }
    int arity = intrinsic_arity(t.text);
    if (arity) {
      if (static_cast<int>(args.size()) != arity)
        throw Diagnostic(t.loc,
                         "'" + t.text + "' takes " + std::to_string(arity) + " argument" +
                             (arity == 1 ? "" : "s") + ", got " + std::to_string(args.size()),
                         "arguments");
      return make_call(t.text, CallKind::kIntrinsic, Type(), args, t.loc);
    }
    return make_call(t.text, CallKind::kUnresolved, Type(), args, t.loc);
  }

  Expr cast(const ExprToken& at) {
    Type target;
    if (is_punct(ts_, "<")) {
      ts_.advance();
      target = c_type();
      expect(ts_, ">", "after the type of 'cast<...>'");
      expect(ts_, "(", "after 'cast<...>'");
    } else {
      expect(ts_, "(", "after 'cast'");
      target = type();
      expect(ts_, ",", "after the type of 'cast'");
    }
    Expr value = expr();
    expect(ts_, ")", "to close 'cast('");
    return make_cast(target, value, at.loc);
  }

  Expr float_literal(const ExprToken& t) {
    std::string text = t.text;
    bool single = !text.empty() && (text.back() == 'f' || text.back() == 'F');
    if (single) text.pop_back();
    errno = 0;
    double value = std::strtod(text.c_str(), nullptr);
    bool out_of_range = errno == ERANGE && std::isinf(value);
    if (single && std::isinf(static_cast<float>(value))) out_of_range = true;
    if (out_of_range)
      throw Diagnostic(t.loc, "floating-point literal '" + t.text + "' is out of range", "lex");
    if (single) value = static_cast<float>(value);
    return make_float(single ? Type::Float(32) : Type::Float(64), value, t.loc);
  }

  ExprTokenSource& ts_;
  int depth_ = 0;
  int chain_depth_ = 0;  // operators in the open left-deep chains (see kMaxTreeDepth)
};

}  // namespace

Expr integer_literal(const ExprToken& token, bool negate) {
  std::string text = token.text;
  std::string suffix;
  while (!text.empty() && std::strchr("uUlL", text.back())) {
    suffix.insert(suffix.begin(), static_cast<char>(std::tolower(text.back())));
    text.pop_back();
  }
  bool is_unsigned = suffix.find('u') != std::string::npos;
  bool is_long = suffix.find('l') != std::string::npos;
  if (suffix.size() > 3 || (suffix.size() == 3 && suffix != "ull" && suffix != "llu") ||
      (suffix.size() == 2 && suffix != "ul" && suffix != "lu" && suffix != "ll"))
    throw Diagnostic(token.loc, "invalid integer literal suffix in '" + token.text + "'", "lex");
  bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  // A leading 0 means octal, as in C++ (and in #if); 010 is 8.
  bool octal = !hex && text.size() > 1 && text[0] == '0';
  const char* digits = text.c_str() + (hex ? 2 : 0);
  if (!*digits)
    throw Diagnostic(token.loc, "malformed integer literal '" + token.text + "'", "lex");
  for (const char* p = digits; *p; ++p)
    if (!(hex ? std::isxdigit(static_cast<unsigned char>(*p))
              : (octal ? (*p >= '0' && *p <= '7') : std::isdigit(static_cast<unsigned char>(*p)))))
      throw Diagnostic(token.loc, "malformed integer literal '" + token.text + "'", "lex");
  errno = 0;
  unsigned long long magnitude = std::strtoull(digits, nullptr, hex ? 16 : (octal ? 8 : 10));
  if (errno == ERANGE)
    throw Diagnostic(token.loc, "integer literal '" + token.text + "' is too large", "lex");
  Type type = is_unsigned ? (is_long ? Type::UInt(64) : Type::UInt(32))
                          : (is_long ? Type::Int(64) : Type::Int(32));
  std::string spelled = (negate ? "-" : "") + token.text;
  if (type.is_uint()) {
    if (negate && magnitude != 0)
      throw Diagnostic(token.loc, "unsigned literal '" + spelled + "' cannot be negative", "lex");
    if (type.bits == 32 && magnitude > 0xFFFFFFFFull)
      throw Diagnostic(token.loc, "integer literal '" + token.text + "' does not fit in uint32",
                       "lex");
    return make_int(type, static_cast<int64_t>(magnitude), token.loc);
  }
  unsigned long long limit = type.bits == 32 ? 0x7FFFFFFFull : 0x7FFFFFFFFFFFFFFFull;
  if (magnitude > limit + (negate ? 1 : 0))
    throw Diagnostic(token.loc,
                     "integer literal '" + spelled + "' does not fit in " + type.name() +
                         (type.bits == 32 ? " (add an 'l' suffix for int64)" : ""),
                     "lex");
  int64_t value = negate ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return make_int(type, value, token.loc);
}

Expr parse_expr(ExprTokenSource& tokens) { return Parser(tokens).expr(); }

Type parse_type(ExprTokenSource& tokens) { return Parser(tokens).type(); }

bool at_type(ExprTokenSource& tokens) {
  const ExprToken& t = tokens.peek();
  if (t.kind != ExprToken::kIdentifier) return false;
  return t.text == "Int" || t.text == "UInt" || t.text == "Float" || t.text == "Bool" ||
         t.text == "type_of";
}

std::vector<ExprToken> tokenize_expr_text(const std::string& text, const SourceLoc& loc) {
  std::vector<ExprToken> tokens;
  size_t i = 0, n = text.size();
  auto add = [&](ExprToken::Kind kind, size_t start, size_t end) {
    tokens.push_back({kind, text.substr(start, end - start), loc});
  };
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isspace(c)) {
      ++i;
    } else if (std::isalpha(c) || c == '_') {
      size_t s = i;
      while (i < n && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
      add(ExprToken::kIdentifier, s, i);
    } else if (std::isdigit(c) ||
               (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      size_t s = i;
      bool is_float = false;
      if (c == '0' && i + 1 < n && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
        i += 2;
        while (i < n && std::isxdigit(static_cast<unsigned char>(text[i]))) ++i;
      } else {
        while (i < n && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
        if (i < n && text[i] == '.') {
          is_float = true;
          ++i;
          while (i < n && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
        }
        if (i < n && (text[i] == 'e' || text[i] == 'E')) {
          is_float = true;
          ++i;
          if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
          while (i < n && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
        }
      }
      if (is_float) {
        if (i < n && (text[i] == 'f' || text[i] == 'F')) ++i;
      } else {
        while (i < n && std::strchr("uUlL", text[i]) && text[i]) ++i;
      }
      add(is_float ? ExprToken::kFloat : ExprToken::kInteger, s, i);
    } else {
      static const char* kTwo[] = {"==", "!=", "<=", ">=", "&&", "||"};
      bool matched = false;
      for (const char* two : kTwo) {
        if (text.compare(i, 2, two) == 0) {
          add(ExprToken::kPunct, i, i + 2);
          i += 2;
          matched = true;
          break;
        }
      }
      if (matched) continue;
      if (!std::strchr("()+-*/%<>!,", c))
        throw Diagnostic(
            loc, std::string("unexpected character '") + text[i] + "' in expression '" + text + "'",
            "syntax");
      add(ExprToken::kPunct, i, i + 1);
      ++i;
    }
  }
  tokens.push_back({ExprToken::kEnd, "", loc});
  return tokens;
}

Expr parse_expr_text(const std::string& text, const SourceLoc& loc) {
  VectorTokenSource source(tokenize_expr_text(text, loc));
  Expr e = parse_expr(source);
  if (source.peek().kind != ExprToken::kEnd)
    throw Diagnostic(
        loc, "unexpected " + describe(source.peek()) + " after the expression '" + text + "'",
        "syntax");
  return e;
}

}  // namespace t2s
