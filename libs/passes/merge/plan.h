// Internal to libs/passes/merge: what the checks find out about a program and the lowering
// uses. Not part of the library's interface.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
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

struct Plan {
  std::vector<Group> groups;
  std::map<std::string, size_t> group_of;    // Func -> index in groups
  std::set<std::string> inlined;             // Funcs substituted into their callers
  std::vector<Isolation> isolations;         // in directive order
  std::map<std::string, int64_t> min_depth;  // Func -> min_depth of the channel into it
};

// The Funcs that `e` calls (kFunc calls), each once, in first-call order.
std::vector<std::string> called_funcs(const Expr& e);
// True when `e` is `select(c, t)` without a false value (the write-when form).
bool is_write_when(const Expr& e);
// The Vars `e` uses, each once, in first-use order.
std::vector<std::string> used_vars(const Expr& e);

// Seed 001's recursive-reference check (every URE has an initial value). Throws Diagnostic.
void check_initial_values(const Program& p);
// The URE rules on calls inside each group: simple arguments, argument order, dependence
// distances lexicographically non-negative in the order the program finally executes: a group
// whose reorder breaks a dependence that its defined order respects keeps the defined order
// and gets `pending_order` when a space_time_transform follows the reorder (t2s-stt judges the
// transformed order); without one, the reorder is refused. Throws Diagnostic.
void check_distances(const Program& p, Plan& plan);
// Halide's bounds inference: a loop of a group (not in `copied`) that has no bounds gets the
// hull of the ranges its consumers (groups whose bounds are all known) read, consumers first.
void infer_bounds(const Program& p, Plan& plan, const std::set<std::string>& copied);
// Topological order of `kernels` (in declaration order) given what each depends on: device
// kernels joined by channels run together, so they are kept adjacent, producers first; ties go
// to declaration order. InternalError on a cycle.
std::vector<std::string> order_kernels(const std::vector<std::string>& kernels,
                                       const std::vector<Channel>& channels,
                                       const std::map<std::string, std::set<std::string>>& deps);
// Fills `extents` of every input whose indices are quasi-affine (isl).
void infer_input_extents(Program& p);

}  // namespace t2s::merge_internal
