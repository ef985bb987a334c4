// The executor's profile (T2S_CL_CPU_PROFILE): cycles and steps as its model of the FPGA's clock
// counts them (opencl_cpu.cc, "The profile"), on testing/intel_dialect.cl. Its kernels cover the
// step counting's forms: loops whose body is one statement, a partly unrolled loop (`#pragma
// unroll 2`: a step an iteration), a fully unrolled one, an autorun kernel without a loop (a step
// a call), and the non-blocking calls.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "libs/backends/opencl/cpu/test_program.h"

namespace {

// Before any test runs: the executor reads the variable once.
const bool kProfileOn = setenv("T2S_CL_CPU_PROFILE", "1", 1) == 0;

TEST(OpenClCpuProfile, CountsCyclesStepsAndStalls) {
  ASSERT_TRUE(kProfileOn);
  testing::internal::CaptureStderr();
  const std::vector<int> out = t2s_cl_cpu_testing::run_intel_dialect();
  std::string profile = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, (std::vector<int>{1, 4, 9, 16, 25, 36, 49, 64, 1, 1, 5}));
  // The wall times are the machine's; the rest is the design's.
  for (size_t at; (at = profile.find(" (ran ")) != std::string::npos;)
    profile.erase(at, profile.find(')', at) + 1 - at);
  // producer: 8 steps filling its buffer (cycles 0-7), then 8 writes, a step each (8-15).
  // squarer (autorun): a step a call, reading a lane and writing its square in the same cycle;
  // its first read waits for the value written at cycle 8 (9 cycles), and each read of
  // to_square[1] a cycle more; 4 calls made (a 5th waits for data that never comes and is not
  // counted), cycles 0-16.
  // consumer: its first read waits for squared[0], written at cycle 9 (10 cycles); then a value
  // a step; after its loop the empty probe is tried (no call), written at cycle 17 and read back
  // at 18, a cycle after the value is there.
  EXPECT_EQ(profile,
            "t2s profile: device run 1: kernel 'producer': 16 cycles, 16 steps; writes "
            "'to_square' 8 (blocked 0 cycles)\n"
            "t2s profile: device run 1: kernel 'consumer': 19 cycles, 8 steps; reads 'probe' 1 "
            "(blocked 1 cycles); writes 'probe' 1 (blocked 0 cycles); reads 'squared' 8 (blocked "
            "10 cycles)\n"
            "t2s profile: device run 1: kernel 'squarer': 17 cycles, 4 steps; writes 'squared' 8 "
            "(blocked 0 cycles); reads 'to_square' 8 (blocked 13 cycles)\n");
}

}  // namespace
