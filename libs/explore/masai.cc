#include "libs/explore/masai.h"

#include <cmath>
#include <stdexcept>

namespace t2s::explore {

int64_t determinant(std::vector<std::vector<int64_t>> m) {
  // Bareiss: every division is exact.
  const size_t n = m.size();
  if (n == 0) return 1;
  int64_t sign = 1;
  __int128 prev = 1;
  std::vector<std::vector<__int128>> a(n, std::vector<__int128>(n));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) a[i][j] = m[i][j];
  for (size_t k = 0; k + 1 < n; ++k) {
    if (a[k][k] == 0) {
      size_t swap = k + 1;
      while (swap < n && a[swap][k] == 0) ++swap;
      if (swap == n) return 0;
      std::swap(a[k], a[swap]);
      sign = -sign;
    }
    for (size_t i = k + 1; i < n; ++i)
      for (size_t j = k + 1; j < n; ++j) a[i][j] = (a[i][j] * a[k][k] - a[i][k] * a[k][j]) / prev;
    prev = a[k][k];
  }
  __int128 d = a[n - 1][n - 1] * sign;
  if (d > INT64_MAX || d < INT64_MIN) throw std::overflow_error("explore: determinant too large");
  return static_cast<int64_t>(d);
}

std::optional<StartingSet> masai_starting_set(size_t n, const std::vector<int64_t>& coefficients) {
  const size_t k = coefficients.size();
  const size_t cells = n * n;
  double total = std::pow(static_cast<double>(k), static_cast<double>(cells));
  if (k == 0 || total > static_cast<double>(int64_t{1} << 26)) return std::nullopt;
  StartingSet s;
  std::vector<size_t> digit(cells, 0);
  std::vector<std::vector<int64_t>> m(n, std::vector<int64_t>(n));
  for (;;) {
    for (size_t c = 0; c < cells; ++c) m[c / n][c % n] = coefficients[digit[c]];
    ++s.matrices;
    if (determinant(m) != 0) ++s.nonsingular;
    size_t c = 0;
    while (c < cells && digit[c] + 1 == k) digit[c++] = 0;
    if (c == cells) break;
    ++digit[c];
  }
  return s;
}

}  // namespace t2s::explore
