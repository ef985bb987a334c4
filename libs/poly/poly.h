// A small layer over isl (through isl's own C++ bindings, <isl/cpp.h>): typed quasi-affine
// expressions, constraints and integer sets over named dims, and the polyhedral questions the
// passes ask about them. Passes never call isl, nor write its syntax: the isl text lives here.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libs/ir/expr.h"

namespace t2s::poly {

// The dim each t2s Var of an expression stands for (Var name -> dim name). Dim names are the
// pass's own: any string, isl never sees them (a spec may name a Var `and` or `mod`).
using VarDims = std::map<std::string, std::string>;

// A quasi-affine integer expression over named dims: integer combinations of dims and
// constants, floor division and modulo by positive constants (Halide's semantics).
class Aff {
 public:
  Aff(int64_t constant = 0);  // NOLINT: a constant converts implicitly, as in `x >= 0`
  static Aff dim(const std::string& name);
  // sum(coeff[i] * dims[i]) + constant.
  static Aff linear(const std::vector<int64_t>& coeff, const std::vector<std::string>& dims,
                    int64_t constant = 0);
  // The expression `e`, whose Vars are the dims `vars` gives; nullopt when it is not
  // quasi-affine (products of Vars, division by a non-constant, calls, unknown Vars, ...).
  static std::optional<Aff> from_expr(const Expr& e, const VarDims& vars);

  friend Aff operator+(const Aff& a, const Aff& b);
  friend Aff operator-(const Aff& a, const Aff& b);
  friend Aff operator-(const Aff& a);
  friend Aff operator*(const Aff& a, int64_t c);
  // floor(*this / d) and *this mod d (non-negative), for d > 0.
  Aff floor_div(int64_t d) const;
  Aff mod(int64_t d) const;

  struct Node;

 private:
  explicit Aff(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;
  friend class Renderer;
  friend class Builder;
  friend class SmallSetPoints;
  friend class LinearForm;
};

// A condition on the dims: comparisons of Affs combined with and, or and not.
class Cond {
 public:
  static Cond always(bool value);
  // lo <= x < hi: a loop's range.
  static Cond range(const Aff& lo, const Aff& x, const Aff& hi);
  // The boolean `e` (comparisons of quasi-affine expressions, &&, ||, !) over the dims `vars`
  // gives; nullopt otherwise.
  static std::optional<Cond> from_expr(const Expr& e, const VarDims& vars);
  // Any of `conds` (false when there is none).
  static Cond any_of(const std::vector<Cond>& conds);

  friend Cond operator==(const Aff& a, const Aff& b);
  friend Cond operator!=(const Aff& a, const Aff& b);
  friend Cond operator<(const Aff& a, const Aff& b);
  friend Cond operator<=(const Aff& a, const Aff& b);
  friend Cond operator>(const Aff& a, const Aff& b);
  friend Cond operator>=(const Aff& a, const Aff& b);
  friend Cond operator&&(const Cond& a, const Cond& b);
  friend Cond operator||(const Cond& a, const Cond& b);
  friend Cond operator!(const Cond& a);

  struct Node;

 private:
  explicit Cond(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;
  friend class Renderer;
  friend class Builder;
  friend class SmallSetPoints;
};

// Comparisons of Affs (declared again here so that `aff >= 0` finds them through Aff).
Cond operator==(const Aff& a, const Aff& b);
Cond operator!=(const Aff& a, const Aff& b);
Cond operator<(const Aff& a, const Aff& b);
Cond operator<=(const Aff& a, const Aff& b);
Cond operator>(const Aff& a, const Aff& b);
Cond operator>=(const Aff& a, const Aff& b);

// The integer points of a space of named dims (in order) where every constraint holds.
class Set {
 public:
  Set() = default;
  explicit Set(std::vector<std::string> dims) : dims_(std::move(dims)) {}
  Set& add_dim(const std::string& name) {
    dims_.push_back(name);
    return *this;
  }
  Set& where(const Cond& c) {
    constraints_.push_back(c);
    return *this;
  }
  const std::vector<std::string>& dims() const { return dims_; }
  const std::vector<Cond>& constraints() const { return constraints_; }
  // Drops the constraints added after the first `n` (scoped constraints of a tree walk).
  void keep_constraints(size_t n) {
    constraints_.erase(constraints_.begin() + n, constraints_.end());
  }

