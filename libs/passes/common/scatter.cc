// scatter(P, v) (scatter.h). Before, P has a PE per v and sends each PE's value over its own
// element of the channel, and F's double buffer fills, one value a cycle, from element v:
//
//   P:  ... for v unrolled: write_channel ch(.., v, ..) <- value
//   F:  ... let v = count % V: P(idx.., v, .., half) = read_channel(ch, .., v, ..)
//
// After, P's loop v is serial, one PE sending V values in turn over one channel, and F reads
// them in the same order (v fastest in both), each into the storage of its PE; with Down both
// count v from its last PE (`for v_down: let v = (2 min + V - 1) - v_down`), as T2SP's values
// enter the array at that end:
//
//   P:  ... for v serial: write_channel ch(.., ..) <- value
//   F:  ... let v = count % V: P(idx.., v, .., half) = read_channel(ch, .., ..)
//
// Without a buffer F reads each step's values before the step's PE loops (scatter_unbuffered).
//
// T2SP forwards the value PE to PE through FIFOs to its owner (scatter.md); here F writes it
// into its owner's storage at once (the same values at the same cycles; the forwarding chain,
// which shortens wires, is not emitted).
#include "libs/passes/common/scatter.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "libs/ir/expr_printer.h"
#include "libs/ir/program_facts.h"
#include "libs/ir/visitor.h"
#include "libs/passes/common/scopes.h"

namespace t2s {

namespace {

bool is_var(const Expr& e, const std::string& name) {
  return e && e->kind == ExprKind::kVar && e->name == name;
}

bool uses_var(const Expr& e, const std::string& name) {
  bool found = false;
  for_each_expr(e, [&](const Expr& x) { found = found || is_var(x, name); });
  return found;
}

bool is_down(const Directive& d) {
  return d.args.size() == 3 && d.args[2].text == "ScatterStrategy::Down";
}

// F keeps P's values in a double buffer (F.buffer(P, ...)).
bool has_double_buffer_of(const Kernel& f, const std::string& p) {
  bool buffered = false;
  for_each_stmt(f.body, [&](const Stmt& s) {
    if (const Realize* r = s.as<Realize>())
      buffered = buffered || (r->double_buffer && r->double_buffer->producer == p);
  });
  return buffered;
}

// F runs loop v serially (and not also as PEs or lanes under the same name).
bool is_serial_scatter_loop(const Kernel& f, const std::string& v) {
  bool serial = false, parallel = false;
  for_each_stmt(f.body, [&](const Stmt& s) {
    if (const For* loop = s.as<For>(); loop && loop->var == v)
      (loop->loop_kind == LoopKind::kSerial ? serial : parallel) = true;
  });
  return serial && !parallel;
}

// F reads P's channel, or the input named P from memory.
bool reads_from(const Kernel& f, const std::string& p, const Channel* channel) {
  if (channel) return true;
  bool found = false;
  for_each_stmt_expr(f.body, [&](const Expr& e) {
    found =
        found || (e->kind == ExprKind::kCall && e->call_kind == CallKind::kImage && e->name == p);
  });
  return found;
}

// (2 min + extent - 1) - x: x's iteration of [min, min + extent) counted from the other end.
Expr reflect(const Expr& min, const Expr& extent, const Expr& x) {
  const SourceLoc& loc = x->loc;
  const Type t = x->type;
  Expr both_ends;
  if (min->kind == ExprKind::kIntImm && extent->kind == ExprKind::kIntImm)
    both_ends = make_int(t, 2 * min->int_value + extent->int_value - 1, loc);
  else
    both_ends = make_binary(
        BinaryOp::kSub,
        make_binary(BinaryOp::kAdd, make_binary(BinaryOp::kAdd, min, min, t, loc), extent, t, loc),
        make_int(t, 1, loc), t, loc);
  return make_binary(BinaryOp::kSub, both_ends, x, t, loc);
}

class Scattering {
 public:
  Scattering(const Directive& d, Kernel& consumer, Kernel& producer, Channel& channel)
      : d_(d),
        consumer_(consumer),
        producer_(producer),
        channel_(channel),
        v_(d.args[1].text),
        down_(is_down(d)) {}

