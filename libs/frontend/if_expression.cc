// The #if expression of the preprocessor: C's integer constant expressions (conditional,
// binary operators by precedence, unary, `defined`, integer literals in C's bases), with C's
// rule that an unevaluated operand raises no error (division by zero in a branch not taken).
#include <cstdint>
#include <string>
#include <vector>

#include "libs/frontend/preprocessor_internal.h"

namespace t2s::preprocessor_internal {
namespace {

bool is_punct(const Token& t, const char* text) { return t.is_punct(text); }

// Evaluates the integer constant expression of an #if after macro expansion.
class IfExpression {
 public:
  IfExpression(const std::vector<PPToken>& toks, SourceLoc end_loc, const MacroTable& macros)
      : t_(toks), end_loc_(std::move(end_loc)), macros_(macros) {}

  int64_t evaluate() {
    if (t_.empty()) fail(end_loc_, "#if with no expression");
    int64_t v = conditional(true);
    if (p_ < t_.size()) {
      fail_at(t_[p_].tok, "unexpected token '" + t_[p_].tok.text + "' in #if expression");
    }
    return v;
  }

 private:
  static constexpr int kLevels = 10;

  bool at(const char* text) const { return p_ < t_.size() && is_punct(t_[p_].tok, text); }
  bool at_offset(size_t k, const char* text) const {
    return p_ + k < t_.size() && is_punct(t_[p_ + k].tok, text);
  }
  [[noreturn]] void fail_here(const std::string& message) const {
    if (p_ < t_.size()) fail_at(t_[p_].tok, message);
    fail(end_loc_, message);
  }
  void expect(const char* text) {
    if (!at(text)) fail_here(std::string("expected '") + text + "' in #if expression");
    ++p_;
  }
  void enter() {
    if (++depth_ > kMaxNesting) fail_here("#if expression nested too deeply");
  }

  int64_t conditional(bool ev) {
    enter();
    int64_t c = binary(0, ev);
    if (at("?")) {
      ++p_;
      int64_t a = conditional(ev && c != 0);
      expect(":");
      int64_t b = conditional(ev && c == 0);
      c = c != 0 ? a : b;
    }
    --depth_;
    return c;
  }

  // The operator of precedence `level` at the current token, and how many tokens it spans
  // (the lexer has no "<<" token, so a shift is two adjacent '<').
  std::string op_at(int level, size_t* len) const {
    *len = 1;
    if (p_ >= t_.size() || t_[p_].tok.kind != TokenKind::kPunct) return "";
    const std::string& s = t_[p_].tok.text;
    switch (level) {
      case 0:
        return s == "||" ? s : "";
      case 1:
        return s == "&&" ? s : "";
      case 2:
        return s == "|" ? s : "";
      case 3:
        return s == "^" ? s : "";
      case 4:
        return s == "&" ? s : "";
      case 5:
        return s == "==" || s == "!=" ? s : "";
      case 6:
        if ((s == "<" && at_offset(1, "<")) || (s == ">" && at_offset(1, ">"))) return "";
        return s == "<" || s == ">" || s == "<=" || s == ">=" ? s : "";
      case 7:
        if ((s == "<" && at_offset(1, "<")) || (s == ">" && at_offset(1, ">"))) {
          *len = 2;
          return s + s;
        }
        return "";
      case 8:
        return s == "+" || s == "-" ? s : "";
      case 9:
        return s == "*" || s == "/" || s == "%" ? s : "";
    }
    return "";
  }

  int64_t binary(int level, bool ev) {
    if (level == kLevels) return unary(ev);
    int64_t l = binary(level + 1, ev);
    while (true) {
      size_t len = 1;
      std::string op = op_at(level, &len);
      if (op.empty()) return l;
      const Token& op_tok = t_[p_].tok;
      p_ += len;
      if (op == "||") {
        int64_t r = binary(level + 1, ev && l == 0);
        l = (l != 0 || r != 0) ? 1 : 0;
      } else if (op == "&&") {
        int64_t r = binary(level + 1, ev && l != 0);
        l = (l != 0 && r != 0) ? 1 : 0;
      } else {
        int64_t r = binary(level + 1, ev);
        l = apply(op, l, r, ev, op_tok);
      }
    }
  }

