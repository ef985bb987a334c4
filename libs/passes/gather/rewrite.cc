// t2s-gather: the new code of one gather (seed 003, Code 2 for an unrolled loop v, Code 4 for
// a vectorized one) and its FIFO channel. docs/ir.md, "The gathered stage", shows both forms.
#include <map>

#include "libs/ir/expr_printer.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"
#include "libs/passes/gather/gather_internal.h"

namespace t2s {
namespace gather_internal {
namespace {

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

Expr binary(BinaryOp op, const Expr& a, const Expr& b) {
  const bool cmp = is_comparison(op);
  return make_binary(op, a, b, cmp ? Type::Bool(a->type.lanes) : a->type);
}

Expr broadcast(const Expr& x, int64_t lanes) {
  return make_call("broadcast", CallKind::kIntrinsic, x->type.with_lanes(static_cast<int>(lanes)),
                   {x, lit32(lanes)});
}

// Whether a loop or a let of `list` binds `var`.
bool binds(const StmtList& list, const std::string& var) {
  class Binders : public StmtVisitor {
   public:
    explicit Binders(const std::string& var) : var_(var) {}
    bool found = false;

   protected:
    void visit_for(const For& f, const Stmt& s) override {
      found = found || f.var == var_;
      StmtVisitor::visit_for(f, s);
    }
    void visit_let(const LetStmt& l, const Stmt& s) override {
      found = found || l.var == var_;
      StmtVisitor::visit_let(l, s);
    }

   private:
    const std::string& var_;
  } binders(var);
  binders.visit_stmts(list);
  return binders.found;
}

class Rewriter {
 public:
  Rewriter(Program& p, const Site& s, Names& names, GatherItemReport* report)
      : p_(p), s_(s), names_(names), report_(report) {}

  void run() {
    Kernel* kernel = nullptr;
    for (Kernel& k : p_.kernels)
      if (k.name == s_.func) kernel = &k;
    if (!kernel) throw InternalError("gather: the kernel of '" + s_.func + "' went missing");
    loc_ = s_.directive->loc;
    type_ = s_.value()->type;
    fifo_ = names_.fresh(s_.func + "_gather_fifo");
    gathered_ = names_.fresh(s_.source + "_gathered");
    if (s_.form == Site::kUnrolled) {
      var_ = s_.var;
      t_ = names_.fresh("t");
      for (auto l = s_.space.rbegin(); l != s_.space.rend(); ++l) dims_.push_back(l->extent);
    } else {
      own_ = names_.fresh(s_.source + "_own");
      // The lanes come back as PEs counted from 0, under v's name unless it is taken.
      var_ = binds(kernel->body, s_.var) ? names_.fresh(s_.var) : s_.var;
      for (auto l = s_.space.rbegin(); l != s_.space.rend(); ++l) dims_.push_back(l->extent);
      dims_.push_back(s_.pes);
    }
    if (s_.down) pe_var_ = names_.fresh(var_ + "_pe");
    if (s_.form == Site::kUnrolled) find_hoist_level(kernel->body);
    kernel->body = rebuild(kernel->body, 0);
    add_fifo();
    if (s_.form == Site::kUnrolled && !s_.out_channel.empty()) deepen_output();
    if (hoist_level_) deepen_input();
  }

 private:
  // Code 2 runs t inside each PE, so the PEs along v (and the other unrolled loops around them)
  // run one after another: sum(v - vmin + 1) steps where the array takes one. When nothing but
  // the unrolled loops and pure lets lies between the outermost unrolled loop and the statement
  // that passes the value on, t goes around that loop instead, with pes steps, and PE v works
  // at the steps of its own Code 2 loop: the PEs run at once, each value written to the FIFO is
  // read by the next PE in the same step (the PEs run in the order of the flow), and the exit
  // PE passes one value a step. The values reach the exit PE in the order of Code 2.
  void find_hoist_level(const StmtList& body) {
    const StmtList* list = &body;
    std::optional<size_t> first;
    for (size_t level = 0; level < s_.path.size(); ++level) {
      const StmtPtr& st = (*list)[s_.path[level]];
      if (first && list->size() != 1) return;  // a sibling would run once per step of t
      if (level + 1 == s_.path.size()) break;
      if (const For* f = std::get_if<For>(&st->node)) {
        if (f->loop_kind == LoopKind::kUnrolled && !first) first = level;
        list = &f->body;
      } else if (const LetStmt* l = std::get_if<LetStmt>(&st->node)) {
        if (first && reads_a_channel(l->value)) return;
        list = &l->body;
      } else {
        if (first) return;
        list = &std::get<Realize>(st->node).body;
      }
    }
    hoist_level_ = first;
  }