  void apply() {
    const bool buffered = has_double_buffer_of(consumer_, producer_.name);
    find_index();
    check_producer();
    if (!buffered) {
      scatter_unbuffered();
      return;
    }
    FillCheck fill(*this);
    fill.mutate_stmts(consumer_.body);
    if (!fill.seen) throw InternalError("scatter: no fill of '" + producer_.name + "'");
    rewrite();
  }

 private:
  [[noreturn]] void fail(const std::string& why, const char* rule) const {
    throw Diagnostic(d_.loc, "scatter of '" + d_.func + "' along '" + v_ + "': " + why, rule);
  }
  [[noreturn]] void fail_read_outside_pes() const {
    fail("'" + consumer_.name + "' reads '" + channel_.name + "' outside its PE loop '" + v_ + "'",
         "scatter-loop");
  }

  // The channel's dimension that v indexes, from the consumer's read.
  void find_index() {
    int reads = 0;
    for_each_stmt_expr(consumer_.body, [&](const Expr& e) {
      if (e->kind != ExprKind::kCall || e->call_kind != CallKind::kChannel ||
          e->operands[0]->name != channel_.name)
        return;
      ++reads;
      for (size_t q = 1; q < e->operands.size(); ++q)
        if (is_var(e->operands[q], v_)) dim_ = static_cast<int>(q) - 1;
    });
    if (reads != 1) throw InternalError("scatter: the fill reads '" + channel_.name + "' twice");
    if (dim_ < 0)
      fail("'" + consumer_.name + "' does not read '" + channel_.name + "' at its element along '" +
               v_ +
               "'; scatter takes a space loop of the consumer "
               "whose PEs each read their own element of the producer's channel",
           "scatter-loop");
  }

  // P's loop v: unrolled, the innermost around its sends, each send to every PE.
  void check_producer() {
    const For* loop = nullptr;
    for_each_stmt(producer_.body, [&](const Stmt& s) {
      if (const For* f = s.as<For>(); f && f->var == v_) loop = f;
    });
    if (!loop || loop->loop_kind != LoopKind::kUnrolled)
      fail("'" + producer_.name + "' has no PE loop '" + v_ +
               "' (an unrolled loop, as a producer inherits it from the array's transform)",
           "scatter-loop");
    for_each_stmt(loop->body, [&](const Stmt& s) {
      if (const For* f = s.as<For>(); f && f->loop_kind != LoopKind::kVectorized)
        fail("loop '" + f->var + "' of '" + producer_.name + "' is inside '" + v_ +
                 "': the scatter loop must be the innermost loop around the producer's sends, so "
                 "that it sends every PE's value in turn",
             "scatter-loop");
      if (const IfThenElse* i = s.as<IfThenElse>(); i && uses_var(i->condition, v_))
        fail("'" + producer_.name + "' sends under the condition `" + print_expr(i->condition) +
                 "`, which depends on '" + v_ + "': a scattered producer sends to every PE",
             "scatter-loop");
    });
    int sends = 0;
    for_each_stmt(loop->body, [&](const Stmt& s) {
      if (const WriteChannel* w = s.as<WriteChannel>(); w && w->channel == channel_.name) {
        ++sends;
        if (static_cast<size_t>(dim_) >= w->index.size() || !is_var(w->index[dim_], v_))
          fail("'" + producer_.name + "' does not send over '" + channel_.name +
                   "' at its element along '" + v_ + "'",
               "scatter-loop");
      }
    });
    int all_sends = 0;
    for_each_stmt(producer_.body, [&](const Stmt& s) {
      if (const WriteChannel* w = s.as<WriteChannel>(); w && w->channel == channel_.name)
        ++all_sends;
    });
    if (sends == 0 || sends != all_sends)
      fail("'" + producer_.name + "' sends over '" + channel_.name + "' outside its loop '" + v_ +
               "'",
           "scatter-loop");
  }

  // The buffer's fill writes the storage with v fastest: v is the innermost index it binds.
  class FillCheck : public ScopedMutator {
   public:
    explicit FillCheck(const Scattering& s) : s_(s) {}
    bool seen = false;

