// Name resolution, Halide type coercion and integer constant folding: turns the untyped tree a
// parser builds into the canonical typed tree that the IR stores and the printer writes.
#pragma once

#include <optional>
#include <string>

#include "libs/ir/expr.h"

namespace t2s {

struct CallTarget {
  CallKind kind = CallKind::kFunc;  // kFunc, kImage or kRegister
  Type type;                        // element type of the callee
};

class NameResolver {
 public:
  virtual ~NameResolver() = default;
  // What a bare identifier stands for: a Var (make_var) or a constant; throws Diagnostic when
  // it names nothing that can appear in an expression.
  virtual Expr identifier(const std::string& name, const SourceLoc& loc) = 0;
  // The callee of `name(args...)` with `nargs` arguments; throws Diagnostic when `name` is not
  // callable, has another arity, or its type is not known yet.
  virtual CallTarget call(const std::string& name, size_t nargs, const SourceLoc& loc) = 0;
  // The element type of channel `name` in `read_channel(name, ...)`; throws Diagnostic when
  // there is no such channel. Specs have no channels: the default refuses.
  virtual Type channel(const std::string& name, const SourceLoc& loc);
  // The element type of FIFO `name` when `pop(name, ...)` pops a FIFO register (stt stage on);
  // nullopt when `name` is no FIFO, and `pop(...)` is an ordinary call.
  virtual std::optional<Type> fifo(const std::string& name) { return std::nullopt; }
  // Whether `name(...)` is one of the vector operations ramp, broadcast, slice and concat
  // (docs/ir.md, "Vector values"). Only IR has them: the default (specs) says no, so a spec that
  // calls `ramp(...)` gets the error of any unknown Func.
  virtual bool vector_op(const std::string& name) { return false; }
};

// Resolves every name in `e`, gives every node its type, inserts the implicit casts of Halide's
// type coercion (LANGUAGE.md section 4) and folds integer operations on literals. Throws
// Diagnostic (rule "type") on an ill-typed expression. Idempotent on canonical trees.
Expr resolve_types(const Expr& e, NameResolver& resolver);

// `e`, whose leaves are literals only (a node of two literal operands, say), typed and folded as
// resolve_types folds; a name in it is an InternalError. The passes' expression builders use it
// so that what they fold is what the reader would make of the printed text.
Expr fold_literals(const Expr& e);

// Converts `e` to type `t` the way an assignment or a declared Func type does: an int32 literal
// takes the type (if it fits), anything else must already have type `t`. Returns null when it
// cannot.
Expr coerce_literal_to(const Expr& e, Type t);

}  // namespace t2s
