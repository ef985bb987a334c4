#include "libs/explore/cone.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace t2s::explore {

namespace {

int64_t checked(__int128 v) {
  if (v > INT64_MAX || v < INT64_MIN)
    throw std::overflow_error("explore: a number is too large for exact cone arithmetic");
  return static_cast<int64_t>(v);
}

int64_t dot(const Point& a, const Point& b) {
  __int128 s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += static_cast<__int128>(a[i]) * b[i];
  return checked(s);
}

int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

// Divides by the gcd of the entries (the zero vector stays).
Point normalized(Point v) {
  int64_t g = 0;
  for (int64_t x : v) g = std::gcd(g, abs64(x));
  if (g > 1)
    for (int64_t& x : v) x /= g;
  return v;
}

// alpha * u + beta * v, normalized.
Point combine(int64_t alpha, const Point& u, int64_t beta, const Point& v) {
  Point r(u.size());
  for (size_t i = 0; i < u.size(); ++i)
    r[i] = checked(static_cast<__int128>(alpha) * u[i] + static_cast<__int128>(beta) * v[i]);
  return normalized(r);
}

bool is_zero(const Point& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0; });
}

Point negated(Point v) {
  for (int64_t& x : v) x = -x;
  return v;
}

// Reduced row echelon form of the span of `rows`, integer, each row primitive with a positive
// pivot and zeros above and below every pivot.
std::vector<Point> echelon(std::vector<Point> rows, size_t dims) {
  std::vector<Point> out;
  for (size_t col = 0; col < dims; ++col) {
    size_t pivot = rows.size();
    for (size_t r = 0; r < rows.size(); ++r)
      if (rows[r][col] != 0) {
        pivot = r;
        break;
      }
    if (pivot == rows.size()) continue;
    Point p = rows[pivot];
    rows.erase(rows.begin() + static_cast<long>(pivot));
    if (p[col] < 0) p = negated(p);
    for (Point& r : rows)
      if (r[col] != 0) r = combine(p[col], r, -r[col], p);
    for (Point& r : out)
      if (r[col] != 0) {
        r = combine(p[col], r, -r[col], p);
        for (size_t c = 0; c < dims; ++c)
          if (r[c] != 0) {
            if (r[c] < 0) r = negated(r);
            break;
          }
      }
    out.push_back(normalized(p));
    rows.erase(std::remove_if(rows.begin(), rows.end(), is_zero), rows.end());
  }
  return out;
}

// An orthogonal integer basis of the span of `basis` (Gram-Schmidt without division).
std::vector<Point> orthogonal(const std::vector<Point>& basis) {
  std::vector<Point> out;
  for (Point v : basis) {
    for (const Point& u : out) v = combine(dot(u, u), v, -dot(u, v), u);
    if (!is_zero(v)) out.push_back(v);
  }
  return out;
}

// v minus its projection on the span of the orthogonal vectors `ortho`, normalized.
Point project_out(Point v, const std::vector<Point>& ortho) {
  for (const Point& u : ortho) {
    int64_t uv = dot(u, v);
    if (uv != 0) v = combine(dot(u, u), v, -uv, u);
  }
  return normalized(v);
}

// Rays orthogonal to the lineality space, without duplicates and without those that are not
// extreme in {x : c . x >= 0 for c in cons}.
std::vector<Point> prune(const std::vector<Point>& rays, const std::vector<Point>& lin,
                         const std::vector<Point>& cons, size_t dims) {
  std::vector<Point> ortho = orthogonal(lin);
  std::vector<Point> out;
  const size_t want = dims - lin.size() - 1;
  for (const Point& r0 : rays) {
    Point r = project_out(r0, ortho);
    if (is_zero(r) || std::find(out.begin(), out.end(), r) != out.end()) continue;
    std::vector<Point> tight;
    for (const Point& c : cons)
      if (dot(c, r) == 0) tight.push_back(c);
    if (rank(tight, dims) == want) out.push_back(r);
  }
  return out;
}

}  // namespace