   protected:
    StmtPtr mutate_provide(const Provide& pr, const StmtPtr& st) override {
      if (pr.func != s_.producer_.name || !pr.value || pr.value->kind != ExprKind::kCall ||
          pr.value->call_kind != CallKind::kChannel)
        return st;
      seen = true;
      if (lets_.empty() || lets_.back() != s_.v_)
        s_.fail("the double buffer of '" + s_.producer_.name + "' in '" + s_.consumer_.name +
                    "' does not fill '" + s_.v_ +
                    "' fastest (its storage's innermost loop is another): the scatter loop must "
                    "be the innermost loop of the values a period writes",
                "scatter-loop");
      return st;
    }

   private:
    const Scattering& s_;
  };

  // Drops the channel's dimension along v: P's loop v becomes serial.
  class Rewriter : public StmtMutator {
   public:
    // `reversed`: the name of the loop that counts v's iterations from the last (Down), or "".
    Rewriter(const std::string& channel, const std::string& v, int dim, std::string reversed = "")
        : channel_(channel), v_(v), dim_(dim), reversed_(std::move(reversed)) {}

   protected:
    StmtPtr mutate_for(const For& f, const StmtPtr& s) override {
      StmtPtr out = mutate_children(s);
      if (f.var != v_ || f.loop_kind != LoopKind::kUnrolled) return out;
      For copy = *out->as<For>();
      copy.loop_kind = LoopKind::kSerial;
      if (!reversed_.empty()) {
        // for r in [min, min + extent): let v = (2 min + extent - 1) - r, the PE at v's far end
        // first.
        copy.var = reversed_;
        copy.body = {make_let(v_,
                              reflect(f.min, f.extent, make_var(reversed_, f.min->type, s->loc)),
                              copy.body, s->loc)};
      }
      return with_node(*out, copy);
    }
    StmtPtr mutate_write_channel(const WriteChannel& w, const StmtPtr& s) override {
      StmtPtr out = mutate_children(s);
      if (w.channel != channel_) return out;
      WriteChannel copy = *out->as<WriteChannel>();
      copy.index.erase(copy.index.begin() + dim_);
      return with_node(*out, copy);
    }
    Expr mutate_call(const Expr& e) override {
      Expr m = mutate_operands(e);
      if (m->call_kind != CallKind::kChannel || m->operands[0]->name != channel_) return m;
      std::vector<Expr> operands = m->operands;
      operands.erase(operands.begin() + 1 + dim_);
      return make_call(m->name, m->call_kind, m->type, operands, m->loc);
    }

   private:
    std::string channel_;
    std::string v_;  // by value: the consumer side passes a temporary ""
    int dim_;
    std::string reversed_;
  };

  // Down: the fill's `let v = e` (e from the count, v fastest) becomes the PE at the other end,
  // `let v = (2 min + extent - 1) - e`, as the producer sends from v's last PE.
  class FillReverser : public ScopedMutator {
   public:
    FillReverser(const std::string& v, Expr min, Expr extent)
        : v_(v), min_(std::move(min)), extent_(std::move(extent)) {}

   protected:
    StmtPtr mutate_let(const LetStmt& l, const StmtPtr& s) override {
      StmtPtr out = ScopedMutator::mutate_let(l, s);
      if (l.var != v_ || !binds_fill(l.body)) return out;
      LetStmt copy = *out->as<LetStmt>();
      copy.value = reflect(min_, extent_, l.value);
      return with_node(*out, copy);
    }

   private:
    // The let binds the storage index of a fill (its body reads a channel into storage).
    static bool binds_fill(const StmtList& body) {
      bool fill = false;
      for_each_stmt(body, [&](const Stmt& st) {
        if (const Provide* p = st.as<Provide>(); p && p->value &&
                                                 p->value->kind == ExprKind::kCall &&
                                                 p->value->call_kind == CallKind::kChannel)
          fill = true;
      });
      return fill;
    }
    std::string v_;
    Expr min_, extent_;
  };

  void rewrite() {
    const std::string reversed = reversed_name();
    if (down_) {
      const For* pe_loop = nullptr;
      for_each_stmt(consumer_.body, [&](const Stmt& s) {
        if (const For* f = s.as<For>(); f && f->var == v_) pe_loop = f;
      });
      if (!pe_loop) throw InternalError("scatter: no PE loop '" + v_ + "' in the consumer");
      FillReverser reverse(v_, pe_loop->min, pe_loop->extent);
      consumer_.body = reverse.mutate_stmts(consumer_.body);
    }
    Rewriter producer_side(channel_.name, v_, dim_, reversed);
    producer_.body = producer_side.mutate_stmts(producer_.body);
    // The consumer's PE loop v stays unrolled: only its read changes.
    Rewriter consumer_side(channel_.name, "", dim_);
    consumer_.body = consumer_side.mutate_stmts(consumer_.body);
    channel_.dims.erase(channel_.dims.begin() + dim_);
  }

