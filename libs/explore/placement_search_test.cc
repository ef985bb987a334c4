// MASAI's placement search (section 3.5.5) against brute force: the loop programs are run to
// find their dependency instances (no isl), every assignment of 2 x 2 matrices of {-1, 0, 1}
// to the statements is ranked by the definition (the dimension of the affine hull of its
// vectors), and translations are enumerated in a box with locality summed instance by instance.
#include "libs/explore/placement_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "libs/explore/explore_testing.h"
#include "libs/explore/masai.h"

namespace t2s::explore {
namespace {

using testing::read_file;
using Mat = std::array<int64_t, 4>;  // [[m0, m1], [m2, m3]]
using P2 = std::array<int64_t, 2>;

P2 mul(const Mat& m, const P2& x) { return {m[0] * x[0] + m[1] * x[1], m[2] * x[0] + m[3] * x[1]}; }

// ---- the brute force's programs: operations in written order, each with its reads --------

struct BOp2 {
  int stmt;
  P2 it;
};
struct Read {
  int array;
  P2 index;
};
struct Op2 {
  BOp2 op;
  std::vector<Read> reads;
  Read write;
};
struct Inst {
  BOp2 src, dst;
  int read;
};

std::vector<Inst> run(const std::vector<Op2>& ops) {
  std::map<std::tuple<int, int64_t, int64_t>, BOp2> last;
  std::vector<Inst> out;
  for (const Op2& o : ops) {
    for (size_t r = 0; r < o.reads.size(); ++r) {
      auto it = last.find({o.reads[r].array, o.reads[r].index[0], o.reads[r].index[1]});
      if (it != last.end()) out.push_back({it->second, o.op, static_cast<int>(r)});
    }
    last[{o.write.array, o.write.index[0], o.write.index[1]}] = o.op;
  }
  return out;
}

// Section 3.3.2's program; with `interchanged`, A's loops are written j outermost.
std::vector<Op2> three_polytopes_ops(int64_t N, bool interchanged) {
  std::vector<Op2> ops;
  const int a = 0, b = 1, in = 2;
  if (!interchanged) {
    for (int64_t i = 1; i <= N; ++i)
      for (int64_t j = 1; j <= N - i + 1; ++j)
        ops.push_back({{0, {i, j}}, {{in, {i, j}}, {a, {i - 1, j}}}, {a, {i, j}}});
  } else {
    for (int64_t j = 1; j <= N; ++j)
      for (int64_t i = 1; i <= N - j + 1; ++i)
        ops.push_back({{0, {j, i}}, {{in, {i, j}}, {a, {i - 1, j}}}, {a, {i, j}}});
  }
  for (int64_t p = 1; p <= N; ++p)
    ops.push_back({{1, {1, p}}, {{a, {N - p + 1, p}}, {a, {N - p, p}}}, {b, {p, 1}}});
  for (int64_t k = 1; k <= N; ++k)
    for (int64_t l = 1; l <= k; ++l) ops.push_back({{2, {k, l}}, {{b, {k, l}}}, {b, {k, l + 1}}});
  return ops;
}

// Section 3.5.4.3's loop interchange: a[i][j] made row by row, read column by column.
std::vector<Op2> interchange_ops(int64_t N, int64_t M) {
  std::vector<Op2> ops;
  for (int64_t i = 1; i <= N; ++i)
    for (int64_t j = 1; j <= M; ++j) ops.push_back({{0, {i, j}}, {}, {0, {i, j}}});
  for (int64_t j = 1; j <= M; ++j)
    for (int64_t i = 1; i <= N; ++i) ops.push_back({{1, {j, i}}, {{0, {i, j}}}, {1, {j, i}}});
  return ops;
}

std::vector<Mat> matrices() {
  std::vector<Mat> out;
  for (int c = 0; c < 81; ++c) {
    Mat m;
    int rest = c;
    for (int64_t& x : m) x = rest % 3 - 1, rest /= 3;
    if (m[0] * m[3] - m[1] * m[2] != 0) out.push_back(m);
  }
  return out;
}

// Dependencies by (source statement, sink statement, read), each with its instances.
std::map<std::tuple<int, int, int>, std::vector<Inst>> by_dependency(const std::vector<Inst>& all) {
  std::map<std::tuple<int, int, int>, std::vector<Inst>> out;
  for (const Inst& in : all) out[{in.src.stmt, in.dst.stmt, in.read}].push_back(in);
  return out;
}

// The dimension of the affine hull of a dependency's vectors under `maps` (2-D).
size_t hull_rank(const std::vector<Inst>& insts, const std::vector<Mat>& maps) {
  std::vector<P2> v;
  for (const Inst& in : insts) {
    P2 y = mul(maps[in.dst.stmt], in.dst.it), x = mul(maps[in.src.stmt], in.src.it);
    v.push_back({y[0] - x[0], y[1] - x[1]});
  }
  size_t rk = 0;
  P2 first{0, 0};
  for (size_t i = 1; i < v.size(); ++i) {
    P2 d{v[i][0] - v[0][0], v[i][1] - v[0][1]};
    if (d[0] == 0 && d[1] == 0) continue;
    if (rk == 0) {
      first = d;
      rk = 1;
    } else if (first[0] * d[1] - first[1] * d[0] != 0) {
      return 2;
    }
  }
  return rk;
}

// The smallest locality over translations of statements 1.. within [-R, R]^2 of their lowest
// corners aligned with statement 0's, keeping the statements apart and some ordering vector
// of [-12, 12]^2 strictly legal; -1 when none.
int64_t best_translation(const std::vector<Op2>& ops, const std::vector<Inst>& insts,
                         const std::vector<Mat>& maps, int64_t R) {
  const size_t ns = maps.size();
  std::vector<std::vector<P2>> image(ns);
  for (const Op2& o : ops) image[o.op.stmt].push_back(mul(maps[o.op.stmt], o.op.it));
  std::vector<P2> low(ns, P2{1 << 20, 1 << 20});
  for (size_t s = 0; s < ns; ++s)
    for (const P2& x : image[s])
      for (int d = 0; d < 2; ++d) low[s][d] = std::min(low[s][d], x[d]);
  std::vector<P2> t(ns, P2{0, 0});
  int64_t best = -1;
  const int64_t w = 2 * R + 1;
  int64_t total = 1;
  for (size_t s = 1; s < ns; ++s) total *= w * w;
  for (int64_t code = 0; code < total; ++code) {
    int64_t rest = code;
    for (size_t s = 1; s < ns; ++s)
      for (int d = 0; d < 2; ++d) {
        t[s][d] = low[0][d] - low[s][d] + rest % w - R;
        rest /= w;
      }
    std::vector<P2> vec;
    int64_t loc = 0;
    for (const Inst& in : insts) {
      P2 y = mul(maps[in.dst.stmt], in.dst.it), x = mul(maps[in.src.stmt], in.src.it);
      P2 v{y[0] + t[in.dst.stmt][0] - x[0] - t[in.src.stmt][0],
           y[1] + t[in.dst.stmt][1] - x[1] - t[in.src.stmt][1]};
      loc += std::llabs(v[0]) + std::llabs(v[1]);
      vec.push_back(v);
    }
    if (best >= 0 && loc >= best) continue;
    std::set<P2> seen;
    bool apart = true;
    for (size_t s = 0; s < ns && apart; ++s)
      for (const P2& x : image[s])
        if (!seen.insert({x[0] + t[s][0], x[1] + t[s][1]}).second) apart = false;
    if (!apart) continue;
    bool legal = false;
    for (int64_t a = -12; a <= 12 && !legal; ++a)
      for (int64_t b = -12; b <= 12 && !legal; ++b) {
        legal = true;
        for (const P2& v : vec)
          if (a * v[0] + b * v[1] <= 0) legal = false;
      }
    if (legal) best = loc;
  }
  return best;
}

std::vector<Mat> as_mats(const Placement& pl) {
  std::vector<Mat> out;
  for (const Affine& f : pl.maps)
    out.push_back({f.coeff[0][0], f.coeff[0][1], f.coeff[1][0], f.coeff[1][1]});
  return out;
}

struct Searched {
  PolyProgram program;
  std::vector<Dependency> deps;
  PlacementSearchResult result;
};

Searched search(const std::string& text, int64_t n) {
  Searched s{read_poly_program(text, "", {{"N", n}}), {}, {}};
  s.deps = flow_dependencies(s.program, Limits{});
  s.result = search_placements(s.program, s.deps, read_values(s.deps), PlacementSearchOptions{});
  return s;
}

// Every assignment of matrices to the statements whose ranks meet `target` (per dependency,
// in the order of `deps`' keys; the library orders them by sink, read, source: the same here).
std::vector<std::vector<Mat>> meeting(const std::vector<Inst>& all, size_t statements,
                                      const std::vector<size_t>& target, size_t* min_sum) {
  auto deps = by_dependency(all);
  std::vector<std::vector<Inst>> ordered;
  std::vector<std::tuple<int, int, int>> keys;
  for (const auto& [k, v] : deps) keys.push_back(k);
  std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(std::get<1>(a), std::get<2>(a), std::get<0>(a)) <
           std::make_tuple(std::get<1>(b), std::get<2>(b), std::get<0>(b));
  });
  for (const auto& k : keys) ordered.push_back(deps[k]);
  EXPECT_EQ(ordered.size(), target.size());
  const std::vector<Mat> m = matrices();
  std::vector<std::vector<Mat>> out;
  size_t total = 1;
  for (size_t s = 0; s < statements; ++s) total *= m.size();
  *min_sum = 1 << 20;
  for (size_t code = 0; code < total; ++code) {
    std::vector<Mat> maps;
    size_t rest = code;
    for (size_t s = 0; s < statements; ++s) maps.push_back(m[rest % m.size()]), rest /= m.size();
    size_t sum = 0;
    bool meets = true;
    for (size_t k = 0; k < ordered.size(); ++k) {
      size_t rk = hull_rank(ordered[k], maps);
      sum += rk;
      meets = meets && rk <= target[k];
    }
    *min_sum = std::min(*min_sum, sum);
    if (meets) out.push_back(maps);
  }
  return out;
}

