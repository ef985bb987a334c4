// t2s-vec (seed 002): vectorized loops to vector operations. docs/ir.md ("The vectorized
// stage") states the rules; this file follows them in order:
//   1. a nest of directly nested vectorized loops gives N lanes (flat, innermost fastest);
//   2. its body is rewritten statement by statement into vector code (lane_vectorizer.cc),
//      computing what reads an earlier lane of the same step lane after lane; a nest whose
//      lanes' order that cannot keep is serialised whole (unrolled loops);
//   3. registers whose lane dimensions became vectors change type and shape; registers no
//      longer read are removed;
//   4. registers read at the same lanes only keep those (narrow_registers.cc), conditions the
//      loops decide (known_conditions.cc) and lets that nothing reads go;
//   5. channels whose ends have different lanes are matched (match_channels).
#include "libs/passes/vec/vec.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"
#include "libs/passes/vec/vec_internal.h"

namespace t2s {
namespace {

using vec_internal::Lanes;
using vec_internal::lit32;
using vec_internal::reshaped;
using vec_internal::Serialise;

class VecPass {
 public:
  VecPass(const Program& in, VecReport* report)
      : out_(in), report_(report), names_(in), original_names_(names_.names()) {}

  Program run() {
    out_.stage = Stage::kVectorized;
    for (Kernel& k : out_.kernels) {
      kernel_ = &k;
      k.body = Nests(this).mutate_stmts(k.body);
    }
    check_vector_register_accesses();
    drop_unread_registers();
    for (Register& r : out_.registers) {
      auto it = vector_regs_.find(r.name);
      if (it == vector_regs_.end()) continue;
      const size_t dims = it->second.first;
      r.shape.erase(r.shape.begin(), r.shape.begin() + static_cast<long>(dims));
      r.type = it->second.second.with_element(r.type);
    }
    std::map<std::string, int> lanes;
    for (const auto& [name, dims_lanes] : vector_regs_) lanes[name] = dims_lanes.second.lanes;
    std::vector<std::string> narrowed = vec_internal::narrow_registers(out_, lanes);
    if (report_) report_->narrowed = narrowed;
    // In a vectorized kernel, a let the rewrite left unread (the `concat` of a chain whose
    // register was narrowed or removed) goes.
    for (Kernel& k : out_.kernels)
      if (vectorized_kernels_.count(k.name))
        k.body = vec_internal::drop_unused_lets(
            vec_internal::propagate_copies(vec_internal::decide_known_conditions(k.body),
                                           new_names()),
            names_.names());
    match_channels();
    return out_;
  }

 private:
  // A register a vectorized nest made a vector register loses its lanes' dimensions; an access
  // left with all of them (hand-edited IR: the register also used outside the nest, or in a
  // nest with other lanes) cannot stay. t2s-stt never makes one.
  void check_vector_register_accesses() const {
    std::map<std::string, size_t> full;  // PE indices of an access the rewrite did not reach
    for (const Register& r : out_.registers)
      if (vector_regs_.count(r.name)) full[r.name] = r.shape.size();
    if (full.empty()) return;
    for (const Kernel& k : out_.kernels) {
      auto refuse = [&](const std::string& reg, size_t pe_indices) {
        auto it = full.find(reg);
        if (it == full.end() || pe_indices != it->second) return;
        throw Diagnostic(directive_loc(k.name, "", k.loc),
                         "vectorize: register '" + reg +
                             "' is a vector register of a vectorized nest of kernel '" + k.name +
                             "', but is also accessed lane by lane outside it (or in a nest with "
                             "other lanes)",
                         "vec-lanes");
      };
      for_each_stmt(k.body, [&](const Stmt& s) {
        match_stmt(
            s, [&](const Provide& p) { refuse(p.func, p.args.size() - 1); },
            [&](const Shift& sh) { refuse(sh.reg, sh.pe.size()); },
            [&](const Push& pu) { refuse(pu.fifo, pu.pe.size()); },
            // The other kinds access no register themselves.
            [](const For&) {}, [](const LetStmt&) {}, [](const IfThenElse&) {}, [](const Alloc&) {},
            [](const WriteChannel&) {}, [](const Realize&) {});
      });
      for_each_stmt_expr(k.body, [&](const Expr& x) {
        if (x->kind != ExprKind::kCall || x->operands.empty()) return;
        if (x->call_kind == CallKind::kRegister) refuse(x->name, x->operands.size() - 1);
        if (x->call_kind == CallKind::kFifo) refuse(x->operands[0]->name, x->operands.size() - 1);
      });
    }
  }

