// Sets and relations of integer tuples, for t2s-explore's analyses (docs/explore.md): typed
// wrappers over isl sets and maps, and the few polyhedral questions the exploration asks (exact
// dataflow, enumeration of points with a bound, affine functions). The user's polyhedral
// programs are written in isl notation and handed over as text (parse_set, parse_map);
// programmatic sets are built from typed constraints. poly.h is the pipeline's side of libs/poly;
// both share its isl contexts (isl_context.h) and keep isl to this directory.
//
// Every set is parameter-free: parameters (`N`) are given values when a text is read. Sets are
// finite whenever their points are enumerated; enumeration stops with TooManyPoints past a
// limit instead of allocating without bound (DESIGN.md section 5).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace t2s::poly {

using Point = std::vector<int64_t>;
// Parameter values, in the order the parameters are declared.
using Params = std::vector<std::pair<std::string, int64_t>>;

// isl refused a text, or a set or relation is not what the caller needs: a message for the
// user (the caller adds the location).
class PolyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An enumeration would pass its limit.
class TooManyPoints : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// y = M x + c.
struct Affine {
  std::vector<std::vector<int64_t>> coeff;  // rows: outputs; columns: inputs
  std::vector<int64_t> constant;
  size_t in_dims() const { return coeff.empty() ? 0 : coeff[0].size(); }
  size_t out_dims() const { return constant.size(); }
  Point apply(const Point& x) const;
};

// sum(coeff * dims) + constant >= 0 (or == 0).
struct Constraint {
  std::vector<int64_t> coeff;
  int64_t constant = 0;
  bool equality = false;
};

class IntMap;

// A set of integer tuples of one space: a named tuple (`A[i, j]`) or an unnamed one (`[x, y]`).
class IntSet {
 public:
  IntSet();
  // The points lo <= x < lo + extent of a named tuple (empty name: unnamed).
  static IntSet box(const std::string& tuple, const std::vector<std::string>& dims,
                    const std::vector<int64_t>& lo, const std::vector<int64_t>& extent);
  // The single point `p`.
  static IntSet point(const std::string& tuple, const Point& p);
  static IntSet empty_like(const IntSet& s);

  bool null() const { return !impl_; }
  const std::string& tuple() const;
  size_t dims() const;
  // The names of the dims as written (i0, i1, ... for unnamed ones).
  std::vector<std::string> dim_names() const;

  bool empty() const;
  bool equal(const IntSet& o) const;
  bool subset_of(const IntSet& o) const;
  IntSet intersect(const IntSet& o) const;
  IntSet subtract(const IntSet& o) const;
  IntSet unite(const IntSet& o) const;
  IntSet where(const Constraint& c) const;
  // The points, in lexicographic order. Throws TooManyPoints when there are more than `limit`.
  std::vector<Point> points(int64_t limit) const;
  int64_t count(int64_t limit) const;
  std::optional<Point> lexmin() const;
  // The smallest and largest value of each dim; nullopt when empty or unbounded.
  std::optional<std::vector<std::pair<int64_t, int64_t>>> bounds() const;
  // isl's notation, for reports.
  std::string str() const;

  struct Impl;

 private:
  explicit IntSet(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
  friend class IntMap;
  friend IntSet parse_set(const std::string&, const Params&);
  friend std::vector<IntMap> dataflow(const IntMap&, const std::vector<IntMap>&,
                                      const std::vector<IntMap>&);
};

// A relation between two tuples.
class IntMap {
 public:
  IntMap();
  // { in[x] -> out[f(x)] : x in domain }.
  static IntMap from_affine(const IntSet& domain, const std::string& out_tuple, const Affine& f);

  bool null() const { return !impl_; }
  const std::string& in_tuple() const;
  const std::string& out_tuple() const;
  size_t in_dims() const;
  size_t out_dims() const;

  bool empty() const;
  bool single_valued() const;
  bool injective() const;
  IntSet domain() const;
  IntSet range() const;
  IntMap intersect_domain(const IntSet& s) const;
  IntMap intersect_range(const IntSet& s) const;
  IntMap reverse() const;
  // { x -> z : exists y: (x -> y) in this, (y -> z) in o }.
  IntMap apply_range(const IntMap& o) const;
  IntMap unite(const IntMap& o) const;
  // The pairs (x, y), in lexicographic order. Throws TooManyPoints past `limit`.
  std::vector<std::pair<Point, Point>> pairs(int64_t limit) const;
  // The relation as y = M x + c on its domain, when it is one affine function without
  // divisions there; nullopt otherwise.
  std::optional<Affine> affine() const;
  std::string str() const;

  struct Impl;

 private:
  explicit IntMap(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
  friend IntMap parse_map(const std::string&, const Params&);
  friend std::vector<IntMap> dataflow(const IntMap&, const std::vector<IntMap>&,
                                      const std::vector<IntMap>&);
  friend class IntSet;
};

// Reads a set or a relation in isl notation. When the text declares no parameters (`[N] ->`),
// those of `params` are declared for it; every parameter it uses gets its value from
// `params`. Throws PolyError with isl's complaint, or when a parameter has no value.
IntSet parse_set(const std::string& text, const Params& params);
IntMap parse_map(const std::string& text, const Params& params);

// Exact value-based dataflow (isl's compute_flow) for one read access `sink` (reading
// statement -> array element): for every read instance, the write instance, among `writes`
// (statement -> element), that last wrote the element before the read in the original
// execution order `schedules` (statement -> time tuple, compared lexicographically; all of
// one dimension). One relation (writer -> reader) per writer that provides values, in the
// order of `writes`.
std::vector<IntMap> dataflow(const IntMap& sink, const std::vector<IntMap>& writes,
                             const std::vector<IntMap>& schedules);

}  // namespace t2s::poly
