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
// T2SP forwards the value PE to PE through FIFOs to its owner (scatter.md); here F writes it
// into its owner's storage at once (the same values at the same cycles; the forwarding chain,
// which shortens wires, is not emitted).
#include "libs/passes/common/scatter.h"

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
        down_(d.args.size() == 3 && d.args[2].text == "ScatterStrategy::Down") {}

  void apply() {
    bool buffered = false;
    for_each_stmt(consumer_.body, [&](const Stmt& s) {
      if (const Realize* r = s.as<Realize>())
        buffered = buffered || (r->double_buffer && r->double_buffer->producer == producer_.name);
    });
    if (!buffered)
      fail("'" + consumer_.name + "' has no double buffer of '" + producer_.name +
               "': scatter is built with `" + consumer_.name + ".buffer(" + producer_.name +
               ", ...)`, whose fill takes one value a cycle (a scatter alone is not built yet)",
           "scatter-target");
    find_index();
    check_producer();
    FillCheck fill(*this);
    fill.mutate_stmts(consumer_.body);
    if (!fill.seen) throw InternalError("scatter: no fill of '" + producer_.name + "'");
    rewrite();
  }

 private:
  [[noreturn]] void fail(const std::string& why, const char* rule) const {
    throw Diagnostic(d_.loc, "scatter of '" + d_.func + "' along '" + v_ + "': " + why, rule);
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
        copy.body = {
            make_let(v_, reflect(f.min, f.extent, make_var(reversed_, f.min->type, f.min->loc)),
                     copy.body, f.min->loc)};
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
    std::string reversed;
    if (down_) {
      Program one_kernel;
      one_kernel.kernels = {producer_};
      reversed = NameSupply(one_kernel).fresh(v_ + "_down");
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
    const bool down = d.args.size() == 3 && d.args[2].text == "ScatterStrategy::Down";
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
    const bool down = d.args.size() == 3 && d.args[2].text == "ScatterStrategy::Down";
    out += "'" + producer + "' sends the values of the " + std::to_string(pes) +
           " PEs along it in turn over one channel, from the " +
           (down ? "last (Down)" : "first (Up)") + ", and '" + d.func +
           "' writes each into its PE's double buffer\n";
  }
  return out;
}

}  // namespace t2s
