// buffer(P, v) (double_buffer.h). The consumer's loops are
//
//   for o1 .. for v            (serial: one iteration of them all is a period)
//     realize P               (what the consumer keeps, remove_loops.cc's ValueKeeper)
//       for s1 .. for sn       (serial: one iteration of them all is a cycle, READS a period)
//         body                 (unrolled loops, conditions, lets; P(idx) = read at the first
//                               iteration of the removed loops, reads of P(idx))
//
// and become, T2SP's double buffer in the form of buffer.md's "possible improvements" (a loop of
// PERIODS + 1 periods of READS cycles, no infinite loop):
//
//   realize P: (P's storage) x [0, 2), double buffer
//     for period in [0, PERIODS + 1)
//       for cycle in [0, READS)
//         if (period < PERIODS && cycle >= READS - WRITES)     // fill one half
//           let idx = (the (cycle - (READS - WRITES))-th index of the storage)
//           P(idx, period % 2) = read
//         if (period >= 1)                                     // read the other half
//           let o1 .. v = (the (period - 1)-th iteration); let s1 .. sn = (the cycle-th)
//           body, P(idx) read as P(idx, (period - 1) % 2), without the store
//
// The half is the last dimension, the slowest in memory (Fortran order): T2SP's DB[2][BUFSIZE].
//
// The values the producer sends in one period arrive in the order the consumer's loops first
// read them (both ends of a channel visit its values in one order), so the storage's index
// order, the consumer's loops' order, is the order in which they fill a half.
#include "libs/passes/common/double_buffer.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "libs/ir/expr_printer.h"
#include "libs/ir/program_facts.h"
#include "libs/ir/strings.h"
#include "libs/ir/visitor.h"
#include "libs/passes/common/remove_loops.h"
#include "libs/passes/common/scopes.h"

namespace t2s {

namespace {

const Type kIndex = Type::Int(32);

Expr int_expr(int64_t v, const SourceLoc& loc) { return make_int(kIndex, v, loc); }

Expr binary(BinaryOp op, const Expr& a, const Expr& b) {
  const Type t = op >= BinaryOp::kEQ ? Type::Bool() : kIndex;
  return make_binary(op, a, b, t, a->loc);
}

// Lets binding `loops` (outermost first) to the iteration that the linear count `linear` is in
// their nest, around `body`.
StmtList bind_iteration(const std::vector<const For*>& loops, const Expr& linear, StmtList body) {
  int64_t stride = 1;
  for (size_t q = loops.size(); q-- > 0;) {
    const For& f = *loops[q];
    const SourceLoc& loc = f.min->loc;
    Expr x = stride == 1 ? linear : binary(BinaryOp::kDiv, linear, int_expr(stride, loc));
    if (q > 0) x = binary(BinaryOp::kMod, x, f.extent);
    if (f.min->int_value != 0) x = binary(BinaryOp::kAdd, f.min, x);
    stride *= f.extent->int_value;
    body = {make_let(f.var, x, body, loc)};
  }
  return body;
}

int64_t trip_count(const std::vector<const For*>& loops) {
  int64_t n = 1;
  for (const For* f : loops) n *= f->extent->int_value;
  return n;
}

std::string loop_names(const std::vector<const For*>& loops) {
  std::vector<std::string> names;
  for (const For* f : loops) names.push_back(f->var);
  return names.empty() ? "none" : join(names, ", ");
}

// The store of the kept values (P(idx) = read), taken out of the body (an if left empty goes),
// with the conditions, loops and lets around it.
class StoreExtractor : public ScopedMutator {
 public:
  explicit StoreExtractor(const std::string& func) : func_(func) {}

  const Provide* store = nullptr;
  SourceLoc store_loc;
  std::vector<Guard> guards;      // around the store, outermost first
  std::vector<const For*> loops;  // around the store, inside the body
  std::vector<std::string> lets;  // around the store

 protected:
  StmtPtr mutate_provide(const Provide& pr, const StmtPtr& s) override {
    if (pr.func != func_) return mutate_children(s);
    store = &pr;
    store_loc = s->loc;
    guards = guards_;
    loops = loops_;
    lets = lets_;
    return nullptr;
  }

 private:
  const std::string& func_;
};

// The kept values' reads P(idx) as reads of one half, P(idx, half).
class HalfReader : public StmtMutator {
 public:
  HalfReader(const std::string& func, Expr half) : func_(func), half_(std::move(half)) {}

