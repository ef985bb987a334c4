#include "libs/backends/cpp/emu_proofs.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"
#include "libs/poly/poly.h"

namespace t2s {

namespace {

// One fact of an access's context: a loop's range, or a condition (an if, a select, the left
// operand of && or ||) that holds. Kept as IR with the Vars' dims at that point, so that the
// context can be rebuilt with a loop's dim renamed (an earlier iteration: the written proofs).
struct Fact {
  std::string dim;   // a loop: its dim; empty for a condition
  Expr min, extent;  // a loop's bounds
  Expr condition;    // a condition (null for a loop)
  bool holds = true;
  poly::VarDims vars;
};

// What a proof needs of one access: its context, its storage's identity and its indices.
struct Access {
  const void* node = nullptr;
  std::string storage;               // Func or register name
  const Realize* realize = nullptr;  // the Func's realize, if any
  size_t loops_in_realize = 0;       // loops enclosing the realize
  std::vector<const For*> loops;     // the enclosing loops, outermost first
  std::vector<std::string> dims;     // their dims
  std::vector<Fact> facts;
  std::vector<Expr> index;  // let-free
  poly::VarDims vars;
  int order = 0;  // the statement's pre-order number
};

bool is_signed_int(const Expr& e) { return e->type.is_int() && e->type.lanes == 1; }

bool is_intrinsic(const Expr& e, const char* name) {
  return e->kind == ExprKind::kCall && e->call_kind == CallKind::kIntrinsic && e->name == name &&
         !e->operands.empty();
}

// The dim of a vector index's lane (loop dims are named d<N>_<var>).
const char kLane[] = "t2s_lane";

class Prover {
 public:
  Prover(const Program& program, EmuProofs* out) : program_(program), out_(out) {}

  void run(const Kernel& kernel) {
    stmts(kernel.body);
    for (const Access& read : reads_) {
      if (!out_->in_bounds.count(read.node) || refuted_written_.count(read.node)) continue;
      if (written(read))
        out_->written.insert(read.node);
      else
        refuted_written_.insert(read.node);
    }
    for (const void* node : refuted_bounds_) out_->in_bounds.erase(node);
    for (const void* node : refuted_written_) out_->written.erase(node);
    for (auto it = out_->realize_of.begin(); it != out_->realize_of.end();)
      it = out_->in_bounds.count(it->first) ? std::next(it) : out_->realize_of.erase(it);
    fold_realizes();
    for (const Register& reg : program_.registers) {
      if (reg.kernel != kernel.name || reg.kind != Register::kShift ||
          flagged_registers_.count(reg.name))
        continue;
      bool all_written = true;
      for (const void* node : register_reads_[reg.name])
        all_written = all_written && out_->written.count(node);
      if (all_written) out_->unflagged_registers.insert(reg.name);
    }
    forward();
  }

 private:
  // ---- The context ----

  Expr without_lets(const Expr& e) const {
    if (lets_.empty()) return e;
    VarSubstituter substitute(lets_);
    return substitute.mutate(e);
  }

  static poly::Set build(const std::vector<std::string>& dims, const std::vector<Fact>& facts,
                         const std::map<std::string, std::string>& rename = {}) {
    poly::Set set(dims);
    auto renamed = [&](poly::VarDims vars) {
      for (auto& [var, dim] : vars) {
        auto it = rename.find(dim);
        if (it != rename.end()) dim = it->second;
      }
      return vars;
    };
    for (const Fact& f : facts) {
      const poly::VarDims vars = renamed(f.vars);
      if (f.condition) {
        if (auto c = poly::Cond::from_expr(f.condition, vars)) set.where(f.holds ? *c : !*c);
        continue;
      }
      auto min = poly::Aff::from_expr(f.min, vars);
      auto extent = poly::Aff::from_expr(f.extent, vars);
      auto it = rename.find(f.dim);
      const std::string dim = it == rename.end() ? f.dim : it->second;
      if (min && extent) set.where(poly::Cond::range(*min, poly::Aff::dim(dim), *min + *extent));
    }
    return set;
  }

