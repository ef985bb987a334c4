#include "libs/passes/lower/lower.h"

#include <string>

#include "libs/ir/verify.h"
#include "libs/passes/gather/gather.h"
#include "libs/passes/merge/merge.h"
#include "libs/passes/stt/stt.h"
#include "libs/passes/vec/vec.h"

namespace t2s {
namespace {

// The pass that takes a program from `from` to the next stage.
struct PassRow {
  Stage from;
  const char* name;  // the tool's stage name, as internal errors name it
  Program (*pass)(const Program&);
};

const PassRow kPasses[] = {
    {Stage::kParsed, "merge", merge_pass},
    {Stage::kMerged, "stt", stt_pass},
    {Stage::kStt, "vec", vec_pass},
    {Stage::kVectorized, "gather", gather_pass},
};

}  // namespace

void verify_pass_output(const Program& out, const char* pass) {
  try {
    verify_program(out, std::string("the output of the ") + pass + " pass");
  } catch (const Diagnostic& d) {
    throw InternalError(std::string("the ") + pass +
                        " pass produced ill-formed IR: " + d.message() + " [" + d.rule() + "]");
  }
}

Program lower_to(Program program, Stage target) {
  if (static_cast<int>(program.stage) > static_cast<int>(target)) {
    throw Diagnostic(SourceLoc{},
                     std::string("the program is at stage ") + stage_name(program.stage) +
                         ", past " + stage_name(target) + ": no pass lowers it back",
                     "stage");
  }
  for (const PassRow& row : kPasses) {
    if (program.stage == target) break;
    if (program.stage != row.from) continue;
    program = row.pass(program);
    verify_pass_output(program, row.name);
  }
  return program;
}

}  // namespace t2s
