// t2s-gather: the consumer of the channel F writes. After gathering an unrolled loop v, the
// exit PE writes every value of one element of the channel (v's dimension gone) in the order of
// F's outer loops, then v ascending; the consumer must read them in that order (gather-order).
#include <utility>

#include "libs/ir/expr_printer.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"
#include "libs/passes/gather/gather_internal.h"

namespace t2s {
namespace gather_internal {
namespace {

std::string q(const std::string& name) { return "'" + name + "'"; }

// A read of the channel in the consumer, with the loops (outermost first) and lets around it.
struct ConsumerRead {
  Expr read;
  std::vector<Loop> loops;
  std::vector<std::pair<std::string, Expr>> lets;
};

// Every read of `channel` in `list` (a concat of reads of the lanes counts once).
class ConsumerReads : public StmtVisitor {
 public:
  ConsumerReads(const StmtList& list, const std::string& channel) : channel_(channel) {
    visit_stmts(list);
  }
  std::vector<ConsumerRead> reads;

 protected:
  // A statement's own operands, with the loops and lets around it; then its nested lists.
  void visit_stmt(const Stmt& s) override {
    for (const Expr* e : s.exprs()) expr(*e);
    StmtVisitor::visit_stmt(s);
  }
  void visit_for(const For& f, const Stmt& s) override {
    loops_.push_back(as_loop(f));
    StmtVisitor::visit_for(f, s);
    loops_.pop_back();
  }
  void visit_let(const LetStmt& l, const Stmt& s) override {
    lets_.push_back({l.var, l.value});
    StmtVisitor::visit_let(l, s);
    lets_.pop_back();
  }

 private:
  void expr(const Expr& e) {
    if (!e) return;
    if (is_read_of(e, channel_) || is_lane_reads_of(e, channel_)) {
      reads.push_back({e, loops_, lets_});
      return;
    }
    for (const Expr& o : e->operands) expr(o);
  }

  const std::string& channel_;
  std::vector<Loop> loops_;
  std::vector<std::pair<std::string, Expr>> lets_;
};

class DropDim : public StmtMutator {
 public:
  DropDim(std::string channel, size_t dim) : channel_(std::move(channel)), dim_(dim) {}

 protected:
  Expr mutate_call(const Expr& e) override {
    if (!is_read_of(e, channel_)) return mutate_operands(e);
    std::vector<Expr> ops = e->operands;
    ops.erase(ops.begin() + 1 + static_cast<long>(dim_));
    return make_call(e->name, e->call_kind, e->type, ops, e->loc);
  }

 private:
  std::string channel_;
  size_t dim_;
};

}  // namespace

void check_consumer(const Program& p, const Site& s) {
  if (!s.out_dim) return;
  const Channel* out = p.find_channel(s.out_channel);
  const Kernel* consumer = nullptr;
  for (const Kernel& k : p.kernels)
    if (out && k.name == out->consumer) consumer = &k;
  if (!consumer) return;
  const size_t dim = *s.out_dim;
  const std::vector<ConsumerRead> reads = ConsumerReads(consumer->body, s.out_channel).reads;
  const std::string who = q(consumer->name) + " reads channel " + q(s.out_channel);
  const std::string order = "the exit PE of " + q(s.func) +
                            " writes each element's values in the order of its outer loops, "
                            "then " +
                            q(s.var) + " ascending";
  for (ConsumerRead r : reads) {
    if (is_lane_reads_of(r.read, s.out_channel)) {
      // Lanes that all read at one index along v run along another dimension (a collector
      // vectorized along jjj reading the drainer gathered along iii): each lane reads its own
      // element, at the index of the first lane's read along v.
      bool same = true;
      for (const Expr& part : r.read->operands)
        same = same && equal(part->operands[1 + dim], r.read->operands[0]->operands[1 + dim]);
      if (same) r.read = r.read->operands[0];
    }
    if (is_lane_reads_of(r.read, s.out_channel)) {
      // The lanes of a vector read take the values one after another: lane l must be v's l.
      bool ok = static_cast<int64_t>(r.read->operands.size()) == s.pes;
      for (size_t l = 0; ok && l < r.read->operands.size(); ++l) {
        const Expr& x = r.read->operands[l]->operands[1 + dim];
        ok = x->kind == ExprKind::kIntImm && x->int_value == static_cast<int64_t>(l);
        for (size_t d = 1; ok && d < r.read->operands[l]->operands.size(); ++d)
          ok = d == 1 + dim ||
               equal(r.read->operands[l]->operands[d], r.read->operands[0]->operands[d]);
      }
      if (!ok)
        throw Diagnostic(s.directive->loc,
                         "gather: " + who + " as a vector whose lanes do not take the values of " +
                             q(s.var) + " in ascending order; " + order,
                         "gather-order");
      continue;
    }
    const Expr index = inline_lets(r.read->operands[1 + dim], r.lets);
    std::optional<size_t> l = index_loop(index, r.loops);
    std::string at = q(print_expr(r.read->operands[1 + dim]));
    if (!equal(index, r.read->operands[1 + dim])) at += " (" + print_expr(index) + ")";
    if (!l || !r.loops[*l].constant || r.loops[*l].extent != s.pes)
      throw Diagnostic(s.directive->loc,
                       "gather: " + who + " at " + at + " along " + q(s.var) +
                           "; gathering needs a loop of " + q(consumer->name) + " over the " +
                           std::to_string(s.pes) + " values there; " + order,
                       "gather-order");
    // The loops that do not choose the element: the one along v must be the innermost.
    std::vector<std::string> inside;
    for (size_t i = *l + 1; i < r.loops.size(); ++i) {
      bool chooses = false;
      for (size_t d = 1; d < r.read->operands.size(); ++d)
        chooses = chooses || (d != 1 + dim &&
                              mentions(inline_lets(r.read->operands[d], r.lets), r.loops[i].var));
      if (!chooses) inside.push_back(r.loops[i].var);
    }
    if (!inside.empty())
      throw Diagnostic(s.directive->loc,
                       "gather: " + who + " with loop" + (inside.size() > 1 ? "s " : " ") +
                           q(join_names(inside)) + " inside its loop " + q(r.loops[*l].var) +
                           " along " + q(s.var) + ", but " + order + ": " + q(r.loops[*l].var) +
                           " must be the innermost of them",
                       "gather-order");
  }
}

void drop_consumer_dim(Program& p, const Site& s) {
  if (!s.out_dim) return;
  for (Channel& c : p.channels) {
    if (c.name != s.out_channel) continue;
    c.dims.erase(c.dims.begin() + static_cast<long>(*s.out_dim));
    for (Kernel& k : p.kernels) {
      if (k.name != c.consumer) continue;
      DropDim drop(s.out_channel, *s.out_dim);
      k.body = drop.mutate_stmts(k.body);
    }
  }
}

}  // namespace gather_internal
}  // namespace t2s
