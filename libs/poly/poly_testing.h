// For poly_test only: the isl text a typed Set stands for, to check the builders against the
// text the passes used to write.
#pragma once

#include <cstdint>
#include <string>

#include "libs/poly/poly.h"

namespace t2s::poly {

std::string isl_text(const Set& set);
// Whether `set` and the isl set `text` have the same points (dim names aside).
bool equals_isl_text(const Set& set, const std::string& text);
// Sets of at most `points` points are enumerated instead of asking isl (uniform_step,
// max_points_within); returns the previous limit. 0: isl answers every question.
int64_t set_max_enumerated_points(int64_t points);

}  // namespace t2s::poly
