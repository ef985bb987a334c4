// The cost functions of a placement (DTSE section 3.4): locality, the sum of the Manhattan
// lengths of every dependency instance (3.4.2.1); the refined locality, where a signal read
// several times counts its longest dependency only (3.4.2.2); data reuse, where each signal
// counts the minimum spanning tree over its production and all its consumptions (3.4.3).
// Exact: every instance is counted (the enumeration is bounded by flow_dependencies).
#pragma once

#include <cstdint>
#include <vector>

#include "libs/explore/basic_sets.h"
#include "libs/explore/deps.h"

namespace t2s::explore {

struct PlacementCosts {
  std::vector<int64_t> locality_per_dep;  // one per dependency
  int64_t locality = 0;
  int64_t refined_locality = 0;
  int64_t data_reuse = 0;
};

PlacementCosts placement_costs(const std::vector<Dependency>& deps,
                               const std::vector<Signal>& signals, const Placement& placement);

// Section 3.4.3 and figure 3.29 per basic group (chapter 4's basic sets: the values one
// statement writes into one array that the same statements read): the group's share of each
// cost (the sum over the groups is the placement's cost), and for a group read by more than
// one statement its extended dependency graph, figure 3.29(b): a node P for the productions and
// a node C_S per reading statement S; the edge P - C_S weighs, summed over the group's values,
// the Manhattan distance from the value's production to S's nearest consumption of it, the
// edge C_S - C_T (the book's pseudo-dependency) the distance between S's and T's nearest
// consumptions; `tree` is the weight of a minimum spanning tree of that graph (the book's data
// reuse of the group: 4 + 10 = 14 for figure 3.29's A2), `tree_edges` its edges as node pairs
// (0 is P, 1 + r the r-th reader).
struct GroupCosts {
  size_t set = 0;      // index into BasicSets::sets
  int64_t values = 0;  // its values that are read
  int64_t locality = 0, refined_locality = 0, data_reuse = 0;
  std::vector<size_t> readers;                  // the set's readers (graph nodes 1, 2, ...)
  std::vector<int64_t> production_to;           // per reader: Loc(P -> C_S)
  std::vector<std::vector<int64_t>> consumers;  // [r][t]: Loc(C_r <-> C_t), symmetric
  int64_t tree = 0;
  std::vector<std::pair<size_t, size_t>> tree_edges;
};

std::vector<GroupCosts> basic_group_costs(const BasicSets& b, const std::vector<Signal>& signals,
                                          const Placement& placement);

// The weight of a minimum spanning tree of the complete graph on `points` with Manhattan
// distances (Prim's algorithm; 0 for fewer than two points).
int64_t manhattan_mst(const std::vector<Point>& points);

}  // namespace t2s::explore
