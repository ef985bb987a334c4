// T2SP's Stensor chains (LANGUAGE.md section 7, docs/language.md "Stensor chains"): what the
// parser records of each Stensor and each `>>` chain, and their lowering to the directives
// they stand for, as T2SP's Stensor.cpp lowers them when the program is compiled. The lowered
// directives are checked as if the user had written them, each at the location of the
// Stensor (or the chain) it comes from, so that every later error points into the chain.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s::frontend_internal {

enum class StensorPosition { kHost, kDram, kSram, kReg };
const char* stensor_position_name(StensorPosition p);

// One Stensor as its methods leave it when it enters a chain (T2SP copies it there).
struct Stensor {
  std::string handle;  // the C++ name in the spec
  std::string name;    // the name string: the Func (kernel) it becomes
  StensorPosition position = StensorPosition::kHost;
  SourceLoc loc;       // the declaration
  SourceLoc name_loc;  // the name string
  std::string scope;   // scope(v); empty when not given
  SourceLoc scope_loc;
  std::vector<std::string> outs;  // out(v, ...): bank width and banks, told apart by lowering
  std::vector<SourceLoc> out_locs;
  std::vector<std::string> banks;  // banks(v, ...)
  std::vector<SourceLoc> bank_locs;
  size_t dims = 0;  // s(e1, ..., en): the host layout T2SP's GPU path uses; read, not used
  int chain = -1;   // the chain it is in
  SourceLoc chain_loc;
};

struct StensorLink {
  Stensor stensor;         // its state when the chain reached it
  int64_t fifo_depth = 0;  // `>> FIFO(d)` after it; 0 when none
  SourceLoc fifo_loc;
};

// `source >> s1 [>> FIFO(d)] >> s2 ...`: an input chain from an ImageParam, or an output chain
// from a device Func (the array's output URE).
struct StensorChain {
  bool output = false;
  std::string source;
  SourceLoc loc;  // the source's name, where the chain starts
  std::vector<StensorLink> links;
};

// A directive the lowering emits, with its arguments as the parser would read them.
struct StensorDirective {
  std::string func;
  std::string directive;
  std::vector<DirectiveArg> args;
  SourceLoc loc;
};

struct StensorLowering {
  std::vector<Func> funcs;  // the Funcs the Stensors become, in chain order
  std::vector<StensorDirective> directives;
  Output output;  // the realize of the host Stensor compiled
};

// Lowers every chain of `chains` against `program` (the UREs, merge, bounds, transform and
// directives read so far), for the compile call at `compile_loc` on the host Stensor named
// `compiled` (a handle). Throws Diagnostic with a stensor-* rule for a chain that cannot lower.
StensorLowering lower_stensor_chains(const Program& program,
                                     const std::vector<StensorChain>& chains,
                                     const std::string& compiled, const SourceLoc& compile_loc);

}  // namespace t2s::frontend_internal
