// The reference interpreter: executes a lowered Program (stage `merged` or later) on input
// arrays, with Halide's arithmetic bit for bit (LANGUAGE.md section 4), so that every later
// stage and backend can be checked against it.
//
// Execution model: kernels run in list order, except that every maximal run of consecutive
// device kernels runs concurrently (one thread each), connected by bounded channels (FIFOs of
// max(depth, 1) values); the next kernel starts when the whole run has finished. Errors in the
// user's program or data are Diagnostics with these rules (loc = the statement being executed):
//
//   run-stage             the program is at the parsed stage (it has no kernels yet)
//   run-input-missing     no array given for an input
//   run-input-unknown     an array given for a name that is not an input
//   run-input-type        `input 'a' has type float32, but the array given for it holds int32`
//   run-input-shape       `input 'a' has 2 dimensions, but the array given for it has 3`,
//                         `input 'a' is read over [0, 4) x [0, 8), but the array given for it
//                         has shape (3, 8)` (an array may be larger than the region read,
//                         Input::extents: t2s_rt::check_input_array, the runtime's rule)
//   run-input-extents     complete_inputs: an input without usable `extents`
//   run-input-bounds      `read of input 'a' at (4, 0) is outside its extents (4, 8)`
//   run-func-bounds       `write of 'c' at (4, 1) is outside its bounds [0, 4) x [0, 4)`
//   run-uncomputed        `read of 'A' at (0, -1, 2) before it was computed`
//   run-output-unwritten  `3 of the 16 elements of output 'c' were never computed; the first
//                         is at (1, 0)` (first in Fortran order)
//   run-deadlock          `deadlock: every unfinished kernel is blocked: kernel 'C' waits to
//                         read from channel 'ch' (empty); kernel 'D' waits to write to channel
//                         'e' at (1) (full)` (kernels in list order)
//   run-channel-leftover  `channel 'ch' still holds 2 unread values after its kernels finished`
//                         (`..., the first at (1, 0)` for an array of channels)
//   run-register-bounds   `read of shift register 'R' at (3, 0, 5) is outside its PE array
//                         (2, 2) x 3 slots` (the PE index, then the slot); likewise `write of
//                         shift register ...`, and without the slot `shift of shift register 'R'
//                         at (2, 0) is outside its PE array (2, 2)`, `push to FIFO 'F' at ...`,
//                         `pop from FIFO 'F' at ...`
//   run-register-unwritten `read of slot 2 of shift register 'R' of PE (1, 0) before any value
//                         reached it`
//   run-fifo-overflow     `FIFO 'F' of PE (3) overflows: it already holds its depth of 7 values`
//   run-fifo-empty        `pop from FIFO 'F' of PE (3), which is empty`
//   run-fifo-leftover     `FIFO 'F' of PE (2) still holds 1 value after kernel 'A' finished`
//                         (loc = the register's; the first such register in program order, its
//                         first non-empty PE in Fortran order)
//   run-storage-size      a realize, buffer or shift register too large to allocate
//   run-step-limit        `the run exceeded its limit of N steps (statement executions)`
//
// Registers (stt stage on; docs/ir.md, "The stt stage"): when a kernel starts, every register
// whose `kernel` names it gets fresh storage, per PE (PE indices count from 0; PEs are numbered in
// Fortran order over `shape`): a shift register `depth` slots with no value yet, a FIFO an empty
// queue of at most `depth` values. `R(pe..., slot)` reads a slot, `provide R(pe..., slot) = v`
// writes one, `shift R(pe...)` moves slot m - 1 to slot m for m = depth - 1 down to 1 (slot 0
// keeps its value), `push R(pe...) v` appends to the PE's FIFO and `pop(R, pe...)` removes its
// oldest value. A kernel runs on one thread and owns its registers: a full or empty FIFO is an
// error, never a wait. When the kernel finishes, its FIFOs must be empty.
//
// The program must be well formed: run_program's callers run verify_program (libs/ir/verify.h)
// first, as every tool does on the IR it reads, and the interpreter does not check the
// verifier's rules again (names, scopes, arities, operand types). What verified IR may still
// hold that the interpreter cannot run (vector types, alloc statements, read_channel in a buffer
// bound, ...) throws InternalError.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "libs/exec/input_fill.h"
#include "libs/exec/npy_files.h"
#include "libs/ir/program.h"

namespace t2s {

struct RunOptions {
  // Budget of steps for the whole run: one step per statement executed and one per loop
  // iteration (so that an empty loop cannot spin forever). Exceeding it is `run-step-limit`.
  uint64_t max_steps = 2000000000;

  // Register instrumentation: the brute-force check of the `depth` that t2s-stt computes with
  // isl. When `track_registers` is set, `max_live` must point to a map, which receives one entry
  // per register of the program (by name; entries for other names are kept): the largest number
  // of values of one PE's storage of that register that are live at once over the whole run.
  //
  // Definition. A value is created by a write event (a provide to any slot of a shift register,
  // or a push); a shift moves values (their identity) between slots, and a provide drops the
  // value it overwrites from that slot. A value is read by a read event: a register read of a
  // slot currently holding it, or the pop that removes it. Events are numbered by one counter
  // per kernel run (every read, write, push and pop counts one; a statement's reads come before
  // its write). A value v is live from write(v) up to, not including, lastread(v); a value never
  // read is never live. For one register and one PE, the count is
  //   max over write events e of #{v : write(v) <= e < lastread(v)},
  // and `max_live` is the largest count over the PEs (0 for a register never read). Tracking
  // costs memory per value written; a run that throws leaves `*max_live` unspecified.
  bool track_registers = false;
  std::map<std::string, int64_t>* max_live = nullptr;
};

// Executes `program` with `inputs` (one per program input, by name) and returns the realized
// output: an NdArray with the output Func's type and shape = the output buffer's extents (its
// mins must be 0, else InternalError). Throws Diagnostic for errors in the user's program or
// data, InternalError for IR it cannot run (`program` must be verified, see above). When a kernel
// of a concurrent run fails, the others are stopped and the first error in kernel-list order
// among the failed kernels is reported; no thread outlives the call.
NdArray run_program(const Program& program, const std::map<std::string, NdArray>& inputs,
                    const RunOptions& options = {});

// `given` plus data for every program input not in it, generated by fill_array from the input's
// `extents` (Diagnostic `run-input-extents` if an input has none, as in a parsed-stage program).
std::map<std::string, NdArray> complete_inputs(const Program& program,
                                               std::map<std::string, NdArray> given, FillKind fill,
                                               uint64_t seed);

}  // namespace t2s
