// Schedule exploration for T2S specs (docs/explore.md, "Schedules"): the legal space-time
// transforms of a merge group, each a choice of loop order, space loops (the innermost ones)
// and scheduling vector (entries in [-bound, bound]), optionally chained (a double
// projection), judged and sized by the stt pass itself (libs/passes/stt: its legality checks,
// its exact register sizing) and ranked by PE count, time steps, register storage and locality.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libs/explore/deps.h"
#include "libs/explore/from_ir.h"
#include "libs/ir/program.h"

namespace t2s::explore {

struct ScheduleOptions {
  std::vector<std::string> groups;  // representatives to explore; empty: every merge group
  int64_t bound = 1;
  bool chain = false;  // also chained transforms (a second projection of the space loops)
  // Loop orders: every permutation (a `reorder` before the transform), the spec's own, or
  // (auto) every permutation when the group has at most 3 movable loops, else the spec's own.
  enum class Orders { kAuto, kSpec, kAll };
  Orders orders = Orders::kAuto;
  int64_t max_space = 3;           // space loops per candidate, at most
  bool best = false;               // print the top-ranked schedule only
  std::vector<std::string> tries;  // directive chains to judge instead of, or besides, enumerating
  bool enumerate = true;
  // Ranking keys, most significant first: pes, time, storage, locality; "-key" for descending.
  // The default answers a designer's question: the fastest schedule on an array no larger than
  // the PE budget, then the fewest registers, then the fewest PEs.
  std::vector<std::string> rank_by = {"time", "storage", "pes", "locality"};
  int64_t min_pes = 0;  // 0: no limit
  // The PE budget: N > 0 ranks only schedules of at most N PEs; 0 no limit; -1 (default) the
  // PEs of the group's own transform, as a soft budget: schedules within it ranked first, the
  // others after them (no budget when the group has no transform).
  int64_t max_pes = -1;
  bool show_refused = false;
  int64_t top = 20;  // rows of the text table
  int64_t max_candidates = 20000;
};

struct ScheduleCandidate {
  std::vector<Directive> directives;  // what replaces the group's transforms (reorder first)
  std::string text;                   // as pasted into the spec
  std::string origin;                 // "enumerated", "spec", "--try"
  bool ok = false;
  std::string rule, message;  // why it is refused
  int64_t pes = 0, steps = 0, storage = 0, naive = 0, locality = 0;
  bool locality_known = false;
};

struct GroupSchedules {
  std::string func;
  KernelProgram kernel;
  std::vector<Dependency> deps;
  PlacementAnalysis placed;
  int64_t enumerated = 0;
  bool all_orders = false;        // every loop order was enumerated (else the spec's own)
  int64_t refused_by_time = 0;    // refused before the stt pass: a dependence backwards in time
  int64_t pe_budget = 0;          // the largest PE count ranked (0: no limit)
  bool budget_from_spec = false;  // the budget is the PEs of the group's own transform
  std::vector<ScheduleCandidate> ranked;   // legal, best first
  std::vector<ScheduleCandidate> refused;  // refused by the stt pass (or by time)
  std::vector<ScheduleCandidate> tried;    // the spec's own transform, then each --try
};

// The keys `rank_by` may hold; false and *error set for an unknown one.
bool valid_rank_keys(const std::vector<std::string>& keys, std::string* error);

// Explores every selected group of `program` (parsed, merged or later: its parsed stage is
// used). Throws Diagnostic for a spec that does not merge, std::invalid_argument for an unknown
// group or a --try text that does not read.
std::vector<GroupSchedules> explore_schedules(const Program& program, const ScheduleOptions& o,
                                              const Limits& limits);

std::string schedules_text(const std::vector<GroupSchedules>& groups, const ScheduleOptions& o);
std::string schedules_json(const std::vector<GroupSchedules>& groups, const ScheduleOptions& o,
                           const std::string& source);

}  // namespace t2s::explore
