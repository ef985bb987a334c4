// t2s_cl_cpu.h: compiles Intel FPGA OpenCL device code for the CPU (docs/opencl-executor.md).
//
//   clang-14 -x cl -cl-std=CL2.0 -target x86_64-unknown-linux-gnu -O1 -fPIC -shared
//            -funwind-tables -include t2s_cl_cpu.h KERNEL.cl -o KERNEL.so
//
// The device code is compiled as it is, by clang's OpenCL C front end; this header supplies what
// clang lacks for Intel's dialect, with its meaning on a CPU:
//
//   - `channel T name[d0]...` is a program-scope __global variable of T (an array for an array of
//     channels): its address names the channel element; its values live in the executor's FIFOs
//     (opencl_cpu.cc), which read_channel_intel / write_channel_intel call with that address and
//     the value's size. The _nb variants do not block;
//   - depth(N) and autorun become `annotate` attributes (the executor reads the depth and the
//     autorun kernels from the source); max_global_work_dim(N) becomes reqd_work_group_size(1,
//     1, 1): every kernel is a single work-item;
//   - __fpga_reg(x) is x; Intel's loop pragmas (unroll, ii, loop_coalesce, ivdep) and local
//     memory attributes (memory, numbanks, bankwidth, singlepump, doublepump, numreadports,
//     numwriteports) are accepted and mean nothing on a CPU: clang ignores the pragmas and
//     attributes it does not know, and the warnings saying so are off (not macros: `memory` is
//     an ordinary identifier elsewhere);
//   - the OpenCL built-in functions the emitted code calls (floor, rint, vloadN, vstoreN) are
//     defined here, as clang declares them but has no library for a CPU target.
#ifndef T2S_CL_CPU_H_
#define T2S_CL_CPU_H_

#pragma OPENCL EXTENSION cl_intel_channels : begin
#pragma OPENCL EXTENSION cl_intel_channels : end
// Intel's loop pragmas and local memory attributes: unknown to clang, meaning nothing here.
#pragma clang diagnostic ignored "-Wunknown-pragmas"
#pragma clang diagnostic ignored "-Wunknown-attributes"
#pragma clang diagnostic ignored "-Wignored-attributes"

#define channel __global

#define depth(n) annotate("intel_fpga_channel_depth", (n))
#define autorun annotate("intel_fpga_autorun")
#define max_global_work_dim(n) reqd_work_group_size(1, 1, 1 + 0 * (n))

#define __fpga_reg(x) (x)

// The executor's channel calls (opencl_cpu.cc): `element` is the address of the channel (or of
// its element in an array of channels), `value` `bytes` long.
void t2s_cl_cpu_read(const __global void* element, void* value, ulong bytes);
void t2s_cl_cpu_write(const __global void* element, const void* value, ulong bytes);
bool t2s_cl_cpu_read_nb(const __global void* element, void* value, ulong bytes);
bool t2s_cl_cpu_write_nb(const __global void* element, const void* value, ulong bytes);
// A step of the calling kernel, for the profile: the executor puts the calls into the device
// code when it profiles (opencl_cpu.cc, with_step_counters).
void t2s_cl_cpu_step(void);

// The element type of channel `ch`, without its address space.
#define T2S_CHANNEL_ELEMENT_TYPE(ch) __typeof__(((void)0, (ch)))

#define read_channel_intel(ch)                                               \
  ({                                                                         \
    T2S_CHANNEL_ELEMENT_TYPE(ch) t2s_channel_value_;                         \
    t2s_cl_cpu_read(&(ch), &t2s_channel_value_, sizeof(t2s_channel_value_)); \
    t2s_channel_value_;                                                      \
  })

#define write_channel_intel(ch, ...)                                          \
  ((void)({                                                                   \
    T2S_CHANNEL_ELEMENT_TYPE(ch) t2s_channel_value_ = (__VA_ARGS__);          \
    t2s_cl_cpu_write(&(ch), &t2s_channel_value_, sizeof(t2s_channel_value_)); \
  }))