  static bool reads_a_channel(const Expr& e) {
    bool found = false;
    for_each_expr(e, [&](const Expr& x) {
      found = found || (x->kind == ExprKind::kCall && x->call_kind == CallKind::kChannel);
    });
    return found;
  }

  StmtList rebuild(const StmtList& list, size_t level) {
    StmtList out = list;
    const size_t i = s_.path[level];
    const StmtPtr& st = list[i];
    if (level + 1 == s_.path.size()) {
      // `st` is the statement that passes the read value on (s_.stmt): the new code.
      out[i] = s_.form == Site::kVectorized ? lane_pes()
               : hoist_level_               ? step_of_pe()
                                            : count_loop();
      return out;
    }
    // The path goes through the one body of a for, let or realize.
    const auto branches = [&]() -> StmtPtr {
      throw InternalError("gather: the path to the read crosses a statement with branches");
    };
    out[i] = match_stmt(
        *st,
        [&](const For& f) {
          For copy = f;
          copy.body = rebuild(f.body, level + 1);
          StmtPtr loop;
          if (s_.form == Site::kUnrolled && f.var == s_.var && s_.down) {
            // The PEs along v run from the highest index down, so that each PE runs after the
            // PE it reads from.
            StmtPtr let = make_let(
                var_, binary(BinaryOp::kSub, lit32(s_.vmin + s_.pes - 1), make_var(pe_var_)),
                copy.body, st->loc);
            loop = make_for(pe_var_, lit32(0), lit32(s_.pes), LoopKind::kUnrolled, {let}, st->loc);
          } else {
            loop = with_node(*st, std::move(copy));
          }
          if (hoist_level_ != level) return loop;
          return make_for(t_, lit32(s_.vmin), lit32(s_.pes), LoopKind::kSerial, {loop}, loc_);
        },
        [&](const LetStmt& l) {
          LetStmt copy = l;
          copy.body = rebuild(l.body, level + 1);
          return with_node(*st, std::move(copy));
        },
        [&](const IfThenElse&) { return branches(); }, [&](const Provide&) { return branches(); },
        [&](const Alloc&) { return branches(); }, [&](const WriteChannel&) { return branches(); },
        [&](const Realize& r) {
          Realize copy = r;
          copy.body = rebuild(r.body, level + 1);
          return with_node(*st, std::move(copy));
        },
        [&](const Shift&) { return branches(); }, [&](const Push&) { return branches(); });
    return out;
  }

  // The statement the exit PE runs: s_.stmt writing the gathered value.
  StmtPtr exit_stmt(const Expr& t) {
    const Expr g = make_var(gathered_, type_, loc_);
    const SourceLoc& loc = s_.stmt->loc;
    if (const WriteChannel* w = s_.write) {
      std::vector<Expr> index = w->index;
      if (s_.out_dim) index.erase(index.begin() + static_cast<long>(*s_.out_dim));
      return make_write_channel(w->channel, index, g, loc);
    }
    const Provide* p = s_.provide;
    std::vector<Expr> args;
    for (const Expr& a : p->args) {
      Expr whole = inline_lets(a, s_.lets);
      if (t && mentions(whole, s_.var)) {
        std::map<std::string, Expr> with{{s_.var, t}};
        VarSubstituter sub(with);
        args.push_back(sub.mutate(whole));
      } else {
        args.push_back(a);
      }
    }
    return make_provide(p->func, args, g, loc);
  }

  // The FIFO's indices of PE v (at `var_` + `delta`), outermost first, as the channel arrays
  // over a kernel's PEs are indexed (Code 4's PE loop is the innermost).
  std::vector<Expr> fifo_index(int64_t delta) const {
    std::vector<Expr> index;
    for (size_t l = s_.space.size(); l-- > 0;) {
      Expr x = plus(make_var(s_.space[l].var), -s_.space[l].min);
      const bool along_v = s_.form == Site::kUnrolled && l == s_.space_index;
      index.push_back(along_v ? plus(x, delta) : x);
    }
    if (s_.form == Site::kVectorized) index.push_back(plus(make_var(var_), delta));
    return index;
  }