TEST(PlacementSearchTest, ThreePolytopesAgainstBruteForce) {
  const std::string text = read_file("testdata/explore/three_polytopes.json");
  // The book's final placement (figure 3.31): locality N^2 + 3N - 2, data reuse N - 1 less.
  for (int64_t N : {3, 5}) {
    Searched s = search(text, N);
    const PlacementSearchResult& r = s.result;
    ASSERT_TRUE(r.found) << N;
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.optimal, std::vector<size_t>(5, 0));
    EXPECT_EQ(r.achieved, std::vector<size_t>(5, 0));
    EXPECT_EQ(r.ranks, std::vector<size_t>(5, 0));
    EXPECT_LE(r.costs.locality, N * N + 3 * N - 2);
    EXPECT_LE(r.costs.data_reuse, N * N + 2 * N - 1);
    // The placement's costs, recomputed from its maps by the analysis.
    PlacementCosts c = placement_costs(s.deps, read_values(s.deps), r.placement);
    EXPECT_EQ(c.locality, r.costs.locality);
    EXPECT_EQ(c.data_reuse, r.costs.data_reuse);
    PlacementAnalysis a = analyze_placement(s.program, s.deps, r.placement);
    EXPECT_TRUE(a.legal_vector.has_value());
    // Regularity first: one direction, as figure 3.31 (its maps, up to a translation of C).
    EXPECT_EQ(r.cone_dimension, 1u);
    EXPECT_EQ(a.dependency_cone.dimension(), 1u);
    EXPECT_EQ(r.placement.maps[1].coeff, (std::vector<std::vector<int64_t>>{{1, -1}, {0, 1}}));
    EXPECT_EQ(r.placement.maps[2].coeff, (std::vector<std::vector<int64_t>>{{-1, 1}, {1, 0}}));
  }
  // Brute force at N = 3: every assignment of matrices; the uniform ones are exactly those the
  // search enumerates, and no translation of any of them beats the search's locality.
  const int64_t N = 3;
  Searched s = search(text, N);
  std::vector<Op2> ops = three_polytopes_ops(N, false);
  std::vector<Inst> insts = run(ops);
  size_t min_sum = 0;
  auto uniform = meeting(insts, 3, s.result.achieved, &min_sum);
  EXPECT_EQ(min_sum, 0u);
  EXPECT_EQ(static_cast<int64_t>(uniform.size()), s.result.solutions);
  EXPECT_EQ(best_translation(ops, insts, as_mats(s.result.placement), 9), s.result.costs.locality);
  for (size_t k = 0; k < uniform.size(); k += 29) {
    int64_t best = best_translation(ops, insts, uniform[k], 8);
    if (best >= 0) {
      EXPECT_GE(best, s.result.costs.locality) << k;
    }
  }
  // The book's own final linear maps: the same optimum.
  EXPECT_EQ(best_translation(ops, insts, {{1, 0, 0, 1}, {1, -1, 0, 1}, {-1, 1, 1, 0}}, 9),
            s.result.costs.locality);
}

