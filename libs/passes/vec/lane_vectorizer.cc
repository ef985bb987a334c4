// The lane vectorizer of t2s-vec (docs/ir.md, "The vectorized stage"): the body of a nest of
// vectorized loops rewritten statement by statement into vector code. Each statement then runs
// for all lanes before the next one, which is the lanes' order only when no lane depends on
// another lane of a later statement: the analysis proves that or throws Serialise. A let or
// store that reads an earlier lane of the same step (a chain) is computed lane after lane.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"
#include "libs/passes/vec/vec_internal.h"

namespace t2s::vec_internal {
namespace {

bool is_int_literal(const Expr& e) { return e && e->kind == ExprKind::kIntImm; }

// How a statement of the body reaches a register with lane dimensions (the first
// `lanes.vars.size()` PE indices of every register of a transformed kernel with lanes).
struct RegisterWrite {
  std::vector<Expr> pe;  // the PE indices after the lane indices
  std::string value;     // the let the write stores (t2s-stt writes `R(..., 0) = F_val`)
  int position = 0;      // of the statement in the body
};

// The registers with lanes (`lane_regs`) that every step shifts: those shifted in the body or in
// the bodies of its lets, not under an if or in a loop.
class UnconditionalShifts : public StmtVisitor {
 public:
  UnconditionalShifts(const std::map<std::string, const Register*>& lane_regs,
                      std::set<std::string>* out)
      : lane_regs_(lane_regs), out_(out) {}

 protected:
  void visit_shift(const Shift& sh, const Stmt&) override {
    if (lane_regs_.count(sh.reg)) out_->insert(sh.reg);
  }
  void visit_for(const For&, const Stmt&) override {}
  void visit_if(const IfThenElse&, const Stmt&) override {}
  void visit_realize(const Realize&, const Stmt&) override {}

 private:
  const std::map<std::string, const Register*>& lane_regs_;
  std::set<std::string>* out_;
};

// The first channel write of a statement tree, in program order.
class FirstChannelWrite : public StmtVisitor {
 public:
  const WriteChannel* found = nullptr;

 protected:
  void visit_write_channel(const WriteChannel& w, const Stmt&) override {
    if (!found) found = &w;
  }
};

// A loop inside the body runs its iterations for all lanes at once, one iteration after another,
// where the lanes ran every iteration in turn: a channel used in it would carry its values in
// another order (a FIFO keeps the order they are written in). Throws Serialise for the first
// loop of more than one iteration that reads a channel, or else writes one.
class ChannelInLoop : public StmtVisitor {
 protected:
  void visit_for(const For& f, const Stmt&) override {
    if (!is_int_literal(f.extent) || f.extent->int_value > 1) {
      for_each_stmt_expr(f.body, [&](const Expr& x) {
        if (x->kind == ExprKind::kCall && x->call_kind == CallKind::kChannel)
          throw Serialise{"channel '" + x->operands[0]->name + "' is read inside loop '" + f.var +
                          "', which would run across the lanes and change the order of its values"};
      });
      FirstChannelWrite write;
      write.visit_stmts(f.body);
      if (write.found)
        throw Serialise{"channel '" + write.found->channel + "' is written inside loop '" + f.var +
                        "', which would run across the lanes and change the order of its values"};
    }
    visit_stmts(f.body);
  }
};

class LaneVectorizer {
 public:
  LaneVectorizer(const Program& program, const std::string& kernel, const Lanes& lanes,
                 NameSupply& names, VecLoopReport& report)
      : program_(program), kernel_(kernel), lanes_(lanes), names_(names), report_(report) {
    for (const Register& r : program.registers)
      if (r.kernel == kernel && has_lane_dims(r)) lane_regs_[r.name] = &r;
  }

  StmtList run(const StmtList& body) {
    analyse(body);
    return process(body);
  }

  const std::set<std::string>& vector_registers() const { return touched_regs_; }

 private:
  enum class VarKind { kUniform, kVector, kLanes };
  struct VarInfo {
    VarKind kind = VarKind::kUniform;
    Type type;  // the scalar element type
    std::vector<std::string> lane_names;
  };

  bool has_lane_dims(const Register& r) const {
    if (r.shape.size() < lanes_.vars.size()) return false;
    for (size_t i = 0; i < lanes_.vars.size(); ++i)
      if (r.shape[i] != lanes_.extents[i]) return false;
    return true;
  }

  size_t k() const { return lanes_.vars.size(); }

  std::string fresh(const std::string& base) { return names_.fresh(base); }

  // ---- analysis: positions, register writes, Func stores, channel users ----

