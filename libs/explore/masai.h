// The starting set of MASAI-1's placement search (DTSE section 3.5.5.2): the linear mappings of
// an n-dimensional polytope whose coefficients come from a small set (the prototype: 0 and 1),
// "restricted by removing all singular mappings"; with k coefficient values there are k^(n^2)
// matrices. "About 22000 non-singular 4x4 matrices with coefficients 0 or 1" (3.5.6.5).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace t2s::explore {

struct StartingSet {
  int64_t matrices = 0;     // k^(n^2)
  int64_t nonsingular = 0;  // those with a non-zero determinant
};

// Counts by enumeration; nullopt when k^(n^2) is beyond 2^26 matrices.
std::optional<StartingSet> masai_starting_set(size_t n, const std::vector<int64_t>& coefficients);

// The determinant of a square integer matrix (fraction-free elimination, exact).
int64_t determinant(std::vector<std::vector<int64_t>> m);

}  // namespace t2s::explore
