// t2s-explore's command line (docs/explore.md): its options and what a run does with them, so
// that tools/t2s-explore.cc stays a thin main.
#pragma once

#include <string>
#include <vector>

#include "libs/cli/tool.h"
#include "libs/explore/report.h"
#include "libs/explore/schedules.h"

namespace t2s::explore {

struct CliOptions {
  std::string format = "text";
  std::vector<std::string> params;  // NAME=VALUE
  std::string spec;                 // --spec
  ExploreOptions explore;
  ScheduleOptions schedules;
  bool polyhedral = false;    // spec input: also the polyhedral report of each group
  int64_t bound = -1;         // --bound; unset: 2 for the ordering search, 1 for schedules
  int64_t search_bound = -1;  // --search-bound: the ordering search's bound, above --bound's 8
  int64_t starting_set = 0;
  std::vector<int64_t> coefficients = {0, 1};
  bool coefficients_given = false;  // --coefficients also sets --place's
};

// Registers every option on the tool's CLI11 app.
void add_options(Tool& tool, CliOptions* o);

// The run: reads the input, analyses it, writes the report. Throws Diagnostic / IoError as the
// other tools do; a usage error found only once the input is read (an unknown placement, a
// loop name not in the common space) is t2s::UsageError (libs/cli/tool.h), exit 2.
void run(Tool& tool, const CliOptions& o);

}  // namespace t2s::explore