  void analyse(const StmtList& body) {
    UnconditionalShifts(lane_regs_, &unconditional_shifts_).visit_stmts(body);
    for_each_stmt(body, [&](const Stmt& s) {
      const int at = position_++;
      positions_[&s] = at;
      auto allocates = [] { throw Serialise{"the body allocates storage"}; };
      match_stmt(
          s,
          [&](const Shift& sh) {
            if (unconditional_shifts_.count(sh.reg)) shift_positions_[sh.reg] = at;
          },
          [&](const Provide& p) { note_store(s, p, at); },
          [&](const WriteChannel& w) { note_channel(w.channel, at); },
          [&](const Realize&) { allocates(); }, [&](const Alloc&) { allocates(); },
          [](const For&) {}, [](const LetStmt&) {}, [](const IfThenElse&) {}, [](const Push&) {});
      for (const Expr* e : s.exprs())
        for_each_expr(*e, [&](const Expr& x) {
          if (x->kind == ExprKind::kCall && x->call_kind == CallKind::kChannel)
            note_channel(x->operands[0]->name, at);
        });
    });
    ChannelInLoop().visit_stmts(body);
    // A Func stored in the body may be read there only at the element the same lane stores
    // (any iteration), or by its own store at other lanes of the same iteration (a chain,
    // stored lane by lane); anything else may need another lane's later statement.
    for_each_stmt(body, [&](const Stmt& s) {
      for (const Expr* e : s.exprs())
        for_each_expr(*e, [&](const Expr& x) {
          if (x->kind != ExprKind::kCall || x->call_kind != CallKind::kFunc) return;
          auto it = stores_.find(x->name);
          if (it == stores_.end()) return;
          const std::vector<Expr>& at = it->second.provide->args;
          bool same_lane = true, same_rest = true;
          for (size_t d = 0; d < at.size() && d < x->operands.size(); ++d) {
            const bool equal_index = equal(at[d], x->operands[d]);
            (mentions_lane(at[d]) ? same_lane : same_rest) &= equal_index;
          }
          if (same_lane) return;
          if (same_rest && &s == it->second.stmt) {
            chained_stores_.insert(x->name);
            return;
          }
          throw Serialise{"'" + x->name +
                          "' is read at another lane than the one that stores it, in another "
                          "statement or iteration"};
        });
    });
  }

  // A store at position `at`: the write of a register with lanes, or of a Func.
  void note_store(const Stmt& s, const Provide& p, int at) {
    if (lane_regs_.count(p.func)) {
      RegisterWrite w;
      w.pe.assign(p.args.begin() + static_cast<long>(k()), p.args.end() - 1);
      if (p.value->kind == ExprKind::kVar) w.value = p.value->name;
      w.position = at;
      if (reg_writes_.count(p.func))
        throw Serialise{"register '" + p.func + "' is written twice in the body"};
      reg_writes_[p.func] = w;
    } else if (program_.find_func(p.func)) {
      if (stores_.count(p.func)) throw Serialise{"'" + p.func + "' is stored twice in the body"};
      stores_[p.func] = {&s, &p};
    }
  }

  void note_channel(const std::string& ch, int at) {
    auto [it, fresh_channel] = channel_user_.emplace(ch, at);
    if (!fresh_channel && it->second != at)
      throw Serialise{"channel '" + ch + "' is used by two statements of the body"};
  }

  bool mentions_lane(const Expr& e) const {
    bool found = false;
    for_each_expr(e, [&](const Expr& x) {
      if (x->kind == ExprKind::kVar &&
          std::find(lanes_.vars.begin(), lanes_.vars.end(), x->name) != lanes_.vars.end())
        found = true;
    });
    return found;
  }

  // ---- lane arithmetic ----

  // `e` in lane l: loop variables replaced by their values, then folded.
  Expr at_lane_values(const Expr& e, int l) const {
    std::map<std::string, Expr> with;
    for (size_t i = 0; i < k(); ++i) with[lanes_.vars[i]] = lit32(lanes_.value(i, l));
    VarSubstituter s(with);
    return fold(s.mutate(e));
  }

  // The indices of channel `channel` in each lane, for an array of channels indexed by the
  // lanes: each index with the lanes' loop values substituted. Indices that read anything
  // other than loop variables and uniform lets, and channels of vectors, keep the lanes'
  // order only lane by lane.
  std::vector<std::vector<Expr>> channel_lane_indices(const std::string& channel,
                                                      const std::vector<Expr>& index) const {
    const Channel* c = program_.find_channel(channel);
    if (!c || c->type.lanes != 1)
      throw Serialise{"channel '" + channel + "' of vectors is indexed by a vectorized loop"};
    for (const Expr& i : index)
      for_each_expr(i, [&](const Expr& x) {
        auto it = x->kind == ExprKind::kVar ? vars_.find(x->name) : vars_.end();
        if (x->kind == ExprKind::kCall ||
            (it != vars_.end() && it->second.kind != VarKind::kUniform))
          throw Serialise{"channel '" + channel + "' is indexed by a vectorized loop through " +
                          "a value that is not a loop variable"};
      });
    std::vector<std::vector<Expr>> out;
    for (int l = 0; l < lanes_.n; ++l) {
      std::vector<Expr> at;
      for (const Expr& i : index) at.push_back(at_lane_values(i, l));
      out.push_back(at);
    }
    return out;
  }

  // For the lane indices `args` of a register access: the lane each lane reads (-1: outside
  // the lanes, a value no taken branch uses).
  std::vector<int> source_lanes(const std::vector<Expr>& args, const std::string& reg) const {
    std::vector<int> src(static_cast<size_t>(lanes_.n));
    for (int l = 0; l < lanes_.n; ++l) {
      std::vector<int64_t> index;
      for (size_t i = 0; i < k(); ++i) {
        Expr v = at_lane_values(args[i], l);
        if (!is_int_literal(v))
          throw Serialise{"a lane index of register '" + reg + "' is not a constant per lane"};
        index.push_back(v->int_value);
      }
      src[static_cast<size_t>(l)] = lanes_.flat(index);
    }
    return src;
  }

