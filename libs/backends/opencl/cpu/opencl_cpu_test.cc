// The executor's OpenCL host API (opencl_cpu.cc) driven as a host program drives it.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A built program from OpenCL C `source`, as a host program loads an .aocx.
struct Program {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_program program = nullptr;
  cl_command_queue queue = nullptr;
  cl_int build = CL_SUCCESS;

  explicit Program(const std::string& source) {
    clGetPlatformIDs(1, &platform, nullptr);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr);
    cl_int err = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    const size_t size = source.size();
    const auto* bytes = reinterpret_cast<const unsigned char*>(source.data());
    cl_int status = CL_SUCCESS;
    program = clCreateProgramWithBinary(context, 1, &device, &size, &bytes, &status, &err);
    build = clBuildProgram(program, 1, &device, "", nullptr, nullptr);
    queue = clCreateCommandQueue(context, device, 0, &err);
  }
  ~Program() {
    clReleaseCommandQueue(queue);
    clReleaseProgram(program);
    clReleaseContext(context);
  }
  std::string log() const {
    size_t size = 0;
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string text(size, '\0');
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, &text[0], nullptr);
    return text;
  }
};

TEST(OpenClCpu, RunsIntelsDialect) {
  Program run(read_text("libs/backends/opencl/testing/intel_dialect.cl"));
  ASSERT_EQ(run.build, CL_SUCCESS) << run.log();
  cl_int err = CL_SUCCESS;
  std::vector<int> in = {1, 2, 3, 4, 5, 6, 7, -8}, out(11, -1);
  cl_mem in_mem = clCreateBuffer(run.context, CL_MEM_READ_ONLY, 32, nullptr, &err);
  cl_mem out_mem = clCreateBuffer(run.context, CL_MEM_READ_WRITE, 44, nullptr, &err);
  ASSERT_EQ(clEnqueueWriteBuffer(run.queue, in_mem, CL_TRUE, 0, 32, in.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  cl_kernel producer = clCreateKernel(run.program, "producer", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_kernel consumer = clCreateKernel(run.program, "consumer", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(clCreateKernel(run.program, "no_such_kernel", &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_KERNEL_NAME);
  clSetKernelArg(producer, 0, sizeof(cl_mem), &in_mem);
  clSetKernelArg(consumer, 0, sizeof(cl_mem), &out_mem);
  ASSERT_EQ(clEnqueueTask(run.queue, producer, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(clEnqueueTask(run.queue, consumer, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(clFinish(run.queue), CL_SUCCESS);
  ASSERT_EQ(
      clEnqueueReadBuffer(run.queue, out_mem, CL_TRUE, 0, 44, out.data(), 0, nullptr, nullptr),
      CL_SUCCESS);
  EXPECT_EQ(out, (std::vector<int>{1, 4, 9, 16, 25, 36, 49, 64, 1, 1, 5}));
  clReleaseKernel(producer);
  clReleaseKernel(consumer);
  clReleaseMemObject(in_mem);
  clReleaseMemObject(out_mem);
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
