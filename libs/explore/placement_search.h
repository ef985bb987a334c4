// MASAI's placement search (DTSE section 3.5.5): linear mappings of every polytope into the
// common space, chosen from a starting set (matrices of small coefficients, full column rank),
// by constraint-based backtracking on the ranks rank(I - D') of the mapped dependencies:
//   phase 1: per dependency, every pair of mappings of its two polytopes and its rank, so each
//            mapping's best achievable rank per dependency and each dependency's optimal rank;
//   phase 2: per polytope, the mappings that can meet the current target rank of every
//            dependency it takes part in (the constraints);
//   phase 3: backtracking, polytope by polytope, over those mappings, checking the dependencies
//            with the polytopes already mapped; the target ranks start loose (the dimension)
//            and are tightened one dependency at a time while a solution exists (figures
//            3.34-3.35), the search tree reordered by conflicts when an attempt runs long.
// The book stops at the first placement meeting the final targets; this search enumerates all
// of them (up to a limit) and gives each its translation of smallest locality among those that
// keep the polytopes apart and admit a strictly legal ordering vector, then keeps the best: the
// smallest dimension of the global dependency cone (regularity first, section 3.5.3), then
// locality, data reuse, refined locality. Translations (section 3.5.7) are built as the book
// foresees: first from the polytopes' bounding boxes (each statement placed next to those it
// depends on, pushed along a direction until its box is clear of theirs and the vectors stay in
// a pointed cone), then shifted towards each other; then a branch and bound over the
// translations, statement by statement (each dependency's cheapest translation on its own, with
// its polytopes apart, bounds the rest), proves that translation the best within the radius or
// improves it. Every limit that cuts the search is named in `stopped_by`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libs/explore/costs.h"
#include "libs/explore/deps.h"

namespace t2s::explore {

struct PlacementSearchOptions {
  // Of the mappings; empty: {-1, 0, 1} in a space of up to 2 dims, {0, 1} beyond.
  std::vector<int64_t> coefficients;
  // Statements may share points (their operations there run in the statements' order), as in
  // one loop body; the book keeps polytopes apart.
  bool overlap = false;
  // The book's priority: the smallest dependency cone first, then locality; false: locality.
  bool cone_first = true;
  int64_t radius = -1;  // translations in [-R, R] per dim; -1: from the sizes
  // Translations built from the bounding boxes first (the exact search then only looks for a
  // cheaper one); false: the exact search alone (the same result when it is not cut).
  bool build_from_boxes = true;
  int64_t max_iterations = 2'000'000;  // backtracking steps over every attempt
  int64_t max_solutions = 20'000;      // linear placements meeting the final targets
  // The exact translation search: candidate translations checked for one linear placement (at
  // one cone dimension), and in all. Past either, the translation built from the bounding boxes
  // (or the best the search saw) is kept and the result is incomplete.
  int64_t max_checks = 100'000;
  int64_t max_total_checks = 3'000'000;
};

struct PlacementSearchResult {
  bool found = false;
  Placement placement;                // "masai": the best one found
  PlacementCosts costs;               // its costs
  std::vector<size_t> optimal;        // phase 1: per dependency, the lowest rank of any pair
  std::vector<size_t> achieved;       // phase 3: the final target ranks, met together
  std::vector<size_t> ranks;          // the ranks of the placement found
  std::vector<size_t> candidates;     // phase 2 (final targets): mappings per statement
  size_t starting_set = 0;            // the largest starting set (one statement's)
  int64_t iterations = 0;             // backtracking steps, every attempt
  int64_t attempts = 0;               // backtracking searches (one per target tried)
  int64_t reorders = 0;               // search tree reorderings
  int64_t solutions = 0;              // linear placements meeting the final targets (enumerated)
  int64_t pruned = 0;                 // of those, how many cannot beat the best by locality alone
  int64_t translated = 0;             // of the others, how many admit a legal translation
  int64_t constructed = 0;            // of those, how many by the bounding-box construction
  int64_t checks = 0;                 // translations checked by the exact search, in all
  std::vector<int64_t> coefficients;  // those used
  size_t cone_dimension = 0;          // of the global dependency cone: the smallest reached
  bool cone_first = true;             // the options' cone_first
  bool complete = true;               // false when a limit cut the search short
  // Each limit that cut it: what it bounds and its value, e.g. "backtracking steps (2000000)".
  std::vector<std::string> stopped_by;
  bool overlap = false;  // the options' overlap
  int64_t radius = 0;
  std::vector<std::string> notes;
};

// Searches placements of `p`'s statements into its common space. Throws std::invalid_argument
// (a usage error) when the starting set or the translation search would be too large.
PlacementSearchResult search_placements(const PolyProgram& p, const std::vector<Dependency>& deps,
                                        const std::vector<Signal>& signals,
                                        const PlacementSearchOptions& options);

// The translation search_placements gives one linear placement (`linear`: per statement, a
// d x n matrix): within the radius, the polytopes apart unless `options.overlap`, a strictly
// legal ordering vector; the smallest dimension of the dependency cone (with
// `options.cone_first`), then the smallest locality. The book's phases (bounding boxes, then
// compaction), then the exact branch and bound, as there.
struct TranslationResult {
  bool found = false;
  Placement placement;  // "translated": the linear maps with the translation found
  size_t cone_dimension = 0;
  int64_t locality = 0;
  int64_t radius = 0;
  int64_t checks = 0;  // translations checked by the exact search
  bool complete = true;
  std::vector<std::string> stopped_by;
};
TranslationResult best_translation(const PolyProgram& p, const std::vector<Dependency>& deps,
                                   const std::vector<std::vector<std::vector<int64_t>>>& linear,
                                   const PlacementSearchOptions& options);

// rank(I - D') of dependency `d` when its source is mapped linearly by `src` and its sink by
// `dst` (d x n matrices): the dimension of the affine hull of the mapped vectors.
size_t mapped_rank(const Dependency& d, const std::vector<std::vector<int64_t>>& src,
                   const std::vector<std::vector<int64_t>>& dst, size_t dims);

// The starting set for an n-dimensional statement in a d-dimensional space: every d x n matrix
// of `coeff` with rank n, simplest first (the identity, then fewest changed entries, then
// fewest negative ones).
std::vector<std::vector<std::vector<int64_t>>> starting_set(size_t d, size_t n,
                                                            const std::vector<int64_t>& coeff);

// "{ A[i, j] -> [i - j + 6, j] }".
std::string affine_text(const Statement& s, const Affine& f);

}  // namespace t2s::explore
