// Chapter 4's units of storage estimation: basic sets (the elements one statement writes that
// the same statements read, after [39]: Balasa's partitioning), dependency parts (the signals
// of a basic set that one statement reads, section 4.3.2.1), and the estimate without any
// ordering (section 4.2.3): the data-flow graph of basic sets traversed so that the peak of
// simultaneously alive basic sets is smallest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libs/explore/deps.h"
#include "libs/explore/storage.h"

namespace t2s::explore {

struct BasicSet {
  std::string name;  // ARRAY(n), numbered per array
  std::string array;
  size_t writer = 0;
  std::vector<size_t> readers;  // the statements that read its elements (sorted)
  int64_t size = 0;             // elements
  std::vector<size_t> signals;  // its elements that are read (indexes into the signals)
  bool self = false;            // read while producing itself (a self-dependency)
  int64_t needed_by_others = 0;
};

struct DependencyPart {
  size_t set = 0, reader = 0;
  std::vector<size_t> signals;  // the elements of the set that `reader` reads
  // |DP_d|: how many points of each common-space dim the producing operations cover.
  std::vector<int64_t> lengths;
  std::string name;  // "B(2) -> S3"
};

struct BasicSets {
  std::vector<BasicSet> sets;
  std::vector<DependencyPart> parts;
  std::vector<std::pair<size_t, size_t>> edges;  // data-flow graph X -> Y, X != Y
  // Section 4.2.3: produce the basic sets one by one (each after the sets it reads); a set is
  // alive from its production until the last set that reads it is produced (its size, or for
  // a set that reads itself only the elements other sets need), an unread set to the end.
  // `total` is the smallest peak over every production order; `order` attains it.
  int64_t total = 0;
  std::vector<size_t> order;
  bool exact = true;  // false: more than 20 sets, a greedy order
};

// Basic sets of every written array, numbered per array as the book numbers them: by writer,
// then sets read by more statements first, then by their readers (later statements first).
BasicSets basic_sets(const PolyProgram& p, const std::vector<Signal>& signals,
                     const Placement& placement, const Limits& limits);

// The groups for storage counts: everything, each array, each dependency part.
std::vector<SignalGroup> storage_groups(const PolyProgram& p, const std::vector<Signal>& signals,
                                        const BasicSets& b);

}  // namespace t2s::explore