TEST(PlacementSearchTest, IndependentOfTheInitialDescription) {
  // Section 3.5.6.1: A's loops interchanged in the initial description; the search finds a
  // placement as good as before (the book: "the same solution").
  std::string text = read_file("testdata/explore/three_polytopes.json");
  const std::string from = "\"domain\": \"{ A[i, j] : 1 <= i <= N and 1 <= j <= N - i + 1 }\"";
  const std::string to = "\"domain\": \"{ A[j, i] : 1 <= i <= N and 1 <= j <= N - i + 1 }\"";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), to);
  for (const char* pat :
       {"{ A[i, j] -> a[i, j] }", "{ A[i, j] -> in[i, j] }", "{ A[i, j] -> a[i - 1, j] }"}) {
    std::string p = pat, q = p;
    q.replace(q.find("A[i, j]"), 7, "A[j, i]");
    ASSERT_NE(text.find(p), std::string::npos);
    text.replace(text.find(p), p.size(), q);
  }
  // Its placements assume the old A; keep only the search.
  text = text.substr(0, text.rfind(",", text.find("\"placements\""))) + "\n}\n";
  for (int64_t N : {3, 5}) {
    Searched s = search(text, N);
    ASSERT_TRUE(s.result.found);
    EXPECT_EQ(s.result.ranks, std::vector<size_t>(5, 0));
    EXPECT_EQ(s.result.costs.locality, N * N + 3 * N - 2);
    EXPECT_EQ(s.result.costs.data_reuse, N * N + 2 * N - 1);
    if (N == 3) {
      std::vector<Op2> ops = three_polytopes_ops(N, true);
      EXPECT_EQ(best_translation(ops, run(ops), as_mats(s.result.placement), 9),
                s.result.costs.locality);
    }
  }
}