  StmtPtr pass_or_exit(const Expr& t) {
    const Expr v = make_var(var_);
    const int64_t last = s_.vmin + s_.pes - 1;
    const Expr passes =
        s_.down ? binary(BinaryOp::kGT, v, lit32(s_.vmin)) : binary(BinaryOp::kLT, v, lit32(last));
    StmtPtr pass = make_write_channel(fifo_, fifo_index(0), make_var(gathered_, type_, loc_), loc_);
    return make_if(passes, {pass}, {exit_stmt(t)}, loc_);
  }

  // One step t of PE v: its own value at t == v, else its neighbour's from the FIFO, passed on.
  StmtPtr gathered_step() {
    const Expr v = make_var(var_), t = make_var(t_);
    const Expr from_fifo = make_call("read_channel", CallKind::kChannel, type_,
                                     with_name(fifo_index(s_.down ? 1 : -1)), loc_);
    const Expr g = make_select(binary(BinaryOp::kEQ, t, v), s_.value(), from_fifo, type_, loc_);
    return make_let(gathered_, g, {pass_or_exit(t)}, loc_);
  }

  // Code 2: PE v handles the values of the PEs from the far end to itself, one per step of t,
  // its own at t == v, the others from its neighbour's FIFO.
  StmtPtr count_loop() {
    const Expr v = make_var(var_);
    StmtPtr body = gathered_step();
    const Expr min = s_.down ? v : lit32(s_.vmin);
    const Expr extent =
        s_.down ? binary(BinaryOp::kSub, lit32(s_.vmin + s_.pes), v) : plus(v, 1 - s_.vmin);
    return make_for(t_, min, extent, LoopKind::kSerial, {body}, loc_);
  }

  // Code 2 with t around the PEs (find_hoist_level): PE v works at the steps its Code 2 loop
  // runs, t in [vmin, v] (Up) or [v, vmin + pes) (Down).
  StmtPtr step_of_pe() {
    const Expr v = make_var(var_), t = make_var(t_);
    const Expr active = s_.down ? binary(BinaryOp::kGE, t, v) : binary(BinaryOp::kLE, t, v);
    return make_if(active, {gathered_step()}, {}, loc_);
  }

  // Code 4: the lanes become PEs again; each puts its own lane into the vector from its
  // neighbour (the PE at the far end starts one) and passes it on. With lanes along several
  // dimensions (Code 3's j vectorized too), PE v owns the lanes whose read is at v: it reads
  // them (one read pattern at v) and puts each into its lane.
  StmtPtr lane_pes() {
    const int64_t n = s_.pes;
    const int lanes = type_.lanes;
    const Type flat = type_.with_lanes(lanes);
    const Expr v = make_var(var_);
    const std::vector<Expr>& parts = s_.read->operands;
    const Type scalar = parts[0]->type;
    // The reads of PE v, in lane order: those of the lanes at v = the first PE's.
    std::vector<size_t> own_lanes;
    for (size_t l = 0; l < parts.size(); ++l)
      if (s_.lane_v.empty() ? l == 0 : s_.lane_v[l] == s_.lane_v[0]) own_lanes.push_back(l);
    std::vector<Expr> own_reads;
    for (size_t l : own_lanes) {
      std::vector<Expr> ops = parts[l]->operands;
      ops[1 + s_.in_dim] = v;
      own_reads.push_back(make_call("read_channel", CallKind::kChannel, scalar, ops, loc_));
    }
    const int m = static_cast<int>(own_reads.size());
    const Type own_type = scalar.with_lanes(m);
    const Expr own_read =
        m == 1 ? own_reads[0]
               : make_call("concat", CallKind::kIntrinsic, own_type, own_reads, loc_);
    const Expr own = make_var(own_, own_type, loc_);
    // `own` spread over the lanes: lane l takes own's lane for l's place among v's lanes.
    Expr spread = broadcast(own, lanes);
    Expr mine;
    if (s_.lane_v.empty()) {
      const Expr ramp = make_call("ramp", CallKind::kIntrinsic, Type::Int(32, lanes),
                                  {lit32(0), lit32(1), lit32(lanes)}, loc_);
      mine = binary(BinaryOp::kEQ, ramp, broadcast(v, lanes));
    } else {
      std::vector<Expr> pieces, lane_vs;
      std::map<int64_t, int> seen;  // v -> lanes of it so far
      for (size_t l = 0; l < parts.size(); ++l) {
        const int place = seen[s_.lane_v[l]]++;
        pieces.push_back(m == 1 ? own
                                : make_call("slice", CallKind::kIntrinsic, scalar,
                                            {own, lit32(place), lit32(1)}, loc_));
        lane_vs.push_back(lit32(s_.lane_v[l]));
      }
      spread = make_call("concat", CallKind::kIntrinsic, flat, pieces, loc_);
      const Expr which =
          make_call("concat", CallKind::kIntrinsic, Type::Int(32, lanes), lane_vs, loc_);
      mine = binary(BinaryOp::kEQ, which, broadcast(v, lanes));
    }
    Expr from_fifo = make_call("read_channel", CallKind::kChannel, type_,
                               with_name(fifo_index(s_.down ? 1 : -1)), loc_);
    if (type_.is_tensor()) from_fifo = reshape(from_fifo, flat);
    const Expr blend = make_select(mine, spread, from_fifo, flat, loc_);
    const Expr not_first =
        s_.down ? binary(BinaryOp::kLT, v, lit32(n - 1)) : binary(BinaryOp::kGT, v, lit32(0));
    Expr g = make_select(not_first, blend, spread, flat, loc_);
    if (type_.is_tensor()) g = reshape(g, type_);
    StmtPtr body =
        make_let(own_, own_read, {make_let(gathered_, g, {pass_or_exit(nullptr)}, loc_)}, loc_);
    if (!s_.down) return make_for(var_, lit32(0), lit32(n), LoopKind::kUnrolled, {body}, loc_);
    StmtPtr let =
        make_let(var_, binary(BinaryOp::kSub, lit32(n - 1), make_var(pe_var_)), {body}, loc_);
    return make_for(pe_var_, lit32(0), lit32(n), LoopKind::kUnrolled, {let}, loc_);
  }

