// remove(v, ...) on an isolated producer (LANGUAGE.md section 7, T2SP's Func::remove): the
// producer's kernel runs without loop v. The values it sends must not depend on v.
//
// A producer that sends only at one value c of v (every send is under a condition with the
// conjunct `v == c`, as the loader of a systolic array's boundary is: `select(jjj == 0, a(...),
// A(jjj - 1, ...))` sends at jjj == 0) runs its body once, at v = c: it sends the same values in
// the same order, its consumer is unchanged, and the iterations at which it sent nothing go
// (LoopRemoval).
//
// A producer that sends at every v sends once what it sent at every iteration; its consumer
// reads the channel at the first iteration of the removed loops and keeps the values in a
// realize of the producer's Func for the other iterations (ValueKeeper), inside the loop of a
// buffer directive when there is one: the storage that double_buffer.cc then double-buffers.
//
// t2s-merge checks every remove's target and applies those on producers that no
// space_time_transform transforms; t2s-stt applies the others once the transform (the
// producer's own or the one it inherits from the array) has made their final loops, and their
// consumers, transformed too, keep values over the transformed loops (a feeder's PE loops are
// unrolled loops of the storage's index, its lanes a vectorized one).
#include "libs/passes/common/remove_loops.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "libs/ir/expr_printer.h"
#include "libs/ir/strings.h"
#include "libs/ir/visitor.h"
#include "libs/passes/common/scopes.h"

namespace t2s {

namespace {

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
    if (!every_v_.empty() && (fixed_sends_ || value_))
      fail("'" + kernel_ + "' sends over '" + *every_v_.begin() + "' at every " + v_ +
               " but under a condition on " + v_ +
               " elsewhere: without the loop it would send only what one iteration sends",
           "remove-depends");
    if (!value_) value_ = min_;  // sends at every v, or nothing: at v = min as at any
    if (*value_ < min_ || *value_ >= min_ + extent_)
      fail("'" + kernel_ + "' sends only at " + v_ + " == " + std::to_string(*value_) +
               ", outside the loop's range [" + std::to_string(min_) + ", " +
               std::to_string(min_ + extent_) + "): it never sends",
           "remove-depends");
    Rewriter rewriter(*this);
    return rewriter.mutate_stmts(body);
  }

  // The channels over which the producer sends at every v (what it sent at every iteration it
  // now sends once; its consumer keeps the values, keep_values).
  const std::set<std::string>& every_v_channels() const { return every_v_; }

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
    return " (its loops: " + join(names, ", ") + ")";
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
    const auto fixed = fixed_var(e);
    if (!fixed || fixed->first != v_) return std::nullopt;
    return fixed->second;
  }

  // Checks one condition: every conjunct that uses v is `v == c`, one c for the whole loop.
  // Returns whether the condition fixes v.
  bool check_condition(const Expr& condition) {
    const std::vector<Expr> terms = conjuncts(condition);
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
        if (fixed)
          fixed_sends_ = true;
        else
          every_v_.insert(w->channel);
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
      const std::vector<Expr> terms = conjuncts(i.condition);
      std::vector<Expr> kept;
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
  bool fixed_sends_ = false;            // some send happens at v == c only
  std::set<std::string> every_v_;       // channels sent over at every v
  std::map<std::string, Expr> from_v_;  // lets inside the loop whose values use v
};

// The consumer's side of a producer that now sends once what it sent at every iteration of the
// removed loops `vars`: the consumer reads the channel at the first iteration of them all and
// keeps each value in storage of the producer's Func, indexed by its loops inside the outermost
// removed one; at the other iterations it reads the kept value. With a buffer directive, the
// storage lives inside the buffer's loop instead, indexed by the loops inside it (removed and
// fixed ones aside), and `vars` may be empty (every value is read once, from the storage).
class ValueKeeper : public ScopedMutator {
 public:
  // `remove`: the directive that made the producer send once (null: none, a buffer alone);
  // `buffer`: the buffer directive whose loop holds the storage (null: none).
  ValueKeeper(const Directive* remove, const Directive* buffer, const Kernel& consumer,
              const Channel& channel, const std::vector<std::string>& vars)
      : remove_(remove),
        buffer_(buffer),
        consumer_(consumer),
        channel_(channel),
        producer_(channel.producer),
        vars_(vars.begin(), vars.end()) {
    if (buffer_) at_ = buffer_->args[1].text;
  }