TEST(PlacementSearchTest, LoopInterchange) {
  // Section 3.5.4.3, not one of the book's worked numbers: a[i][j] written row by row and read
  // column by column. Uniform only when one statement is interchanged against the other.
  const std::string text = R"({"t2s_explore": 1, "params": {"N": 3},
    "statements": [
      {"name": "P", "domain": "{ P[i, j] : 1 <= i <= N and 1 <= j <= N + 1 }",
       "writes": ["{ P[i, j] -> a[i, j] }"]},
      {"name": "Q", "domain": "{ Q[j, i] : 1 <= i <= N and 1 <= j <= N + 1 }",
       "writes": ["{ Q[j, i] -> b[j, i] }"], "reads": ["{ Q[j, i] -> a[i, j] }"]}]})";
  Searched s = search(text, 3);
  ASSERT_TRUE(s.result.found);
  EXPECT_EQ(s.result.optimal, std::vector<size_t>{0});
  EXPECT_EQ(s.result.ranks, std::vector<size_t>{0});
  std::vector<Op2> ops = interchange_ops(3, 4);
  std::vector<Inst> insts = run(ops);
  size_t min_sum = 0;
  auto uniform = meeting(insts, 2, s.result.achieved, &min_sum);
  EXPECT_EQ(static_cast<int64_t>(uniform.size()), s.result.solutions);
  int64_t best = -1;
  for (const auto& maps : uniform) {
    int64_t b = best_translation(ops, insts, maps, 8);
    if (b >= 0 && (best < 0 || b < best)) best = b;
  }
  EXPECT_EQ(s.result.costs.locality, best);
  // 12 vectors of length 1: not side by side (length 3) but interleaved, each statement mapped
  // with determinant 2 onto one coset of a lattice (the book allows such stretched mappings).
  EXPECT_EQ(s.result.costs.locality, 12);
  EXPECT_EQ(std::abs(determinant(s.result.placement.maps[0].coeff)), 2);
  PlacementAnalysis a = analyze_placement(s.program, s.deps, s.result.placement);
  EXPECT_TRUE(a.deps[0].uniform);
}

TEST(PlacementSearchTest, StartingSetAndRank) {
  // 2 x 2 of {-1, 0, 1}: 48 non-singular; the identity comes first.
  auto set = starting_set(2, 2, {-1, 0, 1});
  EXPECT_EQ(set.size(), 48u);
  EXPECT_EQ(set[0], (std::vector<std::vector<int64_t>>{{1, 0}, {0, 1}}));
  // A 1-D statement in 2-D: the 9 - 1 non-zero columns of {-1, 0, 1}^2.
  EXPECT_EQ(starting_set(2, 1, {-1, 0, 1}).size(), 8u);
  // rank(I - D') from the affine hull's basis equals the analysis' rank on every instance:
  // the initial placement (figure 3.28) maps every statement by the identity plus an offset.
  PolyProgram p =
      read_poly_program(read_file("testdata/explore/three_polytopes.json"), "", {{"N", 5}});
  std::vector<Dependency> deps = flow_dependencies(p, Limits{});
  PlacementAnalysis initial = analyze_placement(p, deps, p.placements[0]);
  PlacementAnalysis final_ = analyze_placement(p, deps, p.placements[2]);
  for (size_t k = 0; k < deps.size(); ++k) {
    EXPECT_EQ(mapped_rank(deps[k], set[0], set[0], 2), initial.deps[k].linear_rank) << k;
    EXPECT_EQ(mapped_rank(deps[k], p.placements[2].maps[deps[k].src].coeff,
                          p.placements[2].maps[deps[k].dst].coeff, 2),
              final_.deps[k].linear_rank)
        << k;
  }
  EXPECT_EQ(initial.deps[3].linear_rank, 1u);  // B -> C, figure 3.28
}

