#include "libs/passes/lower/lower.h"

#include <chrono>
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
  Program (*pass)(const Program&, const LowerHooks&);
};

const PassRow kPasses[] = {
    {Stage::kParsed, "merge", [](const Program& p, const LowerHooks&) { return merge_pass(p); }},
    {Stage::kMerged, "stt", [](const Program& p, const LowerHooks&) { return stt_pass(p); }},
    {Stage::kStt, "vec",
     [](const Program& p, const LowerHooks& h) { return vec_pass(p, h.vec_report); }},
    {Stage::kVectorized, "gather",
     [](const Program& p, const LowerHooks& h) { return gather_pass(p, h.gather_report); }},
};

// A pass that produces ill-formed IR has a bug: the verifier's finding is an internal error
// (exit 3), not the user's.
void verify_pass_output(const Program& out, const char* pass) {
  try {
    verify_program(out, std::string("the output of the ") + pass + " pass");
  } catch (const Diagnostic& d) {
    throw InternalError(std::string("the ") + pass +
                        " pass produced ill-formed IR: " + d.message() + " [" + d.rule() + "]");
  }
}

}  // namespace

Program lower_to(Program program, Stage target, const LowerHooks& hooks) {
  if (static_cast<int>(program.stage) > static_cast<int>(target)) {
    throw Diagnostic(SourceLoc{},
                     std::string("the program is at stage ") + stage_name(program.stage) +
                         ", past " + stage_name(target) + ": no pass lowers it back",
                     "stage");
  }
  for (const PassRow& row : kPasses) {
    if (program.stage == target) break;
    if (program.stage != row.from) continue;
    const auto start = std::chrono::steady_clock::now();
    program = row.pass(program, hooks);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    if (hooks.pass_timed) hooks.pass_timed(row.name, took.count());
    verify_pass_output(program, row.name);
    if (hooks.after_pass) hooks.after_pass(program);
  }
  return program;
}

}  // namespace t2s
