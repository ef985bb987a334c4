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
    kernel->body = rebuild(kernel->body, 0);
    add_fifo();
    if (s_.form == Site::kUnrolled && !s_.out_channel.empty()) deepen_output();
  }

 private:
  StmtList rebuild(const StmtList& list, size_t level) {
    StmtList out = list;
    const size_t i = s_.path[level];
    const StmtPtr& st = list[i];
    if (level + 1 == s_.path.size()) {
      // `st` is the statement that passes the read value on (s_.stmt): the new code.
      out[i] = s_.form == Site::kUnrolled ? count_loop() : lane_pes();
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
          if (s_.form != Site::kUnrolled || f.var != s_.var || !s_.down)
            return with_node(*st, std::move(copy));
          // The PEs along v run from the highest index down, so that each PE runs after the PE
          // it reads from.
          StmtPtr let =
              make_let(var_, binary(BinaryOp::kSub, lit32(s_.vmin + s_.pes - 1), make_var(pe_var_)),
                       copy.body, st->loc);
          return make_for(pe_var_, lit32(0), lit32(s_.pes), LoopKind::kUnrolled, {let}, st->loc);
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

  // Code 2: PE v handles the values of the PEs from the far end to itself, one per step of t,
  // its own at t == v, the others from its neighbour's FIFO.
  StmtPtr count_loop() {
    const Expr v = make_var(var_), t = make_var(t_);
    const Expr& own = s_.value();
    const Expr from_fifo = make_call("read_channel", CallKind::kChannel, type_,
                                     with_name(fifo_index(s_.down ? 1 : -1)), loc_);
    const Expr g = make_select(binary(BinaryOp::kEQ, t, v), own, from_fifo, type_, loc_);
    StmtPtr body = make_let(gathered_, g, {pass_or_exit(t)}, loc_);
    const Expr min = s_.down ? v : lit32(s_.vmin);
    const Expr extent =
        s_.down ? binary(BinaryOp::kSub, lit32(s_.vmin + s_.pes), v) : plus(v, 1 - s_.vmin);
    return make_for(t_, min, extent, LoopKind::kSerial, {body}, loc_);
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
    if (s_.form == Site::kUnrolled) {
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
  // along an outer space loop): each element needs room for the values of one step.
  void deepen_output() {
    for (Channel& c : p_.channels) {
      if (c.name != s_.out_channel || c.depth >= s_.pes) continue;
      const int64_t old = c.depth;
      c.depth = s_.pes;
      c.depth_reason = "t2s-gather: the exit PE of " + s_.func + " writes the " +
                       std::to_string(s_.pes) + " values of an element (along " + s_.var +
                       ") in a row, element after element, and " + c.consumer +
                       " may read the elements in another order: room for " +
                       std::to_string(s_.pes) + " values per element (was " +
                       (old ? std::to_string(old) : std::string("0, the default")) + ")";
      if (report_)
        report_->fifos.push_back("channel " + c.name + ": depth " + std::to_string(old) + " -> " +
                                 std::to_string(c.depth) + " (" + c.depth_reason + ")");
    }
  }

  Program& p_;
  const Site& s_;
  Names& names_;
  GatherItemReport* report_;
  SourceLoc loc_;
  Type type_;
  std::string fifo_, gathered_, own_, t_, var_, pe_var_;
  std::vector<int64_t> dims_;
};

}  // namespace

void rewrite(Program& p, const Site& site, Names& names, GatherItemReport* report) {
  Rewriter(p, site, names, report).run();
}

}  // namespace gather_internal
}  // namespace t2s