  StmtList apply() {
    StmtList body = mutate_stmts(consumer_.body);
    if (sites_ == 0)
      throw InternalError("remove: consumer '" + consumer_.name + "' does not read '" +
                          channel_.name + "'");
    // The storage lives across the iterations of the outermost removed loop, or inside the
    // buffer's loop.
    Wrapper wrap(*this);
    return wrap.mutate_stmts(body);
  }

 protected:
  StmtList mutate_stmts(const StmtList& list) override {
    StmtList out;
    for (const StmtPtr& s : list) {
      const Expr* read = nullptr;
      for (const Expr* e : s->exprs()) find_read(*e, false, &read);
      if (!read) {
        if (StmtPtr m = mutate_stmt(s)) out.push_back(m);
        continue;
      }
      if (++sites_ > 1)
        fail("'" + consumer_.name + "' reads '" + channel_.name +
             "' at more than one place; it keeps the values of one read only");
      keep(*read, s, &out);
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    if (remove_)
      throw Diagnostic(remove_->loc,
                       "remove on '" + remove_->func + "': it sends over '" + channel_.name +
                           "' once what it sent at every iteration of the removed loops, so its "
                           "consumer keeps the values; " +
                           why,
                       "remove-reuse");
    throw Diagnostic(buffer_->loc,
                     "buffer of '" + buffer_->func + "' at '" + at_ +
                         "': its double buffer holds the values '" + consumer_.name +
                         "' reads from '" + channel_.name + "'; " + why,
                     "buffer-read");
  }

  [[noreturn]] void fail_loop(const std::string& why) const {
    throw Diagnostic(buffer_->loc, "buffer of '" + buffer_->func + "' at '" + at_ + "': " + why,
                     "buffer-loop");
  }

  bool uses_removed(const Expr& e) const {
    bool found = false;
    for_each_expr(e, [&](const Expr& x) {
      if (x->kind == ExprKind::kVar && vars_.count(x->name)) found = true;
    });
    return found;
  }

  // The read of the channel in `e`, refused under a select (which reads only on its branch).
  void find_read(const Expr& e, bool under_select, const Expr** read) {
    if (!e) return;
    if (e->kind == ExprKind::kCall && e->call_kind == CallKind::kChannel && !e->operands.empty() &&
        e->operands[0]->name == channel_.name) {
      if (under_select)
        fail("'" + consumer_.name + "' reads it inside a select, which reads on one branch only");
      if (*read) fail("'" + consumer_.name + "' reads it twice in one statement");
      *read = &e;
    }
    const bool select = under_select || e->kind == ExprKind::kSelect;
    for (const Expr& o : e->operands) find_read(o, select, read);
  }

  // Replaces the statement `s` holding `read` with the keeping store and `s` reading the store.
  void keep(const Expr& read, const StmtPtr& s, StmtList* out) {
    for (const std::string& v : vars_) {
      bool inside = false;
      for (const For* f : loops_) inside = inside || f->var == v;
      if (!inside)
        fail("'" + consumer_.name + "' reads it outside its loop '" + v +
             "', so the values it needs again are not the ones of one iteration");
    }
    for (const Guard& g : guards_)
      if (uses_removed(g.condition))
        fail("'" + consumer_.name + "' reads it under the condition `" + print_expr(g.condition) +
             "`, which depends on a removed loop");
    for (size_t i = 1; i < read->operands.size(); ++i) {
      bool uses_let = false;
      for_each_expr(read->operands[i], [&](const Expr& x) {
        if (x->kind == ExprKind::kVar)
          for (const std::string& l : lets_) uses_let = uses_let || x->name == l;
      });
      if (uses_removed(read->operands[i]) || uses_let)
        fail("the channel index `" + print_expr(read->operands[i]) +
             "` of the read depends on the loops or lets around it");
    }
    if (read->type.lanes != 1)
      fail("the values are vectors (" + read->type.name() + "), and kept values are scalars");
    // Loops a condition around the read fixes (`jjj == 0`): one element of them is kept.
    // (An else branch fixes nothing.)
    std::set<std::string> fixed;
    for (const Guard& g : guards_)
      if (!g.negated)
        for (const Expr& t : conjuncts(g.condition))
          if (const auto f = fixed_var(t)) fixed.insert(f->first);
    // The storage: the loops inside the outermost removed loop (or the buffer's loop), removed
    // and fixed ones aside.
    size_t first = 0;
    if (buffer_) {
      while (first < loops_.size() && loops_[first]->var != at_) ++first;
      if (first == loops_.size())
        fail_loop("'" + consumer_.name + "' reads '" + channel_.name + "' outside loop '" + at_ +
                  "'" + (loops_.empty() ? "" : " (the loops around the read: " + names() + ")"));
      for (size_t q = 0; q <= first; ++q)
        if (vars_.count(loops_[q]->var))
          fail_loop("'" + producer_ + "' removes loop '" + loops_[q]->var + "', which is " +
                    (q == first ? "the buffer's loop" : "outside '" + at_ + "'") +
                    ": the buffer's loop must enclose the loops its producer removes (a period "
                    "refills the buffer)");
      ++first;
    } else {
      while (!vars_.count(loops_[first]->var)) ++first;
    }
    outer_ = buffer_ ? at_ : loops_[first]->var;
    std::vector<Expr> index;
    Expr first_iteration;
    const Type i32 = Type::Int(32);
    for (size_t q = first; q < loops_.size(); ++q) {
      const For& f = *loops_[q];
      if (f.min->kind != ExprKind::kIntImm || f.extent->kind != ExprKind::kIntImm)
        fail("its loop '" + f.var + "' has bounds that are not constants");
      if (vars_.count(f.var)) {
        Expr at_min = make_binary(BinaryOp::kEQ, make_var(f.var, i32, f.min->loc), f.min,
                                  Type::Bool(), s->loc);
        first_iteration = first_iteration ? make_binary(BinaryOp::kAnd, first_iteration, at_min,
                                                        Type::Bool(), s->loc)
                                          : at_min;
        continue;
      }
      if (fixed.count(f.var)) continue;
      index.push_back(make_var(f.var, i32, f.min->loc));
      mins_.push_back(f.min);
      extents_.push_back(f.extent);
    }
    if (index.empty()) {  // one value kept: storage of one element
      index.push_back(make_int(i32, 0, s->loc));
      mins_.push_back(make_int(i32, 0, s->loc));
      extents_.push_back(make_int(i32, 1, s->loc));
    }
    type_ = read->type;
    StmtPtr store = make_provide(producer_, index, read, s->loc);
    out->push_back(first_iteration ? make_if(first_iteration, {store}, {}, s->loc) : store);
    Expr kept = make_call(producer_, CallKind::kFunc, type_, index, read->loc);
    ReadReplacer replace(read, kept);
    out->push_back(replace.mutate_stmt(s));
  }

  // The statement with the read (by identity) replaced by the kept value.
  class ReadReplacer : public StmtMutator {
   public:
    ReadReplacer(const Expr& read, Expr kept) : read_(read), kept_(std::move(kept)) {}
    Expr mutate(const Expr& e) override { return e == read_ ? kept_ : StmtMutator::mutate(e); }

   private:
    const Expr& read_;
    Expr kept_;
  };

  std::string names() const {
    std::vector<std::string> out;
    for (const For* f : loops_) out.push_back(f->var);
    return join(out, ", ");
  }

  // Wraps the outermost removed loop in the storage (with a buffer, the body of its loop).
  class Wrapper : public StmtMutator {
   public:
    explicit Wrapper(const ValueKeeper& k) : k_(k) {}

   protected:
    StmtPtr mutate_for(const For& f, const StmtPtr& s) override {
      if (f.var != k_.outer_ || done_) return mutate_children(s);
      done_ = true;
      if (!k_.buffer_)
        return make_realize(k_.producer_, k_.type_, k_.mins_, k_.extents_, {s}, s->loc);
      For loop = f;
      loop.body = {make_realize(k_.producer_, k_.type_, k_.mins_, k_.extents_, f.body, s->loc)};
      return with_node(*s, loop);
    }

   private:
    const ValueKeeper& k_;
    bool done_ = false;
  };

  const Directive* remove_;
  const Directive* buffer_;
  const Kernel& consumer_;
  const Channel& channel_;
  std::string producer_, at_;
  std::set<std::string> vars_;
  int sites_ = 0;
  std::string outer_;
  Type type_;
  std::vector<Expr> mins_, extents_;
};

}  // namespace

