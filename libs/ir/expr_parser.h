// The expression grammar of LANGUAGE.md section 4, shared by the spec front end (over its
// preprocessed tokens) and the IR reader (over canonical expression strings).
//
// The parser builds an *untyped* tree: bare identifiers become kVar nodes, calls are
// kUnresolved (or kIntrinsic for min/max/...), literals are typed by their spelling. Name
// resolution, type coercion and constant folding happen in resolve_types (typing.h).
#pragma once

#include <string>
#include <vector>

#include "libs/ir/expr.h"

namespace t2s {

struct ExprToken {
  enum Kind { kIdentifier, kInteger, kFloat, kString, kPunct, kEnd };
  Kind kind = kEnd;
  std::string text;
  SourceLoc loc;
};

class ExprTokenSource {
 public:
  virtual ~ExprTokenSource() = default;
  virtual const ExprToken& peek(size_t ahead = 0) = 0;
  virtual void advance() = 0;
};

// A token source over a vector that ends with a kEnd token.
class VectorTokenSource : public ExprTokenSource {
 public:
  explicit VectorTokenSource(std::vector<ExprToken> tokens) : tokens_(std::move(tokens)) {}
  const ExprToken& peek(size_t ahead = 0) override {
    size_t i = pos_ + ahead;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
  }
  void advance() override {
    if (pos_ + 1 < tokens_.size()) ++pos_;
  }

 private:
  std::vector<ExprToken> tokens_;
  size_t pos_ = 0;
};

// Parses one expression at the current token (leaves the source after it). Throws Diagnostic
// (rule "syntax") on malformed input.
Expr parse_expr(ExprTokenSource& tokens);

// Parses a type at the current token: Int(32), UInt(8, 4), Float(64), Bool(), type_of<int>().
// Throws Diagnostic (rule "type") for a type this language does not have.
Type parse_type(ExprTokenSource& tokens);
// Whether the current token starts a type (Int, UInt, Float, Bool, type_of).
bool at_type(ExprTokenSource& tokens);

// Value of an integer literal token ("10", "0x1F", "7u"); its type comes from the suffix
// (none: int32, u: uint32, l/ll: int64, ul/ull: uint64). `negate` applies a leading minus
// before the range check. Throws Diagnostic (rule "lex") when it does not fit.
Expr integer_literal(const ExprToken& token, bool negate);

// Splits canonical expression text into tokens; every token gets location `loc` (the IR keeps
// one location per entity, not per character). Throws Diagnostic (rule "syntax").
std::vector<ExprToken> tokenize_expr_text(const std::string& text, const SourceLoc& loc);
// Parses a whole canonical expression string (untyped; see resolve_types).
Expr parse_expr_text(const std::string& text, const SourceLoc& loc);

}  // namespace t2s
