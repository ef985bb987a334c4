// Internal to libs/passes/stt: the steps of one kernel's space-time transform and the values
// they pass on, shared by the files of the pass (schedule, legality, registers, rebuild). Not part
// of the library's interface; stt.h is.
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "libs/ir/program.h"
#include "libs/ir/program_facts.h"
#include "libs/poly/poly.h"

namespace t2s::stt_internal {

// A register's window: at most this many values per PE (and its offsets, which t2s-stt
// enumerates to size it).
constexpr int64_t kMaxWindowOffsets = 100000;
// t2s-stt's own time limit (docs/limits.md): the window offsets it enumerates to size the
// registers of one transformed kernel, all its windows together (isl enumerates them one by one,
// about 20 us each, so that the pass takes a few seconds at most).
constexpr int64_t kMaxEnumeratedOffsets = 250000;
// Bound on (time steps) x (PEs) x (statement positions): execution-order positions must fit in
// 64 bits with room to spare.
constexpr int64_t kMaxPositions = int64_t{1} << 52;

// Arithmetic on execution-order positions past 64 bits: hand-edited IR (loop bounds near 2^31
// under large strides, distances far outside the loops) can reach it where no spec does;
// stt_pass reports it as loop-too-large at the kernel.
struct PositionOverflow : std::exception {
  const char* what() const noexcept override { return "position arithmetic overflows"; }
};
inline int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw PositionOverflow();
  return r;
}
inline int64_t checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw PositionOverflow();
  return r;
}

// An affine function of the original loop variables: sum(coeff[v] * x_v) + constant.
// (Checked arithmetic: PositionOverflow.)
struct Aff {
  std::vector<int64_t> coeff;
  int64_t constant = 0;

  static Aff var(size_t n, size_t v) {
    Aff a{std::vector<int64_t>(n, 0), 0};
    a.coeff[v] = 1;
    return a;
  }
  static Aff zero(size_t n) { return Aff{std::vector<int64_t>(n, 0), 0}; }
  void add(const Aff& o, int64_t scale) {
    for (size_t i = 0; i < coeff.size(); ++i)
      coeff[i] = checked_add(coeff[i], checked_mul(scale, o.coeff[i]));
    constant = checked_add(constant, checked_mul(scale, o.constant));
  }
  int64_t dot(const std::vector<int64_t>& d) const {
    int64_t s = 0;
    for (size_t i = 0; i < coeff.size(); ++i) s = checked_add(s, checked_mul(coeff[i], d[i]));
    return s;
  }
};

// A loop of the transformed nest, as an affine function of the original loop variables.
struct Loop {
  std::string name;
  Aff aff;
  int64_t min = 0, extent = 0;
  bool space = false;
};

// What one transform adds: how to recover its source loops from its destination loops, and
// (CheckTime) the checks that the destination loops hold the schedule's values.
struct TransformStep {
  std::vector<std::pair<std::string, Expr>> recover;  // var, its value over the dst loops
  std::vector<std::pair<std::string, Expr>> check;    // dst var, its value over the src loops
};

// One storage object: a Func read at one distance.
struct Storage {
  std::string func;
  std::vector<int64_t> distance;  // over the original loop variables
  size_t first_reader = 0;        // the first statement that reads it
  size_t last_reader = 0;         // the last statement that reads it
  int64_t time_distance = 0;
  int64_t delta = 0;  // execution-order distance from the write to the first (fifo) or last
                      // (shift) read
  bool none = false;  // never read inside the domain: no storage, reads give 0
  Register reg;
  std::string value_name;  // fifo: the let holding the popped value
  int64_t phase = 0;       // shift with period > 1: the written steps' T % period
};

// A URE of the loop nest: a Func provided once with the loop variables as arguments.
struct Ure {
  std::string func;
  size_t stmt = 0;
  Type type;
  std::vector<size_t> arg_var;  // Func argument -> original loop variable
  bool allocatable = false;
  SourceLoc loc;
};

