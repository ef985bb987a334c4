// test_program.h: an OpenCL program built and run by the executor's host API (opencl_cpu.cc), as
// a host program drives it; for the executor's tests.
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace t2s_cl_cpu_testing {

inline std::string read_text(const std::string& path) {
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

// Runs testing/intel_dialect.cl (its producer and consumer kernels on in = 1..7, -8); returns
// its output, 11 values.
inline std::vector<int> run_intel_dialect() {
  Program run(read_text("libs/backends/opencl/testing/intel_dialect.cl"));
  EXPECT_EQ(run.build, CL_SUCCESS) << run.log();
  if (run.build != CL_SUCCESS) return {};
  cl_int err = CL_SUCCESS;
  std::vector<int> in = {1, 2, 3, 4, 5, 6, 7, -8}, out(11, -1);
  cl_mem in_mem = clCreateBuffer(run.context, CL_MEM_READ_ONLY, 32, nullptr, &err);
  cl_mem out_mem = clCreateBuffer(run.context, CL_MEM_READ_WRITE, 44, nullptr, &err);
  EXPECT_EQ(clEnqueueWriteBuffer(run.queue, in_mem, CL_TRUE, 0, 32, in.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  cl_kernel producer = clCreateKernel(run.program, "producer", &err);
  EXPECT_EQ(err, CL_SUCCESS);
  cl_kernel consumer = clCreateKernel(run.program, "consumer", &err);
  EXPECT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(clCreateKernel(run.program, "no_such_kernel", &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_KERNEL_NAME);
  clSetKernelArg(producer, 0, sizeof(cl_mem), &in_mem);
  clSetKernelArg(consumer, 0, sizeof(cl_mem), &out_mem);
  EXPECT_EQ(clEnqueueTask(run.queue, producer, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(clEnqueueTask(run.queue, consumer, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(clFinish(run.queue), CL_SUCCESS);
  EXPECT_EQ(
      clEnqueueReadBuffer(run.queue, out_mem, CL_TRUE, 0, 44, out.data(), 0, nullptr, nullptr),
      CL_SUCCESS);
  clReleaseKernel(producer);
  clReleaseKernel(consumer);
  clReleaseMemObject(in_mem);
  clReleaseMemObject(out_mem);
  return out;
}

}  // namespace t2s_cl_cpu_testing