  static bool own_lanes(const std::vector<int>& src) {
    for (size_t l = 0; l < src.size(); ++l)
      if (src[l] != static_cast<int>(l)) return false;
    return true;
  }

  // Lane l of the result is lane src[l] of `v` (any lane where src[l] < 0): slices of runs.
  Expr permute(const Expr& v, const std::vector<int>& src) const {
    std::vector<Expr> parts;
    for (size_t l = 0; l < src.size();) {
      const int start = src[l] < 0 ? 0 : src[l];
      size_t run = 1;
      while (l + run < src.size() && src[l + run] >= 0 &&
             src[l + run] == start + static_cast<int>(run))
        ++run;
      if (src[l] < 0) run = 1;
      parts.push_back(make_call("slice", CallKind::kIntrinsic,
                                v->type.with_lanes(static_cast<int>(run)),
                                {v, lit32(start), lit32(static_cast<int64_t>(run))}, v->loc));
      l += run;
    }
    if (parts.size() == 1) return parts[0];
    return reshaped(
        make_call("concat", CallKind::kIntrinsic, v->type.with_lanes(v->type.lanes), parts, v->loc),
        v->type);
  }

  // A read of a register with lane dimensions: the PE indices after the lanes, the write of
  // this body, and whether it is a chain (same step, same PE, another lane: computed lane by
  // lane).
  struct RegisterRead {
    const Register* reg = nullptr;
    std::vector<int> src;
    std::vector<Expr> rest;  // PE indices after the lanes, then the slot
    bool cross_lane = false, same_pe = false, chain = false;
  };

  std::optional<RegisterRead> register_read(const Expr& e, int at) const {
    if (e->kind != ExprKind::kCall || e->call_kind != CallKind::kRegister) return std::nullopt;
    auto it = lane_regs_.find(e->name);
    if (it == lane_regs_.end()) return std::nullopt;
    RegisterRead r;
    r.reg = it->second;
    r.src = source_lanes(e->operands, e->name);
    r.rest.assign(e->operands.begin() + static_cast<long>(k()), e->operands.end());
    r.cross_lane = !own_lanes(r.src);
    auto w = reg_writes_.find(e->name);
    if (w != reg_writes_.end()) {
      r.same_pe = w->second.pe.size() + 1 == r.rest.size();
      for (size_t i = 0; r.same_pe && i < w->second.pe.size(); ++i)
        r.same_pe = equal(w->second.pe[i], r.rest[i]);
    }
    r.chain = r.cross_lane && r.same_pe && r.reg->time_distance == 0;
    if (r.cross_lane && !r.chain && r.same_pe && w != reg_writes_.end()) {
      // t2s-stt numbered slots with the lanes of a PE in order: when lane l reads, the earlier
      // lanes have run their whole body this step (shifted and written), the later ones not
      // yet. As vectors every lane reads at statement `at`, before or after the one shift.
      bool earlier = false, later = false;
      for (size_t l = 0; l < r.src.size(); ++l) {
        if (r.src[l] < 0) continue;
        (r.src[l] < static_cast<int>(l) ? earlier : later) = true;
      }
      const bool written_before = w->second.position < at;
      const std::string why =
          "register '" + e->name + "' is read at other lanes of the same PE from an earlier step";
      auto shift = shift_positions_.find(e->name);
      const Expr& slot = r.rest.back();
      if (shift != shift_positions_.end() && is_int_literal(slot)) {
        if (earlier && later)
          throw Serialise{why + ", at earlier and later lanes, which as vectors take two slots"};
        const bool shifted_before = shift->second < at;
        int64_t vector_slot = slot->int_value;
        if (earlier && !shifted_before) vector_slot -= 1;  // the earlier lanes shifted since
        if (later && shifted_before) vector_slot += 1;     // the later lanes will shift after
        if ((earlier && shifted_before && !written_before && vector_slot == 0) || vector_slot < 0 ||
            vector_slot >= r.reg->depth)
          throw Serialise{why + ", which as vectors would take slot " +
                          std::to_string(vector_slot) + " of " + std::to_string(r.reg->depth)};
        r.rest.back() = make_int(slot->type, vector_slot, slot->loc);
      } else if ((earlier && !written_before) || (later && written_before) || (earlier && later)) {
        throw Serialise{why + ", which as vectors would take another slot"};
      }
    }
    if (r.cross_lane && r.reg->kind == Register::kFifo)
      throw Serialise{"FIFO '" + e->name + "' is read at other lanes"};
    return r;
  }

  // ---- which expressions are vectors, and which need their lanes one by one ----

  // A register without the lanes' dimensions (its first dimensions are not the vectorized
  // loops, or their extents differ: hand-edited IR) has scalar PE indices and slots only: an
  // access whose index varies with the lanes cannot become a vector access of it.
  void uniform_register_index(const std::string& reg, const std::vector<Expr>& index) const {
    for (const Expr& i : index)
      if (varying(i))
        throw Serialise{"register '" + reg +
                        "' is indexed by the lanes, but its first dimensions are not the "
                        "vectorized loops with their extents"};
  }

