#include "libs/explore/masai.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace t2s::explore {
namespace {

// Leibniz's formula: a sum over permutations, independent of the elimination.
int64_t leibniz(const std::vector<std::vector<int64_t>>& m) {
  const size_t n = m.size();
  std::vector<size_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  int64_t det = 0;
  do {
    int64_t term = 1;
    for (size_t i = 0; i < n; ++i) term *= m[i][p[i]];
    int inversions = 0;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j) inversions += p[i] > p[j];
    det += inversions % 2 ? -term : term;
  } while (std::next_permutation(p.begin(), p.end()));
  return det;
}

int64_t brute_nonsingular(size_t n, const std::vector<int64_t>& coeff) {
  const size_t cells = n * n;
  int64_t total = 1, count = 0;
  for (size_t c = 0; c < cells; ++c) total *= static_cast<int64_t>(coeff.size());
  for (int64_t code = 0; code < total; ++code) {
    std::vector<std::vector<int64_t>> m(n, std::vector<int64_t>(n));
    int64_t rest = code;
    for (size_t c = 0; c < cells; ++c) {
      m[c / n][c % n] = coeff[static_cast<size_t>(rest % static_cast<int64_t>(coeff.size()))];
      rest /= static_cast<int64_t>(coeff.size());
    }
    if (leibniz(m) != 0) ++count;
  }
  return count;
}

TEST(MasaiTest, StartingSetSizes) {
  // With coefficients 0 and 1 (the prototype's): 2^(n^2) matrices, of which 6, 174 and 22560
  // are non-singular for n = 2, 3, 4: the book's "about 22000" in four dimensions.
  const std::vector<int64_t> zero_one = {0, 1};
  auto s2 = masai_starting_set(2, zero_one), s3 = masai_starting_set(3, zero_one),
       s4 = masai_starting_set(4, zero_one);
  EXPECT_EQ(s2->matrices, 16);
  EXPECT_EQ(s2->nonsingular, 6);
  EXPECT_EQ(s3->matrices, 512);
  EXPECT_EQ(s3->nonsingular, 174);
  EXPECT_EQ(s4->matrices, 65536);
  EXPECT_EQ(s4->nonsingular, 22560);
  EXPECT_EQ(s3->nonsingular, brute_nonsingular(3, zero_one));
  EXPECT_EQ(s4->nonsingular, brute_nonsingular(4, zero_one));
  // With -1, 0 and 1 ("a straightforward choice"): 3^(n^2) matrices.
  auto t2 = masai_starting_set(2, {-1, 0, 1});
  EXPECT_EQ(t2->matrices, 81);
  EXPECT_EQ(t2->nonsingular, brute_nonsingular(2, {-1, 0, 1}));
  EXPECT_EQ(masai_starting_set(3, {-1, 0, 1})->nonsingular, brute_nonsingular(3, {-1, 0, 1}));
  EXPECT_FALSE(masai_starting_set(5, {-1, 0, 1}));
}

TEST(MasaiTest, Determinant) {
  EXPECT_EQ(determinant({{2, 0, 1}, {1, 3, 2}, {1, 1, 1}}),
            leibniz({{2, 0, 1}, {1, 3, 2}, {1, 1, 1}}));
  EXPECT_EQ(determinant({{0, 1}, {1, 0}}), -1);
  EXPECT_EQ(determinant({{1, 2}, {2, 4}}), 0);
}

}  // namespace
}  // namespace t2s::explore
