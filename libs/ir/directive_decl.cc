#include "libs/ir/directive_decl.h"

#include <unordered_map>

namespace t2s {
namespace {

using K = DirectiveKind;
using F = FuncArgs;
using S = DirectiveStage;

const DirectiveDecl kDirectiveDecls[] = {
    // kind, name, min and max argument counts, count a multiple of, expected arguments,
    // Funcs named, defined, the stage applying it, implemented.
    {K::kMergeUres, "merge_ures", 1, kAnyCount, 1, "at least one Func", F::kAll, false, S::kMerge,
     true},
    {K::kSetBounds, "set_bounds", 3, kAnyCount, 3, "(Var, min, extent) triples", F::kNone, false,
     S::kMerge, true},
    {K::kReorder, "reorder", 1, kAnyCount, 1, "at least one loop", F::kNone, false, S::kMerge,
     true},
    {K::kSpaceTimeTransform, "space_time_transform", 1, kAnyCount, 1, "the loops and the schedule",
     F::kNone, false, S::kStt, true},
    {K::kVectorize, "vectorize", 1, 1, 1, "one loop (a factor is a split before it)", F::kNone,
     false, S::kVec, true},
    {K::kUnroll, "unroll", 1, 1, 1, "one loop (a factor is a split before it)", F::kNone, false,
     S::kMerge, true},
    {K::kGather, "gather", 2, 3, 1, "(Func, Var [, strategy])", F::kFirst, false, S::kGather, true},
    {K::kIsolateConsumer, "isolate_consumer", 1, 1, 1, "one Func", F::kAll, true, S::kMerge, true},
    {K::kIsolateConsumerChain, "isolate_consumer_chain", 1, kAnyCount, 1, "at least one Func",
     F::kAll, true, S::kMerge, true},
    {K::kIsolateProducerChain, "isolate_producer_chain", 2, kAnyCount, 1,
     "the value to isolate and at least one producer Func", F::kAllButFirst, true, S::kMerge, true},
    // Halide's scheduling directives that T2S programs use (split, and the factor forms of
    // vectorize and unroll; compute_root).
    {K::kSplit, "split", 4, 4, 1, "(v, vo, vi, factor)", F::kNone, false, S::kMerge, true},
    {K::kComputeRoot, "compute_root", 0, 0, 1, "no argument", F::kNone, false, S::kMerge, true},
    // T2S directives beyond LANGUAGE.md section 5, used by T2S's own programs.
    // scatter: t2s-stt applies it to transformed consumers with a double buffer
    // (libs/passes/common/scatter.h) and refuses the other forms.
    {K::kScatter, "scatter", 2, 3, 1, "(Func, Var [, strategy])", F::kFirst, false, S::kStt, true},
    // buffer: t2s-merge applies it to consumers no transform reorders
    // (libs/passes/common/double_buffer.h); a transformed consumer is refused there.
    {K::kBuffer, "buffer", 2, 3, 1, "(Func, Var [, strategy])", F::kFirst, false, S::kMerge, true},
    // remove: t2s-merge checks it and applies it to untransformed producers, t2s-stt to the
    // producers it transforms (libs/passes/common/remove_loops.h).
    {K::kRemove, "remove", 1, kAnyCount, 1, "at least one loop", F::kNone, false, S::kMerge, true},
    {K::kMinDepth, "min_depth", 1, 1, 1, "one channel depth", F::kNone, false, S::kMerge, true},
};

}  // namespace

const DirectiveDecl* directive_decls_begin() { return std::begin(kDirectiveDecls); }
const DirectiveDecl* directive_decls_end() { return std::end(kDirectiveDecls); }

const DirectiveDecl* find_directive_decl(const std::string& name) {
  static const auto* by_name = [] {
    auto* m = new std::unordered_map<std::string, const DirectiveDecl*>;
    for (const DirectiveDecl& d : kDirectiveDecls) (*m)[d.name] = &d;
    return m;
  }();
  const auto it = by_name->find(name);
  return it == by_name->end() ? nullptr : it->second;
}

const DirectiveDecl& directive_decl(DirectiveKind kind) {
  for (const DirectiveDecl& d : kDirectiveDecls)
    if (d.kind == kind) return d;
  return kDirectiveDecls[0];  // kUnknown has no declaration; callers never ask for it
}

DirectiveKind directive_kind(const std::string& name) {
  const DirectiveDecl* d = find_directive_decl(name);
  return d ? d->kind : DirectiveKind::kUnknown;
}

const char* directive_name(DirectiveKind kind) { return directive_decl(kind).name; }

}  // namespace t2s