 private:
  std::vector<std::string> dims_;
  std::vector<Cond> constraints_;
};

struct Interval {
  int64_t min = 0, max = 0;
};

// Every question below enumerates a set whose constant loop ranges bound a box of at most 4096
// points instead of asking isl (exact; isl's answer costs far more at that size), and asks isl
// for the others.
//
// The smallest and largest value of each of `exprs` over the points of `set`. nullopt when the
// set is empty; an entry is nullopt when that value is unbounded.
std::optional<std::vector<std::optional<Interval>>> value_ranges(const Set& set,
                                                                 const std::vector<Aff>& exprs);
// Whether the set has no integer point.
bool is_empty(const Set& set);
// The lexicographically first integer point of the set (one value per dim, in order), or
// nullopt when it is empty.
std::optional<std::vector<int64_t>> sample(const Set& set);
// The value of `expr` when it is the same at every point of the non-empty set; nullopt when it
// takes several values or the set is empty.
std::optional<int64_t> single_value(const Set& set, const Aff& expr);

// Questions about points grouped by `keys` (a PE's coordinates) and ordered by `time`
// (distinct points with equal keys must have distinct times). The successor of a point is the
// next point of the same key in time; isl computes it as a piecewise quasi-affine function
// (lexmin). A set whose constant loop ranges bound a box of at most 4096 points is instead
// enumerated point by point (exact, and far cheaper than isl's parametric answer at that size;
// the time stays flat as a set grows past it).
//
// The time from a point to its successor when it is the same for every point that has one: 0
// when no key has two points; nullopt when it varies.
std::optional<int64_t> uniform_step(const Set& set, const std::vector<Aff>& keys, const Aff& time);
// The largest number of points of one key whose times all lie within `span` of each other (so
// 0 for an empty set). isl gives the offsets E = {y - x: equal keys, 0 <= time(y) - time(x) <=
// span} (a set that does not grow with the number of points); the answer is the most offsets e
// with x + e in the set, over the points x. For a box (a loop nest) that is arithmetic on E
// (boxes [lo - e, hi - e] and their corners); for other sets, the points are counted one by one
// when their bounding box is small, else a branch and bound in isl. Returns `limit` + 1 when E
// has more than `limit` offsets. `enumerated`, when given, is set to the number of offsets
// isl enumerated (the work done, about 20 us each; at most `limit` + 1; 0 for a set small
// enough to be enumerated point by point, whose answer then stands exact, capped at
// `limit` + 1).
int64_t max_points_within(const Set& set, const std::vector<Aff>& keys, const Aff& time,
                          int64_t span, int64_t limit, int64_t* enumerated = nullptr);

// One piece of a union of images: the values of `exprs` at the points of `set`.
struct Image {
  Set set;
  std::vector<Aff> exprs;
};
// The number of distinct points in the union of the images (all with the same number of
// exprs), exactly, without enumerating boxes: a piece that equals its bounding box counts as the
// product of its extents; any other piece is split along its dim of fewest values, and each
// part counted so. nullopt when a piece is unbounded or the count needs more than `budget`
// splits (sets far from boxes, such as a skew over two long time loops).
std::optional<int64_t> count_union_of_images(const std::vector<Image>& pieces, int64_t budget);

// Counts (count_union_of_images) that share one budget of splits and one quota of isl
// operations: a client making many counts (the report: every kernel's steps and work) stays
// bounded as a whole. Once either runs out, every later count that needs isl is nullopt.
class PointCounter {
 public:
  explicit PointCounter(int64_t budget);
  ~PointCounter();
  PointCounter(const PointCounter&) = delete;
  PointCounter& operator=(const PointCounter&) = delete;

  std::optional<int64_t> count_union_of_images(const std::vector<Image>& pieces);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace t2s::poly
