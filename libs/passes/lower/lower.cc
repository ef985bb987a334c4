#include "libs/passes/lower/lower.h"

#include <string>

#include "libs/passes/gather/gather.h"
#include "libs/passes/merge/merge.h"
#include "libs/passes/stt/stt.h"
#include "libs/passes/vec/vec.h"

namespace t2s {
namespace {

// The pass that takes a program from `from` to the next stage.
struct PassRow {
  Stage from;
  Program (*pass)(const Program&);
};

const PassRow kPasses[] = {
    {Stage::kParsed, merge_pass},
    {Stage::kMerged, stt_pass},
    {Stage::kStt, vec_pass},
    {Stage::kVectorized, gather_pass},
};

}  // namespace

Program lower_to(Program program, Stage target) {
  if (static_cast<int>(program.stage) > static_cast<int>(target)) {
    throw Diagnostic(SourceLoc{},
                     std::string("the program is at stage ") + stage_name(program.stage) +
                         ", past " + stage_name(target) + ": no pass lowers it back",
                     "stage");
  }
  for (const PassRow& row : kPasses) {
    if (program.stage == target) break;
    if (program.stage == row.from) program = row.pass(program);
  }
  return program;
}

}  // namespace t2s
