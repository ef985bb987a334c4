#include "libs/explore/cone.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numeric>

namespace t2s::explore {
namespace {

int64_t dot(const Point& a, const Point& b) {
  int64_t s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Every integer point of [-r, r]^n.
void for_box(size_t n, int64_t r, const std::function<void(const Point&)>& f) {
  Point p(n, -r);
  for (;;) {
    f(p);
    size_t i = 0;
    while (i < n && p[i] == r) p[i++] = -r;
    if (i == n) return;
    ++p[i];
  }
}

// Brute force, by Farkas' lemma: x is a non-negative combination of `gens` unless some small
// integer y has y . g >= 0 for every generator and y . x < 0.
bool in_hull_brute(const std::vector<Point>& gens, const Point& x) {
  bool separated = false;
  for_box(x.size(), 4, [&](const Point& y) {
    if (separated || dot(y, x) >= 0) return;
    for (const Point& g : gens)
      if (dot(y, g) < 0) return;
    separated = true;
  });
  return !separated;
}

Point primitive(Point v) {
  int64_t g = 0;
  for (int64_t x : v) g = std::gcd(g, x < 0 ? -x : x);
  for (int64_t& x : v) x /= g;
  return v;
}

// The generators that are not in the hull of the others (up to positive multiples).
std::vector<Point> extreme_brute(const std::vector<Point>& gens) {
  std::vector<Point> out;
  for (const Point& g : gens) {
    Point d = primitive(g);
    std::vector<Point> others;
    for (const Point& h : gens)
      if (primitive(h) != d) others.push_back(h);
    if (!in_hull_brute(others, g) && std::find(out.begin(), out.end(), d) == out.end())
      out.push_back(d);
  }
  std::sort(out.begin(), out.end(), std::greater<Point>());
  return out;
}

void check_against_brute_force(const std::vector<Point>& gens, size_t n) {
  Cone hull = conic_hull(gens, n);
  Cone allowed = dual(hull);
  for_box(n, 3, [&](const Point& x) {
    EXPECT_EQ(contains(hull, x), in_hull_brute(gens, x)) << "hull, x[0]=" << x[0];
    bool legal = true;
    for (const Point& g : gens) legal = legal && dot(x, g) >= 0;
    EXPECT_EQ(contains(allowed, x), legal);
  });
  if (hull.pointed()) {
    EXPECT_EQ(hull.rays, extreme_brute(gens));
  }
}

TEST(ConeTest, TwoDimensionalCones) {
  // The initial placement of DTSE figure 3.28: every vector between up and right.
  std::vector<Point> initial = {{1, 0}, {2, 0}, {1, 4}, {2, 3}, {3, 2}, {4, 1}, {0, 1}};
  Cone c = conic_hull(initial, 2);
  EXPECT_EQ(c.rays, (std::vector<Point>{{1, 0}, {0, 1}}));
  EXPECT_NEAR(*angle_2d(c), std::acos(-1.0) / 2, 1e-12);
  check_against_brute_force(initial, 2);
  // Figure 3.31: all vectors point up; the allowed cone is a half-plane.
  Cone up = conic_hull({{1, 0}, {2, 0}}, 2);
  EXPECT_EQ(up.rays, (std::vector<Point>{{1, 0}}));
  EXPECT_EQ(*angle_2d(up), 0.0);
  Cone half = dual(up);
  EXPECT_EQ(half.rays, (std::vector<Point>{{1, 0}}));
  EXPECT_EQ(half.lineality, (std::vector<Point>{{0, 1}}));
  EXPECT_EQ(*strictly_positive_vector(up), (Point{1, 0}));
  // Opposite vectors: a line, and no legal ordering vector.
  Cone line = conic_hull({{1, 0}, {-1, 0}}, 2);
  EXPECT_FALSE(line.pointed());
  EXPECT_FALSE(strictly_positive_vector(line));
  check_against_brute_force({{1, 0}, {-1, 0}, {1, 1}}, 2);
  check_against_brute_force({{1, -2}, {3, 1}, {2, -1}}, 2);
  EXPECT_TRUE(conic_hull({}, 2).zero());
}

TEST(ConeTest, ThreeDimensionalCones) {
  check_against_brute_force({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}}, 3);
  // A square pyramid: four extreme rays and an interior one (DTSE figure 3.20 has six).
  std::vector<Point> pyramid = {{1, 0, 1}, {0, 1, 1}, {-1, 0, 1}, {0, -1, 1}, {0, 0, 1}};
  EXPECT_EQ(conic_hull(pyramid, 3).rays.size(), 4u);
  check_against_brute_force(pyramid, 3);
  std::vector<Point> hexagon = {{2, 0, 1},  {1, 2, 1},   {-1, 2, 1},
                                {-2, 0, 1}, {-1, -2, 1}, {1, -2, 1}};
  EXPECT_EQ(conic_hull(hexagon, 3).rays.size(), 6u);
  check_against_brute_force(hexagon, 3);
  // A flat cone in 3-D: its allowed cone is degenerate (figure 3.18), lines along its normal.
  std::vector<Point> flat = {{1, 0, 0}, {0, 1, 0}};
  Cone f = conic_hull(flat, 3);
  EXPECT_EQ(f.dimension(), 2u);
  EXPECT_EQ(dual(f).lineality, (std::vector<Point>{{0, 0, 1}}));
  check_against_brute_force(flat, 3);
  check_against_brute_force({{1, 0, 0}, {0, 1, 0}, {-1, -1, 0}}, 3);  // a plane
  auto pi = strictly_positive_vector(conic_hull({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, 3));
  EXPECT_EQ(*pi, (Point{1, 1, 1}));
}

TEST(ConeTest, Rank) {
  EXPECT_EQ(rank({{1, 2, 3}, {2, 4, 6}, {0, 0, 0}}, 3), 1u);
  EXPECT_EQ(rank({{1, 0, 1}, {0, 1, 1}, {1, 1, 2}}, 3), 2u);
  EXPECT_EQ(rank({{1, 0, 1}, {0, 1, 1}, {1, 1, 3}}, 3), 3u);
}

}  // namespace
}  // namespace t2s::explore