  // Without a buffer (T2SP's scatter.md: the values enter PE min and are forwarded): each step,
  // before its PE loops, F reads the V values of the step from the one channel, one a cycle in
  // v's order, into the storage of their PEs, and the PEs read them from there:
  //
  //   for v serial: [for lanes vectorized:] [if (conditions of the read):]
  //     P(v, lanes) = read_channel(ch)            (or the store of remove's kept value)
  //   for v unrolled ...: ... P(v, lanes) ...     (in place of read_channel(ch, v))
  //
  // inside a `realize P` over v and the lanes unless remove's kept value is the store. A step
  // takes V cycles more, as T2SP's forwarding loop.
  void scatter_unbuffered() {
    bool done = false;
    consumer_.body = hoist(consumer_.body, false, &done);
    if (!done) fail_read_outside_pes();
    Rewriter producer_side(channel_.name, v_, dim_, reversed_name());
    producer_.body = producer_side.mutate_stmts(producer_.body);
    channel_.dims.erase(channel_.dims.begin() + dim_);
  }

  std::string reversed_name() const {
    if (!down_) return "";
    Program one_kernel;
    one_kernel.kernels = {producer_};
    return NameSupply(one_kernel).fresh(v_ + "_down");
  }

  bool reads_channel(const StmtList& list) const {
    bool found = false;
    for_each_stmt_expr(list, [&](const Expr& e) { found = found || is_channel_read(e); });
    return found;
  }
  bool is_channel_read(const Expr& e) const {
    return e->kind == ExprKind::kCall && e->call_kind == CallKind::kChannel &&
           e->operands[0]->name == channel_.name;
  }

  // `list` with the statement that holds the PE loops around the read replaced by the hoisted
  // read and the PE loops that read the storage.
  StmtList hoist(const StmtList& list, bool realized, bool* done) {
    StmtList out;
    for (const StmtPtr& st : list) {
      if (*done || !reads_channel({st})) {
        out.push_back(st);
        continue;
      }
      if (const For* f = st->as<For>(); f && f->loop_kind == LoopKind::kUnrolled) {
        for (StmtPtr& x : hoist_pe_nest(st, realized)) out.push_back(x);
        *done = true;
        continue;
      }
      if (st->as<Provide>() || st->as<WriteChannel>()) fail_read_outside_pes();
      auto copy = std::make_shared<Stmt>(*st);
      const Realize* r = st->as<Realize>();
      const bool inner_realized = realized || (r && r->func == producer_.name);
      for (StmtList* child : copy->children()) *child = hoist(*child, inner_realized, done);
      out.push_back(copy);
    }
    return out;
  }

  // The path from a PE nest's root to the statement whose own expressions read the channel.
  bool find_path(const StmtPtr& st, std::vector<const Stmt*>* path,
                 std::vector<bool>* in_else) const {
    path->push_back(st.get());
    bool own = false;
    for (const Expr* e : st->exprs())
      for_each_expr(*e, [&](const Expr& x) { own = own || is_channel_read(x); });
    if (own) return true;
    if (const IfThenElse* i = st->as<IfThenElse>()) {
      for (int branch = 0; branch < 2; ++branch) {
        in_else->push_back(branch == 1);
        for (const StmtPtr& c : branch == 0 ? i->then_body : i->else_body)
          if (find_path(c, path, in_else)) return true;
        in_else->pop_back();
      }
    } else {
      for (const StmtList* child : st->children())
        for (const StmtPtr& c : *child)
          if (find_path(c, path, in_else)) return true;
    }
    path->pop_back();
    return false;
  }

