// intel_fpga_channels.h: lets clang syntax-check Intel FPGA OpenCL channel code as OpenCL C 2.0.
//
//   clang-14 -x cl -cl-std=CL2.0 -fsyntax-only -Werror -include intel_fpga_channels.h FILE.cl
//
// Intel's aoc accepts an OpenCL C dialect with the cl_intel_channels extension: program-scope
// `channel T name [dims] __attribute__((depth(N)));`, read_channel_intel / write_channel_intel
// (and the non-blocking _nb variants), and the kernel attributes autorun and
// max_global_work_dim(N). clang knows none of them; this header maps each onto standard OpenCL C
// 2.0 (plus clang's statement expressions and __typeof__) that keeps the checks that matter:
//
//   - `channel` is the __global address space, so a channel is a program-scope global variable
//     (allowed in OpenCL C 2.0) of its element type, and arrays of channels are arrays;
//   - read_channel_intel(ch) has exactly ch's element type (scalar, vector or struct), so a type
//     error in the surrounding expression is still an error; ch must be a __global lvalue (a
//     private variable is refused: "changes address space of pointer");
//   - write_channel_intel(ch, v) assigns v to the channel's element type: a value that does not
//     convert (a struct to a float channel, say) is refused. aoc's write_channel_intel is a
//     built-in function, so v may be any expression, including a compound literal whose braces
//     hold commas (`(float_vec5){{a, b, c, d, e}}`): the macros take the value as `...`;
//   - depth(N) and autorun become clang `annotate` attributes (N must be a constant expression),
//     max_global_work_dim(N) becomes reqd_work_group_size(1, 1, 1) (allowed on kernels only,
//     N a constant integer expression).
//
// Not checked: that channel accesses name channels rather than other program-scope globals, and
// Intel-only rules (one reader and one writer per channel, no channels in autorun kernels'
// arguments). As macros, `channel`, `autorun`, `depth(...)` and `max_global_work_dim(...)`
// cannot be used as ordinary identifiers in the checked file (aoc reserves `channel` too).
#ifndef T2S_INTEL_FPGA_CHANNELS_H_
#define T2S_INTEL_FPGA_CHANNELS_H_

// Declare the extension so that `#pragma OPENCL EXTENSION cl_intel_channels : enable` is known.
#pragma OPENCL EXTENSION cl_intel_channels : begin
#pragma OPENCL EXTENSION cl_intel_channels : end

#define channel __global

// The rest of Intel's dialect, accepted with no meaning for the check: __fpga_reg(x) is x; the
// loop pragmas (ii, loop_coalesce, ivdep; unroll is clang's own) and the local memory
// attributes (memory, numbanks(N), bankwidth(N), singlepump, doublepump, numreadports(N),
// numwriteports(N)) are unknown to clang, which ignores them: the warnings saying so are off.
#define __fpga_reg(x) (x)
#pragma clang diagnostic ignored "-Wunknown-pragmas"
#pragma clang diagnostic ignored "-Wunknown-attributes"

#define depth(n) annotate("intel_fpga_channel_depth", (n))
#define autorun annotate("intel_fpga_autorun")
#define max_global_work_dim(n) reqd_work_group_size(1, 1, 1 + 0 * (n))

// The element type of channel `ch`, without its address space.
#define T2S_CHANNEL_ELEMENT_TYPE(ch) __typeof__(((void)0, (ch)))

#define read_channel_intel(ch)                                       \
  ({                                                                 \
    __global T2S_CHANNEL_ELEMENT_TYPE(ch)* t2s_channel_ptr_ = &(ch); \
    *t2s_channel_ptr_;                                               \
  })

#define write_channel_intel(ch, ...)                                 \
  ((void)({                                                          \
    __global T2S_CHANNEL_ELEMENT_TYPE(ch)* t2s_channel_ptr_ = &(ch); \
    *t2s_channel_ptr_ = (__VA_ARGS__);                               \
  }))

// Non-blocking: read_channel_nb_intel(ch, &valid) stores whether a value was read in the bool
// `valid`; write_channel_nb_intel(ch, value) returns whether the value was written.
#define read_channel_nb_intel(ch, valid_ptr)                         \
  ({                                                                 \
    __global T2S_CHANNEL_ELEMENT_TYPE(ch)* t2s_channel_ptr_ = &(ch); \
    bool* t2s_channel_valid_ = (valid_ptr);                          \
    *t2s_channel_valid_ = true;                                      \
    *t2s_channel_ptr_;                                               \
  })

#define write_channel_nb_intel(ch, ...)                              \
  ({                                                                 \
    __global T2S_CHANNEL_ELEMENT_TYPE(ch)* t2s_channel_ptr_ = &(ch); \
    *t2s_channel_ptr_ = (__VA_ARGS__);                               \
    true;                                                            \
  })

#endif  // T2S_INTEL_FPGA_CHANNELS_H_