// A simple-form transform with a scheduling vector (seed 000, front-end check 2): every
// dependence between its PEs that no loop outside it carries must have T'd > 0.
struct ScheduleVector {
  SourceLoc at;
  std::vector<std::string> space;  // the space loops, as the directive lists them
  std::vector<Aff> space_aff;      // their values over the original loop variables
  std::vector<int64_t> vector;     // the scheduling vector, one entry per space loop
  std::string next;                // the loop the time loop replaces
  Aff time_aff;                    // T: the time loop over the original loop variables
  std::vector<Aff> outer_aff;      // the loops outside it
};

// A read of a URE inside the nest, at a constant distance.
struct Read {
  std::string func;
  size_t stmt = 0;
  std::vector<int64_t> distance;  // over the original loop variables
};

// Expression builders (exprs.cc): the typed trees the expression reader makes of the
// canonical text, so that the printed IR is the same whichever built it.
// An int32 literal; a Diagnostic (rule "lex") as the reader gives when it does not fit.
Expr int_lit(int64_t value);
// A loop variable (int32).
Expr loop_var(const std::string& name);
// `a op b` on operands of one type; two literals fold as resolve_types folds them.
Expr binop(BinaryOp op, const Expr& a, const Expr& b);
// c0 && c1 && ..., left to right; null when `conds` is empty.
Expr all_of(const std::vector<Expr>& conds);
// t0 + t1 + ..., left to right; null when `terms` is empty.
Expr sum_of(const std::vector<Expr>& terms);
// c * name (name, or -name, for c = 1 or -1).
Expr linear_term(int64_t c, const std::string& name);
// sum(c_i * names_i) + constant, in the order and with the signs the canonical text has.
Expr linear(const std::vector<int64_t>& coeff, const std::vector<std::string>& names,
            int64_t constant);
// "(1, 0, -2)".
std::string distance_text(const std::vector<int64_t>& d);
// A distance kept in argument order (innermost loop first), printed outermost loop first, as
// every tool prints a distance: "(0, 0, 1) (outermost loop first)".
std::string outermost_first(const std::vector<int64_t>& by_argument);

// What the channel step of the pass (channels.cc) needs of one kernel, transformed or not: its
// original loops, the order its iterations run in, its PEs, and one iteration's statements.
struct KernelView {
  std::string kernel;
  bool transformed = false;
  std::vector<std::string> names;  // the original loop variables, innermost first
  std::vector<int64_t> mins, extents;
  // The loops as the merged stage nests them (positions in names, innermost first).
  std::vector<size_t> input_order;
  // The position of an iteration in the order the kernel runs them (one value per iteration):
  // time steps, then PEs in unrolled order; for a kernel t2s-stt leaves alone, its loop nest.
  Aff position;
  // The PE array without the lanes (vectorized loops): one per space loop, innermost first.
  struct Space {
    std::string loop;  // the loop variable of the transformed nest
    Aff aff;           // its value as a function of the original loop variables
    int64_t min = 0, extent = 0;
  };
  std::vector<Space> space;
  StmtList body;     // the statements of one iteration, before the transform
  SourceLoc at;      // the (last) transform directive, for diagnostics
  std::string what;  // "space_time_transform of 'A'", the diagnostics' prefix
};

// channels.cc: the view of a kernel t2s-stt leaves alone (nullopt when it is not one loop nest).
std::optional<KernelView> untransformed_view(const Kernel& k);
// Channels whose producer was transformed become arrays over its PEs (without the lanes and
// the space loops the writes do not vary in); each PE writes its own element and the consumer
// reads the element of the same loop variables. Then every channel with a transformed end must
// hand each element's values over in the order they were written (stt-channel-order).
void arrange_channels(Program& out, const std::map<std::string, KernelView>& views);

// One kernel's transform is a sequence of steps (transform_kernel, stt.cc, lists them in
// order), each a function of the values the steps before it decided.

