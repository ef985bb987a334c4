// Polyhedral cones in a small integer space (DTSE section 3.4.1): the dependency cone, the
// conic hull of the dependency vectors, and the cone of allowed ordering vectors, its dual
// {pi : pi . d >= 0 for every d}. Exact integer arithmetic (the double description method of
// Motzkin), overflow checked: a cone is its extreme rays plus its lineality space, both as
// primitive integer vectors, rays orthogonal to the lineality space.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "libs/explore/relations.h"

namespace t2s::explore {

struct Cone {
  size_t dims = 0;
  std::vector<Point> rays;       // extreme rays, sorted, modulo the lineality space
  std::vector<Point> lineality;  // a basis of the lines the cone contains (echelon form)

  bool pointed() const { return lineality.empty(); }
  // Only the origin.
  bool zero() const { return rays.empty() && lineality.empty(); }
  // The dimension of the smallest subspace holding the cone.
  size_t dimension() const;
};

// The cone of all non-negative combinations of `generators` (zero vectors are ignored).
Cone conic_hull(const std::vector<Point>& generators, size_t dims);
// {x : a . x >= 0 for every a in `normals`}.
Cone halfspace_cone(const std::vector<Point>& normals, size_t dims);
// {x : x . y >= 0 for every y in c}: for a dependency cone, the allowed ordering vector cone.
Cone dual(const Cone& c);
// Whether x lies in the cone.
bool contains(const Cone& c, const Point& x);
// A vector pi with pi . y > 0 for every non-zero y of `c` (a strictly legal ordering vector
// for a dependency cone c): the sum of the dual's rays; nullopt when there is none (c holds a
// line, or is empty... the zero cone gives the first unit vector).
std::optional<Point> strictly_positive_vector(const Cone& c);
// The angle of a cone of the plane in radians: 0 for a ray or the origin, pi for a half-plane,
// 2 pi for the plane; nullopt when dims != 2.
std::optional<double> angle_2d(const Cone& c);

// The rank of a set of integer vectors (exact).
size_t rank(const std::vector<Point>& vectors, size_t dims);

}  // namespace t2s::explore