  std::vector<StmtPtr> hoist_pe_nest(const StmtPtr& root, bool realized) {
    std::vector<const Stmt*> path;
    std::vector<bool> in_else;  // per condition on the path: the read is in its else branch
    if (!find_path(root, &path, &in_else)) throw InternalError("scatter: the read vanished");
    const Stmt& holder = *path.back();
    // The read is the whole value its statement stores, sends or binds: a read inside an
    // expression (a select) happens on some steps only, which the hoisted read cannot know.
    Expr read;
    const Provide* store = holder.as<Provide>();
    if (store && is_channel_read(store->value)) read = store->value;
    if (const WriteChannel* w = holder.as<WriteChannel>(); w && is_channel_read(w->value))
      read = w->value;
    if (const LetStmt* l = holder.as<LetStmt>(); l && is_channel_read(l->value)) read = l->value;
    if (!read)
      fail("'" + consumer_.name + "' reads '" + channel_.name +
               "' inside an expression; without a buffer, scatter takes a read that is the whole "
               "value of its statement, so that it happens at every step its conditions allow",
           "scatter-loop");
    std::vector<const For*> pes, lanes;
    std::set<std::string> nest_lets;
    std::map<std::string, Expr> fixed;  // PE loops a condition fixes (`jjj == 0`)
    std::vector<Expr> conditions;
    size_t branch = 0;
    for (size_t q = 0; q + 1 < path.size(); ++q) {
      const Stmt& st = *path[q];
      if (const For* f = st.as<For>()) {
        if (f->loop_kind == LoopKind::kUnrolled)
          pes.push_back(f);
        else if (f->loop_kind == LoopKind::kVectorized)
          lanes.push_back(f);
        else
          fail("'" + consumer_.name + "' runs the serial loop '" + f->var +
                   "' inside its PE loops around the read of '" + channel_.name + "'",
               "scatter-loop");
      } else if (const LetStmt* l = st.as<LetStmt>()) {
        nest_lets.insert(l->var);
      } else if (const IfThenElse* i = st.as<IfThenElse>()) {
        const bool negated = in_else[branch++];
        const auto uses_nest = [&](const Expr& e) {
          bool found = false;
          for_each_expr(e, [&](const Expr& x) {
            if (x->kind != ExprKind::kVar) return;
            found = found || nest_lets.count(x->name) > 0;
            for (const For* pe : pes) found = found || pe->var == x->name;
          });
          return found;
        };
        for (const Expr& c : negated ? std::vector<Expr>{i->condition} : conjuncts(i->condition)) {
          const auto f = negated ? std::nullopt : fixed_var(c);
          const bool fixes_pe = f && f->first != v_ &&
                                std::any_of(pes.begin(), pes.end(),
                                            [&](const For* pe) { return pe->var == f->first; });
          if (fixes_pe) {
            fixed[f->first] = make_int(Type::Int(32), f->second, c->loc);
            continue;
          }
          if (uses_nest(c))
            fail("'" + consumer_.name + "' reads '" + channel_.name + "' under the condition `" +
                     print_expr(c) +
                     "`, which depends on its PEs; without a buffer, scatter takes a read that "
                     "every PE along '" +
                     v_ + "' makes (a condition may fix another PE loop, `jjj == 0`)",
                 "scatter-loop");
          conditions.push_back(negated ? make_unary(UnaryOp::kNot, c, c->type, c->loc) : c);
        }
      }
    }
    const For* pe_loop = nullptr;
    for (const For* f : pes)
      if (f->var == v_) pe_loop = f;
    if (!pe_loop) fail_read_outside_pes();
    const SourceLoc& loc = holder.loc;  // statements keep theirs in the IR (expressions do not)
    std::vector<Expr> hoisted_read_operands = read->operands;
    hoisted_read_operands.erase(hoisted_read_operands.begin() + 1 + dim_);
    const Expr hoisted_read =
        make_call(read->name, read->call_kind, read->type, hoisted_read_operands, loc);
    // Remove's kept value is the store: the hoisted read writes it, and the PEs only read it.
    const bool keeps = store && store->func == producer_.name && realized;
    std::vector<Expr> index;
    std::vector<Expr> mins, extents;
    if (keeps) {
      VarSubstituter at_fixed(fixed);
      for (const Expr& a : store->args) {
        const Expr x = at_fixed.mutate(a);
        bool other = false;
        for_each_expr(x, [&](const Expr& e) {
          if (e->kind != ExprKind::kVar) return;
          other = other || nest_lets.count(e->name) > 0;
          for (const For* pe : pes) other = other || (pe->var == e->name && pe->var != v_);
        });
        if (other)
          fail("'" + consumer_.name + "' keeps the value of '" + channel_.name + "' at `" +
                   print_expr(a) + "`, which depends on PEs other than '" + v_ + "'",
               "scatter-loop");
        index.push_back(x);
      }
    } else {
      if (realized)
        fail("'" + consumer_.name + "' keeps values of '" + producer_.name +
                 "' and reads its channel elsewhere",
             "scatter-loop");
      index.push_back(make_var(v_, Type::Int(32), loc));
      mins.push_back(pe_loop->min);
      extents.push_back(pe_loop->extent);
      for (const For* l : lanes) {
        index.push_back(make_var(l->var, Type::Int(32), loc));
        mins.push_back(l->min);
        extents.push_back(l->extent);
      }
    }
    StmtList pre = {make_provide(producer_.name, index, hoisted_read, loc)};
    if (!conditions.empty()) {
      Expr all = conditions[0];
      for (size_t q = 1; q < conditions.size(); ++q)
        all = make_binary(BinaryOp::kAnd, all, conditions[q], Type::Bool(), loc);
      pre = {make_if(all, pre, {}, loc)};
    }
    for (size_t q = lanes.size(); q-- > 0;)
      pre = {make_for(lanes[q]->var, lanes[q]->min, lanes[q]->extent, LoopKind::kVectorized, pre,
                      loc)};
    const std::string reversed = reversed_name();
    if (reversed.empty()) {
      pre = {make_for(v_, pe_loop->min, pe_loop->extent, LoopKind::kSerial, pre, loc)};
    } else {
      pre = {make_let(
          v_, reflect(pe_loop->min, pe_loop->extent, make_var(reversed, pe_loop->min->type, loc)),
          pre, loc)};
      pre = {make_for(reversed, pe_loop->min, pe_loop->extent, LoopKind::kSerial, pre, loc)};
    }
    ReadReplacer replace(*this, keeps ? nullptr : &index, keeps ? store : nullptr);
    StmtList nest = replace.mutate_stmts({root});
    std::vector<StmtPtr> out = {pre[0]};
    out.insert(out.end(), nest.begin(), nest.end());
    if (keeps) return out;
    return {make_realize(producer_.name, read->type, mins, extents, out, loc)};
  }