  // Whether every index lies in [lo, lo + extent) at every point of the current context, with
  // no index arithmetic leaving its type (the IR wraps; isl does not).
  // A vector index (a gather's or a scatter's) is a ramp of a constant stride or a broadcast:
  // lane l of it is an affine function of the lane (dim kLane).
  bool inside(const std::vector<Expr>& index, const std::vector<poly::Aff>& lo,
              const std::vector<poly::Aff>& extent) const {
    if (index.size() != lo.size()) return false;
    std::vector<poly::Aff> exprs;
    std::vector<std::pair<int64_t, int64_t>> limits;
    int lanes = 1;
    for (size_t d = 0; d < index.size(); ++d) {
      Expr e = without_lets(index[d]);
      if (!e->type.is_int()) return false;
      std::optional<poly::Aff> lane_term;
      if (e->type.lanes != 1) {
        const bool ramp = is_intrinsic(e, "ramp"), broadcast = is_intrinsic(e, "broadcast");
        if ((!ramp && !broadcast) || e->operands[0]->type.lanes != 1) return false;
        if (ramp && e->operands[1]->kind != ExprKind::kIntImm) return false;
        if (ramp) lane_term = poly::Aff::dim(kLane) * e->operands[1]->int_value;
        lanes = e->type.lanes;
        e = e->operands[0];
      }
      auto a = poly::Aff::from_expr(e, vars_);
      if (!a) return false;
      if (lane_term) {
        // Each lane's value must fit its type too.
        a = *a + *lane_term;
        const int bits = e->type.bits;
        exprs.push_back(*a);
        limits.push_back({bits >= 64 ? INT64_MIN : -(int64_t{1} << (bits - 1)),
                          bits >= 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1});
      }
      exprs.push_back(*a - lo[d]);
      limits.push_back({0, INT64_MAX});
      exprs.push_back(lo[d] + extent[d] - 1 - *a);
      limits.push_back({0, INT64_MAX});
      bool affine = true;
      for_each_expr(e, [&](const Expr& x) {
        if (!affine || x->kind == ExprKind::kIntImm || x->kind == ExprKind::kVar) return;
        auto sub = poly::Aff::from_expr(x, vars_);
        if (!sub || !x->type.is_int()) {
          affine = false;
          return;
        }
        const int bits = x->type.bits;
        exprs.push_back(*sub);
        limits.push_back({bits >= 64 ? INT64_MIN : -(int64_t{1} << (bits - 1)),
                          bits >= 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1});
      });
      if (!affine) return false;
    }
    // Loop variables are int32: one whose range leaves it would wrap in the emulation.
    for (const std::string& dim : dims_) {
      exprs.push_back(poly::Aff::dim(dim));
      limits.push_back({INT32_MIN, INT32_MAX});
    }
    poly::Set set = build(dims_, facts_);
    if (lanes > 1) {
      set.add_dim(kLane);
      set.where(poly::Cond::range(0, poly::Aff::dim(kLane), lanes));
    }
    auto ranges = poly::value_ranges(set, exprs);
    if (!ranges) return true;  // never executed
    for (size_t i = 0; i < exprs.size(); ++i) {
      const auto& r = (*ranges)[i];
      if (!r || r->min < limits[i].first || r->max > limits[i].second) return false;
    }
    return true;
  }

  // Records the bounds proof of `node` (a node reached twice counts only if proved both times).
  void record(const void* node, bool proved) {
    if (proved)
      out_->in_bounds.insert(node);
    else
      refuted_bounds_.insert(node);
  }

  static std::vector<poly::Aff> constants(const std::vector<int64_t>& values) {
    return std::vector<poly::Aff>(values.begin(), values.end());
  }

  Access snapshot(const void* node, const std::string& storage, const std::vector<Expr>& index) {
    Access a;
    a.node = node;
    a.storage = storage;
    a.loops = loops_;
    a.dims = dims_;
    a.facts = facts_;
    for (const Expr& e : index) a.index.push_back(without_lets(e));
    a.vars = vars_;
    a.order = order_;
    for (auto it = realizes_.rbegin(); it != realizes_.rend(); ++it) {
      if (it->realize->func != storage) continue;
      a.realize = it->realize;
      a.loops_in_realize = it->loops;
      break;
    }
    return a;
  }

