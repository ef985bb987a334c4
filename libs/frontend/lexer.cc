#include "libs/frontend/lexer.h"

#include <cctype>
#include <cstdio>

namespace t2s {
namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

bool valid_int_suffix(const std::string& s) {
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.empty() || lower == "u" || lower == "l" || lower == "ul" || lower == "lu" ||
         lower == "ll" || lower == "ull" || lower == "llu";
}

// Classifies a pp-number as an integer or a float literal; false when it is neither.
bool classify_number(const std::string& s, TokenKind* kind) {
  size_t n = s.size();
  if (n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    size_t j = 2;
    while (j < n && is_hex_digit(s[j])) ++j;
    *kind = TokenKind::kInteger;
    return j > 2 && valid_int_suffix(s.substr(j));
  }
  size_t j = 0;
  size_t digits = 0;
  bool is_float = false;
  while (j < n && is_digit(s[j])) ++j, ++digits;
  if (j < n && s[j] == '.') {
    is_float = true;
    ++j;
    while (j < n && is_digit(s[j])) ++j, ++digits;
  }
  if (digits == 0) return false;
  if (j < n && (s[j] == 'e' || s[j] == 'E')) {
    is_float = true;
    ++j;
    if (j < n && (s[j] == '+' || s[j] == '-')) ++j;
    size_t exp_start = j;
    while (j < n && is_digit(s[j])) ++j;
    if (j == exp_start) return false;
  }
  if (is_float) {
    *kind = TokenKind::kFloat;
    if (j < n && (s[j] == 'f' || s[j] == 'F' || s[j] == 'l' || s[j] == 'L')) ++j;
    return j == n;
  }
  *kind = TokenKind::kInteger;
  return valid_int_suffix(s.substr(j));
}

std::string describe_char(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u > 0x20 && u < 0x7f) return std::string(1, c);
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", u);
  return buf;
}

}  // namespace

LexedToken Lexer::next() {
  bool space = false;
  while (i_ < text_->size()) {
    char c = (*text_)[i_];
    if (c == '\n' || (c == '\r' && peek(1) == '\n')) {
      newline(c == '\r' ? 2 : 1);
      at_line_start_ = true;
      space = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
      advance(1);
      space = true;
      continue;
    }
    if (size_t k = continuation_length(i_)) {
      newline(k);
      space = true;
      continue;
    }
    if (c == '/' && peek(1) == '/') {
      skip_line_comment();
      space = true;
      continue;
    }
    if (c == '/' && peek(1) == '*') {
      skip_block_comment();
      space = true;
      continue;
    }
    LexedToken t;
    t.at_line_start = at_line_start_;
    t.space_before = space;
    t.tok.loc = SourceLoc{file_, line_, col_};
    lex_token(&t);
    at_line_start_ = false;
    return t;
  }
  LexedToken end;
  end.at_line_start = true;
  end.space_before = true;
  end.tok.kind = TokenKind::kEnd;
  end.tok.loc = SourceLoc{file_, line_, col_};
  return end;
}

// Length of a backslash-newline at `pos` (0 if there is none).
size_t Lexer::continuation_length(size_t pos) const {
  const std::string& text = *text_;
  if (pos >= text.size() || text[pos] != '\\') return 0;
  if (pos + 1 < text.size() && text[pos + 1] == '\n') return 2;
  if (pos + 2 < text.size() && text[pos + 1] == '\r' && text[pos + 2] == '\n') return 3;
  return 0;
}

void Lexer::skip_line_comment() {
  while (i_ < text_->size()) {
    char c = (*text_)[i_];
    if (c == '\n' || (c == '\r' && peek(1) == '\n')) return;
    if (size_t k = continuation_length(i_)) {
      newline(k);  // a backslash-newline continues a // comment, as in C
      continue;
    }
    advance(1);
  }
}

void Lexer::skip_block_comment() {
  SourceLoc start{file_, line_, col_};
  advance(2);
  while (i_ < text_->size()) {
    char c = (*text_)[i_];
    if (c == '*' && peek(1) == '/') {
      advance(2);
      return;
    }
    if (c == '\n') {
      newline(1);
    } else {
      advance(1);
    }
  }
  throw Diagnostic(start, "unterminated comment", "lex");
}

void Lexer::lex_token(LexedToken* t) {
  char c = (*text_)[i_];
  size_t start = i_;
  if (is_ident_start(c)) {
    size_t j = i_;
    while (j < text_->size() && is_ident_char((*text_)[j])) ++j;
    t->tok.kind = TokenKind::kIdentifier;
    t->tok.text = text_->substr(start, j - start);
    advance(j - start);
    return;
  }
  if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
    lex_number(t);
    return;
  }
  if (c == '"') {
    lex_string(t);
    return;
  }
  static const char* const kTwoChar[] = {"::", "<=", ">=", "==", "!=", "&&", "||", "##"};
  for (const char* p : kTwoChar) {
    if (c == p[0] && peek(1) == p[1]) {
      t->tok.kind = TokenKind::kPunct;
      t->tok.text = p;
      advance(2);
      return;
    }
  }
  static const std::string kOneChar = "(){}[],;.:<>+-*/%!=?&|^~#";
  t->tok.kind = TokenKind::kPunct;
  t->tok.text = std::string(1, c);
  if (c == '\0' || kOneChar.find(c) == std::string::npos) {
    t->error = "unexpected character '" + describe_char(c) + "'";
  }
  advance(1);
}

void Lexer::lex_number(LexedToken* t) {
  // Scan a C pp-number, then check that it is a literal we accept.
  size_t j = i_;
  while (j < text_->size()) {
    char c = (*text_)[j];
    if ((c == 'e' || c == 'E' || c == 'p' || c == 'P') && j + 1 < text_->size() &&
        ((*text_)[j + 1] == '+' || (*text_)[j + 1] == '-')) {
      j += 2;
    } else if (is_ident_char(c) || c == '.') {
      ++j;
    } else {
      break;
    }
  }
  t->tok.text = text_->substr(i_, j - i_);
  TokenKind kind = TokenKind::kInteger;
  if (!classify_number(t->tok.text, &kind)) {
    t->error = "invalid number literal '" + t->tok.text + "'";
  }
  t->tok.kind = kind;
  advance(j - i_);
}

void Lexer::lex_string(LexedToken* t) {
  size_t j = i_ + 1;
  t->tok.kind = TokenKind::kString;
  while (j < text_->size()) {
    char c = (*text_)[j];
    if (c == '"') {
      t->tok.text = text_->substr(i_, j + 1 - i_);
      advance(j + 1 - i_);
      return;
    }
    if (c == '\n' || (c == '\r' && j + 1 < text_->size() && (*text_)[j + 1] == '\n')) break;
    if (c == '\\' && j + 1 < text_->size() && (*text_)[j + 1] != '\n' && (*text_)[j + 1] != '\r') {
      j += 2;
      continue;
    }
    ++j;
  }
  // Unterminated: take the rest of the line so lexing can go on (the group may be skipped).
  t->tok.text = text_->substr(i_, j - i_);
  t->error = "unterminated string literal";
  advance(j - i_);
}

std::vector<LexedToken> lex(const std::string& text, const std::string& file) {
  Lexer lexer(&text, file);
  std::vector<LexedToken> out;
  do {
    out.push_back(lexer.next());
  } while (out.back().tok.kind != TokenKind::kEnd);
  return out;
}

}  // namespace t2s