  // In the PE nest: the channel read becomes the storage's element (or, for remove's kept
  // value, its store goes: the hoisted read made it).
  class ReadReplacer : public StmtMutator {
   public:
    ReadReplacer(const Scattering& s, const std::vector<Expr>* index, const Provide* store)
        : s_(s), index_(index), store_(store) {}

   protected:
    StmtPtr mutate_provide(const Provide& p, const StmtPtr& st) override {
      if (store_ && &p == store_) return nullptr;
      return StmtMutator::mutate_provide(p, st);
    }
    StmtPtr mutate_if(const IfThenElse& i, const StmtPtr& st) override {
      StmtPtr out = StmtMutator::mutate_if(i, st);
      const IfThenElse* m = out->as<IfThenElse>();
      return m->then_body.empty() && m->else_body.empty() ? nullptr : out;
    }
    Expr mutate_call(const Expr& e) override {
      Expr m = mutate_operands(e);
      if (!index_ || !s_.is_channel_read(m)) return m;
      return make_call(s_.producer_.name, CallKind::kFunc, m->type, *index_, m->loc);
    }

   private:
    const Scattering& s_;
    const std::vector<Expr>* index_;
    const Provide* store_;
  };

  const Directive& d_;
  Kernel& consumer_;
  Kernel& producer_;
  Channel& channel_;
  std::string v_;
  bool down_;
  int dim_ = -1;
};

}  // namespace

void apply_scatters(Program& p, const std::function<bool(const Kernel&)>& which) {
  std::set<std::string> scattered;  // consumer/producer pairs
  for (const Directive& d : p.directives) {
    if (!d.is(DirectiveKind::kScatter)) continue;
    const std::string& producer = d.args[0].text;
    const std::string& v = d.args[1].text;
    const auto refuse = [&](const std::string& why, const char* rule) {
      throw Diagnostic(d.loc, "scatter of '" + d.func + "' along '" + v + "': " + why, rule);
    };
    Kernel* consumer = nullptr;
    Kernel* source = nullptr;
    for (Kernel& k : p.kernels) {
      if (k.name == d.func) consumer = &k;
      if (k.name == producer) source = &k;
    }
    Channel* channel = nullptr;
    for (Channel& c : p.channels)
      if (c.producer == producer && c.consumer == d.func) channel = &c;
    const bool down = is_down(d);
    if (consumer && is_serial_scatter_loop(*consumer, v)) {
      // F's iterations along v run one after another: what they read from P already enters
      // one value at a time, in v's order, which is what Up asks for. T2SP allows only Up on
      // a serial loop (scatter.md, error check 4).
      if (!reads_from(*consumer, producer, channel))
        refuse("'" + d.func + "' reads nothing from '" + producer +
                   "' (a channel from its kernel, or the input itself); scatter(P, v) takes a "
                   "producer or an input that the consumer reads",
               "scatter-target");
      if (down)
        refuse("'" + v + "' is a serial loop of '" + d.func +
                   "': its iterations take their values one at a time in its order (Up); "
                   "ScatterStrategy::Down is for a PE loop, as in T2SP",
               "scatter-strategy");
      if (!scattered.insert(d.func + "\n" + producer).second)
        refuse("'" + d.func + "' scatters the values of '" + producer + "' twice",
               "scatter-target");
      continue;
    }
    if (consumer && !channel && reads_from(*consumer, producer, channel))
      refuse("'" + d.func + "' reads the input '" + producer + "' from memory and runs '" + v +
                 "' not serially: the scatter of an input is built along a serial loop (to feed "
                 "PEs, isolate a loader, `isolate_producer_chain(" +
                 producer + ", loader, " + d.func + ")`, and scatter from it with a buffer)",
             "scatter-target");
    if (!consumer || !source || !channel)
      refuse("'" + d.func + "' does not read a channel from '" + producer +
                 "'; scatter(P, v) takes the producer whose channel the consumer reads, the one "
                 "before it in an isolate_producer_chain on the device",
             "scatter-target");
    if (!which(*consumer))
      refuse("'" + d.func +
                 "' has no PEs a transform made (scatter is built in a consumer that inherits "
                 "the array's space_time_transform, as T2SP's feeders do)",
             "scatter-target");
    if (!scattered.insert(d.func + "\n" + producer).second)
      refuse("'" + d.func + "' scatters the values of '" + producer + "' twice", "scatter-target");
    Scattering(d, *consumer, *source, *channel).apply();
  }
}

std::string scatter_report(const Program& p) {
  std::string out;
  for (const Directive& d : p.directives) {
    if (!d.is(DirectiveKind::kScatter)) continue;
    const std::string& producer = d.args[0].text;
    const std::string& v = d.args[1].text;
    const Kernel* consumer = nullptr;
    for (const Kernel& k : p.kernels)
      if (k.name == d.func) consumer = &k;
    if (!consumer) continue;
    out += "scatter of '" + d.func + "' along '" + v + "' from '" + producer + "': ";
    if (is_serial_scatter_loop(*consumer, v)) {
      out += "'" + v + "' is a serial loop of '" + d.func +
             "', whose iterations take their values one at a time, in its order; nothing "
             "changes\n";
      continue;
    }
    int64_t pes = 0;
    for_each_stmt(consumer->body, [&](const Stmt& s) {
      if (const For* f = s.as<For>(); f && f->var == v && f->extent->kind == ExprKind::kIntImm)
        pes = f->extent->int_value;
    });
    const bool down = is_down(d);
    const bool buffered = has_double_buffer_of(*consumer, producer);
    out += "'" + producer + "' sends the values of the " + std::to_string(pes) +
           " PEs along it in turn over one channel, from the " +
           (down ? "last (Down)" : "first (Up)") + ", and '" + d.func +
           (buffered ? "' writes each into its PE's double buffer\n"
                     : "' reads them into its PEs' storage before each step's PE loops, one a "
                       "cycle (" +
                           std::to_string(pes) + " cycles a step more)\n");
  }
  return out;
}

}  // namespace t2s