  // The bounds of Func `name` at this point: its innermost realize, else its buffer.
  bool func_bounds(const std::string& name, std::vector<poly::Aff>* mins,
                   std::vector<poly::Aff>* extents) const {
    for (auto it = realizes_.rbegin(); it != realizes_.rend(); ++it) {
      if (it->realize->func != name) continue;
      if (!it->known) return false;
      *mins = it->mins;
      *extents = it->extents;
      return true;
    }
    const Buffer* b = program_.find_buffer(name);
    if (!b) return false;
    for (size_t d = 0; d < b->mins.size(); ++d) {
      auto m = poly::Aff::from_expr(b->mins[d], {});
      auto x = poly::Aff::from_expr(b->extents[d], {});
      if (!m || !x) return false;
      mins->push_back(*m);
      extents->push_back(*x);
    }
    return true;
  }

  // ---- Accesses ----

  enum class Kind { kInput, kFunc, kRegister, kChannel };

  void access(const void* node, Kind kind, const std::string& storage,
              const std::vector<Expr>& index, bool read) {
    std::vector<poly::Aff> lo, extent;
    bool proved = false;
    const Input* in = kind == Kind::kInput ? program_.find_input(storage) : nullptr;
    const Register* reg = kind == Kind::kRegister ? program_.find_register(storage) : nullptr;
    const Channel* ch = kind == Kind::kChannel ? program_.find_channel(storage) : nullptr;
    if (in) {
      proved = inside(index, constants(std::vector<int64_t>(in->extents.size(), 0)),
                      constants(in->extents));
    } else if (reg) {
      // A slot's index (reads and writes of a shift register) or a PE's (shift, push, pop).
      std::vector<int64_t> shape = reg->shape;
      const bool slot = index.size() == shape.size() + 1;
      if (slot) shape.push_back(reg->depth);
      proved = inside(index, constants(std::vector<int64_t>(shape.size(), 0)), constants(shape));
      if (read && reg->kind == Register::kShift) register_reads_[storage].push_back(node);
      if (slot && read && reg->kind == Register::kShift && reg->depth == 1)
        reads_.push_back(snapshot(node, storage, index));
      if (slot && !read && reg->kind == Register::kShift)
        writes_.push_back(snapshot(node, storage, index));
    } else if (ch) {
      proved =
          inside(index, constants(std::vector<int64_t>(ch->dims.size(), 0)), constants(ch->dims));
    } else if (kind == Kind::kFunc && func_bounds(storage, &lo, &extent)) {
      proved = inside(index, lo, extent);
      Access a = snapshot(node, storage, index);
      if (a.realize) out_->realize_of[node] = a.realize;
      if (a.realize && vector_index(index, 0)) unfoldable_.insert(a.realize);
      if (a.realize && !vector_index(index, 0)) {
        if (read) reads_written_candidates_.insert(node);
        (read ? reads_ : writes_).push_back(std::move(a));
      }
    }
    record(node, proved);
  }

  void expr(const Expr& e) {
    if (!e) return;
    if (e->kind == ExprKind::kSelect && e->operands.size() == 3 &&
        e->operands[0]->type.lanes == 1) {
      expr(e->operands[0]);
      branch(e->operands[0], true, e->operands[1]);
      branch(e->operands[0], false, e->operands[2]);
      return;
    }
    if (e->kind == ExprKind::kBinary && e->type.lanes == 1 &&
        (e->binary_op == BinaryOp::kAnd || e->binary_op == BinaryOp::kOr)) {
      expr(e->operands[0]);
      branch(e->operands[0], e->binary_op == BinaryOp::kAnd, e->operands[1]);
      return;
    }
    for (const Expr& o : e->operands) expr(o);
    if (e->kind != ExprKind::kCall) return;
    const std::vector<Expr> after_name(e->operands.begin() + (e->operands.empty() ? 0 : 1),
                                       e->operands.end());
    switch (e->call_kind) {
      case CallKind::kImage:  // a scalar read or a gather
        access(e.get(), Kind::kInput, e->name, e->operands, true);
        return;
      case CallKind::kFunc:
        access(e.get(), Kind::kFunc, e->name, e->operands, true);
        return;
      case CallKind::kRegister:
        if (!vector_index(e->operands, 0))
          access(e.get(), Kind::kRegister, e->name, e->operands, true);
        else
          flagged_registers_.insert(e->name);  // a gather: element reads check their flags
        return;
      case CallKind::kChannel:
        if (!vector_index(after_name, 0))
          access(e.get(), Kind::kChannel, e->operands[0]->name, after_name, true);
        return;
      case CallKind::kFifo:
        if (!vector_index(after_name, 0))
          access(e.get(), Kind::kRegister, e->operands[0]->name, after_name, true);
        return;
      default:
        return;
    }
  }