size_t rank(const std::vector<Point>& vectors, size_t dims) {
  std::vector<Point> rows;
  for (const Point& v : vectors)
    if (!is_zero(v)) rows.push_back(normalized(v));
  return echelon(rows, dims).size();
}

size_t Cone::dimension() const {
  std::vector<Point> all = rays;
  all.insert(all.end(), lineality.begin(), lineality.end());
  return rank(all, dims);
}

Cone halfspace_cone(const std::vector<Point>& normals, size_t dims) {
  std::vector<Point> lin, rays, cons;
  for (size_t i = 0; i < dims; ++i) {
    Point e(dims, 0);
    e[i] = 1;
    lin.push_back(e);
  }
  for (const Point& a0 : normals) {
    Point a = normalized(a0);
    if (is_zero(a) || std::find(cons.begin(), cons.end(), a) != cons.end()) continue;
    auto hit = std::find_if(lin.begin(), lin.end(), [&](const Point& l) { return dot(a, l) != 0; });
    if (hit != lin.end()) {
      // A line of the cone leaves the kernel of a: it becomes a ray (on a's positive side), the
      // other lines and the rays move into the kernel.
      Point l = *hit;
      lin.erase(hit);
      if (dot(a, l) < 0) l = negated(l);
      const int64_t al = dot(a, l);
      for (Point& m : lin) m = combine(al, m, -dot(a, m), l);
      for (Point& r : rays) r = combine(al, r, -dot(a, r), l);
      rays.push_back(l);
    } else {
      std::vector<Point> next, pos, neg;
      for (const Point& r : rays) {
        int64_t s = dot(a, r);
        if (s >= 0) next.push_back(r);
        if (s > 0) pos.push_back(r);
        if (s < 0) neg.push_back(r);
      }
      for (const Point& p : pos)
        for (const Point& q : neg) next.push_back(combine(dot(a, p), q, -dot(a, q), p));
      rays = next;
    }
    cons.push_back(a);
    rays = prune(rays, lin, cons, dims);
  }
  Cone c;
  c.dims = dims;
  c.lineality = echelon(lin, dims);
  c.rays = prune(rays, c.lineality, cons, dims);
  std::sort(c.rays.begin(), c.rays.end(), std::greater<Point>());
  return c;
}

Cone dual(const Cone& c) {
  std::vector<Point> normals = c.rays;
  for (const Point& l : c.lineality) {
    normals.push_back(l);
    normals.push_back(negated(l));
  }
  return halfspace_cone(normals, c.dims);
}

Cone conic_hull(const std::vector<Point>& generators, size_t dims) {
  return dual(halfspace_cone(generators, dims));
}

bool contains(const Cone& c, const Point& x) {
  Cone d = dual(c);
  for (const Point& h : d.rays)
    if (dot(h, x) < 0) return false;
  for (const Point& l : d.lineality)
    if (dot(l, x) != 0) return false;
  return true;
}

std::optional<Point> strictly_positive_vector(const Cone& c) {
  if (!c.pointed()) return std::nullopt;
  Point e(c.dims, 0);
  if (c.rays.empty()) {
    if (c.dims == 0) return std::nullopt;
    e[0] = 1;
    return e;
  }
  Cone d = dual(c);
  for (const Point& r : d.rays)
    for (size_t i = 0; i < c.dims; ++i) e[i] = checked(static_cast<__int128>(e[i]) + r[i]);
  return normalized(e);
}

std::optional<double> angle_2d(const Cone& c) {
  if (c.dims != 2) return std::nullopt;
  const double pi = std::acos(-1.0);
  if (c.lineality.size() == 2) return 2 * pi;
  if (c.lineality.size() == 1) return pi;
  if (c.rays.size() < 2) return 0.0;
  const Point& a = c.rays[0];
  const Point& b = c.rays[1];
  double cosine = static_cast<double>(dot(a, b)) / (std::sqrt(static_cast<double>(dot(a, a))) *
                                                    std::sqrt(static_cast<double>(dot(b, b))));
  return std::acos(std::max(-1.0, std::min(1.0, cosine)));
}

}  // namespace t2s::explore
