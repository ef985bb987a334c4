// remove(v, ...) on an isolated producer (LANGUAGE.md section 7, T2SP's Func::remove): the
// producer's kernel runs without loop v.
//
// What is implemented: a producer that sends only at one value c of v (every send is under a
// condition with the conjunct `v == c`, as the loader of a systolic array's boundary is:
// `select(jjj == 0, a(...), A(jjj - 1, ...))` sends at jjj == 0). Its kernel runs its body once,
// at v = c, so it sends the same values in the same order and its consumer is unchanged; the
// removal saves the iterations at which it sent nothing. The values sent must not depend on v.
//
// What is refused (remove-reuse): a producer that sends at every v. Its consumer would have to
// keep each value for the other iterations of v, which takes an on-chip buffer in the consumer
// (T2SP's remove goes with buffer); buffer is not built yet.
//
// t2s-merge checks every remove's target and applies those on producers that no
// space_time_transform transforms; t2s-stt applies the others once the transform (the
// producer's own or the one it inherits from the array) has made their final loops.
#include "libs/passes/common/remove_loops.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "libs/ir/expr_printer.h"
#include "libs/ir/visitor.h"

namespace t2s {

namespace {

// The conjuncts of `e` (`a && b && c` is a, b, c).
void conjuncts(const Expr& e, std::vector<Expr>* out) {
  if (e->kind == ExprKind::kBinary && e->binary_op == BinaryOp::kAnd) {
    conjuncts(e->operands[0], out);
    conjuncts(e->operands[1], out);
    return;
  }
  out->push_back(e);
}

Expr conjunction(const std::vector<Expr>& terms) {
  Expr e = terms[0];
  for (size_t i = 1; i < terms.size(); ++i)
    e = make_binary(BinaryOp::kAnd, e, terms[i], Type::Bool(), terms[i]->loc);
  return e;
}

// The removal of one loop from one producer kernel.
class LoopRemoval {
 public:
  LoopRemoval(const Directive& d, const std::string& kernel, const std::string& var)
      : d_(d), kernel_(kernel), v_(var) {}

  // The kernel's body without the loop. Throws Diagnostic.
  StmtList apply(const StmtList& body) {
    const For* loop = find_loop(body);
    if (!loop) fail("'" + kernel_ + "' has no loop '" + v_ + "'" + loops_of(body), "remove-loop");
    if (loop->loop_kind == LoopKind::kVectorized)
      fail("loop '" + v_ + "' of '" + kernel_ +
               "' is vectorized (its lanes are one value); only a serial or unrolled loop is "
               "removed",
           "remove-loop");
    // The loop's bounds are constants once merge has bounded every loop.
    min_ = loop->min->int_value;
    extent_ = loop->extent->int_value;
    scan(loop->body, {});
    if (!value_) value_ = min_;  // sends nothing: one iteration is as good as any
    if (*value_ < min_ || *value_ >= min_ + extent_)
      fail("'" + kernel_ + "' sends only at " + v_ + " == " + std::to_string(*value_) +
               ", outside the loop's range [" + std::to_string(min_) + ", " +
               std::to_string(min_ + extent_) + "): it never sends",
           "remove-depends");
    Rewriter rewriter(*this);
    return rewriter.mutate_stmts(body);
  }

 private:
  [[noreturn]] void fail(const std::string& message, const std::string& rule) const {
    throw Diagnostic(d_.loc, "remove(" + v_ + ") on '" + d_.func + "': " + message, rule);
  }

  const For* find_loop(const StmtList& body) const {
    const For* found = nullptr;
    for_each_stmt(body, [&](const Stmt& s) {
      if (const For* f = s.as<For>(); f && !found && f->var == v_) found = f;
    });
    return found;
  }

