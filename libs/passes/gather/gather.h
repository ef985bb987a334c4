// t2s-gather: the `vectorized` stage to the `gathered` stage (seed 003; docs/ir.md, "The
// gathered stage").
//
// `F.gather(A, v, GatherStrategy::Up | ::Down)`: F is a kernel of its own (an isolated consumer)
// that reads A's values from a channel array, one channel per PE of A, exactly once and
// unconditionally, inside its space loops. Gathering makes the PEs along v pass their values to
// one exit PE over FIFOs between neighbouring PEs (new channels whose producer and consumer are
// F's kernel), and only the exit PE writes on to F's consumer (or F's storage):
//   - v unrolled (seed 003, Code 2): a count loop t per PE; the exit PE writes the values of
//     every PE along v, in ascending order of v, and the channel it writes loses v's dimension;
//   - v vectorized (Code 4): v comes back as unrolled PEs, each puts its lane into the vector
//     passed along, and the exit PE writes whole vectors.
// Down sends the values towards lower indices of v (the PE at v's minimum writes them), Up
// towards higher ones (the PE at v's maximum). The PEs of a kernel run one after another in
// loop order (t2s-run, the C++ emulation, OpenCL's sequential semantics), so for Down the PE
// loop runs from the highest index down: `for v_pe in [0, I) unrolled { let v = I - 1 - v_pe ...`.
#pragma once

#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {

// What t2s-gather did for one gather directive (`t2s-gather --report`).
struct GatherItemReport {
  std::string func;      // F
  std::string source;    // A
  std::string var;       // v
  std::string strategy;  // "Up" or "Down"
  // "unrolled", "vectorized", or "unrolled (vectorize(v) was serialised by t2s-vec)".
  std::string form;
  std::string channel;               // A's channel into F
  int64_t pes = 0;                   // PEs along v
  std::string exit_pe;               // "i = 0"
  std::vector<std::string> fifos;    // each FIFO made: name, type, dims, depth and why
  std::vector<std::string> outputs;  // what the exit PE writes, and what changed for the consumer
  SourceLoc loc;
};

struct GatherReport {
  std::vector<GatherItemReport> items;
};

// Throws Diagnostic (located at the gather directive, rules gather-func, gather-twice,
// gather-channel, gather-read, gather-loop, gather-order; stage) when a gather cannot be
// applied, and (unsupported-directive) at a scatter or buffer directive. `vectorized` must be
// at stage vectorized. Fills `report` when it is not null.
Program gather_pass(const Program& vectorized, GatherReport* report);
Program gather_pass(const Program& vectorized);

// The text `t2s-gather --report` prints.
std::string gather_report_text(const GatherReport& report);

}  // namespace t2s
