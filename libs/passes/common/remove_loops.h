// remove(v, ...) on isolated producers (LANGUAGE.md section 7): the kernel of a producer that
// sends only at one value of each removed loop runs without those loops (remove_loops.cc).
#pragma once

#include <functional>

#include "libs/ir/program.h"

namespace t2s {

// Applies each remove directive of `p` whose Func is a kernel `which` selects: the kernel's
// body without the loops named. A producer that sends only at one value of a loop runs at that
// value; one that sends at every iteration sends once, and its consumer (which `may_keep` must
// accept) reads at the first iteration and keeps the values, in a realize of the producer's
// Func indexed by its loops inside the outermost removed one. Throws Diagnostic (remove-loop,
// remove-depends, remove-reuse, remove-target for a producer that writes memory). The
// directive's target (an isolated device producer) is t2s-merge's check.
void apply_removes(Program& p, const std::function<bool(const Kernel&)>& which,
                   const std::function<bool(const Kernel&)>& may_keep);

}  // namespace t2s