#define read_channel_nb_intel(ch, valid_ptr)                                                   \
  ({                                                                                           \
    T2S_CHANNEL_ELEMENT_TYPE(ch) t2s_channel_value_;                                           \
    *(valid_ptr) = t2s_cl_cpu_read_nb(&(ch), &t2s_channel_value_, sizeof(t2s_channel_value_)); \
    t2s_channel_value_;                                                                        \
  })

#define write_channel_nb_intel(ch, ...)                                          \
  ({                                                                             \
    T2S_CHANNEL_ELEMENT_TYPE(ch) t2s_channel_value_ = (__VA_ARGS__);             \
    t2s_cl_cpu_write_nb(&(ch), &t2s_channel_value_, sizeof(t2s_channel_value_)); \
  })

// ---- Built-in functions ----

#define T2S_CL_CPU_ROUNDING(name, builtin_f, builtin_d)                            \
  static inline __attribute__((overloadable)) float t2s_cl_cpu_##name(float x) {   \
    return builtin_f(x);                                                           \
  }                                                                                \
  static inline __attribute__((overloadable)) double t2s_cl_cpu_##name(double x) { \
    return builtin_d(x);                                                           \
  }
T2S_CL_CPU_ROUNDING(floor, __builtin_floorf, __builtin_floor)
T2S_CL_CPU_ROUNDING(rint, __builtin_rintf, __builtin_rint)
#define floor t2s_cl_cpu_floor
#define rint t2s_cl_cpu_rint

// vloadN(offset, p): the N elements at p + offset * N; vstoreN(v, offset, p) stores them. Any
// address space (OpenCL C 2.0's generic pointers), every scalar element type.
#define T2S_CL_CPU_VLOAD(T, N)                                                               \
  static inline __attribute__((overloadable))                                                \
  T##N t2s_cl_cpu_vload##N(size_t offset, const T* p) {                                      \
    T##N v;                                                                                  \
    for (int lane = 0; lane < N; ++lane) v[lane] = p[offset * N + lane];                     \
    return v;                                                                                \
  }                                                                                          \
  static inline                                                                              \
      __attribute__((overloadable)) void t2s_cl_cpu_vstore##N(T##N v, size_t offset, T* p) { \
    for (int lane = 0; lane < N; ++lane) p[offset * N + lane] = v[lane];                     \
  }
#define T2S_CL_CPU_VLOAD_ALL(T) \
  T2S_CL_CPU_VLOAD(T, 2)        \
  T2S_CL_CPU_VLOAD(T, 3)        \
  T2S_CL_CPU_VLOAD(T, 4)        \
  T2S_CL_CPU_VLOAD(T, 8)        \
  T2S_CL_CPU_VLOAD(T, 16)
T2S_CL_CPU_VLOAD_ALL(char)
T2S_CL_CPU_VLOAD_ALL(uchar)
T2S_CL_CPU_VLOAD_ALL(short)
T2S_CL_CPU_VLOAD_ALL(ushort)
T2S_CL_CPU_VLOAD_ALL(int)
T2S_CL_CPU_VLOAD_ALL(uint)
T2S_CL_CPU_VLOAD_ALL(long)
T2S_CL_CPU_VLOAD_ALL(ulong)
T2S_CL_CPU_VLOAD_ALL(float)
T2S_CL_CPU_VLOAD_ALL(double)
#define vload2 t2s_cl_cpu_vload2
#define vload3 t2s_cl_cpu_vload3
#define vload4 t2s_cl_cpu_vload4
#define vload8 t2s_cl_cpu_vload8
#define vload16 t2s_cl_cpu_vload16
#define vstore2 t2s_cl_cpu_vstore2
#define vstore3 t2s_cl_cpu_vstore3
#define vstore4 t2s_cl_cpu_vstore4
#define vstore8 t2s_cl_cpu_vstore8
#define vstore16 t2s_cl_cpu_vstore16

#endif  // T2S_CL_CPU_H_
