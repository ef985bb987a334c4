// The C preprocessor subset of LANGUAGE.md section 2, and the lexer under it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "libs/frontend/token.h"
#include "libs/ir/source_manager.h"

namespace t2s {

struct PreprocessOptions {
  // -D NAME[=VALUE], in command-line order; a NAME without '=' is defined as 1 (as cc -D does).
  std::vector<std::string> defines;
  // Directories searched for `#include "file"` after the including file's own directory.
  std::vector<std::string> include_dirs;
};

// Lexes the main spec registered in `sources` under the name "" and runs the preprocessor over
// it. Returns the token stream ending with one kEnd token. Throws Diagnostic on any error (rule
// ids are "preprocessor" for directive errors and "lex" for bad characters or literals).
std::vector<Token> preprocess(SourceManager& sources, const PreprocessOptions& options);

}  // namespace t2s