  static bool vector_index(const std::vector<Expr>& index, size_t first) {
    for (size_t i = first; i < index.size(); ++i)
      if (index[i]->type.lanes != 1) return true;
    return false;
  }

  // `value`, evaluated only when `condition` is `holds`.
  void branch(const Expr& condition, bool holds, const Expr& value) {
    facts_.push_back({"", nullptr, nullptr, without_lets(condition), holds, vars_});
    expr(value);
    facts_.pop_back();
  }

  void stmts(const StmtList& list) {
    for (const StmtPtr& s : list) stmt(*s);
  }

  void stmt(const Stmt& s) {
    ++order_;
    for (const Expr* e : s.exprs()) expr(*e);
    // The kinds the chain did not name.
    const auto otherwise = [&] {
      for (const StmtList* child : s.children()) stmts(*child);
    };
    match_stmt(
        s,
        [&](const For& loop) {
          const std::string dim = "d" + std::to_string(dims_.size()) + "_" + loop.var;
          Fact f{dim, without_lets(loop.min), without_lets(loop.extent), nullptr, true, vars_};
          const auto saved_vars = vars_;
          const auto saved_lets = lets_;
          vars_[loop.var] = dim;
          lets_.erase(loop.var);
          dims_.push_back(dim);
          loops_.push_back(&loop);
          facts_.push_back(std::move(f));
          stmts(loop.body);
          facts_.pop_back();
          loops_.pop_back();
          dims_.pop_back();
          vars_ = saved_vars;
          lets_ = saved_lets;
        },
        [&](const LetStmt& let) {
          const auto saved_vars = vars_;
          const auto saved_lets = lets_;
          const Expr value = without_lets(let.value);
          vars_.erase(let.var);
          if (value->type.lanes == 1)
            lets_[let.var] = value;
          else
            lets_.erase(let.var);
          stmts(let.body);
          vars_ = saved_vars;
          lets_ = saved_lets;
        },
        [&](const IfThenElse& branch) {
          const Expr condition = without_lets(branch.condition);
          facts_.push_back({"", nullptr, nullptr, condition, true, vars_});
          stmts(branch.then_body);
          facts_.back().holds = false;
          stmts(branch.else_body);
          facts_.pop_back();
        },
        [&](const Provide& provide) {
          const Kind kind = program_.find_register(provide.func) ? Kind::kRegister : Kind::kFunc;
          // A scatter's elements are accesses of its Provide (CCodegen::scatter).
          if (!vector_index(provide.args, 0))
            access(&s, kind, provide.func, provide.args, false);
          else if (kind == Kind::kFunc)
            access(&provide, kind, provide.func, provide.args, false);
          else
            scattered_registers_.insert(provide.func);  // writes that writes_ does not list
        },
        [&](const Alloc&) { otherwise(); },
        [&](const WriteChannel& write) {
          if (!vector_index(write.index, 0))
            access(&s, Kind::kChannel, write.channel, write.index, false);
        },
        [&](const Realize& realize) {
          Scope scope{&realize, loops_.size(), true, {}, {}};
          for (size_t d = 0; d < realize.mins.size(); ++d) {
            auto m = poly::Aff::from_expr(without_lets(realize.mins[d]), vars_);
            auto x = poly::Aff::from_expr(without_lets(realize.extents[d]), vars_);
            if (!m || !x) {
              scope.known = false;
              break;
            }
            scope.mins.push_back(*m);
            scope.extents.push_back(*x);
          }
          realizes_.push_back(std::move(scope));
          stmts(realize.body);
          realizes_.pop_back();
        },
        [&](const Shift& shift) { access(&s, Kind::kRegister, shift.reg, shift.pe, false); },
        [&](const Push& push) { access(&s, Kind::kRegister, push.fifo, push.pe, false); });
  }