// What every step reads and none changes: the program (its Funcs, buffers, output), the kernel,
// its transforms in program order, and the directive diagnostics point at.
struct TransformContext {
  TransformContext(const Program& program, const Kernel& kernel,
                   std::vector<const Directive*> directives)
      : program(program),
        kernel(kernel),
        directives(std::move(directives)),
        at(this->directives.back()->loc) {}

  // The same context with diagnostics at `loc` (the directive being applied or checked).
  TransformContext pointing_at(const SourceLoc& loc) const {
    TransformContext c = *this;
    c.at = loc;
    return c;
  }
  // "space_time_transform of 'A'", the diagnostics' prefix.
  std::string what() const;
  // Throws Diagnostic at `at`.
  [[noreturn]] void fail(const std::string& message, const std::string& rule) const;

  const Program& program;
  const Kernel& kernel;
  std::vector<const Directive*> directives;  // not empty
  SourceLoc at;                              // the last directive unless pointing_at says
};

// A fresh name as t2s-stt spells it: a taken name with underscores appended (t1_, t1__).
inline std::string fresh_name(NameSupply& names, const std::string& base) {
  return names.fresh(base, NameSupply::Suffix::kUnderscores);
}

// The kernel's loop nest before the transforms (peel_loops).
struct OriginalLoops {
  std::vector<StmtPtr> realizes;        // the realize statements around the nest
  StmtList body;                        // the statements of one iteration
  std::vector<std::string> names, isl;  // original loop variables, innermost first; isl dims
  // The loops as the input kernel nests them (positions in names, innermost first): the order
  // the other end of a channel runs in, which a pending order changes.
  std::vector<size_t> input_order;
  std::vector<int64_t> mins, extents;
  std::vector<Loop> loops;           // the nest the transforms start from, innermost first
  std::set<std::string> unrolled;    // loops the merged kernel unrolls
  std::set<std::string> vectorized;  // loops the merged kernel vectorizes (lanes of a PE)

  // The iteration domain over the dims isl.
  poly::Set domain() const;
  // Pairs (x, y) of iterations, x before y in the order of the original loops (innermost first;
  // `order`: positions in names, innermost first, for another order of them).
  poly::Set ordered_pairs(std::vector<std::string>* ys,
                          const std::vector<size_t>* order = nullptr) const;
  // The original loops, outermost first: "k, j, i".
  std::string loop_order() const;
  // `a` over the dims isl, for isl's questions.
  poly::Aff poly_of(const Aff& a) const;
  // [min, max] of `a` over the iteration domain (isl).
  std::pair<int64_t, int64_t> range_of(const Aff& a) const;
};

// What the directives make of the nest (schedule_kernel).
struct KernelSchedule {
  // The final loops, innermost first: the lanes and space loops (the PE array), then time.
  std::vector<Loop> loops;
  size_t space = 0;  // how many of `loops` the PE array has, lanes included
  Aff time, order;   // the flattened time step T and the PE order, over the original variables
  int64_t steps_total = 1, pes = 1;
  std::vector<int64_t> shape;  // the extents of the space loops
  std::vector<TransformStep> steps;
  std::vector<ScheduleVector> schedule_vectors;
  bool check_time = false;  // some transform says CheckTime
};

// The PE body's guard (guard_pe_body): the recovered original variables, the ranges of those
// that are not loops any more, the time checks.
struct Guard {
  std::vector<std::pair<std::string, Expr>> recover;  // the last transform's first
  std::vector<Expr> range, checks;
};

// The UREs of the nest and their reads at constant distances (find_dependences).
struct Dependences {
  std::map<std::string, Ure> ures;
  std::vector<Read> reads;  // in statement order
};

// Positions in the execution order: time steps, then PEs, then statements (execution_order).
struct ExecutionOrder {
  Aff time, pe;
  int64_t stmts = 1, quantum = 2;
  // Execution-order distance from the write of x - d (statement `writer`) to its read at x
  // (statement `reader`): time steps, then PEs, then statements, a read before a write.
  int64_t delta(const std::vector<int64_t>& d, size_t reader, size_t writer) const;
};