  // A register whose every read became a lane of a chain (the same step's value of another
  // lane, now a let) is written but never read: its writes, shifts and storage go.
  void drop_unread_registers() {
    std::set<std::string> read;
    for (const Kernel& k : out_.kernels)
      for_each_stmt_expr(k.body, [&](const Expr& x) {
        if (x->kind != ExprKind::kCall) return;
        if (x->call_kind == CallKind::kRegister) read.insert(x->name);
        if (x->call_kind == CallKind::kFifo) read.insert(x->operands[0]->name);
      });
    std::set<std::string> unread;
    for (const auto& [name, dims] : vector_regs_)
      if (!read.count(name)) unread.insert(name);
    if (unread.empty()) return;
    DropRegisterWrites drop(unread);
    for (Kernel& k : out_.kernels) k.body = drop.mutate_stmts(k.body);
    out_.registers.erase(std::remove_if(out_.registers.begin(), out_.registers.end(),
                                        [&](const Register& r) { return unread.count(r.name); }),
                         out_.registers.end());
    for (const std::string& r : unread) {
      vector_regs_.erase(r);
      if (report_) report_->dropped.push_back(r);
    }
  }

  // Every nest of vectorized loops (its outermost loop) gives way to its vector code.
  class Nests : public vec_internal::SplicingMutator {
   public:
    explicit Nests(VecPass* pass) : pass_(pass) {}

   protected:
    StmtPtr mutate_for(const For& f, const StmtPtr& s) override {
      if (f.loop_kind != LoopKind::kVectorized) return mutate_children(s);
      return splice(pass_->vectorize_nest(f, s));
    }

   private:
    VecPass* pass_;
  };

  // The writes (stores, shifts and pushes) of the registers in `regs`, which go.
  class DropRegisterWrites : public StmtMutator {
   public:
    explicit DropRegisterWrites(const std::set<std::string>& regs) : regs_(regs) {}

   protected:
    StmtPtr mutate_provide(const Provide& p, const StmtPtr& s) override { return drop(p.func, s); }
    StmtPtr mutate_shift(const Shift& sh, const StmtPtr& s) override { return drop(sh.reg, s); }
    StmtPtr mutate_push(const Push& pu, const StmtPtr& s) override { return drop(pu.fifo, s); }

   private:
    StmtPtr drop(const std::string& reg, const StmtPtr& s) {
      return regs_.count(reg) ? nullptr : mutate_children(s);
    }
    const std::set<std::string>& regs_;
  };

  // The vectorize directive of `kernel` (its Func) on loop `var`, or any of its vectorize
  // directives for an empty `var`.
  SourceLoc directive_loc(const std::string& kernel, const std::string& var,
                          const SourceLoc& fallback) const {
    for (const Directive& d : out_.directives)
      if (d.is(DirectiveKind::kVectorize) && d.func == kernel && !d.args.empty() &&
          (var.empty() || d.args[0].text == var))
        return d.loc;
    return fallback;
  }