  // `e` with the shape of `to` (the same flat lanes).
  Expr reshape(const Expr& e, Type to) const {
    std::vector<Expr> args{e};
    for (int d : to.shape()) args.push_back(lit32(d));
    return make_call("reshape", CallKind::kIntrinsic, to, args, loc_);
  }

  std::vector<Expr> with_name(std::vector<Expr> index) const {
    index.insert(index.begin(), make_var(fifo_));
    return index;
  }

  std::string outer_loops() const {
    std::vector<std::string> names;
    for (const Loop& l : s_.serial) names.push_back(l.var);
    return names.empty() ? std::string("of the run") : "of one iteration of " + join_names(names);
  }

  void add_fifo() {
    Channel c;
    c.name = fifo_;
    c.type = type_;
    c.dims = dims_;
    c.producer = c.consumer = s_.func;
    c.loc = loc_;
    const std::string v = var_;
    const std::string next = s_.down ? v + " + 1" : v + " - 1";
    if (hoist_level_) {
      c.depth = 1;
      c.depth_reason = "t runs around the PEs, which run at once" +
                       std::string(s_.down ? ", from the highest " + v + " down"
                                           : " in ascending order of " + v) +
                       ": PE " + next + " writes one value a step, which PE " + v +
                       " reads in the same step";
    } else if (s_.form == Site::kUnrolled) {
      c.depth = std::max<int64_t>(s_.pes - 1, 1);
      c.depth_reason = "the PEs run one after another" +
                       std::string(s_.down ? ", from the highest " + v + " down"
                                           : " in ascending order of " + v) +
                       ": PE " + next + " writes all its values " + outer_loops() + " (up to " +
                       std::to_string(s_.pes - 1) + ": its own and those of the PEs " +
                       (s_.down ? "above" : "below") + " it) before PE " + v + " reads them";
    } else {
      c.depth = 1;
      c.depth_reason = "PE " + next + " writes one vector " + outer_loops() + ", which PE " + v +
                       ", run right after it, reads";
    }
    p_.channels.push_back(c);
    if (!report_) return;
    report_->fifos.push_back("FIFO " + c.name + ": " + c.type.name() + ", dims " +
                             dims_text(c.dims) + ", depth " + std::to_string(c.depth) + " (" +
                             c.depth_reason + ")");
  }