  // ---- Written before read ----

  // Whether an earlier write of the kernel stores to the element `read` reads, at every point
  // of its context: a write under the same loops at the same iteration (earlier in the body) or
  // at the previous iteration of one loop (the loops inside it at the same values).
  bool written(const Access& read) const {
    for (const Access& write : writes_) {
      if (write.storage != read.storage || write.realize != read.realize ||
          write.loops != read.loops || write.index.size() != read.index.size())
        continue;
      if (write.order < read.order && witnessed(read, write, -1)) return true;
      for (size_t p = read.realize ? read.loops_in_realize : 0; p < read.loops.size(); ++p)
        if (witnessed(read, write, static_cast<int>(p))) return true;
    }
    return false;
  }

  // Whether at every point of the read's context, the write executes at the same point with
  // loop `shifted`'s dim one less (none for -1) and stores to the element read.
  static bool witnessed(const Access& read, const Access& write, int shifted) {
    std::vector<std::string> dims = read.dims;
    std::map<std::string, std::string> rename;
    const std::string earlier = "t2s_earlier";
    poly::Set set = build(dims, read.facts);
    if (shifted >= 0) {
      const std::string& dim = read.dims[static_cast<size_t>(shifted)];
      set.add_dim(earlier);
      set.where(poly::Aff::dim(earlier) == poly::Aff::dim(dim) - 1);
      rename[dim] = earlier;
    }
    // The write's context at the witness, and its index equal to the read's.
    const poly::Set at_write = build(set.dims(), write.facts, rename);
    std::vector<poly::Cond> holds = at_write.constraints();
    poly::VarDims write_vars = write.vars;
    for (auto& [var, dim] : write_vars) {
      auto it = rename.find(dim);
      if (it != rename.end()) dim = it->second;
    }
    for (size_t d = 0; d < read.index.size(); ++d) {
      auto r = poly::Aff::from_expr(read.index[d], read.vars);
      auto w = poly::Aff::from_expr(write.index[d], write_vars);
      if (!r || !w || !is_signed_int(read.index[d]) || !is_signed_int(write.index[d])) return false;
      holds.push_back(*r == *w);
    }
    // The write's loop facts must all have been rebuilt (an unknown bound proves nothing).
    size_t expected = 0;
    for (const Fact& f : write.facts) {
      const poly::VarDims vars = f.vars;
      if (f.condition) {
        // A condition that is not affine is not known to hold at the witness.
        if (!poly::Cond::from_expr(f.condition, vars)) return false;
      } else if (!poly::Aff::from_expr(f.min, vars) || !poly::Aff::from_expr(f.extent, vars)) {
        return false;
      }
      ++expected;
    }
    if (holds.size() != expected + read.index.size()) return false;
    poly::Cond all = poly::Cond::always(true);
    for (const poly::Cond& c : holds) all = all && c;
    set.where(!all);
    return poly::is_empty(set);
  }

  // ---- Storage folding ----

