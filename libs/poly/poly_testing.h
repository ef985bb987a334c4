// For poly_test only: the isl text a typed Set stands for, to check the builders against the
// text the passes used to write.
#pragma once

#include <string>

#include "libs/poly/poly.h"

namespace t2s::poly {

std::string isl_text(const Set& set);
// Whether `set` and the isl set `text` have the same points (dim names aside).
bool equals_isl_text(const Set& set, const std::string& text);

}  // namespace t2s::poly
