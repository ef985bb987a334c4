// host_support.h: the fixed support code of every OpenCL host program that t2s-emit writes
// (libs/backends/opencl/opencl.cc): OpenCL error names, checked calls, the platform, device and
// program of a run, and bounds-checked views of host arrays. The emitted program holds its text
// (host_support_source.h), after the runtime; the program's own code follows in the same
// anonymous namespace.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "libs/runtime/t2s_runtime.h"

namespace {

// ---- OpenCL: every call checked, failures reported by the error's name ----

[[maybe_unused]] const char* t2s_cl_error_name(cl_int code) {
  static const struct {
    cl_int code;
    const char* name;
  } kNames[] = {
      {0, "CL_SUCCESS"},
      {-1, "CL_DEVICE_NOT_FOUND"},
      {-2, "CL_DEVICE_NOT_AVAILABLE"},
      {-3, "CL_COMPILER_NOT_AVAILABLE"},
      {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
      {-5, "CL_OUT_OF_RESOURCES"},
      {-6, "CL_OUT_OF_HOST_MEMORY"},
      {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
      {-8, "CL_MEM_COPY_OVERLAP"},
      {-9, "CL_IMAGE_FORMAT_MISMATCH"},
      {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
      {-11, "CL_BUILD_PROGRAM_FAILURE"},
      {-12, "CL_MAP_FAILURE"},
      {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
      {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
      {-15, "CL_COMPILE_PROGRAM_FAILURE"},
      {-16, "CL_LINKER_NOT_AVAILABLE"},
      {-17, "CL_LINK_PROGRAM_FAILURE"},
      {-18, "CL_DEVICE_PARTITION_FAILED"},
      {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
      {-30, "CL_INVALID_VALUE"},
      {-31, "CL_INVALID_DEVICE_TYPE"},
      {-32, "CL_INVALID_PLATFORM"},
      {-33, "CL_INVALID_DEVICE"},
      {-34, "CL_INVALID_CONTEXT"},
      {-35, "CL_INVALID_QUEUE_PROPERTIES"},
      {-36, "CL_INVALID_COMMAND_QUEUE"},
      {-37, "CL_INVALID_HOST_PTR"},
      {-38, "CL_INVALID_MEM_OBJECT"},
      {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
      {-40, "CL_INVALID_IMAGE_SIZE"},
      {-41, "CL_INVALID_SAMPLER"},
      {-42, "CL_INVALID_BINARY"},
      {-43, "CL_INVALID_BUILD_OPTIONS"},
      {-44, "CL_INVALID_PROGRAM"},
      {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
      {-46, "CL_INVALID_KERNEL_NAME"},
      {-47, "CL_INVALID_KERNEL_DEFINITION"},
      {-48, "CL_INVALID_KERNEL"},
      {-49, "CL_INVALID_ARG_INDEX"},
      {-50, "CL_INVALID_ARG_VALUE"},
      {-51, "CL_INVALID_ARG_SIZE"},
      {-52, "CL_INVALID_KERNEL_ARGS"},
      {-53, "CL_INVALID_WORK_DIMENSION"},
      {-54, "CL_INVALID_WORK_GROUP_SIZE"},
      {-55, "CL_INVALID_WORK_ITEM_SIZE"},
      {-56, "CL_INVALID_GLOBAL_OFFSET"},
      {-57, "CL_INVALID_EVENT_WAIT_LIST"},
      {-58, "CL_INVALID_EVENT"},
      {-59, "CL_INVALID_OPERATION"},
      {-60, "CL_INVALID_GL_OBJECT"},
      {-61, "CL_INVALID_BUFFER_SIZE"},
      {-62, "CL_INVALID_MIP_LEVEL"},
      {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
      {-64, "CL_INVALID_PROPERTY"},
      {-65, "CL_INVALID_IMAGE_DESCRIPTOR"},
      {-66, "CL_INVALID_COMPILER_OPTIONS"},
      {-67, "CL_INVALID_LINKER_OPTIONS"},
      {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
      {-69, "CL_INVALID_PIPE_SIZE"},
      {-70, "CL_INVALID_DEVICE_QUEUE"},
      {-71, "CL_INVALID_SPEC_ID"},
      {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
      {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
  };
  for (const auto& entry : kNames) {
    if (entry.code == code) return entry.name;
  }
  return "unknown OpenCL error";
}

// `what failed: CL_INVALID_BINARY (-42)`, exit 1.
[[maybe_unused]] void t2s_cl_check(cl_int code, const std::string& what) {
  if (code != CL_SUCCESS) {
    t2s_rt::fail(what + " failed: " + t2s_cl_error_name(code) + " (" + std::to_string(code) + ")");
  }
}

// The platform, device, context and program of one run, and every queue, kernel and buffer
// created through them (released in reverse order at the end).
class t2s_opencl {
 public:
  explicit t2s_opencl(const std::string& aocx_path) {
    cl_uint count = 0;
    t2s_cl_check(clGetPlatformIDs(0, nullptr, &count), "clGetPlatformIDs");
    if (count == 0) t2s_rt::fail("no OpenCL platform found");
    std::vector<cl_platform_id> platforms(count);
    t2s_cl_check(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs");
    // Prefer Intel's FPGA platform; else the first.
    cl_platform_id platform = platforms[0];
    for (cl_platform_id p : platforms) {
      if (platform_name(p).find("Intel(R) FPGA") != std::string::npos) {
        platform = p;
        break;
      }
    }
    t2s_cl_check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device_, nullptr),
                 "clGetDeviceIDs");
    cl_int err = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
    t2s_cl_check(err, "clCreateContext");

    std::ifstream file(aocx_path, std::ios::binary);
    if (!file) t2s_rt::fail("cannot open the device binary '" + aocx_path + "'");
    const std::vector<unsigned char> binary((std::istreambuf_iterator<char>(file)),
                                            std::istreambuf_iterator<char>());
    if (binary.empty()) t2s_rt::fail("the device binary '" + aocx_path + "' is empty");
    const size_t size = binary.size();
    const unsigned char* bytes = binary.data();
    cl_int status = CL_SUCCESS;
    program_ = clCreateProgramWithBinary(context_, 1, &device_, &size, &bytes, &status, &err);
    t2s_cl_check(err, "clCreateProgramWithBinary");
    t2s_cl_check(status, "clCreateProgramWithBinary (binary status)");
    err = clBuildProgram(program_, 1, &device_, "", nullptr, nullptr);
    if (err != CL_SUCCESS) {
      size_t log_size = 0;
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &log_size);
      std::string log(log_size, '\0');
      if (log_size > 0) {
        clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, log_size, &log[0], nullptr);
      }
      t2s_rt::fail(std::string("clBuildProgram failed: ") + t2s_cl_error_name(err) + " (" +
                   std::to_string(err) + ")" + (log_size > 1 ? "\n" + log : ""));
    }
  }

  ~t2s_opencl() {
    for (cl_mem m : buffers_) clReleaseMemObject(m);
    for (cl_kernel k : kernels_) clReleaseKernel(k);
    for (cl_command_queue q : queues_) clReleaseCommandQueue(q);
    if (program_) clReleaseProgram(program_);
    if (context_) clReleaseContext(context_);
  }
  t2s_opencl(const t2s_opencl&) = delete;
  t2s_opencl& operator=(const t2s_opencl&) = delete;

  cl_command_queue queue(const std::string& what) {
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(context_, device_, 0, &err);
    t2s_cl_check(err, "clCreateCommandQueue (" + what + ")");
    queues_.push_back(q);
    return q;
  }

  cl_kernel kernel(const std::string& name) {
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(program_, name.c_str(), &err);
    t2s_cl_check(err, "clCreateKernel (" + name + ")");
    kernels_.push_back(k);
    return k;
  }

  // A device buffer as large as `array` (at least one byte).
  cl_mem buffer(cl_mem_flags flags, const t2s_rt::Array& array, const std::string& name) {
    cl_int err = CL_SUCCESS;
    const size_t bytes = array.data.empty() ? 1 : array.data.size();
    cl_mem m = clCreateBuffer(context_, flags, bytes, nullptr, &err);
    t2s_cl_check(err, "clCreateBuffer (" + name + ")");
    buffers_.push_back(m);
    return m;
  }

  static void set_arg(cl_kernel k, cl_uint index, cl_mem m, const std::string& what) {
    t2s_cl_check(clSetKernelArg(k, index, sizeof(cl_mem), &m), "clSetKernelArg (" + what + ")");
  }

  // Blocking copies between a host array and its device buffer.
  static void write(cl_command_queue q, cl_mem m, const t2s_rt::Array& array,
                    const std::string& name) {
    if (array.data.empty()) return;
    t2s_cl_check(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, array.data.size(), array.data.data(), 0,
                                      nullptr, nullptr),
                 "clEnqueueWriteBuffer (" + name + ")");
  }
  static void read(cl_command_queue q, cl_mem m, t2s_rt::Array& array, const std::string& name) {
    if (array.data.empty()) return;
    t2s_cl_check(clEnqueueReadBuffer(q, m, CL_TRUE, 0, array.data.size(), array.data.data(), 0,
                                     nullptr, nullptr),
                 "clEnqueueReadBuffer (" + name + ")");
  }

  static void task(cl_command_queue q, cl_kernel k, const std::string& name) {
    t2s_cl_check(clEnqueueTask(q, k, 0, nullptr, nullptr), "clEnqueueTask (" + name + ")");
    t2s_cl_check(clFlush(q), "clFlush (" + name + ")");
  }
  static void finish(cl_command_queue q, const std::string& name) {
    t2s_cl_check(clFinish(q), "clFinish (" + name + ")");
  }

 private:
  static std::string platform_name(cl_platform_id p) {
    size_t size = 0;
    t2s_cl_check(clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, nullptr, &size), "clGetPlatformInfo");
    std::string name(size, '\0');
    if (size > 0) {
      t2s_cl_check(clGetPlatformInfo(p, CL_PLATFORM_NAME, size, &name[0], nullptr),
                   "clGetPlatformInfo");
    }
    return name;
  }

  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_program program_ = nullptr;
  std::vector<cl_command_queue> queues_;
  std::vector<cl_kernel> kernels_;
  std::vector<cl_mem> buffers_;
};

// ---- Host storage ----
// Inputs and program buffers live in t2s_rt::Arrays that are copied to and from the device;
// host kernels see them through t2s_ref (bounds-checked, Fortran order). Realize storage and
// registers of host kernels are the runtime's classes, checked as the interpreter checks them.

// A view of an input or buffer: element (x0, x1, ...) at (x0 - m0) + E0 * ((x1 - m1) + ...).
template <typename T>
class t2s_ref {
 public:
  t2s_ref(std::string what, T* data, std::vector<int64_t> mins, std::vector<int64_t> extents)
      : what_(std::move(what)), data_(data), mins_(std::move(mins)), extents_(std::move(extents)) {}

  T& at(const char* access, std::initializer_list<int64_t> index) const {
    int64_t linear = 0, stride = 1;
    bool inside = index.size() == extents_.size();
    size_t d = 0;
    for (int64_t x : index) {
      if (!inside) break;
      const int64_t o = x - mins_[d];
      if (o < 0 || o >= extents_[d]) inside = false;
      linear += o * stride;
      stride *= extents_[d];
      ++d;
    }
    if (!inside) {
      // The interpreter's messages: inputs have extents, Funcs bounds.
      std::string bounds;
      for (size_t i = 0; i < extents_.size(); ++i) {
        bounds += (i ? " x [" : "[") + std::to_string(mins_[i]) + ", " +
                  std::to_string(mins_[i] + extents_[i]) + ")";
      }
      const bool input = what_.rfind("input ", 0) == 0;
      t2s_rt::fail(std::string(access) + " of " + what_ + " at " +
                   t2s_rt::format_index(std::vector<int64_t>(index)) + " is outside its " +
                   (input ? "extents " + t2s_rt::format_index(extents_) : "bounds " + bounds));
    }
    return data_[linear];
  }

 private:
  std::string what_;
  T* data_;
  std::vector<int64_t> mins_, extents_;
};

}  // namespace
