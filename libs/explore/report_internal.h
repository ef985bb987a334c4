// What report.cc's text report and report_json.cc's JSON report share: how an operation, a
// signal's element and a group's node are named, and the alive signals grouped by basic set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "libs/explore/report.h"

namespace t2s::explore::report_internal {

// At most this many alive values are listed at a peak (text and JSON).
constexpr size_t kValuesListed = 64;

// `S[i, j]`: the statement and the point of an operation.
std::string op_label(const PolyProgram& p, const Op& o);
// The element a signal is, as array[index], from its producer's write of that array.
std::string element_text(const PolyProgram& p, const Signal& s);
// The basic set of each signal (-1: none, without basic sets).
std::vector<int64_t> set_of_signals(const ExploreReport& r);
// Alive signals grouped by basic set (or by array, without basic sets), the groups in set order:
// each group's name, its signals.
std::vector<std::pair<std::string, std::vector<size_t>>> alive_groups(
    const ExploreReport& r, const std::vector<size_t>& alive);
// A node of a group's extended dependency graph: P (the producer) or C_S (reader S).
std::string node_name(const PolyProgram& p, const GroupCosts& g, size_t node);

}  // namespace t2s::explore::report_internal