  bool varying(const Expr& e) const {
    bool v = false;
    for_each_expr(e, [&](const Expr& x) {
      if (x->kind == ExprKind::kVar) {
        if (std::find(lanes_.vars.begin(), lanes_.vars.end(), x->name) != lanes_.vars.end())
          v = true;
        auto it = vars_.find(x->name);
        if (it != vars_.end() && it->second.kind != VarKind::kUniform) v = true;
      } else if (x->kind == ExprKind::kCall) {
        if (x->call_kind == CallKind::kRegister && lane_regs_.count(x->name)) v = true;
        if (x->call_kind == CallKind::kFifo && lane_regs_.count(x->operands[0]->name)) v = true;
        if (x->call_kind == CallKind::kChannel) v = true;  // one value per lane
      }
    });
    return v;
  }

  // A call that a blend (vector select, && or ||: every lane evaluated) may not evaluate for
  // lanes that do not take it: storage reads out of bounds, channel reads and pops.
  bool unsafe_to_blend(const Expr& e, int at) const {
    bool unsafe = false;
    for_each_expr(e, [&](const Expr& x) {
      if (x->kind != ExprKind::kCall) return;
      switch (x->call_kind) {
        case CallKind::kFunc:
        case CallKind::kImage:
        case CallKind::kChannel:
        case CallKind::kFifo:
          unsafe = true;
          return;
        case CallKind::kRegister: {
          auto r = register_read(x, at);
          if (!r || !r->same_pe) unsafe = true;  // another PE: maybe none at the edge
          return;
        }
        default:
          return;
      }
    });
    return unsafe;
  }

  bool needs_lanes(const Expr& e, int at) const {
    bool needs = false;
    for_each_expr(e, [&](const Expr& x) {
      if (needs) return;
      if (auto r = register_read(x, at); r && r->chain) {
        needs = true;
      } else if (x->kind == ExprKind::kSelect && varying(x->operands[0])) {
        for (size_t i = 1; i < x->operands.size(); ++i)
          needs = needs || unsafe_to_blend(x->operands[i], at);
      } else if (x->kind == ExprKind::kBinary &&
                 (x->binary_op == BinaryOp::kAnd || x->binary_op == BinaryOp::kOr) && varying(x)) {
        needs = unsafe_to_blend(x->operands[1], at);
      }
    });
    return needs;
  }

  // ---- vector form ----

  Expr as_vector(const Expr& e) const {
    return e->type.lanes == lanes_.n ? e : broadcast_to(e, lanes_.typed(e->type));
  }

  Expr vec(const Expr& e, int at) {
    switch (e->kind) {
      case ExprKind::kIntImm:
      case ExprKind::kFloatImm:
        return e;
      case ExprKind::kVar: {
        for (size_t i = 0; i < k(); ++i)
          if (lanes_.vars[i] == e->name) return lane_ramp(lanes_, i);
        auto it = vars_.find(e->name);
        if (it == vars_.end() || it->second.kind == VarKind::kUniform) return e;
        return make_var(e->name, lanes_.typed(it->second.type), e->loc);
      }
      case ExprKind::kCall:
        return vec_call(e, at);
      default:
        break;
    }
    std::vector<Expr> ops;
    bool any = false;
    for (const Expr& o : e->operands) {
      ops.push_back(vec(o, at));
      any = any || ops.back()->type.lanes != 1;
    }
    if (!any) return e;
    // A select keeps a scalar condition (lazy); every other operand becomes a vector.
    for (size_t i = 0; i < ops.size(); ++i)
      if (!(e->kind == ExprKind::kSelect && i == 0)) ops[i] = as_vector(ops[i]);
    switch (e->kind) {
      case ExprKind::kBinary:
        if (Expr r = ramp_arithmetic(lanes_, e->binary_op, ops[0], ops[1])) return r;
        return make_binary(e->binary_op, ops[0], ops[1], lanes_.typed(e->type), e->loc);
      case ExprKind::kUnary:
        return make_unary(e->unary_op, ops[0], lanes_.typed(e->type), e->loc);
      case ExprKind::kCast:
        return make_cast(lanes_.typed(e->type), ops[0], e->loc);
      case ExprKind::kSelect:
        return make_select(ops[0], ops[1], ops.size() > 2 ? ops[2] : nullptr, lanes_.typed(e->type),
                           e->loc);
      default:
        throw InternalError("vec: unexpected expression kind");
    }
  }

