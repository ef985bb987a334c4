// Storage needed by an ordering (DTSE section 3.3: "this hyperplane cuts the dependencies
// which are alive"; chapter 4: storage with a partially fixed ordering).
//
// An ordering of a placement gives each operation the key (rows . x, statement position),
// compared lexicographically: x is the operation's point in the common space, the rows are an
// ordering vector followed by vectors that order the points of one hyperplane (a loop order:
// one row per loop), and operations placed on one point run in the order of the statements.
// Operations with equal keys form one step and run together. A signal is alive from the step
// that writes it until the last step that reads it:
//   - between: the most signals alive between two consecutive steps (written before the cut,
//     read after it) -- the measure the issue asks for and figure 3.15's "2 registers";
//   - at_step: the most signals a step needs at once, those it reads and writes included --
//     the count behind the book's N + 3 (figure 3.13) and 2N (the initial specification).
// An ordering is legal when every dependency instance goes from a smaller key to a larger one.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "libs/explore/deps.h"

namespace t2s::explore {

using Rows = std::vector<std::vector<int64_t>>;

// A set of signals whose storage is counted together; with `reader`, each signal is alive
// only until its last read by that statement (a dependency part, chapter 4).
struct SignalGroup {
  std::string name;
  std::vector<size_t> signals;  // indexes into the signals
  std::optional<size_t> reader;
};

struct Storage {
  bool legal = true;
  std::string violation;  // when not legal: the first instance the ordering breaks
  int64_t steps = 0;      // distinct keys among the operations that write or read signals
  int64_t between = 0;    // for the first group (everything, unless groups are given)
  int64_t at_step = 0;
  std::vector<int64_t> group_between, group_at_step;  // one per group
};

// The key of an operation.
using KeyFn = std::function<std::vector<int64_t>(const Op&)>;

// Storage of the order `key` gives. With no groups, one group of every signal.
Storage storage(const PolyProgram& p, const std::vector<Signal>& signals, const KeyFn& key,
                const std::vector<SignalGroup>& groups = {});

// A step of an order: its index (0-based), how many operations run in it, and the first few
// of them in key order (at most 4).
struct StepOps {
  int64_t index = -1;
  int64_t size = 0;
  std::vector<Op> first;
};

// Where an order needs its storage, counted as storage() counts every signal: the first cut
// with the most signals alive between two steps (after step `after`, before step `before`) and
// the signals alive across it; the first step that needs the most signals at once and those
// signals (alive before it or written by it, read by it or later). Signal indexes are sorted;
// between_alive.size() == Storage::between, at_step_alive.size() == Storage::at_step. With no
// signal ever alive across a cut, after and before have index -1 and between_alive is empty.
struct StoragePeak {
  int64_t steps = 0;
  StepOps after, before;
  std::vector<size_t> between_alive;
  StepOps busiest;
  std::vector<size_t> at_step_alive;
};

StoragePeak storage_peak(const std::vector<Signal>& signals, const KeyFn& key);

// The key of an ordering of a placement: (rows . x, statement position).
KeyFn ordering_key(const Placement& placement, const Rows& rows);
// The key of the original execution order (the statements' schedules).
KeyFn original_key(const PolyProgram& p);

// Whether `rows` order every dependency of `placed` forwards (from the distinct vectors, not
// the instances): key(dst) - key(src) = (rows . v, position difference) > 0.
bool legal_rows(const std::vector<Dependency>& deps, const PlacementAnalysis& placed,
                const Rows& rows);

struct RankedOrdering {
  Rows rows;
  int64_t between = 0, at_step = 0;
};

struct SearchResult {
  int64_t candidates = 0, legal = 0;
  std::vector<RankedOrdering> best;  // every legal candidate of the smallest storage
  // Every legal candidate ranked: by between, then at_step, then candidate order (the loop
  // orders as loop_orders lists them, then the vectors, the first entry varying fastest).
  std::vector<RankedOrdering> all;
  std::vector<Rows> illegal;  // the other candidates, in candidate order
};

// The rank of each of `all` (sorted as SearchResult::all): 1 + how many candidates have a
// smaller (between, at_step), so that equal storage shares a rank.
std::vector<int64_t> search_ranks(const std::vector<RankedOrdering>& all);

// The legal orderings of smallest storage (`between`) among: every loop order of the common
// space (permutations, with loops running up or down) and every ordering vector with integer
// entries in [-bound, bound] (primitive). More than 200000 vectors, or a negative bound:
// std::invalid_argument.
SearchResult search_orderings(const PolyProgram& p, const std::vector<Dependency>& deps,
                              const std::vector<Signal>& signals, const Placement& placement,
                              const PlacementAnalysis& placed, int64_t bound);

struct GroupBounds {
  int64_t lower = 0, upper = 0;
  Rows lower_at, upper_at;  // a completion attaining each bound
};

struct PartialBounds {
  int64_t completions = 0, legal = 0;
  std::vector<GroupBounds> groups;  // one per group
  std::vector<Rows> legal_orders;   // the legal completions (fixed rows included)
};

// Chapter 4: the loops `fixed` (rows, outermost first) are fixed outermost; every legal
// completion orders the other dims of the common space in some order (running up, or also
// down with `reversals`). The smallest and largest storage (`between`) of each group over the
// legal completions. More than 100000 completions: std::invalid_argument.
PartialBounds partial_order_bounds(const PolyProgram& p, const std::vector<Dependency>& deps,
                                   const std::vector<Signal>& signals, const Placement& placement,
                                   const PlacementAnalysis& placed, const Rows& fixed,
                                   bool reversals, const std::vector<SignalGroup>& groups);

}  // namespace t2s::explore
