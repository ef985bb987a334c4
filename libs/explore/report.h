// What t2s-explore reports on a polyhedral program (docs/explore.md): the analysis of every
// selected placement and ordering, gathered once, then printed as text tables or as JSON.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libs/explore/basic_sets.h"
#include "libs/explore/costs.h"
#include "libs/explore/deps.h"
#include "libs/explore/placement_search.h"
#include "libs/explore/storage.h"

namespace t2s::explore {

struct ExploreOptions {
  std::vector<std::string> placements;  // by name; empty: every placement
  // Orderings from the command line, as written ("x2,x1", "1,1", "1,0;0,1"), applied to the
  // first selected placement.
  std::vector<std::string> orders;
  bool search = false;
  int64_t bound = 2;  // ordering vectors of the search: entries in [-bound, bound]
  bool bounds = false;
  std::vector<std::string> fix;  // loops fixed outermost for the bounds (chapter 4)
  bool reversals = false;
  bool basic_sets = true;
  // MASAI's placement search (section 3.5.5); the placement found joins the analysed ones.
  bool place = false;
  PlacementSearchOptions place_options;
  Limits limits;
};

struct OrderingReport {
  std::string name;
  size_t placement = 0;
  Rows rows;
  Storage storage;
  std::optional<StoragePeak> peak;  // when legal: where its storage peaks, and what is alive
};

// A set of array elements a statement's accesses name (section 4.2.3: a definition domain, the
// elements a write produces; an operand domain, the elements a read reads).
struct AccessDomain {
  std::string array;
  IntSet elements;
  int64_t count = -1;  // -1: more than the limit
};

struct StatementReport {
  int64_t operations = -1;                        // its domain's points; -1: past the limit
  std::vector<AccessDomain> definition, operand;  // one per write, one per read
};

struct PlacementReport {
  size_t placement = 0;
  PlacementAnalysis analysis;
  PlacementCosts costs;
  std::optional<SearchResult> search;
  std::optional<PartialBounds> bounds;
  std::vector<PartEstimate> estimates;  // per dependency part, over the bounds' completions
  Rows fixed;
  std::vector<GroupCosts> group_costs;  // per basic set (figure 3.29), with the basic sets
};

struct ExploreReport {
  const PolyProgram* program = nullptr;
  std::shared_ptr<PolyProgram> owned;  // the input and the placement found, with --place
  std::optional<PlacementSearchResult> place;
  std::string source;  // how the input was named
  std::vector<Dependency> deps;
  std::vector<Signal> signals;
  std::vector<PlacementReport> placements;
  std::vector<StatementReport> statements;  // one per statement
  Storage original;                         // the statements' own order
  std::optional<StoragePeak> original_peak;
  std::vector<OrderingReport> orderings;
  std::optional<BasicSets> sets;
  std::vector<BasicSetContents> contents;  // per basic set, with the basic sets
  std::vector<SignalGroup> groups;
  int64_t bound = 2;
  bool reversals = false;
};

// A command-line ordering: loop names ("x2,-x1"), a vector ("1,1") or rows ("1,0;0,1"). Sets
// *error and returns nullopt when it does not fit the common space.
std::optional<Rows> parse_ordering(const std::string& text, const std::vector<std::string>& space,
                                   std::string* error);

// Runs every analysis the options ask for. Throws Diagnostic (explore-limit) past the limits;
// an unknown placement or ordering in the options is a std::invalid_argument (a usage error).
ExploreReport explore(const PolyProgram& p, const ExploreOptions& options);

std::string report_text(const ExploreReport& r);
std::string report_json(const ExploreReport& r);

// Table helper shared by the reports: columns as wide as their widest cell, numbers right-aligned.
std::string table(const std::vector<std::vector<std::string>>& rows, const std::string& indent,
                  const std::vector<bool>& right_aligned);
std::string point_text(const Point& p);
std::string angle_text(double radians);

}  // namespace t2s::explore