  static int64_t apply(const std::string& op, int64_t l, int64_t r, bool ev, const Token& tok) {
    // Arithmetic wraps (computed unsigned) so that no input has undefined behaviour.
    uint64_t ul = static_cast<uint64_t>(l), ur = static_cast<uint64_t>(r);
    if (op == "+") return static_cast<int64_t>(ul + ur);
    if (op == "-") return static_cast<int64_t>(ul - ur);
    if (op == "*") return static_cast<int64_t>(ul * ur);
    if (op == "/" || op == "%") {
      if (r == 0) {
        if (ev) fail_at(tok, "division by zero in #if");
        return 0;
      }
      if (l == INT64_MIN && r == -1) return op == "/" ? INT64_MIN : 0;
      return op == "/" ? l / r : l % r;  // C99 truncating division
    }
    if (op == "<<" || op == ">>") {
      if (r < 0 || r >= 64) {
        if (ev) fail_at(tok, "shift count out of range in #if");
        return 0;
      }
      if (op == "<<") return static_cast<int64_t>(ul << r);
      return l >= 0 ? l >> r : ~(~l >> r);
    }
    if (op == "<") return l < r;
    if (op == ">") return l > r;
    if (op == "<=") return l <= r;
    if (op == ">=") return l >= r;
    if (op == "==") return l == r;
    if (op == "!=") return l != r;
    if (op == "&") return l & r;
    if (op == "|") return l | r;
    if (op == "^") return l ^ r;
    throw InternalError("unknown #if operator " + op);
  }

  int64_t unary(bool ev) {
    if (at("+") || at("-") || at("!") || at("~")) {
      std::string op = t_[p_].tok.text;
      ++p_;
      enter();
      int64_t v = unary(ev);
      --depth_;
      if (op == "-") return static_cast<int64_t>(0 - static_cast<uint64_t>(v));
      if (op == "!") return v == 0;
      if (op == "~") return ~v;
      return v;
    }
    return primary(ev);
  }

  int64_t primary(bool ev) {
    if (p_ >= t_.size()) fail(end_loc_, "expected value at end of #if expression");
    const Token& tok = t_[p_].tok;
    if (at("(")) {
      ++p_;
      int64_t v = conditional(ev);
      expect(")");
      return v;
    }
    switch (tok.kind) {
      case TokenKind::kInteger:
        ++p_;
        return parse_integer(tok);
      case TokenKind::kFloat:
        fail_at(tok, "floating-point literal '" + tok.text + "' in #if expression");
      case TokenKind::kIdentifier:
        ++p_;
        if (tok.text == "defined") return parse_defined(tok);
        // Unknown identifiers are 0 as in C; true/false are 1/0 as in C++.
        return tok.text == "true" ? 1 : 0;
      default:
        fail_at(tok, "expected value in #if expression, got '" + tok.text + "'");
    }
  }

  // `defined` produced by macro expansion (the user-written ones were replaced earlier).
  int64_t parse_defined(const Token& defined_tok) {
    bool paren = at("(");
    if (paren) ++p_;
    if (p_ >= t_.size() || t_[p_].tok.kind != TokenKind::kIdentifier) {
      fail_at(defined_tok, "'defined' expects a macro name");
    }
    bool v = macros_.count(t_[p_].tok.text) > 0;
    ++p_;
    if (paren) expect(")");
    return v ? 1 : 0;
  }

  static int64_t parse_integer(const Token& tok) {
    std::string s = tok.text;
    while (!s.empty() &&
           (s.back() == 'u' || s.back() == 'U' || s.back() == 'l' || s.back() == 'L')) {
      s.pop_back();
    }
    int base = 10;
    size_t i = 0;
    if (s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      base = 16;
      i = 2;
    } else if (s.size() > 1 && s[0] == '0') {
      base = 8;  // C semantics
      i = 1;
    }
    uint64_t v = 0;
    for (; i < s.size(); ++i) {
      char c = s[i];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : 99;
      if (d >= base) fail_at(tok, "invalid integer literal '" + tok.text + "' in #if expression");
      if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) {
        fail_at(tok, "integer literal '" + tok.text + "' is too large");
      }
      v = v * base + d;
    }
    return static_cast<int64_t>(v);
  }

  const std::vector<PPToken>& t_;
  SourceLoc end_loc_;
  const MacroTable& macros_;
  size_t p_ = 0;
  size_t depth_ = 0;
};

}  // namespace

int64_t evaluate_if_expression(const std::vector<PPToken>& toks, const SourceLoc& end_loc,
                               const MacroTable& macros) {
  return IfExpression(toks, end_loc, macros).evaluate();
}

}  // namespace t2s::preprocessor_internal