  Expr vec_call(const Expr& e, int at) {
    const int n = lanes_.n;
    switch (e->call_kind) {
      case CallKind::kRegister: {
        auto r = register_read(e, at);
        if (!r) {
          uniform_register_index(e->name, e->operands);
          break;
        }
        if (r->chain) throw InternalError("vec: a chain read outside lane-by-lane code");
        touched_regs_.insert(e->name);
        Expr whole =
            make_call(e->name, CallKind::kRegister, lanes_.typed(e->type), r->rest, e->loc);
        return r->cross_lane ? permute(whole, r->src) : whole;
      }
      case CallKind::kFifo: {
        const std::string& fifo = e->operands[0]->name;
        if (!lane_regs_.count(fifo)) {
          uniform_register_index(fifo, {e->operands.begin() + 1, e->operands.end()});
          break;
        }
        std::vector<Expr> lane_args(e->operands.begin() + 1,
                                    e->operands.begin() + 1 + static_cast<long>(k()));
        if (!own_lanes(source_lanes(lane_args, fifo)))
          throw Serialise{"FIFO '" + fifo + "' is popped at other lanes"};
        touched_regs_.insert(fifo);
        std::vector<Expr> args{e->operands[0]};
        args.insert(args.end(), e->operands.begin() + 1 + static_cast<long>(k()),
                    e->operands.end());
        return make_call(e->name, CallKind::kFifo, lanes_.typed(e->type), args, e->loc);
      }
      case CallKind::kChannel: {
        const std::vector<Expr> index(e->operands.begin() + 1, e->operands.end());
        if (!std::any_of(index.begin(), index.end(), [&](const Expr& i) { return varying(i); }))
          return make_call(e->name, CallKind::kChannel, lanes_.typed(e->type), e->operands, e->loc);
        // An array of channels indexed by the lanes (a gathering drainer's read of its
        // producer's PEs, seed 003 Code 3): lane l reads its own element, in lane order.
        std::vector<Expr> parts;
        for (const std::vector<Expr>& at_lane : channel_lane_indices(e->operands[0]->name, index)) {
          std::vector<Expr> ops{e->operands[0]};
          ops.insert(ops.end(), at_lane.begin(), at_lane.end());
          parts.push_back(make_call(e->name, CallKind::kChannel, e->type, ops, e->loc));
        }
        return reshaped(
            make_call("concat", CallKind::kIntrinsic, e->type.with_lanes(n), parts, e->loc),
            lanes_.typed(e->type));
      }
      case CallKind::kIntrinsic:
        if (is_vector_op(e->name)) throw Serialise{"the body has vector values already"};
        break;
      default:
        break;
    }
    // Func and input reads (gathers when an index varies) and elementwise intrinsics.
    std::vector<Expr> ops;
    bool any = false;
    for (const Expr& o : e->operands) {
      ops.push_back(vec(o, at));
      any = any || ops.back()->type.lanes != 1;
    }
    if (!any) return e;
    if (e->call_kind == CallKind::kIntrinsic)
      for (Expr& o : ops) o = as_vector(o);
    if (e->call_kind == CallKind::kIntrinsic)
      return make_call(e->name, e->call_kind, lanes_.typed(e->type), ops, e->loc);
    // A gather: every varying index has the lanes' type.
    for (Expr& o : ops) o = o->type.lanes == 1 ? o : as_vector(o);
    return make_call(e->name, e->call_kind, lanes_.typed(e->type), ops, e->loc);
  }

  // ---- lane-by-lane form ----

  // `e` in lane l as scalar code: loop variables are constants, vector lets give their lane,
  // register reads the lane they read; `self` is the let being computed lane by lane (a chain
  // reads its earlier lanes).
  Expr scalar(const Expr& e, int l, const std::string& self, int at) {
    std::function<Expr(const Expr&)> go = [&](const Expr& x) -> Expr {
      if (x->kind == ExprKind::kVar) {
        for (size_t i = 0; i < k(); ++i)
          if (lanes_.vars[i] == x->name) return lit32(lanes_.value(i, l));
        auto it = vars_.find(x->name);
        if (it == vars_.end() || it->second.kind == VarKind::kUniform) return x;
        if (it->second.kind == VarKind::kLanes)
          return make_var(it->second.lane_names[static_cast<size_t>(l)], it->second.type, x->loc);
        return lane_of(make_var(x->name, lanes_.typed(it->second.type), x->loc), l);
      }
      if (x->kind == ExprKind::kSelect) {  // fold the condition before visiting the branches
        Expr c = fold(go(x->operands[0]));
        if (is_int_literal(c) && x->operands.size() == 3)
          return go(x->operands[c->int_value != 0 ? 1 : 2]);
        return make_select(c, go(x->operands[1]),
                           x->operands.size() > 2 ? go(x->operands[2]) : nullptr, x->type, x->loc);
      }
      if (auto r = register_read(x, at)) {
        touched_regs_.insert(x->name);
        const int src = r->src[static_cast<size_t>(l)];
        if (src < 0) return typed_zero(x->type);  // only in a branch no lane takes
        if (r->chain) {
          const RegisterWrite& w = reg_writes_.at(x->name);
          if (w.value == self && src < l) return make_var(lane_name(self, src), x->type, x->loc);
          auto it = vars_.find(w.value);
          if (it == vars_.end() || it->second.kind != VarKind::kLanes)
            throw Serialise{"register '" + x->name + "' carries lanes of '" + w.value +
                            "' within a step, which is not computed lane by lane"};
          return make_var(it->second.lane_names[static_cast<size_t>(src)], x->type, x->loc);
        }
        return lane_of(
            make_call(x->name, CallKind::kRegister, lanes_.typed(x->type), r->rest, x->loc), src);
      }
      if (x->kind == ExprKind::kCall && x->call_kind == CallKind::kFifo &&
          lane_regs_.count(x->operands[0]->name))
        throw Serialise{"FIFO '" + x->operands[0]->name + "' is popped in lane-by-lane code"};
      if (x->kind == ExprKind::kBinary &&
          (x->binary_op == BinaryOp::kAnd || x->binary_op == BinaryOp::kOr)) {
        Expr a = fold(go(x->operands[0]));
        if (is_int_literal(a)) {
          if ((a->int_value != 0) == (x->binary_op == BinaryOp::kAnd)) return go(x->operands[1]);
          return a;
        }
        return make_binary(x->binary_op, a, go(x->operands[1]), x->type, x->loc);
      }
      if (x->operands.empty()) return x;
      auto copy = std::make_shared<ExprNode>(*x);
      for (Expr& o : copy->operands) o = go(o);
      return copy;
    };
    return fold(go(e));
  }