 protected:
  Expr mutate_call(const Expr& e) override {
    Expr m = mutate_operands(e);
    if (m->call_kind != CallKind::kFunc || m->name != func_) return m;
    std::vector<Expr> args = m->operands;
    args.push_back(half_);
    return make_call(m->name, CallKind::kFunc, m->type, args, m->loc);
  }

 private:
  const std::string& func_;
  Expr half_;
};

class DoubleBuffering {
 public:
  DoubleBuffering(const Directive& d, Kernel& consumer, const Channel& channel, NameSupply& names)
      : d_(d),
        consumer_(consumer),
        channel_(channel),
        producer_(channel.producer),
        v_(d.args[1].text),
        names_(names) {}

  void apply() {
    const For* loop = nullptr;
    std::vector<std::string> all;
    for_each_stmt(consumer_.body, [&](const Stmt& s) {
      if (const For* f = s.as<For>()) {
        all.push_back(f->var);
        if (f->var == v_) loop = f;
      }
    });
    if (!loop)
      fail_loop("'" + consumer_.name + "' has no loop '" + v_ +
                "' (its loops: " + (all.empty() ? "none" : join(all, ", ")) + ")");
    if (loop->loop_kind != LoopKind::kSerial)
      fail_loop("loop '" + v_ + "' of '" + consumer_.name + "' is " +
                loop_kind_name(loop->loop_kind) +
                "; a double buffer is inserted at a serial loop, whose iterations are its "
                "periods");
    if (!realize_inside(*loop)) consumer_.body = keep_values(d_, consumer_, channel_);
    consumer_.body = rebuild(consumer_.body);
  }

 private:
  [[noreturn]] void fail(const std::string& why, const char* rule) const {
    throw Diagnostic(d_.loc, "buffer of '" + d_.func + "' at '" + v_ + "': " + why, rule);
  }
  [[noreturn]] void fail_loop(const std::string& why) const { fail(why, "buffer-loop"); }

  bool realize_inside(const For& loop) const {
    if (loop.body.size() != 1) return false;
    const Realize* r = loop.body[0]->as<Realize>();
    return r && r->func == producer_;
  }

  void check_loop(const For& f, const char* where) const {
    if (f.loop_kind != LoopKind::kSerial)
      fail_loop("loop '" + f.var + "' of '" + consumer_.name + "', " + where + ", is " +
                loop_kind_name(f.loop_kind) + "; the loops " + where +
                " must be serial (space loops and lanes innermost)");
    if (f.min->kind != ExprKind::kIntImm || f.extent->kind != ExprKind::kIntImm)
      fail_loop("loop '" + f.var + "' of '" + consumer_.name +
                "' has bounds that are not constants; a double buffer has an exact size");
  }

