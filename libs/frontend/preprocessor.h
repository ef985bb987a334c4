// The C preprocessor subset of LANGUAGE.md section 2, and the lexer under it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "libs/frontend/token.h"
#include "libs/ir/diagnostic.h"
#include "libs/ir/source_manager.h"

namespace t2s {

// What one run of the preprocessor did, for tests that bound its work without a clock.
struct PreprocessStats {
  // Token steps: each token lexed, read from a macro context, scanned, copied or emitted.
  int64_t work = 0;
  // What macro expansion produced: max(1, macro-chain length) per token (docs/limits.md).
  int64_t expansion_units = 0;
};

struct PreprocessOptions {
  // -D NAME[=VALUE], in command-line order; a NAME without '=' is defined as 1 (as cc -D does).
  std::vector<std::string> defines;
  // Directories searched for `#include "file"` after the including file's own directory.
  std::vector<std::string> include_dirs;
  // The first `builtin_defines` of `defines` are the toolchain's own (T2S's PLACE0 and PLACE1):
  // a spec may define them again without a warning.
  size_t builtin_defines = 0;
  // Called with each warning (a macro redefined with another body, as cc warns: the spec's
  // #define replaces a -D of the same name); the rule names the warning. Null: no warnings.
  std::function<void(const Diagnostic&)> warn;
  // Filled with what the run did, also when preprocess() throws. Null: not reported.
  PreprocessStats* stats = nullptr;
};

// Lexes the main spec registered in `sources` under the name "" and runs the preprocessor over
// it. Returns the token stream ending with one kEnd token. Throws Diagnostic on any error (rule
// ids are "preprocessor" for directive errors and "lex" for bad characters or literals).
std::vector<Token> preprocess(SourceManager& sources, const PreprocessOptions& options);

}  // namespace t2s