  std::string lane_name(const std::string& var, int l) const {
    return pending_lanes_.at(var)[static_cast<size_t>(l)];
  }

  // ---- statements ----

  StmtList process(const StmtList& in) {
    StmtList out;
    for (const StmtPtr& s : in) {
      StmtList done = statement(s);
      out.insert(out.end(), done.begin(), done.end());
    }
    return out;
  }

  StmtList statement(const StmtPtr& s) {
    const int at = positions_.at(s.get());
    auto cannot = []() -> StmtList {
      throw Serialise{"the body has a statement t2s-vec cannot vectorize"};
    };
    return match_stmt(
        *s, [&](const LetStmt& let) { return let_stmt(*s, let, at); },
        [&](const Provide& p) { return provide(*s, p, at); },
        [&](const WriteChannel& w) { return write_channel(*s, w, at); },
        [&](const Shift& sh) -> StmtList {
          if (!lane_regs_.count(sh.reg)) {
            uniform_register_index(sh.reg, sh.pe);
            return {s};
          }
          return {make_shift(sh.reg, own_pe(sh.pe, sh.reg), s->loc)};
        },
        [&](const Push& p) -> StmtList {
          if (!lane_regs_.count(p.fifo)) {
            uniform_register_index(p.fifo, p.pe);
            return {s};
          }
          return {make_push(p.fifo, own_pe(p.pe, p.fifo), as_vector(vec(p.value, at)), s->loc)};
        },
        [&](const IfThenElse& i) -> StmtList {
          if (!varying(i.condition))
            return {make_if(i.condition, process(i.then_body), process(i.else_body), s->loc)};
          StmtList out;  // lane by lane
          for (int l = 0; l < lanes_.n; ++l) {
            StmtList lane = lane_stmt(s, l);
            out.insert(out.end(), lane.begin(), lane.end());
          }
          return out;
        },
        [&](const For& f) -> StmtList {
          if (varying(f.min) || varying(f.extent))
            throw Serialise{"loop '" + f.var + "' inside has bounds that vary with the lanes"};
          return {make_for(f.var, f.min, f.extent, f.loop_kind, process(f.body), s->loc)};
        },
        [&](const Alloc&) { return cannot(); }, [&](const Realize&) { return cannot(); });
  }

  StmtList write_channel(const Stmt& s, const WriteChannel& w, int at) {
    if (!std::any_of(w.index.begin(), w.index.end(), [&](const Expr& i) { return varying(i); }))
      return {make_write_channel(w.channel, w.index, as_vector(vec(w.value, at)), s.loc)};
    // Lane l writes lane l of the value to its own element of the array, in lane order.
    const std::vector<std::vector<Expr>> lanes = channel_lane_indices(w.channel, w.index);
    const std::string name = fresh(w.channel + "_value");
    const Expr value = as_vector(vec(w.value, at));
    const Expr v = make_var(name, value->type, s.loc);
    StmtList writes;
    for (int l = 0; l < lanes_.n; ++l)
      writes.push_back(
          make_write_channel(w.channel, lanes[static_cast<size_t>(l)], lane_of(v, l), s.loc));
    return {make_let(name, value, writes, s.loc)};
  }

  // The PE indices of a shift or push of a register with lanes, which must name its own lanes.
  std::vector<Expr> own_pe(const std::vector<Expr>& pe, const std::string& reg) {
    std::vector<Expr> lane_args(pe.begin(), pe.begin() + static_cast<long>(k()));
    if (!own_lanes(source_lanes(lane_args, reg)))
      throw Serialise{"register '" + reg + "' is written at other lanes"};
    touched_regs_.insert(reg);
    return std::vector<Expr>(pe.begin() + static_cast<long>(k()), pe.end());
  }