  static std::string loops_of(const StmtList& body) {
    std::vector<std::string> names;
    for_each_stmt(body, [&](const Stmt& s) {
      if (const For* f = s.as<For>()) names.push_back(f->var);
    });
    if (names.empty()) return " (it has no loops)";
    std::string s = " (its loops: ";
    for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
    return s + ")";
  }

  // Whether `e` uses v, directly or through a let bound inside the loop.
  bool uses_v(const Expr& e) const {
    bool found = false;
    for_each_expr(e, [&](const Expr& x) {
      if (x->kind == ExprKind::kVar && (x->name == v_ || from_v_.count(x->name))) found = true;
    });
    return found;
  }

  // " (through `let x = ...`)" when `e` uses v only through the let of x; empty otherwise.
  std::string through_let(const Expr& e) const {
    bool direct = false;
    std::string via;
    for_each_expr(e, [&](const Expr& x) {
      if (x->kind != ExprKind::kVar) return;
      if (x->name == v_) direct = true;
      if (via.empty() && from_v_.count(x->name)) via = x->name;
    });
    if (direct || via.empty()) return "";
    return " (through `let " + via + " = " + print_expr(from_v_.at(via)) + "`)";
  }

  // `c` when `e` is `v == c` or `c == v` for an integer constant c.
  std::optional<int64_t> fixed_value(const Expr& e) const {
    if (e->kind != ExprKind::kBinary || e->binary_op != BinaryOp::kEQ) return std::nullopt;
    const Expr& a = e->operands[0];
    const Expr& b = e->operands[1];
    auto is_v = [&](const Expr& x) { return x->kind == ExprKind::kVar && x->name == v_; };
    auto is_int = [](const Expr& x) { return x->kind == ExprKind::kIntImm; };
    if (is_v(a) && is_int(b)) return b->int_value;
    if (is_int(a) && is_v(b)) return a->int_value;
    return std::nullopt;
  }

  // Checks one condition: every conjunct that uses v is `v == c`, one c for the whole loop.
  // Returns whether the condition fixes v.
  bool check_condition(const Expr& condition) {
    std::vector<Expr> terms;
    conjuncts(condition, &terms);
    bool fixes = false;
    for (const Expr& t : terms) {
      if (!uses_v(t)) continue;
      std::optional<int64_t> c = fixed_value(t);
      if (!c)
        fail("'" + kernel_ + "' sends under the condition `" + print_expr(condition) +
                 "`, which depends on '" + v_ + "'" + through_let(t) + " other than as `" + v_ +
                 " == constant`; a removed loop may only fix the iteration that sends",
             "remove-depends");
      if (value_ && *value_ != *c)
        fail("'" + kernel_ + "' sends at " + v_ + " == " + std::to_string(*value_) + " and at " +
                 v_ + " == " + std::to_string(*c) + "; without the loop it can send at one only",
             "remove-depends");
      value_ = *c;
      fixes = true;
    }
    return fixes;
  }

  // Walks the loop's body: `fixed` says whether an enclosing condition fixes v.
  void scan(const StmtList& list, bool fixed) {
    for (const StmtPtr& s : list) {
      if (const For* f = s->as<For>()) {
        if (uses_v(f->min) || uses_v(f->extent))
          fail("the bounds of loop '" + f->var + "' depend on '" + v_ + "'", "remove-depends");
        scan(f->body, fixed);
      } else if (const LetStmt* l = s->as<LetStmt>()) {
        if (uses_v(l->value)) from_v_[l->var] = l->value;
        scan(l->body, fixed);
      } else if (const IfThenElse* i = s->as<IfThenElse>()) {
        const bool fixes = check_condition(i->condition);
        scan(i->then_body, fixed || fixes);
        // The else branch runs where the condition fails: at v = c when the condition's other
        // conjuncts fail (it stays), and at the other values of v (which go): a send there is
        // one the removal would lose unless an outer condition fixes v.
        scan(i->else_body, fixed);
      } else if (const WriteChannel* w = s->as<WriteChannel>()) {
        for (const Expr& x : w->index)
          if (uses_v(x))
            fail("the channel index `" + print_expr(x) + "` of '" + w->channel + "' depends on '" +
                     v_ + "'",
                 "remove-depends");
        if (uses_v(w->value))
          fail("the values '" + kernel_ + "' sends over '" + w->channel + "' (`" +
                   print_expr(w->value) + "`) depend on '" + v_ + "'" + through_let(w->value),
               "remove-depends");
        if (!fixed)
          fail("'" + kernel_ + "' sends over '" + w->channel + "' at every " + v_ +
                   " (no condition `" + v_ +
                   " == constant` guards the send), so its consumer reads each value once per " +
                   v_ +
                   "; without the loop the consumer would have to keep the values for the other "
                   "iterations, which takes an on-chip buffer in the consumer (buffer is not "
                   "supported yet)",
               "remove-reuse");
      } else {
        fail("'" + kernel_ + "' writes memory inside loop '" + v_ +
                 "'; only a producer that sends its values over channels (on the device) has "
                 "loops removed",
             "remove-target");
      }
    }
  }