  StmtList rebuild(const StmtList& body) {
    // The loops of a period: a nest of serial loops down to v.
    std::vector<const For*> outer;
    const StmtList* list = &body;
    while (true) {
      const For* f = list->size() == 1 ? (*list)[0]->as<For>() : nullptr;
      if (!f)
        fail_loop("the loops around '" + v_ + "' in '" + consumer_.name +
                  "' must be a nest of serial loops, each the only statement of the one around "
                  "it (a period is one iteration of them all)");
      if (f->var != v_) check_loop(*f, "around the buffer's loop");
      outer.push_back(f);
      if (f->var == v_) break;
      list = &f->body;
    }
    if (!realize_inside(*outer.back()))
      throw InternalError("buffer: no storage of '" + producer_ + "' inside loop '" + v_ + "'");
    const StmtPtr& realize_stmt = outer.back()->body[0];
    const Realize& kept = *realize_stmt->as<Realize>();
    // The loops of a cycle: the serial nest inside v.
    std::vector<const For*> inner;
    list = &kept.body;
    while (list->size() == 1) {
      const For* f = (*list)[0]->as<For>();
      if (!f || f->loop_kind != LoopKind::kSerial) break;
      check_loop(*f, "inside the buffer's loop");
      inner.push_back(f);
      list = &f->body;
    }
    for_each_stmt(*list, [&](const Stmt& s) {
      if (const For* f = s.as<For>(); f && f->loop_kind == LoopKind::kSerial)
        fail_loop("the serial loops inside '" + v_ + "' in '" + consumer_.name +
                  "' must be one nest around the rest of the body (a cycle is one iteration of "
                  "them all), and loop '" +
                  f->var + "' is not in it");
    });
    StoreExtractor extract(producer_);
    const StmtList cycle_body = extract.mutate_stmts(*list);
    if (!extract.store) throw InternalError("buffer: no store of '" + producer_ + "'");
    const Provide& store = *extract.store;

    // The write side: the store's conditions fix loops inside v (`jjj == 0`, the removed loops
    // at their first iteration); the other loops inside v index the storage.
    std::map<std::string, Expr> fixed;
    std::set<std::string> inside;
    for (const For* f : inner) inside.insert(f->var);
    for (const For* f : extract.loops) inside.insert(f->var);
    for (const Guard& g : extract.guards) {
      const std::string what = "'" + consumer_.name + "' reads '" + channel_.name +
                               "' under the condition `" + print_expr(g.condition) + "`" +
                               (g.negated ? " failing (in its else branch)" : "");
      const std::string rule_text =
          "; in a double buffer a read may be fixed to one iteration of loops inside '" + v_ +
          "' (`loop == constant`), and no other condition decides how many values a period "
          "writes";
      if (g.negated) fail(what + rule_text, "buffer-read");
      for (const Expr& t : conjuncts(g.condition)) {
        const auto f = fixed_var(t);
        if (!f || !inside.count(f->first)) fail(what + rule_text, "buffer-read");
        fixed[f->first] = int_expr(f->second, t->loc);
      }
    }
    for (const std::string& l : extract.lets) {
      bool used = false;
      for_each_expr(store.value, [&](const Expr& x) {
        used = used || (x->kind == ExprKind::kVar && x->name == l);
      });
      if (used)
        fail("the read of '" + channel_.name + "' uses the let '" + l +
                 "', which the cycle that fills the buffer does not have",
             "buffer-read");
    }
    // The loops the storage is indexed by; a vectorized one is a value's lanes (one write).
    std::map<std::string, const For*> loop_of;
    for (const For* f : inner) loop_of[f->var] = f;
    for (const For* f : extract.loops) loop_of[f->var] = f;
    const auto vectorized = [&](const Expr& a) {
      const auto it = a->kind == ExprKind::kVar ? loop_of.find(a->name) : loop_of.end();
      return it != loop_of.end() && it->second->loop_kind == LoopKind::kVectorized;
    };
    const int64_t reads = trip_count(inner);
    int64_t writes = 1;
    for (size_t q = 0; q < kept.extents.size(); ++q)
      if (!vectorized(store.args[q])) writes *= kept.extents[q]->int_value;
    if (reads < writes)
      fail("a period reads " + std::to_string(reads) + (reads == 1 ? " value" : " values") +
               " (the serial loops of '" + consumer_.name + "' inside '" + v_ + "': " +
               loop_names(inner) + ") but '" + producer_ + "' sends " + std::to_string(writes) +
               " (the storage's elements, a vector counting once); a double buffer needs "
               "READS >= WRITES, or the "
               "producer's writes would outlast the reads: insert the buffer at an outer loop, "
               "or remove more loops from '" +
               producer_ + "'",
           "buffer-reads");

    const SourceLoc& loc = realize_stmt->loc;
    const std::string period = names_.fresh("period");
    const std::string cycle = names_.fresh("cycle");
    const int64_t periods = trip_count(outer);
    const int64_t init = reads - writes;
    const Expr period_var = make_var(period, kIndex, loc);
    const Expr cycle_var = make_var(cycle, kIndex, loc);

    // Fill one half: the storage's index from the count of values this period.
    std::vector<Expr> write_index;
    std::vector<const For*> index_loops, lane_loops;
    std::vector<For> index_dims;  // the storage's dimensions as loops, for bind_iteration
    for (size_t q = 0; q < store.args.size(); ++q) {
      const Expr& a = store.args[q];
      write_index.push_back(a);
      if (a->kind != ExprKind::kVar) continue;  // the one element of a storage without loops
      if (vectorized(a)) {
        lane_loops.push_back(loop_of.at(a->name));
        continue;
      }
      index_dims.push_back(For{a->name, kept.mins[q], kept.extents[q], LoopKind::kSerial, {}});
    }
    for (const For& f : index_dims) index_loops.push_back(&f);
    write_index.push_back(binary(BinaryOp::kMod, period_var, int_expr(2, loc)));
    std::map<std::string, Expr> write_at = fixed;
    // Loops outside v the read's channel index may use: this period's iteration.
    std::vector<const For*> outer_used;
    for (const For* f : outer) {
      bool used = false;
      for_each_expr(store.value, [&](const Expr& x) {
        used = used || (x->kind == ExprKind::kVar && x->name == f->var);
      });
      if (used) outer_used.push_back(f);
    }
    VarSubstituter at_fixed(write_at);
    const Expr read = at_fixed.mutate(store.value);
    StmtList fill = {make_provide(producer_, write_index, read, extract.store_loc)};
    // The lanes of one value: written in one cycle, as the consumer read them.
    for (size_t q = lane_loops.size(); q-- > 0;) {
      const For& f = *lane_loops[q];
      fill = {make_for(f.var, f.min, f.extent, LoopKind::kVectorized, fill, f.min->loc)};
    }
    const Expr count =
        init == 0 ? cycle_var : binary(BinaryOp::kSub, cycle_var, int_expr(init, loc));
    fill = bind_iteration(index_loops, count, fill);
    if (!outer_used.empty()) {
      // Each bound from the whole period count: outer loops may be several.
      fill = bind_iteration(outer, period_var, fill);
    }
    Expr filling = binary(BinaryOp::kLT, period_var, int_expr(periods, loc));
    if (init > 0)
      filling =
          binary(BinaryOp::kAnd, filling, binary(BinaryOp::kGE, cycle_var, int_expr(init, loc)));

    // Read the other half: the consumer's iteration from the period before and the cycle.
    const Expr previous = binary(BinaryOp::kSub, period_var, int_expr(1, loc));
    HalfReader halves(producer_, binary(BinaryOp::kMod, previous, int_expr(2, loc)));
    StmtList use = halves.mutate_stmts(cycle_body);
    use = bind_iteration(inner, cycle_var, use);
    use = bind_iteration(outer, previous, use);
    const Expr reading = binary(BinaryOp::kGE, period_var, int_expr(1, loc));

    StmtList cycle_stmts{make_if(filling, fill, {}, loc), make_if(reading, use, {}, loc)};
    StmtPtr cycles = make_for(cycle, int_expr(0, loc), int_expr(reads, loc), LoopKind::kSerial,
                              cycle_stmts, loc);
    StmtPtr periods_loop = make_for(period, int_expr(0, loc), int_expr(periods + 1, loc),
                                    LoopKind::kSerial, {cycles}, loc);
    std::vector<Expr> mins = kept.mins, extents = kept.extents;
    mins.push_back(int_expr(0, loc));
    extents.push_back(int_expr(2, loc));
    return {make_realize(producer_, kept.type, mins, extents, {periods_loop}, loc,
                         DoubleBuffer{producer_, v_, reads, writes})};
  }