  StmtList let_stmt(const Stmt& s, const LetStmt& let, int at) {
    const std::optional<VarInfo> saved =
        vars_.count(let.var) ? std::optional<VarInfo>(vars_.at(let.var)) : std::nullopt;
    auto restore = [&] {
      if (saved)
        vars_[let.var] = *saved;
      else
        vars_.erase(let.var);
    };
    StmtList result;
    if (!varying(let.value)) {
      vars_[let.var] = VarInfo{VarKind::kUniform, let.value->type, {}};
      result = {make_let(let.var, let.value, process(let.body), s.loc)};
    } else if (!needs_lanes(let.value, at)) {
      Expr v = as_vector(vec(let.value, at));
      vars_[let.var] = VarInfo{VarKind::kVector, let.value->type, {}};
      result = {make_let(let.var, v, process(let.body), s.loc)};
    } else {
      // Lane by lane: let x_0 = ..., let x_1 = ..., then x = concat(x_0, ...) for vector uses.
      // The parts every lane computes unconditionally and independently (A_val * B_val of a dot
      // product) are vector operations first; the lanes then take their lane of them.
      std::vector<std::pair<std::string, Expr>> hoisted;
      const Expr value = hoist(let.value, at, let.var, hoisted);
      std::vector<std::string> names;
      for (int l = 0; l < lanes_.n; ++l) names.push_back(fresh(let.var + "_" + std::to_string(l)));
      pending_lanes_[let.var] = names;
      std::vector<Expr> values, lane_vars;
      for (int l = 0; l < lanes_.n; ++l) {
        values.push_back(scalar(value, l, let.var, at));
        lane_vars.push_back(make_var(names[static_cast<size_t>(l)], let.value->type, s.loc));
      }
      pending_lanes_.erase(let.var);
      vars_[let.var] = VarInfo{VarKind::kLanes, let.value->type, names};
      report_.notes.push_back("'" + let.var +
                              "' is computed lane by lane: " + why_lanes(let.value, at));
      StmtList body = {
          make_let(let.var,
                   reshaped(make_call("concat", CallKind::kIntrinsic,
                                      let.value->type.with_lanes(lanes_.n), lane_vars, s.loc),
                            lanes_.typed(let.value->type)),
                   process(let.body), s.loc)};
      for (int l = lanes_.n; l-- > 0;)
        body = {
            make_let(names[static_cast<size_t>(l)], values[static_cast<size_t>(l)], body, s.loc)};
      for (auto it = hoisted.rbegin(); it != hoisted.rend(); ++it) {
        body = {make_let(it->first, it->second, body, s.loc)};
        vars_.erase(it->first);
      }
      result = body;
    }
    restore();
    return result;
  }

  // `e` (evaluated unconditionally) with its largest subexpressions that vary with the lanes,
  // need no lane of another, and compute something bound to vector lets (`hoisted`).
  Expr hoist(const Expr& e, int at, const std::string& base,
             std::vector<std::pair<std::string, Expr>>& hoisted) {
    const bool computes = e->kind == ExprKind::kBinary || e->kind == ExprKind::kUnary ||
                          e->kind == ExprKind::kCast ||
                          (e->kind == ExprKind::kCall &&
                           (e->call_kind == CallKind::kFunc || e->call_kind == CallKind::kImage ||
                            (e->call_kind == CallKind::kIntrinsic && !is_vector_op(e->name))));
    // Arithmetic on the loop variables alone stays per lane, where it folds to constants.
    bool reads_values = false;
    for_each_expr(e, [&](const Expr& x) {
      if (x->kind == ExprKind::kCall && x->call_kind != CallKind::kIntrinsic) reads_values = true;
      if (x->kind == ExprKind::kVar && vars_.count(x->name) &&
          vars_.at(x->name).kind != VarKind::kUniform)
        reads_values = true;
    });
    if (computes && reads_values && varying(e) && !needs_lanes(e, at)) {
      const std::string name = fresh(base + "_v");
      hoisted.emplace_back(name, as_vector(vec(e, at)));
      vars_[name] = VarInfo{VarKind::kVector, e->type, {}};
      return make_var(name, e->type, e->loc);
    }
    size_t unconditional = e->operands.size();
    if (e->kind == ExprKind::kSelect) unconditional = 1;  // only the condition
    if (e->kind == ExprKind::kBinary &&
        (e->binary_op == BinaryOp::kAnd || e->binary_op == BinaryOp::kOr))
      unconditional = 1;
    if (e->kind == ExprKind::kCall && e->call_kind != CallKind::kIntrinsic) unconditional = 0;
    if (unconditional == 0) return e;
    auto copy = std::make_shared<ExprNode>(*e);
    for (size_t i = 0; i < unconditional; ++i)
      copy->operands[i] = hoist(e->operands[i], at, base, hoisted);
    return copy;
  }

  std::string why_lanes(const Expr& e, int at) const {
    std::string why;
    for_each_expr(e, [&](const Expr& x) {
      if (!why.empty()) return;
      if (auto r = register_read(x, at); r && r->chain)
        why = "it reads '" + r->reg->func + "' of another lane of the same step (a chain)";
    });
    return why.empty() ? "a select on the lanes guards a read that only some lanes may make" : why;
  }

