// buffer(P, v): T2SP's on-chip double buffer in the consumer F of an isolated producer P,
// inserted at F's loop v (LANGUAGE.md section 7; T2SP's design document buffer.md).
#pragma once

#include <functional>

#include "libs/ir/program.h"

namespace t2s {

// Applies every directive `F.buffer(P, v)` of `p` whose consumer kernel F `which` selects
// (t2s-merge those no transform reorders, t2s-stt the transformed ones, over the loops the
// transform made), after apply_removes (remove_loops.h) has kept P's values in a realize inside v
// (or, when P sends every value once, before any storage exists). F then runs one period more than
// its loops outside v make: in each period it reads WRITES values from P's channel into one half of
// the storage, one a cycle from cycle READS - WRITES on, while its loops inside v read the half the
// period before filled, one iteration a cycle (READS cycles). The realize records the buffer
// (Realize::double_buffer). Throws Diagnostic: buffer-target (F does not read P's channel, or
// buffers it twice), buffer-loop (v missing or not serial, the loops around v not a
// serial nest, those inside v not a serial nest around the rest), buffer-read (a read the
// storage cannot hold), buffer-reads (READS < WRITES).
void apply_buffers(Program& p, const std::function<bool(const Kernel&)>& which);

}  // namespace t2s
