// directive_decl.h: every scheduling directive the IR holds, declared once (docs/ir.md,
// "Directives"): its name, how many arguments it takes, which of them name or define Funcs, the
// stage that applies it, and whether the stages implement it. The front end accepts the names
// declared here, the verifier checks a directive's arguments against its declaration, and passes
// compare a directive's kind(), never its name's text. Adding a directive: a DirectiveKind, its
// line in kDirectiveDecls (directive_decl.cc), the pass that applies it, tests.
#pragma once

#include <cstddef>
#include <string>

namespace t2s {

enum class DirectiveKind {
  kMergeUres,
  kSetBounds,
  kReorder,
  kSpaceTimeTransform,
  kVectorize,
  kUnroll,
  kGather,
  kIsolateConsumer,
  kIsolateConsumerChain,
  kIsolateProducerChain,
  kSplit,
  kComputeRoot,
  kScatter,
  kBuffer,
  kRemove,
  kMinDepth,
  kUnknown,  // a name no declaration has (the verifier refuses it)
};

// Which arguments of a directive name Funcs of the program (merged, isolated, gathered).
enum class FuncArgs {
  kNone,
  kAll,          // every argument
  kFirst,        // the first
  kAllButFirst,  // every argument after the first (isolate_producer_chain's producers)
};

// The stage whose pass applies a directive (t2s-merge applies the loop directives to the
// merged loop nest; the others record them for the stage named).
enum class DirectiveStage { kMerge, kStt, kVec, kGather };

struct DirectiveDecl {
  DirectiveKind kind;
  const char* name;           // as in a spec and in the IR
  size_t min_args, max_args;  // max_args kAnyCount: no limit
  size_t args_in_groups_of;   // the count is a multiple of this (set_bounds' triples: 3)
  const char* expected;       // the arguments, for messages: "(v, vo, vi, factor)"
  FuncArgs func_args;         // which arguments name Funcs
  bool defines_funcs;         // those Funcs are defined by the directive (isolation)
  DirectiveStage stage;       // the pass that applies it
  bool implemented;           // false: parsed and recorded, refused by its stage
};

constexpr size_t kAnyCount = static_cast<size_t>(-1);

// Every declaration, in the order the front end lists them in its messages.
const DirectiveDecl* directive_decls_begin();
const DirectiveDecl* directive_decls_end();
// The declaration of `name`, or nullptr.
const DirectiveDecl* find_directive_decl(const std::string& name);
// The declaration of `kind` (not kUnknown).
const DirectiveDecl& directive_decl(DirectiveKind kind);
// The kind `name` declares, kUnknown for none.
DirectiveKind directive_kind(const std::string& name);
// The name of `kind` (not kUnknown).
const char* directive_name(DirectiveKind kind);

}  // namespace t2s
