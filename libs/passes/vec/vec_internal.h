// Internal to libs/passes/vec: the steps of the pass and the values they pass on (vec_pass in
// vec.cc lists the steps in order), the lane vectorizer (lane_vectorizer.cc) and the expression
// helpers (lane_exprs.cc). vec.h is the interface.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "libs/ir/program.h"
#include "libs/ir/program_facts.h"
#include "libs/ir/visitor.h"
#include "libs/passes/vec/vec.h"

namespace t2s::vec_internal {

// Why a nest of vectorized loops runs lane after lane instead (reported, not an error).
struct Serialise {
  std::string why;
};

// A StmtMutator whose hooks may also replace their statement by a list of statements (none, one
// or several): a hook returns splice(list). A nest of vectorized loops gives way to its vector
// code, a decided if to the branch taken, a let nothing reads to its body. The list is taken by
// the mutate_stmts that called the hook, so the hooks run only through mutate_stmts (a hook
// calls mutate_stmts or mutate_children, not mutate_stmt).
class SplicingMutator : public StmtMutator {
 public:
  StmtList mutate_stmts(const StmtList& list) override {
    StmtList out;
    for (const StmtPtr& s : list) {
      StmtPtr done = mutate_stmt(s);
      if (spliced_) {
        out.insert(out.end(), spliced_->begin(), spliced_->end());
        spliced_.reset();
      } else if (done) {
        out.push_back(std::move(done));
      }
    }
    return out;
  }

 protected:
  // What a hook returns to put `list` in place of its statement.
  StmtPtr splice(StmtList list) {
    spliced_ = std::move(list);
    return nullptr;
  }

 private:
  std::optional<StmtList> spliced_;
};

// The vectorized loops of one nest, innermost first, and the flat lane numbering: lane
// l = sum((v_i - min_i) * stride_i).
struct Lanes {
  std::vector<std::string> vars;
  std::vector<int64_t> mins, extents, strides;
  int n = 1;

  // The type of a value of every lane with element type t: a flat vector for one loop
  // (float32x16), a tensor of one dimension per loop (of more than one lane) for several
  // (float32x4x4: innermost loop first, as the flat numbering).
  Type typed(Type t) const {
    return t.element_of().with_shape(std::vector<int>(extents.begin(), extents.end()));
  }

