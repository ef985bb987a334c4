// Directives as text, both ways, for t2s-explore's schedules: the directives a candidate adds
// are printed as a user pastes them into a spec (`A.reorder(j, i).space_time_transform(j);`),
// and `--try` reads a chain of them in the spec's syntax, recording the parser's normal form
// (docs/ir.md, "Directives") so that t2s-merge and t2s-stt take them as from a spec.
#pragma once

#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s::explore {

// "space_time_transform({i, j}, {2, 3})" (no Func, no ';'): the spec's spelling of one
// directive in its normal form.
std::string directive_text(const Directive& d);
// "A.reorder(j, i).space_time_transform(j);".
std::string chain_text(const std::string& func, const std::vector<Directive>& ds);

// Reads "reorder(j, i).space_time_transform({i, j}, {2, 3})" (a leading "A." names the Func,
// which must be `func`; a trailing ';' is allowed) into normal-form directives of `func` at
// `loc`. Only reorder and space_time_transform are taken. Throws std::invalid_argument with
// a message for the user when the text does not read, and Diagnostic (at `loc`, with the front
// end's message and rule) when a transform breaks a rule the front end checks: a space loop
// named twice, a vector of the wrong length, a chain that is not a proper subset (stt-chain).
std::vector<Directive> parse_chain(const std::string& text, const std::string& func,
                                   const SourceLoc& loc);

}  // namespace t2s::explore
