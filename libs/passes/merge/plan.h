// Internal to libs/passes/merge: what the checks find out about a program and the lowering
// uses. Not part of the library's interface.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "libs/ir/program.h"

namespace t2s::merge_internal {

struct LoopBound {
  int64_t min = 0, extent = 0;
};

// The UREs computed in one loop nest: a merge_ures group, or one Func with a loop nest of its
// own. Becomes one kernel named after the representative.
struct Group {
  std::string rep;
  std::vector<std::string> members;    // realization order, representative first
  std::vector<std::string> loop_vars;  // innermost first, after reorder
  // The order before any reorder (the representative's arguments), and the index of the last
  // reorder in the program's directives (-1: none).
  std::vector<std::string> defined_order;
  int reorder = -1;
  // Set when the reorder is legal only in the order a later space_time_transform gives: the
  // nest keeps `defined_order` (a legal one) and t2s-stt applies this order (Kernel::
  // pending_order) before its transform.
  std::vector<std::string> pending_order;
  std::map<std::string, LoopBound> bounds;
  SourceLoc loc;
  bool merged = false;  // from merge_ures
  // An isolated consumer copies the loop nest of the Func it consumes (`copies`): loop_vars
  // and bounds are filled from that Func's group.
  std::string copies;
};

// One step of an isolation chain: `to` receives every value of `from`. (When a producer chain
// sends only under conditions, those live in the merge pass, keyed by producer.)
struct Isolation {
  std::string from, to;
  SourceLoc loc;
};

// split(v, vo, vi, factor) on a loop of a group (also vectorize(v, factor) and
// unroll(v, factor), which the front end records as a split): v = min + vo * factor + vi.
struct Split {
  std::string var, outer, inner;
  int64_t factor = 0;
  SourceLoc loc;
};

// The loops of a group that split or unroll change (split.cc). Group::loop_vars keeps the
// loops over the Func's arguments, each split loop collapsed back into the loop it splits, for
// the rules and bounds over the arguments; `loops` is the loop nest the kernel runs.
struct LoopNest {
  std::vector<Split> splits;                  // in directive order
  std::vector<std::string> loops;             // innermost first, after splits and reorders
  std::map<std::string, LoopBound> bounds;    // of the loops made by splits (finish_splits)
  std::map<std::string, SourceLoc> unrolled;  // loops to unroll -> the unroll directive
};

struct Plan {
  std::vector<Group> groups;
  std::map<std::string, size_t> group_of;    // Func -> index in groups
  std::set<std::string> inlined;             // Funcs substituted into their callers
  std::vector<Isolation> isolations;         // in directive order
  std::map<std::string, int64_t> min_depth;  // Func -> min_depth of the channels out of it
  std::map<std::string, LoopNest> nests;     // representative -> its split or unrolled loops
  // representative -> its loops to vectorize -> the vectorize directive (marked by make_kernel)
  std::map<std::string, std::map<std::string, SourceLoc>> vectorized;
  // isolated consumer -> the space_time_transforms it inherits (inherit.cc), for its kernel
  std::map<std::string, std::vector<Directive>> inherited;
};

// Which groups a check covers (t2s-merge checks isolated Funcs once they have copied loops).
using GroupFilter = std::function<bool(const Group&)>;

// The Funcs that `e` calls (kFunc calls), each once, in first-call order.
std::vector<std::string> called_funcs(const Expr& e);
// True when `e` is `select(c, t)` without a false value (the write-when form).
bool is_write_when(const Expr& e);
// The Vars `e` uses, each once, in first-use order.
std::vector<std::string> used_vars(const Expr& e);
// `x` is in `v`.
bool contains(const std::vector<std::string>& v, const std::string& x);
// `p` has a directive on `func` of one of `kinds`.
bool has_directive(const Program& p, const std::string& func,
                   std::initializer_list<DirectiveKind> kinds);

// The rules on the shape of UREs and merges (seed 001, LANGUAGE.md section 6): merged UREs'
// arguments, extended UREs and write-when selects only last in a merge, the realized Func last.
// Throws Diagnostic.
void check_structure(const Program& p, const Plan& plan);
// Seed 001's recursive-reference check (every URE has an initial value). Throws Diagnostic.
void check_initial_values(const Program& p);
// The URE rules on calls inside each group: simple arguments, argument order, dependence
// distances lexicographically non-negative in the order the program finally executes: a group
// whose reorder breaks a dependence that its defined order respects keeps the defined order
// and gets `pending_order` when a space_time_transform follows the reorder (t2s-stt judges the
// transformed order); without one, the reorder is refused. Throws Diagnostic.
void check_distances(const Program& p, Plan& plan, const GroupFilter& which);
// Whether a space_time_transform of `func` comes after directive `from` of the program (after
// all of them for -1).
bool transformed_after(const Program& p, const std::string& func, int from);
// Halide's bounds inference: a loop of a group (not in `copied`) that has no bounds gets the
// hull of the ranges its consumers (groups whose bounds are all known) read, consumers first.
void infer_bounds(const Program& p, Plan& plan, const std::set<std::string>& copied);
// Topological order of `kernels` (in declaration order) given what each depends on: kernels
// joined by channels run together, so they are kept adjacent, producers first; among the
// components ready to run, host ones (no kernel in `device`) go first, so host producers run
// before the device group that reads them; ties go to declaration order. InternalError on a
// cycle.
std::vector<std::string> order_kernels(const std::vector<std::string>& kernels,
                                       const std::vector<Channel>& channels,
                                       const std::map<std::string, std::set<std::string>>& deps,
                                       const std::set<std::string>& device);
// split.cc: Halide's split, unroll and compute_root.
// Applies `d` (split, unroll; reorder and set_bounds on a group with splits) to group `g`, the
// group of d.func; false when `d` is none of these (the caller applies it). Throws Diagnostic.
bool apply_loop_directive(Plan& plan, Group& g, const Directive& d);
// Once bounds are known: every split factor divides its loop's extent (split-factor), the
// split loops get their bounds, and loop_vars their final order. Throws Diagnostic.
void finish_splits(Plan& plan, const GroupFilter& which);
// The dependences of each group with splits, in the order its loops finally run (isl, exact
// on the iteration domain): a read of a value computed later is refused (ure-distance).
void check_split_order(const Program& p, Plan& plan, const GroupFilter& which);
// Marks the loops of the nest `body` of `rep` named by its vectorize directives (loop -> the
// directive) `vectorized`; vectorize-var for a loop that is not one of the nest or unrolled.
void mark_vectorized(const std::string& rep, const std::map<std::string, SourceLoc>& vars,
                     StmtList* body);
// Two values of a channel that its producer's group `from` sends in one order and its
// consumer's group `to` reads in the other (isl, exact): the values of the channel Func's
// arguments `args` at each, the one sent first first; nullopt when both ends visit the values
// in one order. `sent` (or null) is the condition under which a value travels, over `args`.
// Each end is ordered by its loops over `args` (split loops included); its other loops visit a
// value once.
std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>> channel_order_swap(
    const Plan& plan, const Group& from, const Group& to, const std::vector<std::string>& args,
    const Expr& sent);
// The Funcs named by compute_root (merge-directive-on-member on a merged Func that is not the
// representative, undefined-func on a Func without definition).
std::set<std::string> compute_root_funcs(const Program& p, const Plan& plan);
// An isolated Func's group `to` copies the splits of `from` on the loops over `vars`.
void copy_nest(Plan& plan, const Group& to, const Group& from,
               const std::vector<std::string>& vars);
// The loop nest of group `g` around `inner` when it has splits or unrolled loops: split loops
// replace the loops they split, and `inner` reads each split loop variable as
// `min + outer * factor + inner`. An unrolled loop that is not a loop of the nest (checked
// here, once an isolated Func has copied its loops) is unroll-var.
StmtList nest_loops(const Plan& plan, const Group& g, const StmtList& inner);

// inherit.cc: the space_time_transform directives that apply to the kernel of `rep`: its own
// (in program order), else those it inherited.
std::vector<Directive> transforms_of(const Program& p, const Plan& plan, const std::string& rep);
// The isolated consumer `to`, whose loops copy_nest copied from `from`, inherits the rest of
// from's schedule (transforms, their pending order, vectorized and unrolled loops), adapted to
// its loops; `loc` is the isolation directive. Its own directives replace what they cover.
void inherit_schedule(const Program& p, Plan& plan, Group& to, const Group& from,
                      const SourceLoc& loc);
// An isolated device producer without a space_time_transform of its own follows the array it
// feeds when the array's transforms schedule time (a scheduling vector that is not all zeros,
// or the general form): it inherits them (and the array's lanes, unless it vectorizes loops of
// its own), adapted to its loops as an isolated consumer's are,
// so it sends the values in the order the array reads them (T2SP's isolated producers inherit
// the array's schedule). Without a schedule the array reads in its loop order, which the
// producer already has. Returns whether it inherited.
bool inherit_array_schedule(const Program& p, Plan& plan, Group& producer, const Group& reader,
                            const SourceLoc& loc);

// A definition with its inlined calls replaced: `value`, evaluated after `lets` (outermost
// first). An inlined call evaluated more than once with the same arguments, and always
// evaluated (not under a select branch or the right operand of && or ||), is bound once.
struct Inlined {
  Expr value;
  std::vector<std::pair<std::string, Expr>> lets;
};
// Inlines the calls of `plan.inlined` Funcs in `e`; `from_channel(f)` tells whether a call of
// `f` in the statement reads a channel (such a call has an effect and is never let-bound).
Inlined inline_calls(const Program& p, const Plan& plan, const Expr& e,
                     const std::function<bool(const std::string&)>& from_channel);
// Fills `extents` of every input whose indices are quasi-affine (isl), and refuses the accesses
// isl proves wrong (input-negative-index, ure-read-bounds, output-unwritten: input_extents.cc).
void infer_input_extents(Program& p);

}  // namespace t2s::merge_internal
