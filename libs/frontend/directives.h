// Directive normalisation (LANGUAGE.md section 5, docs/ir.md): checks the arguments of each
// directive as the parser read them and gives them their normal form. The parser reads
// arguments; this file decides what they mean, so that adding a directive touches one place.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s::frontend_internal {

// Loop extents and bounds must stay far below what a loop nest can enumerate (DESIGN.md 5).
constexpr int64_t kMaxExtent = int64_t{1} << 31;

enum class SymbolKind { kVar, kConst, kImage, kFunc, kTarget, kExpr, kStensor };

struct Symbol {
  SymbolKind kind;
  SourceLoc loc;
  int64_t value = 0;  // kConst
  Expr expr;          // kExpr: the named expression, typed
};

// "a Var", "a Func", ...: for diagnostics.
const char* describe_kind(SymbolKind k);

// Per-Func facts the parse-level checks need beyond what the IR records.
struct FuncState {
  SourceLoc defined_by_isolation;  // set by isolate_* directives
  std::string isolated_from;       // the Func an isolate_consumer* directive copies it from
  std::vector<std::vector<std::string>> stt_space_loops;  // space loops of each transform
  SourceLoc gather_loc;
};

// What normalisation reads from the parser: the declared names, the Funcs defined so far, and
// the per-Func facts that earlier directives recorded (updated here).
struct DirectiveScope {
  std::function<const Symbol*(const std::string&)> lookup;
  const Program* program = nullptr;
  std::map<std::string, FuncState>* states = nullptr;
};

// Throws an unknown-directive Diagnostic at `loc` unless `name` is a directive the front end
// records (`realize` is parsed apart, it is no directive of the IR).
void check_directive_name(const std::string& name, const SourceLoc& loc);

// The normal form of directive `name` (at `name_loc`) applied to Func `func`, from its
// arguments as written (`arg_locs[i]` locates args[i]): one directive, or two for
// `vectorize(v, factor)` and `unroll(v, factor)` (a split, then the directive on the inner
// loop). Throws Diagnostic.
std::vector<Directive> normalize_directive(const DirectiveScope& scope, const std::string& func,
                                           const std::string& name, const SourceLoc& name_loc,
                                           std::vector<DirectiveArg> args,
                                           const std::vector<SourceLoc>& arg_locs);

}  // namespace t2s::frontend_internal
