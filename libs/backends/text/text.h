// The `text` target of t2s-emit: a program of the merged stage or later as pseudo-code in the
// style of the seed documents' listings.
//
// Layout (every line ends with a newline; the output is a function of the program alone):
//
//   // t2s pseudo-code, stage stt
//   // output: c: float32, extents [4, 4]
//   // inputs:
//   //   a: float32, 2 dims, extents [4, 8]
//   // buffers:
//   //   c: float32 [0, 4) x [0, 4)
//
//   kernel A (device):                   (`kernel A (device, vector lanes 16):` for vector code)
//     for k in [0, 8) serial:
//       for j in [0, 4) unrolled:
//         for i in [0, 4) unrolled:
//           let A_val = select(j == 0, a(i, k), A_shreg(i, j - 1, 0))
//           A_shreg(i, j, 0) = A_val
//           if (k == 7):
//             c(i, j) = C_val
//
//   channels:
//     c_to_drainer: float32, A -> drainer, depth 0, dims []
//   registers:
//     A_fifo: fifo int32, Func A in kernel A, depth 9 per PE, PE array [10] (10 PEs), ...
//
// Statements, indented two spaces per level: `for v in [min, end) serial|unrolled|vectorized:`,
// `let v = e` (its body follows at the same level when the let is the last statement of its
// block, as in the seed's listings, else it is indented under `let v = e:`), `if (c):` and
// `else:`, `F(args) = e`, `alloc R: type [shape]`, `realize F: type [min, end) x ...:`,
// `shift R(pe)`, `push R(pe) <- e`, `write_channel ch(index) <- e`. Expressions are written by
// the canonical printer (libs/ir/expr_printer.h), as the user wrote them.
#pragma once

#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {

// The half-open range of a loop or realize dimension: "[0, 8)" for min 0 and extent 8,
// "[m, m + e)" when they are not both literals.
std::string print_range(const Expr& min, const Expr& extent);

// The lane counts above 1 of the values kernel `kernel` computes (the vector widths of its PEs,
// docs/ir.md "Vector values"), ascending; empty for scalar code.
std::vector<int> kernel_lanes(const Kernel& kernel);

// "vector lanes 8, 16" for kernel_lanes' result, "" for none.
std::string lanes_text(const std::vector<int>& lanes);

// Throws Diagnostic (rule `emit-stage`) for a program of the parsed stage, which has no kernels
// yet.
std::string emit_text(const Program& program);

}  // namespace t2s