void apply_removes(Program& p, const std::function<bool(const Kernel&)>& which,
                   const std::function<bool(const Kernel&)>& may_keep,
                   const std::map<std::string, const Directive*>& buffers) {
  std::map<std::string, std::set<std::string>> removed;  // producer -> its removed loops
  // channel -> the loops at every iteration of which its producer sent, and the directive
  struct Reuse {
    std::vector<std::string> vars;
    const Directive* directive = nullptr;
  };
  std::map<std::string, Reuse> reuse;
  for (const Directive& d : p.directives) {
    if (!d.is(DirectiveKind::kRemove)) continue;
    for (Kernel& k : p.kernels) {
      if (k.name != d.func || !which(k)) continue;
      for (const DirectiveArg& a : d.args) {
        const std::string& v = a.text;
        if (!removed[d.func].insert(v).second)
          throw Diagnostic(d.loc, "loop '" + v + "' of '" + d.func + "' is removed twice",
                           "remove-loop");
        LoopRemoval removal(d, k.name, v);
        k.body = removal.apply(k.body);
        for (const std::string& ch : removal.every_v_channels()) {
          reuse[ch].vars.push_back(v);
          reuse[ch].directive = &d;
        }
      }
    }
  }
  std::set<std::string> keeping;  // producers whose values a consumer keeps
  for (const auto& [name, r] : reuse) {
    const Directive& d = *r.directive;
    const Channel* channel = p.find_channel(name);
    if (!channel) throw InternalError("remove: no channel '" + name + "'");
    Kernel* consumer = nullptr;
    for (Kernel& k : p.kernels)
      if (k.name == channel->consumer) consumer = &k;
    if (!consumer) throw InternalError("remove: no consumer of '" + name + "'");
    if (!may_keep(*consumer))
      throw Diagnostic(d.loc,
                       "remove on '" + d.func + "': it sends over '" + name +
                           "' at every iteration of '" + r.vars.front() +
                           "', so without the loop its consumer '" + consumer->name +
                           "' must keep the values for the other iterations; t2s-merge builds "
                           "that storage only in a consumer that no space_time_transform "
                           "transforms, and '" +
                           consumer->name +
                           "' is transformed: isolate a feeder between them (a second producer "
                           "in the isolate_producer_chain)",
                       "remove-reuse");
    if (!keeping.insert(d.func).second)
      throw Diagnostic(d.loc,
                       "remove on '" + d.func +
                           "': it sends over more than one channel at every iteration of the "
                           "removed loops (a list isolation); its consumer keeps the values of "
                           "one channel only",
                       "remove-reuse");
    const auto buffer = buffers.find(d.func);
    consumer->body = ValueKeeper(&d, buffer == buffers.end() ? nullptr : buffer->second, *consumer,
                                 *channel, r.vars)
                         .apply();
  }
}

StmtList keep_values(const Directive& buffer, const Kernel& consumer, const Channel& channel) {
  return ValueKeeper(nullptr, &buffer, consumer, channel, {}).apply();
}

}  // namespace t2s