  // The nest of vectorized loops whose outermost loop `first` is statement `outer`.
  StmtList vectorize_nest(const For& first, const StmtPtr& outer) {
    // The directly nested vectorized loops, outermost first: those of the perfect nest inside
    // the first until one that is not vectorized.
    std::vector<const For*> nest{&first};
    const LoopNest inside = loop_nest(first.body);
    if (inside.realizes.empty())  // a realize ends the nest (loop_nest looks through it)
      for (const For* f : inside.loops) {
        if (f->loop_kind != LoopKind::kVectorized) break;
        nest.push_back(f);
      }
    const StmtList* body = &nest.back()->body;
    vectorized_kernels_.insert(kernel_->name);
    Lanes lanes;
    VecLoopReport rep;
    rep.kernel = kernel_->name;
    rep.loc = directive_loc(kernel_->name, nest.back()->var, outer->loc);
    int64_t n = 1;
    for (auto it = nest.rbegin(); it != nest.rend(); ++it) {
      const For& f = **it;
      const SourceLoc at = directive_loc(kernel_->name, f.var, outer->loc);
      if (f.min->kind != ExprKind::kIntImm || f.extent->kind != ExprKind::kIntImm)
        throw Diagnostic(at,
                         "vectorize: loop '" + f.var + "' of '" + kernel_->name +
                             "' does not have a constant extent",
                         "vec-extent");
      lanes.vars.push_back(f.var);
      lanes.mins.push_back(f.min->int_value);
      lanes.extents.push_back(f.extent->int_value);
      lanes.strides.push_back(n);
      n *= f.extent->int_value;
      if (n > kMaxLanes || n < 1)
        throw Diagnostic(at,
                         "vectorize: the vectorized loops of '" + kernel_->name + "' give " +
                             std::to_string(n) + " lanes; a vector has 1 to " +
                             std::to_string(kMaxLanes),
                         "vec-lanes");
    }
    lanes.n = static_cast<int>(n);
    const int64_t dims =
        std::count_if(lanes.extents.begin(), lanes.extents.end(), [](int64_t e) { return e > 1; });
    if (dims > Type::kMaxOuterDims + 1)
      throw Diagnostic(rep.loc,
                       "vectorize: '" + kernel_->name + "' has " + std::to_string(dims) +
                           " vectorized loops of more than one lane; a tensor has at most " +
                           std::to_string(Type::kMaxOuterDims + 1) + " dimensions",
                       "vec-lanes");
    rep.loops = lanes.vars;
    rep.extents = lanes.extents;
    rep.lanes = lanes.n;
    StmtList result;
    if (lanes.n == 1) {
      rep.notes.push_back("one lane: the loop runs as it is");
      result = {serialised(outer, nest, 0, LoopKind::kSerial)};
    } else {
      try {
        // Every use of the loop variables is replaced: the nest is gone.
        std::set<std::string> registers;
        result = vec_internal::vectorize_lanes(out_, kernel_->name, lanes, *body, names_, rep,
                                               &registers);
        for (const std::string& r : registers)
          vector_regs_[r] = {lanes.vars.size(), lanes.typed(Type::Int(32))};
      } catch (const Serialise& s) {
        rep.serialised = true;
        rep.notes = {"serialised (the lanes run one after another, unrolled): " + s.why};
        result = {serialised(outer, nest, 0, LoopKind::kUnrolled)};
      }
    }
    if (report_) report_->loops.push_back(rep);
    return result;
  }

  // Loop `nest[i]` (statement `s`) of a nest of vectorized loops, with the loops from it
  // inwards made `kind`.
  StmtPtr serialised(const StmtPtr& s, const std::vector<const For*>& nest, size_t i,
                     LoopKind kind) {
    For copy = *nest[i];
    copy.loop_kind = kind;
    if (i + 1 < nest.size()) copy.body = {serialised(copy.body[0], nest, i + 1, kind)};
    return with_node(*s, copy);
  }