// ---- 3-D: translations against brute force ------------------------------------------------

using P3 = std::array<int64_t, 3>;
using M3 = std::vector<std::vector<int64_t>>;

P3 mul3(const M3& m, const std::vector<int64_t>& x) {
  P3 y{0, 0, 0};
  for (size_t r = 0; r < 3; ++r)
    for (size_t c = 0; c < 3; ++c) y[r] += m[r][c] * x[c];
  return y;
}

P3 cross(const P3& a, const P3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

int64_t dot3(const P3& a, const P3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// The dimension of the span of 3-D vectors: a non-zero one, one off its line, one off their
// plane.
size_t rank3(const std::vector<P3>& v) {
  const P3 zero{0, 0, 0};
  auto a = std::find_if(v.begin(), v.end(), [&](const P3& x) { return x != zero; });
  if (a == v.end()) return 0;
  auto b = std::find_if(v.begin(), v.end(), [&](const P3& x) { return cross(*a, x) != zero; });
  if (b == v.end()) return 1;
  const P3 n = cross(*a, *b);
  return std::any_of(v.begin(), v.end(), [&](const P3& x) { return dot3(n, x) != 0; }) ? 3 : 2;
}

// Three 3-D statements on 2 x 2 x 2 boxes: S1 a recurrence along i, S2 reads S1 transposed
// (i and k swapped), S3 reads S2 in place and S1's last plane i = 1 (a broadcast: not uniform;
// kThreeCubesUniform leaves it out, so that a cone of one direction can be reached).
const char* kThreeCubes = R"({"t2s_explore": 1, "space": ["x1", "x2", "x3"],
  "statements": [
    {"name": "S1", "domain": "{ S1[i, j, k] : 0 <= i <= 1 and 0 <= j <= 1 and 0 <= k <= 1 }",
     "writes": ["{ S1[i, j, k] -> a[i, j, k] }"], "reads": ["{ S1[i, j, k] -> a[i - 1, j, k] }"]},
    {"name": "S2", "domain": "{ S2[i, j, k] : 0 <= i <= 1 and 0 <= j <= 1 and 0 <= k <= 1 }",
     "writes": ["{ S2[i, j, k] -> b[i, j, k] }"], "reads": ["{ S2[i, j, k] -> a[k, j, i] }"]},
    {"name": "S3", "domain": "{ S3[i, j, k] : 0 <= i <= 1 and 0 <= j <= 1 and 0 <= k <= 1 }",
     "writes": ["{ S3[i, j, k] -> c[i, j, k] }"],
     "reads": ["{ S3[i, j, k] -> b[i, j, k] }", "{ S3[i, j, k] -> a[1, j, k] }"]}]})";

std::string three_cubes(bool broadcast) {
  std::string text = kThreeCubes;
  const std::string read = ", \"{ S3[i, j, k] -> a[1, j, k] }\"";
  if (!broadcast) text.erase(text.find(read), read.size());
  return text;
}

std::vector<testing::BOp> three_cubes_ops() {
  std::vector<testing::BOp> ops;
  for (const char* s : {"S1", "S2", "S3"})
    for (int64_t i = 0; i <= 1; ++i)
      for (int64_t j = 0; j <= 1; ++j)
        for (int64_t k = 0; k <= 1; ++k) ops.push_back({s, {i, j, k}});
  return ops;
}

testing::BEffect three_cubes_effect(const testing::BOp& op, bool broadcast) {
  const int64_t i = op.it[0], j = op.it[1], k = op.it[2];
  if (op.stmt == "S1") return {{{"a", {i - 1, j, k}}}, {{"a", {i, j, k}}}};
  if (op.stmt == "S2") return {{{"a", {k, j, i}}}, {{"b", {i, j, k}}}};
  if (!broadcast) return {{{"b", {i, j, k}}}, {{"c", {i, j, k}}}};
  return {{{"b", {i, j, k}}, {"a", {1, j, k}}}, {{"c", {i, j, k}}}};
}

