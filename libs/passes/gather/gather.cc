#include "libs/passes/gather/gather.h"

#include "libs/passes/common/pass_through.h"

namespace t2s {

Program gather_pass(const Program& vectorized) {
  return pass_through_stage(vectorized, Stage::kVectorized, Stage::kGathered, "t2s-gather",
                            // scatter and buffer (T2S's counterparts of gather on the way into
                            // an array, and double buffering) rewrite channels too.
                            {"gather", "scatter", "buffer"});
}

}  // namespace t2s