  // The loop replaced by its body at v = c: conditions lose their `v == c` conjuncts (true
  // there), branches taken only at other values go.
  class Rewriter : public StmtMutator {
   public:
    explicit Rewriter(const LoopRemoval& r) : r_(r) {}

   protected:
    StmtPtr mutate_for(const For& f, const StmtPtr& s) override {
      if (f.var != r_.v_ || done_) return mutate_children(s);
      done_ = true;
      std::map<std::string, Expr> at{{r_.v_, make_int(f.min->type, *r_.value_, f.min->loc)}};
      inside_ = true;
      StmtList body = mutate_stmts(f.body);
      inside_ = false;
      VarSubstituter substitute(at);
      body = substitute.mutate_stmts(body);
      if (body.size() == 1) return body[0];
      // A list in place of one statement: a let binding nothing new would do, but `if (true)`
      // keeps the IR free of unused names.
      return make_if(make_bool(true, s->loc), body, {}, s->loc);
    }

    StmtPtr mutate_if(const IfThenElse& i, const StmtPtr& s) override {
      if (!inside_) return mutate_children(s);
      std::vector<Expr> terms, kept;
      conjuncts(i.condition, &terms);
      for (const Expr& t : terms)
        if (!r_.uses_v(t)) kept.push_back(t);
      if (kept.size() == terms.size()) return mutate_children(s);
      StmtList then_body = mutate_stmts(i.then_body);
      if (kept.empty()) {
        if (then_body.size() == 1) return then_body[0];
        return make_if(make_bool(true, s->loc), then_body, {}, s->loc);
      }
      return make_if(conjunction(kept), then_body, mutate_stmts(i.else_body), s->loc);
    }

   private:
    const LoopRemoval& r_;
    bool done_ = false, inside_ = false;
  };

  const Directive& d_;
  std::string kernel_, v_;
  int64_t min_ = 0, extent_ = 0;
  std::optional<int64_t> value_;
  std::map<std::string, Expr> from_v_;  // lets inside the loop whose values use v
};

}  // namespace

void apply_removes(Program& p, const std::function<bool(const Kernel&)>& which) {
  std::map<std::string, std::set<std::string>> removed;  // producer -> its removed loops
  for (const Directive& d : p.directives) {
    if (!d.is(DirectiveKind::kRemove)) continue;
    for (Kernel& k : p.kernels) {
      if (k.name != d.func || !which(k)) continue;
      for (const DirectiveArg& a : d.args) {
        const std::string& v = a.text;
        if (!removed[d.func].insert(v).second)
          throw Diagnostic(d.loc, "loop '" + v + "' of '" + d.func + "' is removed twice",
                           "remove-loop");
        k.body = LoopRemoval(d, k.name, v).apply(k.body);
      }
    }
  }
}

}  // namespace t2s
