// remove(v, ...) on isolated producers (LANGUAGE.md section 7): the kernel of a producer that
// sends only at one value of each removed loop runs without those loops (remove_loops.cc).
#pragma once

#include <functional>
#include <map>
#include <string>

#include "libs/ir/program.h"

namespace t2s {

// Applies each remove directive of `p` whose Func is a kernel `which` selects: the kernel's
// body without the loops named. A producer that sends only at one value of a loop runs at that
// value; one that sends at every iteration sends once, and its consumer (which `may_keep` must
// accept) reads at the first iteration and keeps the values, in a realize of the producer's
// Func indexed by its loops inside the outermost removed one. Throws Diagnostic (remove-loop,
// remove-depends, remove-reuse, remove-target for a producer that writes memory). The
// directive's target (an isolated device producer) is t2s-merge's check.
// `buffers` maps a producer to the buffer directive of its consumer (`F.buffer(P, v)`): the
// kept values then live inside loop v (buffer-loop when a removed loop is outside it).
void apply_removes(Program& p, const std::function<bool(const Kernel&)>& which,
                   const std::function<bool(const Kernel&)>& may_keep,
                   const std::map<std::string, const Directive*>& buffers = {});

// The body of `consumer` keeping every value it reads from `channel` (whose producer removed no
// loop) in a realize of the producer's Func inside the loop of `buffer` (F.buffer(P, v)),
// indexed by the loops inside v that no condition around the read fixes; the reads read the
// storage. Throws Diagnostic (buffer-loop, buffer-read).
StmtList keep_values(const Directive& buffer, const Kernel& consumer, const Channel& channel);

}  // namespace t2s
