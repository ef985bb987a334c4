// t2s-explore: placement, ordering and storage exploration (seed 004, DTSE chapters 3 and 4;
// docs/explore.md). Reads a polyhedral program (JSON in isl notation) or a T2S spec (or its
// parsed or merged IR) and reports dependencies, cones, placement costs, storage of orderings
// and, for a spec, its legal space-time transforms ranked (libs/explore).
#include "libs/cli/tool.h"
#include "libs/explore/explore_cli.h"

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-explore", "explore",
                 "Explore placements, orderings and storage (DTSE chapters 3-4): dependencies, "
                 "dependency cones and allowed ordering vectors, locality and data-reuse costs, "
                 "storage of orderings and bounds with a partially fixed loop order, for a "
                 "polyhedral program (JSON, \"t2s_explore\": 1); for a T2S spec, its parsed or "
                 "merged IR, the legal space-time transforms of each merge group, ranked.");
  t2s::explore::CliOptions options;
  t2s::explore::add_options(tool, &options);
  return tool.run(argc, argv, [&] { t2s::explore::run(tool, options); });
}