// The smallest (cone dimension, locality) over translations of statements 1.. within [-R, R]^3
// of their lowest corners aligned with statement 0's, apart (or, with `overlap`, sharing points
// where the statements' order makes a zero vector legal) and some ordering vector of [-6, 6]^3
// strictly legal; (4, -1) when none.
std::pair<size_t, int64_t> brute_translation3(const std::vector<testing::BOp>& ops,
                                              const std::vector<testing::BInstance>& insts,
                                              const std::vector<M3>& maps, int64_t R,
                                              bool overlap) {
  auto index = [](const std::string& name) { return static_cast<size_t>(name[1] - '1'); };
  const size_t ns = maps.size();
  std::vector<std::vector<P3>> image(ns);
  for (const testing::BOp& o : ops) image[index(o.stmt)].push_back(mul3(maps[index(o.stmt)], o.it));
  std::vector<P3> low(ns, P3{1 << 20, 1 << 20, 1 << 20});
  for (size_t s = 0; s < ns; ++s)
    for (const P3& x : image[s])
      for (int d = 0; d < 3; ++d) low[s][d] = std::min(low[s][d], x[d]);
  std::pair<size_t, int64_t> best{4, -1};
  const int64_t w = 2 * R + 1;
  int64_t total = 1;
  for (size_t s = 1; s < ns; ++s) total *= w * w * w;
  std::vector<P3> t(ns, P3{0, 0, 0});
  std::vector<P3> vec;
  for (int64_t code = 0; code < total; ++code) {
    int64_t rest = code;
    for (size_t s = 1; s < ns; ++s)
      for (int d = 0; d < 3; ++d) {
        t[s][d] = low[0][d] - low[s][d] + rest % w - R;
        rest /= w;
      }
    vec.clear();
    int64_t loc = 0;
    bool zero_ok = true;
    for (const testing::BInstance& in : insts) {
      const size_t a = index(in.src.stmt), b = index(in.dst.stmt);
      P3 y = mul3(maps[b], in.dst.it), x = mul3(maps[a], in.src.it), v;
      for (int d = 0; d < 3; ++d) v[d] = y[d] + t[b][d] - x[d] - t[a][d];
      loc += std::llabs(v[0]) + std::llabs(v[1]) + std::llabs(v[2]);
      if (v == P3{0, 0, 0}) {
        zero_ok = zero_ok && overlap && a < b;
        continue;
      }
      vec.push_back(v);
    }
    if (!zero_ok) continue;
    const std::pair<size_t, int64_t> here{rank3(vec), loc};
    if (best.second >= 0 && here >= best) continue;
    if (!overlap) {
      std::set<P3> seen;
      bool apart = true;
      for (size_t s = 0; s < ns && apart; ++s)
        for (const P3& x : image[s])
          if (!seen.insert({x[0] + t[s][0], x[1] + t[s][1], x[2] + t[s][2]}).second) apart = false;
      if (!apart) continue;
    }
    bool legal = false;
    for (int64_t a = -6; a <= 6 && !legal; ++a)
      for (int64_t b = -6; b <= 6 && !legal; ++b)
        for (int64_t c = -6; c <= 6 && !legal; ++c)
          legal = std::all_of(vec.begin(), vec.end(),
                              [&](const P3& v) { return a * v[0] + b * v[1] + c * v[2] > 0; });
    if (legal) best = here;
  }
  return best;
}

M3 permutation(const std::array<int, 3>& to) {
  M3 m(3, std::vector<int64_t>(3, 0));
  for (int r = 0; r < 3; ++r) m[r][to[r]] = 1;
  return m;
}

