// The executor's OpenCL host API (opencl_cpu.cc) driven as a host program drives it.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "libs/backends/opencl/cpu/test_program.h"

namespace {

using t2s_cl_cpu_testing::Program;
using t2s_cl_cpu_testing::run_intel_dialect;

TEST(OpenClCpu, RunsIntelsDialect) {
  EXPECT_EQ(run_intel_dialect(), (std::vector<int>{1, 4, 9, 16, 25, 36, 49, 64, 1, 1, 5}));
}

TEST(OpenClCpu, ABuildErrorIsTheCompilersLog) {
  Program run("__kernel void k() { undeclared = 1; }\n");
  EXPECT_EQ(run.build, CL_BUILD_PROGRAM_FAILURE);
  EXPECT_NE(run.log().find("undeclared"), std::string::npos) << run.log();
}

// Two kernels each waiting for the other: reported with the kernels and channels, exit 1.
TEST(OpenClCpuDeathTest, ADeadlockIsReported) {
  const std::string source = R"cl(
    #pragma OPENCL EXTENSION cl_intel_channels : enable
    channel int ping;
    channel int pong __attribute__((depth(2)));
    __kernel void a() { write_channel_intel(ping, read_channel_intel(pong)); }
    __kernel void b() { write_channel_intel(pong, read_channel_intel(ping)); }
  )cl";
  EXPECT_EXIT(
      {
        Program run(source);
        cl_int err = CL_SUCCESS;
        cl_kernel a = clCreateKernel(run.program, "a", &err);
        cl_kernel b = clCreateKernel(run.program, "b", &err);
        clEnqueueTask(run.queue, a, 0, nullptr, nullptr);
        clEnqueueTask(run.queue, b, 0, nullptr, nullptr);
        clFinish(run.queue);
      },
      testing::ExitedWithCode(1),
      "error: deadlock: every unfinished kernel is blocked: kernel 'a' waits to read from "
      "channel 'pong' \\(empty\\); kernel 'b' waits to read from channel 'ping' \\(empty\\)");
}

}  // namespace
