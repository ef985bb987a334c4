// Internal to libs/passes/stt: the state of one kernel's space-time transform, shared by the
// files of the pass (schedule, legality, registers, rebuild). Not part of the library's
// interface; stt.h is.
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
  std::string value_name;
  SourceLoc loc;
};

// A read of a URE inside the nest, at a constant distance.
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

// Applies the space_time_transform directives of one kernel (in program order) to it, adds its
// registers to `out` and takes the names it introduces from `names`.
class KernelTransformer {
 public:
  KernelTransformer(Program& out, Kernel& kernel, const std::vector<const Directive*>& directives,
                    NameSupply& names)
      : out_(out), kernel_(kernel), directives_(directives), name_supply_(names) {}

  // Throws Diagnostic at the directive that makes the transform illegal.
  void run();
  // After run(): the kernel as the channel step sees it.
  KernelView view() const;

 private:
  class ReadRewriter;

  [[noreturn]] void fail(const std::string& message, const std::string& rule);
  std::string what() const;
  // A directive argument (canonical expression text in the IR) as a typed expression.
  Expr directive_expr(const DirectiveArg& arg);
  std::string fresh(const std::string& base);

  // schedule.cc: the loop nest, the transform steps, time bounds, index recovery.
  void peel();
  poly::Set domain() const;
  // Pairs (x, y) of iterations, x before y in the order of the original loops (innermost first;
  // `order`: positions in names_, innermost first, for another order of them).
  poly::Set ordered_pairs(std::vector<std::string>* ys,
                          const std::vector<size_t>* order = nullptr) const;
  std::string loop_order() const;
  poly::Aff poly_of(const Aff& a) const;
  std::pair<int64_t, int64_t> range_of(const Aff& a);
  size_t position(const std::string& name) const;
  void check_innermost(const std::vector<std::string>& vars, const std::string& what);
  static std::vector<std::string> names_of(const DirectiveArg& list);
  static int64_t int_of(const DirectiveArg& a);
  void check_form(const Directive& d);
  void apply(const Directive& d);
  void apply_simple(const std::vector<std::string>& space, const DirectiveArg& vector, bool check);
  void apply_general(const Directive& d, bool check);
  static __int128 determinant(const std::vector<std::vector<int64_t>>& m);
  void invert(const std::vector<std::string>& src, const std::vector<std::string>& dst,
              const std::vector<std::vector<int64_t>>& m, TransformStep* step);
  void set_aside_lanes();
  void place_lanes();
  void finish_loops();
  void check_unrolled();
  poly::Set final_box() const;
  void guard();

  // legality.cc: injectivity, the reverse mapping, dependences, channel order.
  void injective(const std::vector<std::string>& dst, const std::vector<Aff>& dst_aff);
  static int64_t evaluate(const Aff& a, const std::vector<int64_t>& x);
  void reverse_mapping(const std::vector<std::string>& src, const std::vector<std::string>& dst,
                       const DirectiveArg& reverse, const std::vector<Aff>& dst_aff,
                       TransformStep* step);
  std::optional<std::vector<int64_t>> distance_of(const Ure& u,
                                                  const std::vector<Expr>& args) const;
  void collect_ures();
  void check_schedule_vectors();
  std::string read_text(const Read& r) const;
  // storage_order.cc: reads of Funcs that keep their storage (not at a constant distance).
  void check_storage_order();

  // registers.cc: storage per dependence, sized with libs/poly.
  int64_t delta(const std::vector<int64_t>& d, size_t reader, size_t writer) const;
  void allocate();

  // rebuild.cc: the new kernel body.
  Expr pe_index(size_t i, const std::vector<int64_t>& distance) const;
  std::vector<Expr> pe_args(const std::vector<int64_t>& distance) const;
  Expr shifted_in_domain(const std::vector<int64_t>& d, int sign) const;
  Expr time_expr() const;
  Expr typed_zero(Type t);
  StmtPtr rewrite(const StmtPtr& s, size_t stmt);
  StmtPtr let(const std::string& name, const Expr& value, StmtList body);
  StmtPtr maybe_if(const Expr& cond, StmtList then_body);
  StmtPtr shift_stmt(const Storage& s);
  std::vector<Expr> own_pe();
  StmtList build(size_t i);
  void rebuild();

  Program& out_;
  Kernel& kernel_;
  std::vector<const Directive*> directives_;
  NameSupply& name_supply_;  // the program's names, shared by every kernel's transform
  SourceLoc at_;

  std::vector<StmtPtr> realizes_;
  StmtList body_;
  std::vector<std::string> names_, isl_;  // original loop variables, innermost first
  // The loops as the input kernel nests them (positions in names_, innermost first): the order
  // the other end of a channel runs in, which a pending order changes.
  std::vector<size_t> input_order_;
  std::vector<int64_t> mins_, extents_;
  std::vector<Loop> loops_;         // the current loops, innermost first
  std::set<std::string> unrolled_;  // loops the merged kernel unrolls
  // Loops the merged kernel vectorizes (vectorize): lanes of each PE, placed inside the space
  // loops by finish_loops; `lanes_` holds those no transform names, set aside until then.
  std::set<std::string> vectorized_;
  std::vector<Loop> lanes_;
  std::vector<TransformStep> steps_;
  std::vector<ScheduleVector> schedule_vectors_;
  int time_vars_ = 0;
  bool check_time_ = false;

  size_t space_ = 0;
  Aff time_, order_;
  int64_t steps_total_ = 1, pes_ = 1, stmts_ = 1, quantum_ = 2;
  std::vector<int64_t> shape_;
  std::vector<std::pair<std::string, Expr>> recover_;
  std::vector<Expr> range_, checks_;  // the guard: ranges of recovered variables, time checks

  size_t current_stmt_ = 0;  // the statement whose reads are being rewritten
  std::map<std::string, Ure> ures_;
  std::vector<Read> reads_;
  std::vector<Storage> storage_;
  std::map<std::pair<std::string, std::vector<int64_t>>, size_t> storage_index_;
};

}  // namespace t2s::stt_internal
