// Flow dependencies of a polyhedral program (isl's exact dataflow analysis: for each read, the
// write that last produced the element before it in the original order), their instances, and
// what a placement makes of them (DTSE sections 3.3 and 3.4.1): dependency vectors in the
// common space, uniform or not, local and global dependency cones, the allowed ordering cone.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "libs/explore/cone.h"
#include "libs/explore/program.h"

namespace t2s::explore {

// Bounds on enumeration (DESIGN.md section 5: no input may make a tool allocate without bound).
struct Limits {
  int64_t max_points = 2'000'000;  // dependency instances and statement instances, each
};

// One dependency: the values one read access of `dst` gets from statement `src`.
struct Dependency {
  size_t src = 0, dst = 0;
  size_t read = 0;  // index into statements[dst].reads
  std::string array;
  IntMap rel;                                  // src instance -> dst instance
  std::vector<std::pair<Point, Point>> pairs;  // its instances, in statement coordinates
};

// "A -> B (a[N - p + 1, p])"-style label: source, sink and the sink's read.
std::string dependency_label(const PolyProgram& p, const Dependency& d);

// Every flow dependency, ordered by sink statement, read, then source statement. Throws
// Diagnostic (rule explore-limit) when the instances pass `limits`.
std::vector<Dependency> flow_dependencies(const PolyProgram& p, const Limits& limits);

// A signal (DTSE's word for a value): an element written by one operation. Each has its producer
// and the consumers the dependencies give.
struct Op {
  size_t stmt = 0;
  Point point;  // statement coordinates
  bool operator<(const Op& o) const { return stmt != o.stmt ? stmt < o.stmt : point < o.point; }
  bool operator==(const Op& o) const { return stmt == o.stmt && point == o.point; }
};

struct Signal {
  Op producer;
  std::string array;
  std::vector<std::pair<Op, size_t>> consumers;  // consumer, dependency index
};

// The signals that are read at least once, in (producer, array) order.
std::vector<Signal> read_values(const std::vector<Dependency>& deps);

// The point of an operation in the common space of `placement`.
Point place(const Placement& placement, const Op& op);

struct VectorCount {
  Point vector;
  int64_t count = 0;
};

struct PlacedDependency {
  std::vector<VectorCount> vectors;  // distinct vectors (dst - src), sorted, with multiplicity
  bool uniform = false;              // a single vector
  // Section 3.5.4: rank(I - D'), the dimension of the affine hull of the vectors: 0 for a
  // uniform dependency, 1 when they lie on a line (one direction if it passes the origin).
  size_t linear_rank = 0;
  Cone cone;  // the local dependency cone (non-zero vectors)
};

struct PlacementAnalysis {
  std::vector<PlacedDependency> deps;
  Cone dependency_cone;               // the global cone: hull of every non-zero vector
  Cone allowed;                       // its dual: ordering vectors pi with pi . d >= 0 for every d
  std::optional<Point> legal_vector;  // one with pi . d > 0 for every non-zero d, if any
  // Dependencies with a zero vector whose source statement comes after its sink in the
  // statements' order: operations on one point run in that order, so no ordering is legal.
  std::vector<size_t> backward_zero;
};

PlacementAnalysis analyze_placement(const PolyProgram& p, const std::vector<Dependency>& deps,
                                    const Placement& placement);

}  // namespace t2s::explore
