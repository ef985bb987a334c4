// Real IR for the backend tests (testonly): the stt or merged stage of specs in testdata/specs,
// embedded so that the tests need no data files.
#pragma once

#include "libs/ir/program.h"

namespace t2s {
namespace testing {

// testdata/specs/gemm.t2s at the stt stage: a 4 x 4 PE array (k serial; j, i unrolled) with
// shift registers A_shreg, B_shreg (depth 1) and C_shreg (depth 1, distance (0, 0, 1)). With
// `n` other than 4 the PE array is n x n (the unrolled loops and the registers' shape).
Program gemm_stt(int n = 4);
// testdata/specs/seed000_abc.t2s (the seed's double projection): a linear array of 10 PEs with
// FIFOs A_fifo (depth 9, distance (1, 0, 0)), B_fifo (10) and C_fifo (3).
Program seed000_abc_stt();
// testdata/specs/isolate_consumer.t2s: kernels feederA -> A -> drainer -> collector connected by
// channels feederA_to_A (depth 0), c_to_drainer (0), drainer_to_collector (4).
Program isolate_consumer_stt();
// testdata/specs/gemm_projection.t2s: a general space_time_transform to PE s = i, t = 8 j + k.
Program gemm_projection_stt();
// testdata/specs/vectorize_gather.t2s at the stt stage: a 4 x 4 x 4 PE array (j, i, kk unrolled)
// whose C_shreg moves along the innermost space loop in both directions (distances -3 and 1).
Program vectorize_gather_stt();
// testdata/specs/ar_filter.t2s at the merged stage: one host kernel with realize statements.
Program ar_filter_merged();

}  // namespace testing
}  // namespace t2s