  // Seed 002 1.1: the channel carries the narrower end's lanes; the wider end concatenates
  // several reads, or writes its vector as several slices, which keeps the FIFO's order.
  void match_channels() {
    std::map<std::string, std::set<int>> read_lanes, write_lanes;
    std::map<std::string, std::set<std::string>> read_types, write_types;  // tensor shapes
    for (const Kernel& k : out_.kernels) {
      ChannelWrites(&write_lanes, &write_types).visit_stmts(k.body);
      for_each_stmt_expr(k.body, [&](const Expr& x) {
        if (x->kind == ExprKind::kCall && x->call_kind == CallKind::kChannel) {
          read_lanes[x->operands[0]->name].insert(x->type.lanes);
          read_types[x->operands[0]->name].insert(x->type.name());
        }
      });
    }
    std::map<std::string, int> width;
    for (Channel& c : out_.channels) {
      const std::set<int>& w = write_lanes[c.name];
      const std::set<int>& r = read_lanes[c.name];
      if (w.size() > 1 || r.size() > 1)
        throw Diagnostic(c.loc,
                         "channel '" + c.name + "' is " + (w.size() > 1 ? "written" : "read") +
                             " with different lane counts",
                         "vec-lanes");
      const int wl = w.empty() ? 1 : *w.begin(), rl = r.empty() ? 1 : *r.begin();
      if (wl == 1 && rl == 1) continue;
      const int narrow = std::min(wl, rl), wide = std::max(wl, rl);
      if (wide % narrow != 0) {
        Diagnostic d(c.loc,
                     "channel '" + c.name + "': its writer '" + c.producer + "' sends " +
                         std::to_string(wl) + " lane" + (wl == 1 ? "" : "s") +
                         " per write and its reader '" + c.consumer + "' takes " +
                         std::to_string(rl) + " per read; neither is a multiple of the other",
                     "vec-lanes");
        for (const auto& [kernel, n] : {std::pair{c.producer, wl}, std::pair{c.consumer, rl}}) {
          const SourceLoc at = directive_loc(kernel, "", {});
          if (n > 1 && at.valid())
            d.add_note(at,
                       "'" + kernel + "' has " + std::to_string(n) + " lanes from this vectorize");
        }
        throw d;
      }
      width[c.name] = narrow;
      c.type = c.type.with_lanes(narrow);
      // Ends of one tensor type share it; other ends reshape to and from the flat lanes.
      const std::set<std::string>& wt = write_types[c.name];
      if (wl == rl && wt.size() == 1 && (read_types[c.name].empty() || read_types[c.name] == wt))
        c.type = *Type::from_name(*wt.begin());
      channel_types_[c.name] = c.type;
      if (report_) {
        std::string how = wl == rl ? "both ends use " + std::to_string(wl) + " lanes"
                          : wl < rl
                              ? "the reader concatenates " + std::to_string(rl / wl) +
                                    " reads of " + std::to_string(wl)
                              : "the writer sends its " + std::to_string(wl) + " lanes as " +
                                    std::to_string(wl / rl) + " slices of " + std::to_string(rl);
        report_->channels.push_back("channel " + c.name + ": " + c.type.name() + " (" + how + ")");
      }
    }
    if (width.empty()) return;
    ChannelOps ops(width, channel_types_, names_);
    for (Kernel& k : out_.kernels) k.body = ops.mutate_stmts(k.body);
  }

  // The lanes and the types of the values written to each channel.
  class ChannelWrites : public StmtVisitor {
   public:
    ChannelWrites(std::map<std::string, std::set<int>>* lanes,
                  std::map<std::string, std::set<std::string>>* types)
        : lanes_(lanes), types_(types) {}

   protected:
    void visit_write_channel(const WriteChannel& w, const Stmt&) override {
      (*lanes_)[w.channel].insert(w.value->type.lanes);
      (*types_)[w.channel].insert(w.value->type.name());
    }

   private:
    std::map<std::string, std::set<int>>* lanes_;
    std::map<std::string, std::set<std::string>>* types_;
  };

  // The reads and writes of the channels in `width` (name -> the lanes it carries) as reads and
  // writes of that many lanes.
  class ChannelOps : public StmtMutator {
   public:
    ChannelOps(const std::map<std::string, int>& width, const std::map<std::string, Type>& types,
               NameSupply& names)
        : width_(width), types_(types), names_(names) {}

   protected:
    Expr mutate_call(const Expr& e) override {
      if (e->call_kind != CallKind::kChannel) return mutate_operands(e);
      auto it = width_.find(e->operands[0]->name);
      if (it == width_.end()) return e;
      const Type channel = types_.at(e->operands[0]->name);
      if (e->type.lanes == it->second)  // one read, reshaped when the channel's shape differs
        return reshaped(make_call(e->name, CallKind::kChannel, channel, e->operands, e->loc),
                        e->type);
      if (e->type.lanes < it->second) return e;
      std::vector<Expr> parts;
      for (int i = 0; i < e->type.lanes / it->second; ++i)
        parts.push_back(make_call(e->name, CallKind::kChannel, channel, e->operands, e->loc));
      return reshaped(make_call("concat", CallKind::kIntrinsic, e->type.with_lanes(e->type.lanes),
                                parts, e->loc),
                      e->type);
    }

