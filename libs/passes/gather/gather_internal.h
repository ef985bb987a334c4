// Internals of t2s-gather (libs/passes/gather), split along its seams:
//   analysis.cc  finds and checks one gather: F's kernel, A's channel, the read, the loops, what
//                F does with the value (rules gather-func, gather-channel, gather-read,
//                gather-loop);
//   consumer.cc  the consumer of the channel F writes: it must read each element's values in
//                the order the exit PE writes them (gather-order); its reads lose v's index;
//   rewrite.cc   the new loops, lets and FIFOs (seed 003, Codes 2 and 4);
//   gather.cc    the pass: every gather directive in program order, and the report.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "libs/ir/program.h"
#include "libs/ir/program_facts.h"
#include "libs/passes/gather/gather.h"

namespace t2s {
namespace gather_internal {

struct Loop {
  std::string var;
  int64_t min = 0, extent = 0;  // constant for space loops; 0 when not constant
  bool constant = false;
  LoopKind kind = LoopKind::kSerial;
};

// The Loop a for statement runs.
Loop as_loop(const For& f);

// One gather directive, checked, with everything the rewrite needs.
struct Site {
  const Directive* directive = nullptr;
  std::string func, source, var;  // F, A, v
  bool down = false;
  std::string source_kernel;  // the kernel that computes A
  std::string in_channel;     // A's channel into F

  // The statement that passes the value on, reached from F's kernel body by `path`: at each
  // level the index in the list, then the body of that for, let or realize.
  std::vector<size_t> path;
  const Stmt* stmt = nullptr;
  // Its node: a provide (to F's own storage) or a write_channel; the other one is null.
  const Provide* provide = nullptr;
  const WriteChannel* write = nullptr;
  // The value it writes, which holds the read.
  const Expr& value() const { return provide ? provide->value : write->value; }
  std::vector<Loop> serial;                        // the serial loops around it, outermost first
  std::vector<Loop> space;                         // the unrolled loops around it, innermost first
  std::vector<std::pair<std::string, Expr>> lets;  // the lets around it, outermost first

  // kWhole: F reads every lane of v in one vector (A, untransformed, vectorizes v itself): the
  // values arrive gathered, in ascending order of v, and F passes them on as they are.
  enum Form { kUnrolled, kVectorized, kWhole };
  Form form = kUnrolled;
  bool serialised = false;  // F vectorizes v, but t2s-vec left it an unrolled loop
  size_t space_index = 0;   // kUnrolled: v's position in `space`
  size_t in_dim = 0;        // v's dimension of A's channel
  int64_t vmin = 0, pes = 0;
  Expr read;  // kUnrolled: the read_channel; kVectorized: the concat of the lanes' reads
  // kVectorized with lanes along several dimensions (a tensor of lanes): the v of each lane's
  // read; empty when lane l reads v's element l.
  std::vector<int64_t> lane_v;

  std::string out_channel;        // the channel F writes the value to; empty for a provide
  std::optional<size_t> out_dim;  // kUnrolled: v's dimension of out_channel, when it has one
};

// Checks gather directive `d` of `p` (rules gather-func, gather-channel, gather-read,
// gather-loop, located at `d`) and describes it.
Site analyse(const Program& p, const Directive& d);

// The consumer of `site.out_channel` must read each remaining element's values in the order
// the exit PE writes them (F's outer loops, then v ascending): Diagnostic gather-order.
void check_consumer(const Program& p, const Site& site);
// The channel F writes loses v's dimension, and so do its reads in the consumer.
void drop_consumer_dim(Program& p, const Site& site);

// The names a rewrite may take: libs/ir/program_facts.h.
using Names = NameSupply;

// Rewrites F's kernel and adds the FIFO channel (seed 003, Code 2 or Code 4); fills `report`.
void rewrite(Program& p, const Site& site, Names& names, GatherItemReport* report);

// ---- expressions ----

Expr lit32(int64_t v);
// `e + c`, folded when `e` is a literal, `e - |c|` for a negative c, `e` for 0.
Expr plus(const Expr& e, int64_t c);
// `e` with the lets (outermost first) substituted, innermost first.
Expr inline_lets(const Expr& e, const std::vector<std::pair<std::string, Expr>>& lets);
// The loop of `loops` whose variable `e` is as a channel index from 0: `L` for a loop from 0,
// `L - min` otherwise; nullopt when `e` is not such an index.
std::optional<size_t> index_loop(const Expr& e, const std::vector<Loop>& loops);
// Whether variable `var` occurs in `e`.
bool mentions(const Expr& e, const std::string& var);
// A read of channel `channel` (read_channel(channel, index...)).
bool is_read_of(const Expr& e, const std::string& channel);
// A concat whose parts are all reads of `channel` (the lanes of a vectorized read).
bool is_lane_reads_of(const Expr& e, const std::string& channel);
// "b, j, i"
std::string join_names(const std::vector<std::string>& names);

}  // namespace gather_internal
}  // namespace t2s
