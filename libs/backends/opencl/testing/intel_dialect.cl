// intel_dialect.cl: Intel FPGA OpenCL beyond what t2s-emit writes today: __fpga_reg, Intel's
// loop pragmas, local memory attributes, channel depths, arrays of channels, the non-blocking
// channel calls, an autorun kernel. check_cl.sh accepts it (//libs/backends/opencl/testing:
// dialect_test) and the OpenCL executor runs it (//libs/backends/opencl/cpu:opencl_cpu_test).
#pragma OPENCL EXTENSION cl_intel_channels : enable

channel int to_square[2] __attribute__((depth(4)));
channel int squared[2] __attribute__((depth(4)));
channel float probe;

// Sends in[i] to to_square[i % 2], through a register and a banked local buffer.
__kernel __attribute__((max_global_work_dim(0)))
void producer(__global const int* restrict in) {
  int __attribute__((memory, numbanks(2), bankwidth(4), singlepump, numreadports(1),
                     numwriteports(1))) buffer[8];
  #pragma ii 1
  #pragma ivdep
  for (int i = 0; i < 8; i++) buffer[i] = __fpga_reg(in[i]);
  #pragma loop_coalesce 1
  #pragma unroll 2
  for (int i = 0; i < 8; i++) write_channel_intel(to_square[i % 2], buffer[i]);
}

// An autorun kernel: squares whatever arrives, each of its two lanes, forever.
__kernel __attribute__((max_global_work_dim(0))) __attribute__((autorun))
void squarer() {
  #pragma unroll
  for (int lane = 0; lane < 2; lane++) {
    const int v = read_channel_intel(to_square[lane]);
    write_channel_intel(squared[lane], v * v);
  }
}

// Collects the squares in order; then tries the empty `probe` channel without blocking (no
// value: out[8] = 1) and writes to it without blocking (room for one value: out[9] = 1), and
// reads that value back (out[10] = 2.5 * 2).
__kernel __attribute__((max_global_work_dim(0)))
void consumer(__global int* restrict out) {
  for (int i = 0; i < 8; i++) out[i] = read_channel_intel(squared[i % 2]);
  bool valid = true;
  float nothing = read_channel_nb_intel(probe, &valid);
  (void)nothing;
  out[8] = valid ? 0 : 1;
  out[9] = write_channel_nb_intel(probe, 2.5f) ? 1 : 0;
  out[10] = (int)(read_channel_intel(probe) * 2.0f);
}
