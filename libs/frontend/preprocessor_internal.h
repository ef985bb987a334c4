// Internal to libs/frontend's preprocessor: what preprocessor.cc and the #if expression
// evaluator (if_expression.cc) share. preprocessor.h is the interface.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "libs/frontend/token.h"
#include "libs/ir/diagnostic.h"

namespace t2s::preprocessor_internal {

// Bounds nested macro contexts, macro chains, nested argument pre-expansion and #if nesting,
// so that no input can exhaust the stack.
constexpr size_t kMaxNesting = 256;
inline constexpr char kRule[] = "preprocessor";

[[noreturn]] inline void fail(const SourceLoc& loc, const std::string& message) {
  throw Diagnostic(loc, message, kRule);
}

// Reports at a token, naming the macros it came from.
[[noreturn]] inline void fail_at(const Token& token, const std::string& message) {
  Diagnostic diag(token.loc, message, kRule);
  add_macro_notes(diag, token);
  throw diag;
}

struct PPToken {
  Token tok;
  bool painted = false;  // C's "blue paint": this identifier is never expanded again
};

struct Macro {
  std::string name;
  bool function_like = false;
  std::vector<std::string> params;
  std::vector<Token> body;
  std::vector<int> body_param;      // per body token: index of the parameter it names, or -1
  std::vector<uint32_t> body_text;  // per body token: its interned text (preprocessor.cc)
  uint32_t origin = 0;              // its MacroOrigin in the preprocessor's table
  SourceLoc definition;
  std::string command_line;  // the -D option that defined it, if one did
  bool builtin = false;      // one of the toolchain's own -D (PreprocessOptions::builtin_defines)
  bool uses_hash = false;    // '#' or '##' operators, which we do not implement
  int disabled = 0;          // > 0 while the macro's own expansion is being rescanned
};

using MacroTable = std::unordered_map<std::string, std::shared_ptr<Macro>>;

// The value of the integer constant expression of an #if (`toks`, after macro expansion;
// `end_loc` locates errors at its end; `macros` answers the `defined` that expansion produced).
int64_t evaluate_if_expression(const std::vector<PPToken>& toks, const SourceLoc& end_loc,
                               const MacroTable& macros);

}  // namespace t2s::preprocessor_internal