  // The exit PEs write the values of one element of the output channel in a row, one element
  // after another, where the consumer may take one value of each element in turn (gathering
  // along an outer space loop); with t around the PEs, they write one value of each element a
  // step, where the consumer may take an element's values in a row. Either way each element
  // needs room for pes values. (The consumer's order, which check_consumer knows, could tell
  // when one is enough; a depth of pes is safe in both.)
  void deepen_output() {
    for (Channel& c : p_.channels) {
      if (c.name != s_.out_channel || c.depth >= s_.pes) continue;
      const std::string n = std::to_string(s_.pes);
      const std::string writes = hoist_level_
                                     ? " writes one value of each element a step, " + n +
                                           " steps (along " + s_.var + "), and " + c.consumer +
                                           " may read an element's " + n + " values in a row"
                                     : " writes the " + n + " values of an element (along " +
                                           s_.var + ") in a row, element after element, and " +
                                           c.consumer + " may read the elements in another order";
      deepen(c, s_.pes,
             "t2s-gather: the exit PE of " + s_.func + writes + ": room for " + n +
                 " values per element");
    }
  }

  // Gives channel c `depth`, its reason `why` with the old depth, and reports it.
  void deepen(Channel& c, int64_t depth, const std::string& why) {
    const int64_t old = c.depth;
    c.depth = depth;
    c.depth_reason =
        why + " (was " + (old ? std::to_string(old) : std::string("0, the default")) + ")";
    if (report_)
      report_->fifos.push_back("channel " + c.name + ": depth " + std::to_string(old) + " -> " +
                               std::to_string(c.depth) + " (" + c.depth_reason + ")");
  }

  // With t around the PEs, F takes the values of its PEs one a step, where the source may have
  // written them all at once, step after step: a burst, over the innermost serial loops around
  // the source's write that F runs too (the loops outside them are where the source computes
  // without writing, the time F drains in; T2SP's drain pipe holds a tile the same way). Each
  // element of A's channel gets room for one burst, so that the source does not wait for F.
  void deepen_input() {
    std::vector<Loop> around_write;  // the serial loops around the source's write, outermost first
    for (const Kernel& k : p_.kernels)
      if (k.name == s_.source_kernel) around_write = serial_loops_around_write(k.body);
    int64_t burst = 1;
    std::vector<std::string> names;
    bool idles = false;  // the source runs a loop outside the burst (and does not write in it)
    auto mine = s_.serial.rbegin();
    for (auto theirs = around_write.rbegin(); theirs != around_write.rend(); ++theirs, ++mine) {
      if (mine == s_.serial.rend() || theirs->var != mine->var || !theirs->constant ||
          !mine->constant || theirs->extent != mine->extent) {
        idles = true;
        break;
      }
      burst = theirs->extent > kMaxBurstDepth / burst ? kMaxBurstDepth : burst * theirs->extent;
      names.insert(names.begin(), theirs->var);
    }
    if (!idles || burst <= 1) return;
    for (Channel& c : p_.channels) {
      if (c.name != s_.in_channel || c.depth >= burst) continue;
      deepen(c, burst,
             "t2s-gather: " + s_.source_kernel + " writes every element each step of " +
                 join_names(names) + " (" + std::to_string(burst) + " steps" +
                 (burst == kMaxBurstDepth ? ", at most" : "") + "), and " + s_.func +
                 " takes one PE's value a step: room for the burst");
    }
  }

  std::vector<Loop> serial_loops_around_write(const StmtList& body) const {
    class Finder : public StmtVisitor {
     public:
      explicit Finder(const std::string& channel) : channel_(channel) {}
      std::vector<Loop> stack, found;

     protected:
      void visit_for(const For& f, const Stmt&) override {
        const bool serial = f.loop_kind != LoopKind::kUnrolled;
        if (serial) stack.push_back(as_loop(f));
        visit_stmts(f.body);
        if (serial) stack.pop_back();
      }
      void visit_write_channel(const WriteChannel& w, const Stmt&) override {
        if (w.channel == channel_ && found.empty()) found = stack;
      }

     private:
      const std::string& channel_;
    } finder(s_.in_channel);
    finder.visit_stmts(body);
    return finder.found;
  }

  static constexpr int64_t kMaxBurstDepth = 65536;

  Program& p_;
  const Site& s_;
  Names& names_;
  GatherItemReport* report_;
  SourceLoc loc_;
  Type type_;
  std::string fifo_, gathered_, own_, t_, var_, pe_var_;
  std::optional<size_t> hoist_level_;  // the level of the loop t goes around (Code 2 hoisted)
  std::vector<int64_t> dims_;
};

}  // namespace

void rewrite(Program& p, const Site& site, Names& names, GatherItemReport* report) {
  Rewriter(p, site, names, report).run();
}

}  // namespace gather_internal
}  // namespace t2s