  // A realize's dimension d folds to F elements (a power of two) along the loop L that is
  // outermost inside the realize when, over all the realize's accesses (all scalar, inside L,
  // every index proved in bounds and every read proved written):
  //   - each write stores at index[d] = L + c, one constant c for all writes;
  //   - each read reads at index[d] = L + c - delta with 0 <= delta < F at every point.
  // Then the element a read finds was written at iteration L - delta of this execution of L
  // (the only iteration writing that index), and the iterations in between write indices whose
  // positions modulo F differ from it (0 < their distance < F): the folded storage holds the
  // same value. Reads never find an unwritten element (proved), so the dropped written flags
  // are never consulted. The dimension saving the most storage is folded; one per realize.
  void fold_realizes() {
    std::map<const Realize*, std::vector<const Access*>> by_realize;
    for (const std::vector<Access>* list : {&reads_, &writes_})
      for (const Access& a : *list)
        if (a.realize && !program_.find_register(a.storage)) by_realize[a.realize].push_back(&a);
    for (const auto& [realize, accesses] : by_realize) {
      if (unfoldable_.count(realize)) continue;
      bool reads_written = true;
      for (const Access* a : accesses)
        if (is_func_read(*a) && !out_->written.count(a->node)) reads_written = false;
      if (reads_written) out_->unflagged.insert(realize);
      if (auto folds = realize_folds(*realize, accesses)) out_->folds[realize] = *folds;
    }
  }

  std::optional<std::vector<int64_t>> realize_folds(const Realize& realize,
                                                    const std::vector<const Access*>& accesses) {
    const size_t p = accesses.front()->loops_in_realize;
    bool has_write = false;
    for (const Access* a : accesses) {
      const bool read = is_func_read(*a);
      if (!out_->in_bounds.count(a->node)) return std::nullopt;
      if (read && !out_->written.count(a->node)) return std::nullopt;
      if (!read) has_write = true;
      if (a->loops.size() <= p || a->loops[p] != accesses.front()->loops[p]) return std::nullopt;
    }
    if (!has_write) return std::nullopt;
    const std::string& loop_dim = accesses.front()->dims[p];
    std::optional<std::vector<int64_t>> best;  // the folds saving the most storage
    double best_ratio = 1.0;
    for (size_t d = 0; d < realize.extents.size(); ++d) {
      const Expr& extent_expr = realize.extents[d];
      if (extent_expr->kind != ExprKind::kIntImm) continue;
      const int64_t extent = extent_expr->int_value;
      std::optional<int64_t> c;
      bool ok = true;
      for (const Access* a : accesses) {  // writes: the constant c
        if (is_func_read(*a)) continue;
        auto offset = index_minus_loop(*a, d, loop_dim);
        if (!offset || offset->min != offset->max || (c && *c != offset->min)) {
          ok = false;
          break;
        }
        c = offset->min;
      }
      if (!ok || !c) continue;
      int64_t max_delta = 0;
      for (const Access* a : accesses) {  // reads: delta = c - (index - L)
        if (!is_func_read(*a)) continue;
        auto offset = index_minus_loop(*a, d, loop_dim);
        if (!offset || *c - offset->max < 0) {
          ok = false;
          break;
        }
        max_delta = std::max(max_delta, *c - offset->min);
      }
      if (!ok) continue;
      int64_t fold = 1;
      while (fold <= max_delta) fold *= 2;
      if (fold >= extent) continue;
      const double ratio = static_cast<double>(fold) / static_cast<double>(extent);
      if (ratio < best_ratio) {
        best_ratio = ratio;
        best = std::vector<int64_t>(realize.extents.size(), 0);
        (*best)[d] = fold;
      }
    }
    return best;
  }

  // Whether `a` is a read of Func storage (reads_ also holds register reads; writes_ none).
  bool is_func_read(const Access& a) const { return reads_written_candidates_.count(a.node) > 0; }

  // The range of index[d] - L over the access's context (nullopt: not affine, or unbounded).
  static std::optional<poly::Interval> index_minus_loop(const Access& a, size_t d,
                                                        const std::string& loop_dim) {
    if (d >= a.index.size() || !is_signed_int(a.index[d])) return std::nullopt;
    auto index = poly::Aff::from_expr(a.index[d], a.vars);
    if (!index) return std::nullopt;
    auto ranges = poly::value_ranges(build(a.dims, a.facts), {*index - poly::Aff::dim(loop_dim)});
    if (!ranges) return std::nullopt;  // never executed: no constraint, but nothing to fold by
    return (*ranges)[0];
  }

  // ---- Forwarding along the innermost loop ----

