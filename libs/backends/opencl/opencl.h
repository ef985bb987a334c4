// The `opencl` target of t2s-emit: Intel FPGA OpenCL device code (a .cl file for aoc) and the
// OpenCL host program (C++17) that loads the compiled .aocx and runs the program on a device.
//
// Both take a program of the merged stage or later and print it with the shared C-family code
// generator (libs/backends/c). The output is a function of the program alone (deterministic
// bytes).
//
// Device code (.cl), one `__kernel` per kernel placed on the device, in program order:
//
//   #pragma OPENCL EXTENSION cl_intel_channels : enable
//   // header comment: what this is, the stage, the kernels and how the host runs them
//   typedef struct { float data[5]; } float_vec5;        (vector types without a native type)
//   static inline int t2s_div_i32(int a, int b) {...}     (CCodegen's helpers, as used)
//   channel float c_to_drainer __attribute__((depth(4)));  (no depth attribute for depth 0;
//   channel float ch[4][4];                                  `dims` give an array of channels)
//   __kernel __attribute__((max_global_work_dim(0)))
//   void A(__global const float* restrict a, __global float* restrict c) { ... }
//   __kernel __attribute__((max_global_work_dim(0))) __attribute__((autorun))
//   void drainer() { ... }
//
//   - Every kernel is a single work-item kernel (max_global_work_dim(0)). A kernel that touches
//     no global memory (reads no input, reads and writes no buffer) is `autorun` and takes no
//     arguments; the host does not enqueue it. Other kernels take one `__global` pointer per
//     input (`const ... restrict`) and per buffer (`restrict`; also `const` when the kernel only
//     reads it) they use, inputs first, each in program order.
//   - Inputs and buffers are laid out in Fortran order: element (x0, x1, ...) of an array with
//     extents (E0, E1, ...) and mins (m0, m1, ...) is at (x0 - m0) + E0 * ((x1 - m1) + E1 * ...).
//     Inputs have mins 0 and their `extents`; buffers their `bounds`. Bool data is stored as
//     uchar in global memory.
//   - Unrolled loops get `#pragma unroll`. A realize statement is a private array (Fortran
//     order over its bounds) in a block around its body.
//   - Registers (program.registers of this kernel) are private arrays declared at the top of the
//     kernel, PEs in reverse order of `shape` (the outermost space loop first):
//       shift register  float A_shreg[S1][S0][DEPTH];  slot 0 newest; `shift` is an unrolled
//                       loop moving slot s - 1 to slot s for s = DEPTH - 1 down to 1.
//       FIFO            int A_fifo[S0][DEPTH];  int A_fifo_head[S0] = {0};
//                       int A_fifo_count[S0] = {0};  a ring buffer per PE: push writes slot
//                       (head + count) mod DEPTH and counts up, pop (t2s_fifo_pop) takes slot
//                       head and advances it.
//   - Channels are read with read_channel_intel(ch) / read_channel_intel(ch[i][j]) and written
//     with write_channel_intel.
//   - Vector values (docs/ir.md, "Vector values"; c_codegen.h): native vector types for 2, 3, 4,
//     8 and 16 lanes, structs (`float_vec5`, typedefs at the top) up to 32 lanes, bool lanes as
//     char 0 or 1. Native operators where they are Halide's (+, -, * on numbers, float /,
//     negation, conversions other than float to integer, float math built-ins), else a helper
//     that computes the lanes one by one with the scalar code (t2s_vdiv_i32x4). A vector channel
//     is declared with its vector type, a vector register is an array of it. A gather or
//     scatter of global memory whose first index is `ramp(base, 1, N)` and whose other indices
//     are scalars is vloadN / vstoreN for native N; others access the elements one by one (a
//     gather prints each lane's index, `base + l * stride` for a ramp).
//   - A program with no device kernel gives a .cl with only the pragma and the header comment,
//     which says so.
//
// Host program (.cpp): self-contained C++17 over the standard OpenCL C API (CL/cl.h, OpenCL 1.2)
// with the t2s runtime (libs/runtime) pasted in. Usage:
//   PROGRAM KERNEL.aocx [--input NAME=FILE.npy ...] [-o OUT.npy] [--fill] [--seed N] [--print]
// (the options of t2s-run, parsed by t2s_rt::parse_options; --fill is sequential|random). It
// refuses --input for a name that is not an input, reads or generates the inputs,
// picks the first platform whose name contains "Intel(R) FPGA" (else the first platform) and
// its first device, loads the .aocx with clCreateProgramWithBinary, builds it, creates one
// command queue per enqueued (non-autorun) device kernel and one for transfers, one buffer per
// input and program buffer that a device kernel uses, and runs the kernels as the execution
// model says (libs/exec/interpreter.h): kernels in list order; every maximal run of consecutive
// device kernels is enqueued together (clEnqueueTask, one queue each) and waited for (clFinish on
// every queue of the run); host kernels run on the host in between, as C++ printed by CCodegen
// (CDialect::kCpp). On the host, inputs and buffers are t2s_rt::Arrays in the same Fortran
// layout, accessed through bounds-checked views (a read of a buffer element that no kernel wrote
// is not detected: the device's writes are not tracked); a host kernel's realizes and registers
// are the runtime's FuncStorage, ShiftRegister and FifoRegister, checked as the interpreter
// checks them (FIFOs must be empty when the kernel ends). Buffers move between host and device only
// when needed: a buffer is written to the device before a run that uses it when the host copy is
// newer, and read back after each run that writes it. Finally the output buffer is written with
// t2s_rt::write_output. Every OpenCL call is checked: a failure prints `clCreateProgramWithBinary
// failed: CL_INVALID_BINARY (-42)` (through t2s_rt::fail) and exits 1. That fixed support code
// (error names, checked calls, the run's OpenCL objects, the views) is host_support.h, pasted in.
// A program with no device kernel never touches OpenCL (the .aocx argument is still required, so
// that every host program has the same interface).
//
// Errors (t2s::Diagnostic, rule in brackets):
//   [emit-stage]   a program of the parsed stage (no kernels yet)
//   [emit-extent]  an input's extents, a buffer's bounds or a realize's extents that are not
//                  integer constants (needed for the layout and private arrays; at the entity's
//                  loc), or storage of more than 2^31 - 1 elements
//   [emit-type]    a vector type of more than 32 lanes in a device kernel (at the innermost
//                  statement with a location), a type with no OpenCL equivalent
//   [emit-unsupported] a gather in a device kernel whose indices read a channel or pop a FIFO
//                  register (each lane computes its index)
//   [emit-channel] a host kernel that reads or writes a channel (channels connect device kernels);
//                  a read or write of a channel array whose index is not a constant once the
//                  PEs are unrolled (it uses a loop that is not unrolled, directly or through a
//                  let), at the innermost statement with a location
// The program must be well formed (libs/ir/verify, which every tool runs on the IR it reads):
// dangling names, arities and types are not checked again here.
#pragma once

#include <string>

#include "libs/ir/program.h"

namespace t2s {

// The .cl file: Intel FPGA OpenCL device code for the program's device kernels.
std::string emit_opencl(const Program& program);

// The host program (.cpp) that runs the program with the .cl compiled by aoc.
std::string emit_opencl_host(const Program& program);

// The OpenCL C name of `type` (c_value_type_name): the scalar name (c_type_name) for one lane;
// for vectors the native vector type for 2, 3, 4, 8 and 16 lanes (`float4`, `uchar16`), else
// `float_vec5`, a struct defined by opencl_vector_typedef (seed 002: any width from 2 to 32).
// Bool lanes are stored as char (`char4`, `char_vec5`). Throws Diagnostic (emit-type) at `loc`
// for more than 32 lanes or an element type OpenCL lacks.
std::string opencl_vector_type_name(Type type, const SourceLoc& loc = {});

// The typedef a vector type needs, `typedef struct { float data[5]; } float_vec5;` plus a
// newline, or "" for a scalar or a native vector type.
std::string opencl_vector_typedef(Type type, const SourceLoc& loc = {});

}  // namespace t2s
