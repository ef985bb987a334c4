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

}  // namespace
}  // namespace t2s::explore