  const Directive& d_;
  Kernel& consumer_;
  const Channel& channel_;
  std::string producer_, v_;
  NameSupply& names_;
};

}  // namespace

void apply_buffers(Program& p, const std::function<bool(const Kernel&)>& which) {
  std::set<std::string> buffered;  // consumer/producer pairs with a buffer
  for (const Directive& d : p.directives) {
    if (!d.is(DirectiveKind::kBuffer)) continue;
    const std::string& producer = d.args[0].text;
    const std::string& v = d.args[1].text;
    Kernel* consumer = nullptr;
    for (Kernel& k : p.kernels)
      if (k.name == d.func) consumer = &k;
    const Channel* channel = nullptr;
    for (const Channel& c : p.channels)
      if (c.producer == producer && c.consumer == d.func) channel = &c;
    const auto refuse = [&](const std::string& why) {
      throw Diagnostic(d.loc, "buffer of '" + d.func + "' at '" + v + "': " + why, "buffer-target");
    };
    if (!consumer || !channel)
      refuse("'" + d.func + "' does not read a channel from '" + producer +
             "'; buffer(P, v) takes the producer whose channel the consumer reads, the one "
             "before it in an isolate_producer_chain on the device");
    if (!which(*consumer)) continue;
    if (!buffered.insert(d.func + "\n" + producer).second)
      refuse("'" + d.func + "' buffers the values of '" + producer + "' twice");
    // The period and cycle loops are named afresh in their kernel: kernels share loop names.
    Program one_kernel = p;
    one_kernel.kernels = {*consumer};
    NameSupply names(one_kernel);
    DoubleBuffering(d, *consumer, *channel, names).apply();
  }
}

}  // namespace t2s
