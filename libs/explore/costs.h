// The cost functions of a placement (DTSE section 3.4): locality, the sum of the Manhattan
// lengths of every dependency instance (3.4.2.1); the refined locality, where a signal read
// several times counts its longest dependency only (3.4.2.2); data reuse, where each signal
// counts the minimum spanning tree over its production and all its consumptions (3.4.3).
// Exact: every instance is counted (the enumeration is bounded by flow_dependencies).
#pragma once

#include <cstdint>
#include <vector>

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

// The weight of a minimum spanning tree of the complete graph on `points` with Manhattan
// distances (Prim's algorithm; 0 for fewer than two points).
int64_t manhattan_mst(const std::vector<Point>& points);

}  // namespace t2s::explore