// The registers that replace the UREs' storage (allocate_registers).
struct KernelStorage {
  std::vector<Storage> storage;  // the kernel's registers are those not `none`, in this order
  std::map<std::pair<std::string, std::vector<int64_t>>, size_t> index;  // (func, distance)
  std::map<std::string, std::string> value_names;  // allocated URE -> the let of its value
};

// schedule.cc. The loop nest; takes its loop variables from `names`.
OriginalLoops peel_loops(const TransformContext& ctx, NameSupply& names);
// Applies the directives in order, then places the lanes and flattens time.
KernelSchedule schedule_kernel(const TransformContext& ctx, const OriginalLoops& loops,
                               NameSupply& names);
Guard guard_pe_body(const TransformContext& ctx, const OriginalLoops& loops,
                    const KernelSchedule& schedule);
// The position of loop `name` in `loops`, or loops.size().
size_t position(const std::vector<Loop>& loops, const std::string& name);

// legality.cc. Two iterations on the same PE at the same step: refused with an example.
void check_injective(const TransformContext& ctx, const OriginalLoops& loops,
                     const std::vector<std::string>& dst, const std::vector<Aff>& dst_aff);
// The user's reverse mapping, checked to recover every source loop: the recoveries it adds.
std::vector<std::pair<std::string, Expr>> check_reverse_mapping(
    const TransformContext& ctx, const OriginalLoops& loops, const std::vector<Loop>& current,
    const std::vector<std::string>& src, const std::vector<std::string>& dst,
    const DirectiveArg& reverse, const std::vector<Aff>& dst_aff);
// The distance of a read of `u` with arguments `args`, or nullopt when an argument is not
// `v + c` for the Func's own variable (`names`: the original loop variables).
std::optional<std::vector<int64_t>> distance_of(const std::vector<std::string>& names, const Ure& u,
                                                const std::vector<Expr>& args);
Dependences find_dependences(const TransformContext& ctx, const OriginalLoops& loops);
// Seed 000, front-end check 2: T'd > 0 for the dependences between PEs.
void check_schedule_vectors(const TransformContext& ctx, const OriginalLoops& loops,
                            const KernelSchedule& schedule, const Dependences& deps);
ExecutionOrder execution_order(const TransformContext& ctx, const OriginalLoops& loops,
                               const KernelSchedule& schedule);
// Every dependence must go forward in the new execution order.
void check_dependences(const TransformContext& ctx, const OriginalLoops& loops,
                       const Dependences& deps, const ExecutionOrder& order);
// storage_order.cc: reads of Funcs that keep their storage (not at a constant distance).
void check_storage_order(const TransformContext& ctx, const OriginalLoops& loops,
                         const KernelSchedule& schedule, const Dependences& deps);

// registers.cc: storage per dependence, sized with libs/poly; takes its names from `names`.
KernelStorage allocate_registers(const TransformContext& ctx, const OriginalLoops& loops,
                                 const KernelSchedule& schedule, const Dependences& deps,
                                 const ExecutionOrder& order, NameSupply& names);

// rebuild.cc: the new kernel body.
StmtList rebuild_body(const OriginalLoops& loops, const KernelSchedule& schedule,
                      const Guard& guard, const Dependences& deps, const ExecutionOrder& order,
                      const KernelStorage& storage);

// What transforming one kernel gives: its new body, its registers (for the program) and the
// kernel as the channel step sees it.
struct TransformedKernel {
  StmtList body;
  std::vector<Register> registers;
  KernelView view;
};

// stt.cc: the steps above, in order. Throws Diagnostic at the directive that makes the
// transform illegal.
TransformedKernel transform_kernel(const TransformContext& ctx, NameSupply& names);

}  // namespace t2s::stt_internal
