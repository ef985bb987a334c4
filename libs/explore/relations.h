// t2s-explore's sets and relations are libs/poly's (libs/poly/relations.h, the one place that
// talks to isl); these names let the exploration write IntSet for poly::IntSet.
#pragma once

#include "libs/poly/relations.h"

namespace t2s::explore {

using poly::Affine;
using poly::Constraint;
using poly::dataflow;
using poly::IntMap;
using poly::IntSet;
using poly::Params;
using poly::parse_map;
using poly::parse_set;
using poly::Point;
using poly::PolyError;
using poly::TooManyPoints;

}  // namespace t2s::explore
