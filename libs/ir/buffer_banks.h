// buffer_banks.h: how an FPGA's on-chip RAM serves a double buffer (a realize with
// `double_buffer`, libs/passes/common/double_buffer.h) in one cycle, for the backends that lay it
// out (the OpenCL's memory attributes) and cost it (the performance model's RAM blocks). Its own
// target, //libs/ir:buffer_banks.
//
// T2SP declares a feeder's double buffer as words of the vector lanes, one bank per PE, one
// write and one read port a bank (`float16 __attribute__((memory, numbanks(8), singlepump,
// numwriteports(1), numreadports(1))) DB[2][..][8]`). A cycle of the buffer writes one word (the
// fill takes one value a cycle) and each PE reads its own word; the banks serve that when the
// lanes of a word and the PEs are the storage's fastest dimensions, each rounded up to a power
// of two so that the bank is a field of the address bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {

struct BufferBanks {
  // Every cycle writes at most one word and reads at most one word of each bank: the layout
  // below with `banks` banks of `word_lanes` elements serves it with one port each.
  bool banked = false;
  std::string why_not;          // when not banked: the access that a bank could not serve alone
  int lane_dim = -1;            // the dimension of a word's lanes (indexed by a whole ramp), or -1
  std::vector<size_t> pe_dims;  // the dimensions each read indexes by the PE loops around it
  // The dimensions fastest first (lane_dim, pe_dims, then the others in order) and their
  // extents, those of lane_dim and pe_dims rounded up to powers of two. Without banks: the
  // realize's own order and extents.
  std::vector<size_t> layout;
  std::vector<int64_t> extents;  // by dimension (not by layout position)
  int64_t word_lanes = 1, banks = 1;
  int64_t elements() const;  // the storage's elements, padding included
};

// The banks of `r`, a realize with constant extents (a double buffer, or any realize: one
// without a fill and reads as analysed below is not banked).
BufferBanks buffer_banks(const Realize& r);

}  // namespace t2s
