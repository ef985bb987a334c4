#include "libs/passes/vec/vec.h"

#include "libs/passes/common/pass_through.h"

namespace t2s {

Program vec_pass(const Program& stt) {
  return pass_through_stage(stt, Stage::kStt, Stage::kVectorized, "t2s-vec", {"vectorize"});
}

}  // namespace t2s