TEST(PlacementSearchTest, TranslationsIn3DAgainstBruteForce) {
  // The book's bounding-box construction, its compaction, and the exact branch and bound
  // (candidates on a line or a plane once the vectors span the cone's dimension) against every
  // translation in the radius, for S1 unmapped and S2, S3 under every permutation of the axes
  // and a skew; radius 0 to 2, apart and sharing points.
  const std::vector<testing::BOp> ops = three_cubes_ops();
  std::vector<M3> maps;
  std::array<int, 3> perm{0, 1, 2};
  do {
    maps.push_back(permutation(perm));
  } while (std::next_permutation(perm.begin(), perm.end()));
  maps.push_back({{1, 1, 0}, {0, 1, 0}, {0, 0, 1}});
  const M3 id = permutation({0, 1, 2});
  const size_t swap = 5;  // (k, j, i)
  ASSERT_EQ(maps[swap], permutation({2, 1, 0}));
  size_t found = 0, lines = 0;
  for (bool broadcast : {true, false}) {
    PolyProgram p = read_poly_program(three_cubes(broadcast), "", {});
    std::vector<Dependency> deps = flow_dependencies(p, Limits{});
    ASSERT_EQ(deps.size(), broadcast ? 4u : 3u);
    const std::vector<testing::BInstance> insts = testing::run(
        ops, [&](const testing::BOp& op) { return three_cubes_effect(op, broadcast); });
    for (int64_t R : {0, 1, 2, 4})
      for (bool overlap : {false, true})
        for (size_t a = 0; a < maps.size(); ++a)
          for (size_t b = 0; b < maps.size(); ++b) {
            // A sample at the small radii; at radius 4 (far enough for S2 and S3 to follow S1
            // along x1 apart) the transposed pairs.
            if (R < 2 && (a + b) % 3 != 0) continue;
            if (R == 4 && (overlap || broadcast || a != swap || (b != swap && b != 0))) continue;
            PlacementSearchOptions o;
            o.radius = R;
            o.overlap = overlap;
            TranslationResult t = best_translation(p, deps, {id, maps[a], maps[b]}, o);
            auto brute = brute_translation3(ops, insts, {id, maps[a], maps[b]}, R, overlap);
            // The exact search alone, without the bounding boxes' translation to start from,
            // reaches the same.
            o.build_from_boxes = false;
            TranslationResult alone = best_translation(p, deps, {id, maps[a], maps[b]}, o);
            EXPECT_EQ(alone.found, t.found);
            EXPECT_EQ(alone.cone_dimension, t.cone_dimension);
            EXPECT_EQ(alone.locality, t.locality);
            const std::string what = std::string(broadcast ? "" : "no broadcast, ") + "R " +
                                     std::to_string(R) + (overlap ? " overlap" : "") + ", maps " +
                                     std::to_string(a) + ", " + std::to_string(b);
            EXPECT_TRUE(t.complete) << what;
            EXPECT_EQ(t.radius, R) << what;
            ASSERT_EQ(t.found, brute.second >= 0) << what;
            if (!t.found) continue;
            ++found;
            lines += t.cone_dimension == 1 && !overlap;
            EXPECT_EQ(t.cone_dimension, brute.first) << what;
            EXPECT_EQ(t.locality, brute.second) << what;
            // The translation found is what it claims, by the analysis.
            PlacementAnalysis an = analyze_placement(p, deps, t.placement);
            EXPECT_EQ(an.dependency_cone.dimension(), t.cone_dimension) << what;
            EXPECT_TRUE(an.legal_vector.has_value()) << what;
            EXPECT_EQ(placement_costs(deps, read_values(deps), t.placement).locality, t.locality)
                << what;
          }
  }
  // Not vacuous: many have a translation, some apart with a cone of one direction.
  EXPECT_GT(found, 50u);
  EXPECT_GT(lines, 0u);
}

// No two operations of `pl` on one point.
bool apart(const PolyProgram& p, const Placement& pl) {
  std::set<Point> seen;
  for (size_t s = 0; s < p.statements.size(); ++s)
    for (const Point& x : p.statements[s].domain.points(1 << 20))
      if (!seen.insert(pl.maps[s].apply(x)).second) return false;
  return true;
}

// Checks a search's result by the analysis: legal, the statements apart, its costs and cone.
void expect_valid(const PolyProgram& p, const std::vector<Dependency>& deps,
                  const PlacementSearchResult& r, const std::string& what) {
  ASSERT_TRUE(r.found) << what;
  EXPECT_TRUE(apart(p, r.placement)) << what;
  PlacementAnalysis a = analyze_placement(p, deps, r.placement);
  EXPECT_TRUE(a.legal_vector.has_value()) << what;
  EXPECT_EQ(a.dependency_cone.dimension(), r.cone_dimension) << what;
  PlacementCosts c = placement_costs(deps, read_values(deps), r.placement);
  EXPECT_EQ(c.locality, r.costs.locality) << what;
  EXPECT_EQ(c.data_reuse, r.costs.data_reuse) << what;
}

Searched search_with(const std::string& file, const PlacementSearchOptions& o) {
  Searched s{read_poly_program(read_file(file), "", {}), {}, {}};
  s.deps = flow_dependencies(s.program, Limits{});
  s.result = search_placements(s.program, s.deps, read_values(s.deps), o);
  return s;
}

TEST(PlacementSearchTest, FourNestsKeptApart) {
  // Issue 35: four 3-D statements kept apart, radius 4 to 6, were reported complete with "no
  // placement exists" while one with a cone of dimension 2 lay inside the radius. Now found,
  // complete, with the default radius too; the search, exhaustive, finds no translation that
  // gives a cone of one direction (in the placement found, the two non-uniform dependencies
  // into S4 run along two directions).
  for (int64_t R : {4, 6, -1}) {
    PlacementSearchOptions o;
    o.radius = R;
    Searched s = search_with("testdata/explore/four_nests.json", o);
    const std::string what = "radius " + std::to_string(R);
    expect_valid(s.program, s.deps, s.result, what);
    EXPECT_TRUE(s.result.complete) << what;
    EXPECT_TRUE(s.result.stopped_by.empty()) << what;
    EXPECT_EQ(s.result.cone_dimension, 2u) << what;
    if (R >= 0) {
      EXPECT_EQ(s.result.radius, R) << what;
    }
  }
}

