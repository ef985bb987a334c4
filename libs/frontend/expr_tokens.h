// The bridge from the preprocessor's tokens to the shared expression parser's (libs/ir).
#pragma once

#include <vector>

#include "libs/frontend/token.h"
#include "libs/ir/expr_parser.h"

namespace t2s {

// The preprocessed tokens as the shared expression parser sees them (macro chains stay with
// the original tokens; parse_spec maps diagnostics back to them by location).
std::vector<ExprToken> to_expr_tokens(const std::vector<Token>& tokens);

}  // namespace t2s
