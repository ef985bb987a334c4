// The `dot` target of t2s-emit: a Graphviz picture of the design a program describes (merged
// stage or later), for `dot -Tsvg`.
//
// - One cluster per kernel, labelled with its name, place and loops (`time:` the serial loops,
//   `space:` the unrolled loops, `vectorized:`) and, for vector code, the lane counts of the
//   values its PEs compute (`vector lanes: 8, 16`). A kernel without unrolled loops and without
//   registers is one node.
// - A space-time transformed kernel shows its PE array. The shape is that of the kernel's
//   registers (`shape`, innermost space loop first) or, without registers, the extents of its
//   unrolled loops. PE nodes are named `<kernel>_pe_<p0>_<p1>...` and labelled `PE(p0, p1, ...)`,
//   indices innermost space loop first (the order of register arguments, `A_shreg(i, j, 0)`).
//   The innermost space loop runs along a row; the outer ones are flattened into rows (the
//   outermost varies slowest), kept in place with `rank=same` rows and invisible edges. An array
//   of more than 256 PEs shows its first rows and columns (at most 256 PEs) and a node saying
//   how many PEs are omitted. An array whose extents are not constants is one node labelled with
//   them.
// - Each register is an edge from every PE to the PE that reads its values: the PE offset is the
//   space part of the register's dependence distance (the entries of `distance` for the space
//   loops, through the transform's matrix for a general space_time_transform; failing both, the
//   offset at which the kernel reads the register). A zero offset is a self-loop. Labels:
//   `A_shreg shift x1`, `C_fifo fifo depth 5`, with the type of a vector register:
//   `A_shreg shift x1, float32x16`.
// - Inputs (parallelograms) have edges to the kernels that read them; buffers (cylinders) have
//   edges from the kernels that write them and to the kernels that read them; channels are edges
//   between kernel clusters labelled `name (depth N)` (`name (depth N), float32x16` for a
//   vector channel).
//
// The output is a function of the program alone (no addresses, sets sorted) and ends with a
// newline.
#pragma once

#include <string>

#include "libs/ir/program.h"

namespace t2s {

// Throws Diagnostic (rule `emit-stage`) for a program of the parsed stage, which has no kernels
// yet.
std::string emit_dot(const Program& program);

}  // namespace t2s