TEST(PlacementSearchTest, Figure43KeptApart) {
  // Figure 4.3's four statements kept apart. With the default radius a cone of one direction
  // (x1, S2's own recurrence): S1 just before S2 (12 vectors of length 1), S2's 48 of length 1,
  // and S3 and S4 after S2 along x1 with S3 moved down by 2 in x2 (its read of B[i][j - 2][k])
  // and clear of S4: S4 one step (12) and S3 six (30 x 6), or S3 five and S4 six (282): 252.
  {
    Searched s = search_with("testdata/explore/storage_estimation.json", {});
    expect_valid(s.program, s.deps, s.result, "default radius");
    EXPECT_TRUE(s.result.complete);
    EXPECT_EQ(s.result.cone_dimension, 1u);
    EXPECT_EQ(s.result.costs.locality, 12 + 48 + 30 * 6 + 12);
  }
  // Within radius 4 to 6, S3 cannot get six steps past S2 and S4 past S3: a plane, complete.
  for (int64_t R : {4, 5, 6}) {
    PlacementSearchOptions o;
    o.radius = R;
    Searched s = search_with("testdata/explore/storage_estimation.json", o);
    const std::string what = "radius " + std::to_string(R);
    expect_valid(s.program, s.deps, s.result, what);
    EXPECT_TRUE(s.result.complete) << what;
    EXPECT_EQ(s.result.cone_dimension, 2u) << what;
    EXPECT_EQ(s.result.radius, R) << what;
  }
}

bool has_prefix(const std::vector<std::string>& v, const std::string& prefix) {
  return std::any_of(v.begin(), v.end(),
                     [&](const std::string& x) { return x.rfind(prefix, 0) == 0; });
}

TEST(PlacementSearchTest, EveryLimitIsNamed) {
  // A search cut by a limit is incomplete and names it; what it found is still valid.
  {
    PlacementSearchOptions o;
    o.max_checks = 1;
    Searched s = search_with("testdata/explore/four_nests.json", o);
    EXPECT_FALSE(s.result.complete);
    EXPECT_TRUE(has_prefix(s.result.stopped_by, "translations checked per linear placement (1)"))
        << ::testing::PrintToString(s.result.stopped_by);
    // The bounding-box construction still places the statements.
    expect_valid(s.program, s.deps, s.result, "1 check per placement");
    EXPECT_GT(s.result.constructed, 0);
  }
  {
    PlacementSearchOptions o;
    o.max_total_checks = 10;
    Searched s = search_with("testdata/explore/storage_estimation.json", o);
    EXPECT_FALSE(s.result.complete);
    EXPECT_TRUE(has_prefix(s.result.stopped_by, "translations checked in all (10)"))
        << ::testing::PrintToString(s.result.stopped_by);
  }
  {
    PlacementSearchOptions o;
    o.max_solutions = 1;
    Searched s = search_with("testdata/explore/three_polytopes.json", o);
    EXPECT_FALSE(s.result.complete);
    EXPECT_EQ(
        s.result.stopped_by,
        std::vector<std::string>{"linear placements meeting the final ranks (--place-limit 1)"});
    expect_valid(s.program, s.deps, s.result, "one linear placement");
  }
  {
    // Too few backtracking steps to map the three statements once: nothing, and not "none
    // exists".
    PlacementSearchOptions o;
    o.max_iterations = 2;
    Searched s = search_with("testdata/explore/three_polytopes.json", o);
    EXPECT_FALSE(s.result.found);
    EXPECT_FALSE(s.result.complete);
    EXPECT_EQ(s.result.stopped_by, std::vector<std::string>{"backtracking steps (2)"});
    ASSERT_EQ(s.result.notes.size(), 1u);
    EXPECT_NE(s.result.notes[0].find("stopped at a limit"), std::string::npos);
  }
  {
    // Enough to find linear placements, not to tighten every rank: the best of those seen.
    PlacementSearchOptions o;
    o.max_iterations = 500;
    Searched s = search_with("testdata/explore/three_polytopes.json", o);
    EXPECT_FALSE(s.result.complete);
    EXPECT_EQ(s.result.stopped_by, std::vector<std::string>{"backtracking steps (500)"});
    expect_valid(s.program, s.deps, s.result, "500 steps");
  }
  {
    // Radius 0 is no limit of the search but of its space: searched exhaustively, none.
    PlacementSearchOptions o;
    o.radius = 0;
    Searched s = search_with("testdata/explore/four_nests.json", o);
    EXPECT_FALSE(s.result.found);
    EXPECT_TRUE(s.result.complete);
    ASSERT_EQ(s.result.notes.size(), 1u);
    EXPECT_NE(s.result.notes[0].find("no placement exists"), std::string::npos);
    EXPECT_NE(s.result.notes[0].find("within radius 0"), std::string::npos);
  }
}

}  // namespace
}  // namespace t2s::explore