  // A read R (of a depth-1 shift register or of a realize, proved in bounds and written) is
  // forwarded from a write W when at every point of R's context
  //   - W executed at the previous iteration of R's innermost loop L (the other loops at the
  //     same values, inside the same execution of the realize) and stored to the element R
  //     reads (witnessed(), as for the written proofs);
  //   - W is the only write to that storage inside L (at any depth), so nothing stored to the
  //     element between W at the previous iteration and R;
  //   - W comes after R in L's body (or is the statement R belongs to), so W at R's own
  //     iteration has not run yet when R reads.
  // Then R reads the value W stored at the previous iteration: the value W last stored, which
  // a local variable (the carry) set by W holds. Likewise when W comes before R in the body and
  // stores, at R's own iteration, the element R reads (the same-iteration witness).
  // One carry serves both kinds of reads of one write. An expression reached in several contexts is
  // forwarded only when forwarded from the same write in each.
  void forward() {
    std::map<const void*, std::optional<size_t>> source;  // read node -> index in writes_
    std::vector<const void*> order;
    for (const Access& read : reads_) {
      const std::optional<size_t> write = forwarding_write(read);
      auto [it, fresh] = source.try_emplace(read.node, write);
      if (fresh)
        order.push_back(read.node);
      else if (it->second != write)
        it->second = std::nullopt;
    }
    std::map<size_t, size_t> carry_of_write;
    for (const void* node : order) {
      const std::optional<size_t> write = source[node];
      if (!write) continue;
      auto [it, fresh] = carry_of_write.try_emplace(*write, out_->carries.size());
      if (fresh) {
        const Access& w = writes_[*write];
        out_->carries.push_back({w.storage, w.realize});
        out_->carrying_writes[w.node] = it->second;
      }
      out_->carried_reads[node] = it->second;
    }
  }

  std::optional<size_t> forwarding_write(const Access& read) const {
    if (read.loops.empty() || !out_->in_bounds.count(read.node) || !out_->written.count(read.node))
      return std::nullopt;
    const size_t inner = read.loops.size() - 1;
    if (read.realize ? unfoldable_.count(read.realize) : scattered_registers_.count(read.storage))
      return std::nullopt;
    std::optional<size_t> found;
    for (size_t w = 0; w < writes_.size(); ++w) {
      const Access& write = writes_[w];
      if (write.storage != read.storage || write.realize != read.realize ||
          std::find(write.loops.begin(), write.loops.end(), read.loops.back()) == write.loops.end())
        continue;
      if (found) return std::nullopt;  // a second write inside the loop
      found = w;
    }
    if (!found) return std::nullopt;
    const Access& write = writes_[*found];
    if (write.loops != read.loops || !out_->in_bounds.count(write.node)) return std::nullopt;
    if (write.order < read.order)  // the value W stored earlier in R's own iteration
      return witnessed(read, write, -1) ? found : std::nullopt;
    if (read.realize && inner < read.loops_in_realize) return std::nullopt;
    return witnessed(read, write, static_cast<int>(inner)) ? found : std::nullopt;
  }

  struct Scope {
    const Realize* realize;
    size_t loops;
    bool known;
    std::vector<poly::Aff> mins, extents;
  };

  const Program& program_;
  EmuProofs* out_;
  std::vector<std::string> dims_;
  std::vector<const For*> loops_;
  std::vector<Fact> facts_;
  poly::VarDims vars_;
  std::map<std::string, Expr> lets_;
  std::vector<Scope> realizes_;
  int order_ = 0;
  std::vector<Access> reads_, writes_;
  std::set<const void*> refuted_bounds_, refuted_written_;
  std::set<const void*> reads_written_candidates_;  // the Func reads among reads_
  std::set<const Realize*> unfoldable_;             // a realize with a vector access
  // Shift registers: every read's node; those with a vector-indexed read (its elements read
  // through the checked accessor) or written by a scatter (writes that writes_ does not list).
  std::map<std::string, std::vector<const void*>> register_reads_;
  std::set<std::string> flagged_registers_, scattered_registers_;
};

}  // namespace

EmuProofs prove_kernel_accesses(const Program& program, const Kernel& kernel) {
  EmuProofs proofs;
  Prover(program, &proofs).run(kernel);
  return proofs;
}

}  // namespace t2s
