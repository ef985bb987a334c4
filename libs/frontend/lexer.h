// Raw lexer: splits the text of one file into tokens, before preprocessing.
#pragma once

#include <string>
#include <vector>

#include "libs/frontend/token.h"

namespace t2s {

struct LexedToken {
  Token tok;
  // First token of a logical line (line continuations and block comments do not start one):
  // a '#' here begins a directive.
  bool at_line_start = false;
  // Whitespace or a comment precedes the token ("#define F(x)" vs "#define F (x)").
  bool space_before = false;
  // Non-empty for a malformed token (bad character, literal). The preprocessor reports it only
  // if the token is not in a skipped #if group, as C does.
  std::string error;
};

// Lexes `text` one token at a time (a whole file's tokens at once would double the memory the
// preprocessor touches). Every token's loc names `file`. After the last token it returns kEnd,
// located just after the last byte, again and again. Throws Diagnostic (rule "lex") for an
// unterminated block comment. `text` must outlive the lexer.
class Lexer {
 public:
  Lexer(const std::string* text, std::string file) : text_(text), file_(std::move(file)) {
    // A UTF-8 byte order mark (as some Windows editors write) is not part of the text.
    if (text_->compare(0, 3, "\xEF\xBB\xBF") == 0) i_ = 3;
  }
  LexedToken next();

 private:
  char peek(size_t k) const { return i_ + k < text_->size() ? (*text_)[i_ + k] : '\0'; }
  void advance(size_t k) {
    i_ += k;
    col_ += static_cast<int>(k);
  }
  void newline(size_t k) {
    i_ += k;
    ++line_;
    col_ = 1;
  }
  size_t continuation_length(size_t pos) const;
  void skip_line_comment();
  void skip_block_comment();
  void lex_token(LexedToken* t);
  void lex_number(LexedToken* t);
  void lex_string(LexedToken* t);

  const std::string* text_;
  std::string file_;
  size_t i_ = 0;
  int line_ = 1;
  int col_ = 1;
  bool at_line_start_ = true;
};

// All tokens of `text`, ending with the kEnd token.
std::vector<LexedToken> lex(const std::string& text, const std::string& file);

}  // namespace t2s
