// Tokens of the spec language after preprocessing.
#pragma once

#include <string>
#include <vector>

#include "libs/ir/diagnostic.h"

namespace t2s {

enum class TokenKind {
  kIdentifier,  // C identifier (keywords are identifiers too; the parser tells them apart)
  kInteger,     // decimal or hex literal, with optional u/l suffixes, as written: "0x1F", "10u"
  kFloat,       // "1.5f", "1.5", "1e3", "2.f"
  kString,      // "..." including the quotes, escapes left as written
  // Operators and punctuation: ( ) { } [ ] , ; . :: : < > <= >= == != + - * / % ! && || = ? & | ^ ~
  // # ##
  kPunct,
  kEnd,  // end of input (always the last token)
};

// One level of macro expansion that produced a token: the macro and where it was defined.
struct MacroOrigin {
  std::string macro;
  SourceLoc definition;  // location of the macro's name in its #define (invalid for -D macros)
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  // Where the user wrote this token. For a token that came from a macro expansion, this is the
  // location of the outermost macro invocation in the source (the name of the macro as written
  // where it is used), so that diagnostics point at the user's line.
  SourceLoc loc;
  // Innermost-last chain of macros this token came through (empty when written directly).
  std::vector<MacroOrigin> macro_chain;

  bool is(TokenKind k, const char* t) const { return kind == k && text == t; }
  bool is_punct(const char* t) const { return is(TokenKind::kPunct, t); }
  bool is_ident(const char* t) const { return is(TokenKind::kIdentifier, t); }
};

// Adds a note "expanded from macro 'NAME'" for every macro in the token's chain, outermost first.
Diagnostic& add_macro_notes(Diagnostic& diag, const Token& token);

}  // namespace t2s
