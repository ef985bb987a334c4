// Chapter 4's units of storage estimation: basic sets (the elements one statement writes that
// the same statements read, after [39]: Balasa's partitioning), dependency parts (the signals
// of a basic set that one statement reads, section 4.3.2.1), and the estimate without any
// ordering (section 4.2.3): the data-flow graph of basic sets traversed so that the peak of
// simultaneously alive basic sets is smallest.
#pragma once

#include <cstdint>
#include <optional>
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
  size_t writer = 0;            // the statement that writes the set
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
  // The peak of `order`: the first production after which the alive sets reach `total`
  // (an index into `order`), and those sets with the size each occupies (figure 4.3: C(0) 30,
  // B(1) 6, B(3) 6).
  size_t peak_after = 0;
  std::vector<std::pair<size_t, int64_t>> peak_alive;
};

// Basic sets of every written array, numbered per array as the book numbers them: by writer,
// then sets read by more statements first, then by their readers (later statements first).
BasicSets basic_sets(const PolyProgram& p, const std::vector<Signal>& signals,
                     const Placement& placement, const Limits& limits);

// What a basic set holds, as isl sets, computed from the dependencies' relations rather than
// by enumeration (section 4.2.3: "array elements common to a given set of domains and only to
// them constitute a basic set"): `operations`, the writer's instances whose element of the
// set's array is read by exactly the set's readers (every reader's flow dependencies from the
// writer on that array, none of the other statements'), and `elements`, the array elements
// they write; `count` the number of elements (equal to BasicSet::size for a writer that writes
// the array once per operation). Throws Diagnostic (explore-limit) past `limits`.
struct BasicSetContents {
  IntSet operations, elements;
  int64_t count = 0;
};
std::vector<BasicSetContents> basic_set_contents(const PolyProgram& p,
                                                 const std::vector<Dependency>& deps,
                                                 const BasicSets& b, const Limits& limits);

// Section 4.3's estimate of a dependency part's storage under a loop order (`rows`: a unit row
// for every dim of the common space, each running up or down, outermost first, as the
// completions of partial_order_bounds), from the part's lengths, its dependency vectors and
// the statement order alone, without enumerating operations. The part is approximated by its
// bounding box; in the order's levels l (length L_l = |DP_dim(l)|, P_l the product of the
// lengths inside l, w_l = row_l . v for a dependency vector v, production to depending node),
// the most box nodes from a production node up to its depending node are E_1, where
//   E_(n+1) = 1 if the writer precedes the reader in statement order, else 0,
//   E_l = E_(l+1)               if w_l = 0,
//         w_l x P_l + E_(l+1)   if 0 < w_l < L_l,
//         L_l x P_l             if w_l >= L_l   (the depending node beyond the box's end),
//         0                     if w_l < 0      (the depending node before the box's start).
// The estimate is the largest E_1 over the part's vectors, at most the part's size (a
// placement is one-to-one and a signal is one operation's element of one array, so a part has
// one element per node). It is an upper bound on the exact storage of the part in that order (every
// signal alive at a cut lies between the first alive one's production and its depending node) for
// any part, and equal to it for an orthogonal part (its whole bounding box) with one vector.
// nullopt when the rows are not such a loop order.
std::optional<int64_t> part_estimate(const DependencyPart& dp, const std::vector<Point>& vectors,
                                     const Rows& rows);

// part_estimate's smallest and largest over orders (the legal completions of a partly fixed
// order): section 4.3's approximate lower and upper bounds, beside the exact ones. Each is at
// least the corresponding exact bound (the estimate of every order is at least its exact
// storage), so the smaller one is not a lower bound on the storage.
struct PartEstimate {
  bool known = false;  // every order a loop order
  int64_t lower = 0, upper = 0;
  Rows lower_at, upper_at;
};
PartEstimate estimate_part(const DependencyPart& dp, const std::vector<Point>& vectors,
                           const std::vector<Rows>& orders);

// The distinct dependency vectors of a part in the common space (consumer minus producer).
std::vector<Point> part_vectors(const DependencyPart& dp, const std::vector<Signal>& signals,
                                const Placement& placement);

// The groups for storage counts: everything, each array, each dependency part.
std::vector<SignalGroup> storage_groups(const PolyProgram& p, const std::vector<Signal>& signals,
                                        const BasicSets& b);

}  // namespace t2s::explore
