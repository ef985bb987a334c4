// What c_codegen.cc (scalars, statements) and c_vector.cc (vector values) share: operator
// precedence and the short type names of helper functions. Internal to libs/backends/c.
#pragma once

#include <string>

#include "libs/backends/c/c_codegen.h"
#include "libs/ir/expr.h"

namespace t2s {
namespace c_internal {

// C operator precedence, lower binds tighter (the standard's table, 1 = postfix); an atom (a
// name, a call, a subscript) is 0.
constexpr int kPrecedenceAtom = 0;
constexpr int kPrecedencePostfix = 1;
constexpr int kPrecedenceUnary = 3;
constexpr int kPrecedenceTernary = 16;

int binary_precedence(BinaryOp op);

// `text`, parenthesized when its precedence is above `limit`.
std::string parenthesize_above(const std::string& text, int precedence, int limit);

// The short name of a type in helper names: i32, u8, f32, b; vectors add their lanes (f32x4).
std::string type_suffix(Type t);

// Sets CStorage::access for the duration of one hook call.
class AccessScope {
 public:
  AccessScope(CStorage& storage, const void* node) : storage_(storage) { storage_.access = node; }
  ~AccessScope() { storage_.access = nullptr; }
  AccessScope(const AccessScope&) = delete;
  AccessScope& operator=(const AccessScope&) = delete;

 private:
  CStorage& storage_;
};

}  // namespace c_internal
}  // namespace t2s
