// The texts of the OpenCL executor's parts, for t2s-run --engine opencl, which compiles an
// emitted host program with them (docs/opencl-executor.md).
#pragma once

// opencl_cpu.cc without its #include "..." lines (paste the runtime text, t2s_runtime_source(),
// before it, and define t2s_cl_cpu_header_text() returning t2s_cl_cpu_header_source()).
const char* t2s_opencl_cpu_source();
// t2s_cl_cpu.h.
const char* t2s_cl_cpu_header_source();
