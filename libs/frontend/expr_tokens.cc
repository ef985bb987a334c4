#include "libs/frontend/expr_tokens.h"

namespace t2s {

std::vector<ExprToken> to_expr_tokens(const std::vector<Token>& tokens) {
  std::vector<ExprToken> out;
  out.reserve(tokens.size());
  for (const Token& t : tokens) {
    ExprToken::Kind kind = ExprToken::kEnd;
    switch (t.kind) {
      case TokenKind::kIdentifier:
        kind = ExprToken::kIdentifier;
        break;
      case TokenKind::kInteger:
        kind = ExprToken::kInteger;
        break;
      case TokenKind::kFloat:
        kind = ExprToken::kFloat;
        break;
      case TokenKind::kString:
        kind = ExprToken::kString;
        break;
      case TokenKind::kPunct:
        kind = ExprToken::kPunct;
        break;
      case TokenKind::kEnd:
        kind = ExprToken::kEnd;
        break;
    }
    out.push_back({kind, t.text, t.loc});
  }
  return out;
}

}  // namespace t2s
