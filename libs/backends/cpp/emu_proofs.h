// What the C++ emulation can access without checks: the accesses of a kernel that isl (through
// libs/poly) proves inside their storage at every execution, and the reads it proves to find
// their element written. The emulation (cpp.cc) prints those as plain array accesses and keeps
// the runtime's checked accessors for every other access (docs/emulation.md).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {

struct EmuProofs {
  // Accesses, by the IR node CStorage::access names (a read's Call expression; the statement of
  // a write, shift or push), whose every index lies inside its storage: an input's extents, a
  // buffer's or realize's bounds, a register's PE array and slots, a FIFO register's PE array,
  // a channel array's dims.
  std::set<const void*> in_bounds;
  // Reads of Func storage or of a shift register of depth 1 (in `in_bounds` too) that find their
  // element written: an earlier write in the kernel's sequential order stores to it.
  std::set<const void*> written;
  // Realizes whose storage the emulation folds (Halide's storage folding): for each dimension,
  // 0 (kept) or a power of two F, the elements stored along it (index - min taken modulo F).
  // See fold_realizes() in emu_proofs.cc for when a dimension folds.
  std::map<const Realize*, std::vector<int64_t>> folds;
  // The realize each Func access in `in_bounds` refers to (none: a program buffer).
  std::map<const void*, const Realize*> realize_of;
  // Realizes whose every read is in `written`: their written flags are never consulted, so the
  // emulation does not set them.
  std::set<const Realize*> unflagged;
  // Shift registers of the kernel (by name) whose every read is in `written` (or that are never
  // read): the emulation does not set their written flags either.
  std::set<std::string> unflagged_registers;

  // Values forwarded along the innermost loop (docs/emulation.md, "Forwarding"): a read that
  // finds the value one write stored at the previous iteration of the read's innermost loop
  // takes it from a local variable (a carry) that the write sets, instead of a load that waits
  // for that store. Each carry belongs to one write (a Provide statement) of a depth-1 shift
  // register or of a realize.
  struct Carry {
    std::string storage;               // the register's or Func's name
    const Realize* realize = nullptr;  // the Func's realize (null: a register)
  };
  std::vector<Carry> carries;
  std::map<const void*, size_t> carried_reads;    // a read's Call -> its carry
  std::map<const void*, size_t> carrying_writes;  // a write's Provide statement -> its carry
};

// Proves what it can of the accesses of `kernel` (of a verified program, merged stage on).
// An expression node reached in several contexts counts as proved only when proved in each.
EmuProofs prove_kernel_accesses(const Program& program, const Kernel& kernel);

}  // namespace t2s