  // Loop variable i's value in lane l.
  int64_t value(size_t i, int l) const { return mins[i] + (l / strides[i]) % extents[i]; }
  // The flat lane of per-dimension lane indices (each from 0), or -1 outside the lanes.
  int flat(const std::vector<int64_t>& index) const {
    int64_t l = 0;
    for (size_t i = 0; i < index.size(); ++i) {
      if (index[i] < 0 || index[i] >= extents[i]) return -1;
      l += index[i] * strides[i];
    }
    return static_cast<int>(l);
  }
};

// lane_exprs.cc: expression builders.
Expr lit32(int64_t v);
// 0 of scalar type t.
Expr typed_zero(Type t);
// Folds what substituting a lane's loop values makes constant (integer operations on literals,
// selects, && and || with a literal condition, x + 0).
Expr fold(const Expr& e);
Expr broadcast(const Expr& x, int lanes);
// Scalar x as a value of type t (nested broadcasts for a tensor).
Expr broadcast_to(const Expr& x, Type t);
// v (of as many lanes as t) with type t: v itself, or reshape(v, dims of t).
Expr reshaped(const Expr& v, Type t);
// Lane `lane` of vector v, as a scalar.
Expr lane_of(const Expr& v, int lane);

// lane_index.cc: loop `lanes.vars[i]`'s value in every lane: ramp(min, 1, n) for one loop,
// nested ramps and broadcasts (a tensor) for several.
Expr lane_ramp(const Lanes& lanes, size_t i);
// op on two lane indices with ramps and broadcasts folded so that the result stays a ramp
// (broadcast(x) + ramp(b, s) is ramp(x + b, s), ...), level by level in a tensor; nullptr when no
// rule applies.
Expr ramp_arithmetic(const Lanes& lanes, BinaryOp op, const Expr& a, const Expr& b);

// lane_vectorizer.cc: the body of one nest of vectorized loops of kernel `kernel` as vector code
// (statement after statement, each for all lanes). Throws Serialise when the lanes' order cannot
// be kept; adds notes to `report`, takes new names from `names`, and adds to `vector_registers`
// the registers whose lane dimensions became a vector type.
StmtList vectorize_lanes(const Program& program, const std::string& kernel, const Lanes& lanes,
                         const StmtList& body, NameSupply& names, VecLoopReport& report,
                         std::set<std::string>* vector_registers);

// known_conditions.cc: `body` with the ifs and scalar selects whose condition the enclosing
// loops (constant ranges) and ifs decide replaced by the branch taken (isl decides).
StmtList decide_known_conditions(const StmtList& body);

// vec.cc: the vectorize directive of `kernel` (its Func) on loop `var`, or any of its vectorize
// directives for an empty `var`; `fallback` when there is none. Diagnostics point at it.
SourceLoc vectorize_directive_loc(const Program& program, const std::string& kernel,
                                  const std::string& var, const SourceLoc& fallback);

// The pass is a sequence of steps (vec_pass, vec.cc, lists them in order), each a function of
// the program and of what the steps before it learned.

// A register whose lane dimensions a nest's rewrite made a vector: its first `lane_dims`
// dimensions (PE indices) were the nest's lanes and become the shape of its type.
struct VectorRegister {
  size_t lane_dims = 0;
  Type lane_type;  // int32 of the lanes' shape
};
using VectorRegisters = std::map<std::string, VectorRegister>;  // by register name

// What rewriting the nests gives (vectorize_nests): the kernels and what the rewrite learned.
struct VectorizedNests {
  // The program's kernels, each nest of vectorized loops replaced by its vector code.
  std::vector<Kernel> kernels;
  VectorRegisters registers;
  std::set<std::string> vectorized_kernels;  // the kernels with a nest of vectorized loops
  // The names the rewrite took (the lets of lane-by-lane code, among others).
  std::set<std::string> taken_names;
  std::vector<VecLoopReport> loops;  // one per nest, in program order
};

// vectorize_nests.cc: steps 1 and 2. Every nest of directly nested vectorized loops becomes the
// vector code of its lanes, or is serialised whole (unrolled loops); takes its names from
// `names`. Throws Diagnostic (vec-extent, vec-lanes) for a nest whose lanes cannot be counted.
VectorizedNests vectorize_nests(const Program& stt, NameSupply& names);

// registers.cc: step 3. A vector register accessed with all its lane dimensions left (hand-edited
// IR: also used outside its nest, or in a nest with other lanes) is refused (vec-lanes).
void check_vector_register_accesses(const Program& program, const VectorRegisters& registers);
// The vector registers that nothing reads any more: every read became a lane of a chain (the
// same step's value of another lane, now a let).
std::set<std::string> unread_registers(const Program& program, const VectorRegisters& registers);
// `program` without the registers `unread`: their writes, shifts, pushes and storage go.
Program drop_registers(const Program& program, const std::set<std::string>& unread);
// `program` with the lane dimensions of its vector registers moved into their types.
Program reshape_vector_registers(const Program& program, const VectorRegisters& registers);

// narrow_registers.cc: step 4. A vector register whose every read takes the same lanes keeps
// those lanes alone; its writes store their slice. Adds a report line per register narrowed to
// `notes`.
Program narrow_registers(const Program& program, const VectorRegisters& registers,
                         std::vector<std::string>* notes);
// In each kernel of `kernels`, the conditions the loops decide go (known_conditions.cc), then the
// lets among `pass_names` that copy another variable (a lane copied from another lane), then the
// lets among `names` that nothing reads and whose value has no effect.
Program simplify_vectorized_kernels(const Program& program, const std::set<std::string>& kernels,
                                    const std::set<std::string>& pass_names,
                                    const std::set<std::string>& names);

// channels.cc: step 5. A channel whose ends have different lanes carries the narrower end's
// lanes; takes its names from `names` and adds a report line per vector channel to `report`.
// Throws Diagnostic (vec-lanes) for a channel whose lanes cannot be matched.
Program match_channels(const Program& program, NameSupply& names, std::vector<std::string>* report);

}  // namespace t2s::vec_internal