    StmtPtr mutate_write_channel(const WriteChannel& n, const StmtPtr& s) override {
      WriteChannel w = n;  // with the channel reads of its operands rewritten first
      for (Expr& i : w.index) i = mutate(i);
      w.value = mutate(w.value);
      auto it = width_.find(w.channel);
      if (it != width_.end() && w.value->type.lanes == it->second &&
          w.value->type != types_.at(w.channel))
        return make_write_channel(w.channel, w.index, reshaped(w.value, types_.at(w.channel)),
                                  s->loc);
      if (it == width_.end() || w.value->type.lanes <= it->second)
        return with_node(*s, std::move(w));
      const std::string tmp_name = names_.fresh("ch_value");
      const Expr v = make_var(tmp_name, w.value->type, s->loc);
      StmtList writes;
      for (int at = 0; at < w.value->type.lanes; at += it->second)
        writes.push_back(make_write_channel(
            w.channel, w.index,
            make_call("slice", CallKind::kIntrinsic, v->type.with_lanes(it->second),
                      {v, lit32(at), lit32(it->second)}, s->loc),
            s->loc));
      return make_let(tmp_name, w.value, writes, s->loc);
    }

   private:
    const std::map<std::string, int>& width_;
    const std::map<std::string, Type>& types_;
    NameSupply& names_;
  };

  Program out_;
  std::map<std::string, Type> channel_types_;  // vector channels' types (match_channels)
  VecReport* report_;
  Kernel* kernel_ = nullptr;
  // The names the pass took (the lets of lane-by-lane code, among others).
  std::set<std::string> new_names() const {
    std::set<std::string> out;
    for (const std::string& n : names_.names())
      if (!original_names_.count(n)) out.insert(n);
    return out;
  }

  NameSupply names_;  // the program's names and those the pass takes
  const std::set<std::string> original_names_;
  std::set<std::string> vectorized_kernels_;
  // register -> lane dims, the lanes' shape (int32 of that shape)
  std::map<std::string, std::pair<size_t, Type>> vector_regs_;
};

}  // namespace

Program vec_pass(const Program& stt, VecReport* report) {
  if (stt.stage != Stage::kStt)
    throw Diagnostic({}, std::string("t2s-vec takes the stt stage, not ") + stage_name(stt.stage),
                     "stage");
  return VecPass(stt, report).run();
}

Program vec_pass(const Program& stt) { return vec_pass(stt, nullptr); }

std::string vec_report_text(const VecReport& report) {
  std::ostringstream out;
  if (report.loops.empty()) out << "no vectorized loops\n";
  for (const VecLoopReport& l : report.loops) {
    out << "kernel " << l.kernel << ": ";
    for (size_t i = 0; i < l.loops.size(); ++i)
      out << (i ? " x " : "") << l.loops[i] << " " << l.extents[i];
    out << " (innermost first): " << l.lanes << " lanes, "
        << (l.serialised ? "serialised" : "vectorized");
    std::vector<int64_t> dims;  // a tensor: one dimension per loop of more than one lane
    for (int64_t e : l.extents)
      if (e > 1) dims.push_back(e);
    if (!l.serialised && dims.size() > 1) {
      out << " as tensors of ";
      for (size_t i = 0; i < dims.size(); ++i) out << (i ? " x " : "") << dims[i];
    }
    out << "\n";
    for (const std::string& n : l.notes) out << "  " << n << "\n";
  }
  for (const std::string& c : report.channels) out << c << "\n";
  for (const std::string& r : report.dropped)
    out << "register " << r << ": removed (its values are read within the step, lane by lane)\n";
  for (const std::string& n : report.narrowed) out << n << "\n";
  return out.str();
}

}  // namespace t2s