  StmtList provide(const Stmt& s, const Provide& p, int at) {
    if (lane_regs_.count(p.func)) {
      std::vector<Expr> lane_args(p.args.begin(), p.args.begin() + static_cast<long>(k()));
      if (!own_lanes(source_lanes(lane_args, p.func)))
        throw Serialise{"register '" + p.func + "' is written at other lanes"};
      touched_regs_.insert(p.func);
      std::vector<Expr> rest(p.args.begin() + static_cast<long>(k()), p.args.end());
      return {make_provide(p.func, rest, as_vector(vec(p.value, at)), s.loc)};
    }
    if (program_.find_register(p.func)) uniform_register_index(p.func, p.args);
    bool lanes_needed = chained_stores_.count(p.func) > 0 || needs_lanes(p.value, at);
    for (const Expr& a : p.args) lanes_needed = lanes_needed || needs_lanes(a, at);
    if (lanes_needed) {
      report_.notes.push_back("the store to '" + p.func + "' is made lane by lane" +
                              (chained_stores_.count(p.func)
                                   ? ": it reads '" + p.func + "' of another lane (a chain)"
                                   : ""));
      StmtList out;
      for (int l = 0; l < lanes_.n; ++l) {
        std::vector<Expr> args;
        for (const Expr& a : p.args) args.push_back(scalar(a, l, "", at));
        out.push_back(make_provide(p.func, args, scalar(p.value, l, "", at), s.loc));
      }
      return out;
    }
    std::vector<Expr> args;
    bool scatter = false;
    for (const Expr& a : p.args) {
      args.push_back(vec(a, at));
      scatter = scatter || args.back()->type.lanes != 1;
    }
    Expr value = vec(p.value, at);
    if (scatter) return {make_provide(p.func, args, as_vector(value), s.loc)};
    if (value->type.lanes == 1) return {make_provide(p.func, args, value, s.loc)};
    // Every lane stores to one element: the last lane's value stays.
    return {make_provide(p.func, args, lane_of(value, lanes_.n - 1), s.loc)};
  }

  // Statement `s` for lane l alone (under a condition that varies with the lanes).
  StmtList lane_stmt(const StmtPtr& s, int l) {
    const int at = positions_.at(s.get());
    auto lane_stmts = [&](const StmtList& list) {
      StmtList out;
      for (const StmtPtr& b : list) {
        StmtList done = lane_stmt(b, l);
        out.insert(out.end(), done.begin(), done.end());
      }
      return out;
    };
    auto cannot = []() -> StmtList {
      throw Serialise{"a condition on the lanes guards a statement that cannot run for one lane"};
    };
    return match_stmt(
        *s,
        [&](const IfThenElse& i) -> StmtList {
          Expr c = scalar(i.condition, l, "", at);
          if (is_int_literal(c)) return lane_stmts(c->int_value ? i.then_body : i.else_body);
          return {make_if(c, lane_stmts(i.then_body), lane_stmts(i.else_body), s->loc)};
        },
        [&](const Provide& p) -> StmtList {
          if (lane_regs_.count(p.func))
            throw Serialise{"register '" + p.func + "' is written under a condition on the lanes"};
          std::vector<Expr> args;
          for (const Expr& a : p.args) args.push_back(scalar(a, l, "", at));
          return {make_provide(p.func, args, scalar(p.value, l, "", at), s->loc)};
        },
        [&](const WriteChannel& w) -> StmtList {
          std::vector<Expr> index;
          for (const Expr& i : w.index) index.push_back(scalar(i, l, "", at));
          return {make_write_channel(w.channel, index, scalar(w.value, l, "", at), s->loc)};
        },
        [&](const LetStmt& let) -> StmtList {
          const std::optional<VarInfo> saved =
              vars_.count(let.var) ? std::optional<VarInfo>(vars_.at(let.var)) : std::nullopt;
          Expr v = scalar(let.value, l, "", at);
          vars_[let.var] = VarInfo{VarKind::kUniform, let.value->type, {}};
          StmtList body = lane_stmts(let.body);
          if (saved)
            vars_[let.var] = *saved;
          else
            vars_.erase(let.var);
          return {make_let(let.var, v, body, s->loc)};
        },
        [&](const For&) { return cannot(); }, [&](const Alloc&) { return cannot(); },
        [&](const Realize&) { return cannot(); }, [&](const Shift&) { return cannot(); },
        [&](const Push&) { return cannot(); });
  }

  const Program& program_;
  std::string kernel_;
  const Lanes& lanes_;
  NameSupply& names_;
  VecLoopReport& report_;
  std::map<std::string, const Register*> lane_regs_;
  std::map<const Stmt*, int> positions_;
  int position_ = 0;
  std::map<std::string, RegisterWrite> reg_writes_;
  // Registers shifted by a top-level statement of the body (every step), and its position.
  std::set<std::string> unconditional_shifts_;
  std::map<std::string, int> shift_positions_;
  // A Func stored in the body: the statement and its node.
  struct FuncStore {
    const Stmt* stmt = nullptr;
    const Provide* provide = nullptr;
  };
  std::map<std::string, FuncStore> stores_;
  std::set<std::string> chained_stores_;
  std::map<std::string, int> channel_user_;
  std::map<std::string, VarInfo> vars_;
  std::map<std::string, std::vector<std::string>> pending_lanes_;
  std::set<std::string> touched_regs_;
};

}  // namespace

StmtList vectorize_lanes(const Program& program, const std::string& kernel, const Lanes& lanes,
                         const StmtList& body, NameSupply& names, VecLoopReport& report,
                         std::set<std::string>* vector_registers) {
  LaneVectorizer v(program, kernel, lanes, names, report);
  StmtList out = v.run(body);
  vector_registers->insert(v.vector_registers().begin(), v.vector_registers().end());
  return out;
}

}  // namespace t2s::vec_internal
