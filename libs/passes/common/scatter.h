// scatter(P, v): the values a consumer F reads from producer P for all its PEs along space loop
// v enter F at one end over one channel (LANGUAGE.md section 7; T2SP's scatter.md).
#pragma once

#include <functional>
#include <string>

#include "libs/ir/program.h"

namespace t2s {

// Applies every directive `F.scatter(P, v [, ScatterStrategy::Up|Down])` of `p` whose consumer F
// `which` selects (t2s-stt: transformed consumers, after apply_buffers). For a consumer that
// double-buffers P's values (`F.buffer(P, w)`), whose buffer fills one value a cycle: P's
// PE loop v becomes a serial loop sending every PE's value in turn over one channel (the
// channel loses its dimension along v), and F's fill reads that channel and writes each value
// into the storage of the PE it belongs to (v fastest, as T2SP requires of a scatter loop);
// with ScatterStrategy::Down both sides count v from its last PE (the values enter there).
// Without a buffer, P's loop v becomes serial the same way, and F reads each step's V values
// from the channel before the step's PE loops, one a cycle, into the storage of their PEs (a
// `realize P` over v and the lanes, or remove's kept value), which the PEs then read: the read
// must be the whole value of its statement, under conditions that do not depend on the PEs
// (one may fix another PE loop, `jjj == 0`).
// A consumer whose loop v is serial (T2SP's scatter tests: a feeder that does not inherit the
// array's PEs) already takes what it reads from P (a kernel, or an input it reads from memory)
// one value at a time in v's order, which is what Up asks for: nothing changes (T2SP allows only
// Up on a serial loop).
// Throws Diagnostic: scatter-target (F reads nothing from P, or F is not transformed),
// scatter-loop (v is not the channel's index along a PE loop of P and F, P's loop v is not the
// innermost around its send, the buffer does not fill v fastest, or, without a buffer, the read
// is inside an expression, under a condition on the PEs, or inside a serial loop of the PEs),
// scatter-strategy (Down on a serial loop, which T2SP refuses too).
void apply_scatters(Program& p, const std::function<bool(const Kernel&)>& which);

// A line per scatter directive of `p` (at the stt stage or later): what it made of the
// consumer, for t2s-stt --report.
std::string scatter_report(const Program& p);

}  // namespace t2s
