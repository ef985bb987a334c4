// The channels of the stt stage (docs/ir.md, "The stt stage", "Channels"), once every kernel is
// transformed:
//
//   - a channel whose producer was transformed becomes an array of channels, one per PE of the
//     producer that writes it: `dims` are the extents of the producer's space loops, outermost
//     first, without its lanes (vectorized loops, which the channel's type carries) and without
//     the space loops the writes do not vary in (the reduction's last PE: `if (k == K - 1)`)
//     or that the kept ones determine (a diagonal `if (j == k)` is an array over j).
//     Each PE writes the element of its own index (`write_channel(ch, [iii, jjj])`, constants
//     once the PEs are unrolled); the consumer reads the element of the same loop variables,
//     which it has since it copies them (`read_channel(ch, iii, jjj)`), whatever its own
//     schedule;
//   - a channel element is a FIFO, so the values written to it must be read in the order they
//     were written. With isl (libs/poly) on the iteration domains of both ends and the
//     conditions under which they write and read: two values of one element that the producer
//     writes in one order and the consumer reads in the other are `stt-channel-order`, with the
//     two values in the spec's variables. Values are matched by the loop variables both ends
//     have (the channel Func's arguments); where an end splits or lacks one of them, so that
//     they do not identify a value, each transformed end must keep the order its merged kernel
//     visits each element's values in (the merged stage pairs them right).
#include <algorithm>
#include <functional>
#include <set>
#include <utility>

#include "libs/ir/expr_printer.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"
#include "libs/passes/stt/stt_internal.h"

namespace t2s::stt_internal {

namespace {

using poly::Cond;

// The conditions on the path to each place one iteration's statements write (or read) channel
// `ch`: enclosing ifs, select branches, the right operand of && and ||.
class Sites : StmtVisitor {
 public:
  Sites(const std::string& ch, bool write, const StmtList& body) : ch_(ch), write_(write) {
    visit_stmts(body);
  }
  const std::vector<std::vector<Expr>>& paths() const { return paths_; }

 private:
  static Expr negate(const Expr& c) { return make_unary(UnaryOp::kNot, c, Type::Bool()); }

  // Every statement's operands are on the path that leads to it; its nested lists follow.
  void visit_stmt(const Stmt& s) override {
    for (const Expr* e : s.exprs()) expr(*e, path_);
    StmtVisitor::visit_stmt(s);
  }
  void visit_if(const IfThenElse& i, const Stmt&) override {
    path_.push_back(i.condition);
    visit_stmts(i.then_body);
    path_.back() = negate(i.condition);
    visit_stmts(i.else_body);
    path_.pop_back();
  }
  void visit_write_channel(const WriteChannel& w, const Stmt&) override {
    if (write_ && w.channel == ch_) paths_.push_back(path_);
  }

  void expr(const Expr& e, std::vector<Expr>& path) {
    if (!e) return;
    if (e->kind == ExprKind::kSelect) {
      expr(e->operands[0], path);
      path.push_back(e->operands[0]);
      expr(e->operands[1], path);
      path.back() = negate(e->operands[0]);
      if (e->operands.size() > 2) expr(e->operands[2], path);
      path.pop_back();
      return;
    }
    if (e->kind == ExprKind::kBinary &&
        (e->binary_op == BinaryOp::kAnd || e->binary_op == BinaryOp::kOr)) {
      expr(e->operands[0], path);
      path.push_back(e->binary_op == BinaryOp::kAnd ? e->operands[0] : negate(e->operands[0]));
      expr(e->operands[1], path);
      path.pop_back();
      return;
    }
    if (!write_ && e->kind == ExprKind::kCall && e->call_kind == CallKind::kChannel &&
        e->operands[0]->name == ch_)
      paths_.push_back(path);
    for (const Expr& o : e->operands) expr(o, path);
  }

  std::string ch_;
  bool write_;
  std::vector<Expr> path_;  // the conditions around the statement being visited
  std::vector<std::vector<Expr>> paths_;
};

// Control UREs (T2SP's `lastk(P) = select(jj == 0, k == K - 1, lastk(P_jj_minus_1))`): a Func
// provided in the body as select(v == min, E, F(..., v - 1, ...)), with E free of v, holds E at
// every iteration (by induction along v from its minimum). Conditions that read such a Func at
// the iteration's own point are rewritten to E, so isl sees which PEs write a channel
// (`if (lastk(P)) write_channel c ...` writes only at k == K - 1).
class ControlResolver : public ExprMutator {
 public:
  ControlResolver(const KernelView& v) {
    // Only the body's own provides define control UREs.
    for (const StmtPtr& st : v.body)
      match_stmt(
          *st, [](const For&) {}, [](const LetStmt&) {}, [](const IfThenElse&) {},
          [&](const Provide& p) { learn(p, v); }, [](const Alloc&) {}, [](const WriteChannel&) {},
          [](const Realize&) {}, [](const Shift&) {}, [](const Push&) {});
  }
  bool empty() const { return controls_.empty(); }

 protected:
  Expr mutate_call(const Expr& e) override {
    auto it = controls_.find(e->name);
    if (e->call_kind == CallKind::kFunc && it != controls_.end() &&
        e->operands.size() == it->second.args.size()) {
      bool own_point = true;
      for (size_t a = 0; a < e->operands.size(); ++a)
        own_point = own_point && equal(e->operands[a], it->second.args[a]);
      if (own_point) return it->second.value;
    }
    return mutate_operands(e);
  }

 private:
  // Records `p` when it is a control URE over one of the loops of `v`.
  void learn(const Provide& p, const KernelView& v) {
    if (!p.value || p.value->kind != ExprKind::kSelect || p.value->operands.size() != 3) return;
    const Expr& cond = p.value->operands[0];
    const Expr& base = p.value->operands[1];
    const Expr& rec = p.value->operands[2];
    if (cond->kind != ExprKind::kBinary || cond->binary_op != BinaryOp::kEQ ||
        cond->operands[0]->kind != ExprKind::kVar || cond->operands[1]->kind != ExprKind::kIntImm)
      return;
    const std::string var = cond->operands[0]->name;
    auto at = std::find(v.names.begin(), v.names.end(), var);
    if (at == v.names.end() ||
        v.mins[static_cast<size_t>(at - v.names.begin())] != cond->operands[1]->int_value)
      return;
    if (rec->kind != ExprKind::kCall || rec->call_kind != CallKind::kFunc || rec->name != p.func ||
        rec->operands.size() != p.args.size())
      return;
    bool shifted = false, args_ok = true;
    for (size_t a = 0; a < p.args.size() && args_ok; ++a) {
      if (p.args[a]->kind != ExprKind::kVar) args_ok = false;
      if (!args_ok) break;
      if (p.args[a]->name == var) {
        shifted = print_expr(rec->operands[a]) == var + " - 1";
        args_ok = shifted;
      } else {
        args_ok = equal(rec->operands[a], p.args[a]);
      }
    }
    bool uses_var = false;
    for_each_expr(base, [&](const Expr& e) {
      uses_var |= (e->kind == ExprKind::kVar && e->name == var) ||
                  (e->kind == ExprKind::kCall && e->call_kind != CallKind::kIntrinsic);
    });
    if (!args_ok || !shifted || uses_var) return;
    controls_[p.func] = {p.args, base};
  }

  struct Control {
    std::vector<Expr> args;
    Expr value;
  };
  std::map<std::string, Control> controls_;
};

std::vector<std::vector<Expr>> resolve_controls(std::vector<std::vector<Expr>> paths,
                                                const KernelView& v) {
  ControlResolver resolver(v);
  if (resolver.empty()) return paths;
  for (std::vector<Expr>& path : paths)
    for (Expr& e : path) e = resolver.mutate(e);
  return paths;
}

// One copy of a kernel's iterations among the dims of a set: its original loop variables.
struct Copy {
  const KernelView* view = nullptr;
  poly::VarDims dims;            // loop variable -> dim
  std::vector<std::string> isl;  // dims, in the order of view->names
  size_t offset = 0;             // position of the first dim in the set
  std::vector<size_t> pos;       // the position of each dim in the set (a witness's index)

  poly::Aff of(const Aff& a) const { return poly::Aff::linear(a.coeff, isl, a.constant); }
  poly::Aff var(const std::string& name) const { return poly::Aff::dim(dims.at(name)); }
};

Copy add_copy(poly::Set& set, const KernelView& v, const std::string& tag) {
  Copy c;
  c.view = &v;
  c.offset = set.dims().size();
  for (size_t i = 0; i < v.names.size(); ++i) {
    const std::string d = tag + std::to_string(i);
    set.add_dim(d);
    set.where(Cond::range(v.mins[i], poly::Aff::dim(d), v.mins[i] + v.extents[i]));
    c.dims[v.names[i]] = d;
    c.isl.push_back(d);
    c.pos.push_back(c.offset + i);
  }
  return c;
}

// The iteration uses the channel: any of the paths, each the conjunction of its conditions
// that are quasi-affine in the loop variables (the others are taken to hold).
// A copy of `v` whose every loop variable is `other`'s of the same name (no dims of its own):
// the other end's iteration with the same values of the common loops, when those are all of
// `v`'s loop variables.
Copy alias_copy(const KernelView& v, const Copy& other) {
  Copy c;
  c.view = &v;
  c.offset = other.offset;
  for (const std::string& name : v.names) {
    c.dims[name] = other.dims.at(name);
    c.isl.push_back(other.dims.at(name));
    const size_t at =
        static_cast<size_t>(std::find(other.view->names.begin(), other.view->names.end(), name) -
                            other.view->names.begin());
    c.pos.push_back(other.pos.at(at));
  }
  return c;
}

Cond used_at(const std::vector<std::vector<Expr>>& paths, const Copy& c) {
  std::vector<Cond> any;
  for (const std::vector<Expr>& path : paths) {
    Cond all = Cond::always(true);
    for (const Expr& e : path)
      if (auto cond = Cond::from_expr(e, c.dims)) all = all && *cond;
    any.push_back(all);
  }
  return Cond::any_of(any);
}

// x runs before y in the merged stage's loop order of the view.
Cond merged_first(const Copy& x, const Copy& y) {
  std::optional<Cond> first;
  for (size_t v : x.view->input_order) {
    const poly::Aff a = poly::Aff::dim(x.isl[v]), b = poly::Aff::dim(y.isl[v]);
    first = first ? a < b || (a == b && *first) : a < b;
  }
  return first.value_or(Cond::always(false));
}

// "(k = 0, j = 1, i = 0)": the loop variables `names` (outermost first) at a witness.
std::string point(const std::vector<std::string>& names, const Copy& c,
                  const std::vector<int64_t>& w) {
  std::string s = "(";
  for (size_t i = 0; i < names.size(); ++i) {
    const size_t at = static_cast<size_t>(
        std::find(c.view->names.begin(), c.view->names.end(), names[i]) - c.view->names.begin());
    s += (i ? ", " : "") + names[i] + " = " + std::to_string(w[c.pos.at(at)]);
  }
  return s + ")";
}

std::vector<std::string> outermost_first(const KernelView& v) {
  return std::vector<std::string>(v.names.rbegin(), v.names.rend());
}

// The channel `ch` of the program, with its two ends.
class ChannelArranger {
 public:
  ChannelArranger(Program& out, Channel& ch, const std::map<std::string, KernelView>& views)
      : out_(out), ch_(ch) {
    if (auto p = views.find(ch.producer); p != views.end()) p_ = &p->second;
    if (auto c = views.find(ch.consumer); c != views.end()) c_ = &c->second;
  }

  void run() {
    // An untransformed producer with unrolled PEs writes a channel array too.
    const bool p_moved = p_ && (p_->transformed || !p_->space.empty()),
               c_moved = c_ && c_->transformed;
    if (!p_moved && !c_moved) return;
    if (!p_ || !c_) return;  // not one loop nest: IR written by hand, left as it is
    writes_ = resolve_controls(Sites(ch_.name, true, p_->body).paths(), *p_);
    reads_ = resolve_controls(Sites(ch_.name, false, c_->body).paths(), *c_);
    if (p_moved) make_array();
    check_order();
  }

 private:
  // The producer's PEs that write the channel become its dimensions.
  void make_array() {
    // A space loop is a dimension unless the writes do not vary in it (the reduction's last
    // PE: `if (k == K - 1)`) or the dimensions kept already determine it (a diagonal: `O`
    // written where `k == j` by PEs (j, k) is an array over j). The loops the consumer can
    // index with are tried first, so a diagonal is indexed by the one it has.
    std::vector<const KernelView::Space*> candidates;
    for (bool readable : {true, false})
      for (const KernelView::Space& s : p_->space)
        if (consumer_has_all(s) == readable) candidates.push_back(&s);
    std::set<const KernelView::Space*> kept;
    for (const KernelView::Space* s : candidates)
      if (!determined(*s, kept)) kept.insert(s);
    for (const KernelView::Space& s : p_->space)
      if (kept.count(&s)) dims_.push_back(&s);
    if (dims_.empty()) return;
    // Outermost first, as the array is declared; each in the consumer's loop variables.
    std::vector<Expr> write_index, read_index;
    std::vector<int64_t> dims;
    for (auto it = dims_.rbegin(); it != dims_.rend(); ++it) {
      const KernelView::Space& s = **it;
      dims.push_back(s.extent);
      write_index.push_back(s.min == 0 ? loop_var(s.loop)
                                       : binop(BinaryOp::kSub, loop_var(s.loop), int_lit(s.min)));
      std::vector<int64_t> coeff(c_->names.size(), 0);
      for (size_t v = 0; v < p_->names.size(); ++v) {
        if (s.aff.coeff[v] == 0) continue;
        const size_t at = common(p_->names[v]);
        if (at == c_->names.size())
          throw Diagnostic(
              p_->at,
              p_->what + ": channel '" + ch_.name + "' becomes an array over the PEs of '" +
                  p_->kernel + "' (one element per value of " + space_text() +
                  "), but its consumer '" + c_->kernel + "' has no loop '" + p_->names[v] +
                  "' over [" + std::to_string(p_->mins[v]) + ", " +
                  std::to_string(p_->mins[v] + p_->extents[v]) +
                  ") to read the element of each value with (it splits or lacks that loop)",
              "stt-channel-index");
        coeff[at] = s.aff.coeff[v];
      }
      read_aff_.push_back(Aff{coeff, s.aff.constant - s.min});
      read_index.push_back(linear(coeff, c_->names, s.aff.constant - s.min));
    }
    ch_.dims = dims;
    for (Kernel& k : out_.kernels) {
      if (k.name == ch_.producer) k.body = set_write_index(k.body, write_index);
      if (k.name == ch_.consumer) k.body = set_read_index(k.body, read_index);
    }
  }

  bool consumer_has_all(const KernelView::Space& s) const {
    for (size_t v = 0; v < p_->names.size(); ++v)
      if (s.aff.coeff[v] != 0 && common(p_->names[v]) == c_->names.size()) return false;
    return true;
  }

  // Two writes at PEs that agree on every space loop in `kept` agree on `s` too.
  bool determined(const KernelView::Space& s, const std::set<const KernelView::Space*>& kept) {
    poly::Set set;
    Copy x = add_copy(set, *p_, "x");
    set.where(used_at(writes_, x));
    if (kept.empty()) return poly::single_value(set, x.of(s.aff)).has_value();
    Copy y = add_copy(set, *p_, "y");
    set.where(used_at(writes_, y));
    for (const KernelView::Space* k : kept) set.where(x.of(k->aff) == y.of(k->aff));
    set.where(x.of(s.aff) < y.of(s.aff));
    return poly::is_empty(set);
  }

  std::string space_text() const {
    std::string s;
    for (auto it = dims_.rbegin(); it != dims_.rend(); ++it)
      s += (s.empty() ? "" : ", ") + (*it)->loop;
    return s;
  }

  // The consumer's loop variable that is the producer's `name` (same name, same range), or
  // c_->names.size().
  size_t common(const std::string& name) const {
    auto p = std::find(p_->names.begin(), p_->names.end(), name);
    auto c = std::find(c_->names.begin(), c_->names.end(), name);
    if (p == p_->names.end() || c == c_->names.end()) return c_->names.size();
    const size_t pi = static_cast<size_t>(p - p_->names.begin());
    const size_t ci = static_cast<size_t>(c - c_->names.begin());
    if (p_->mins[pi] != c_->mins[ci] || p_->extents[pi] != c_->extents[ci]) return c_->names.size();
    return ci;
  }

  StmtList set_write_index(const StmtList& body, const std::vector<Expr>& index) {
    class Writes : public StmtMutator {
     public:
      Writes(const std::string& ch, const std::vector<Expr>& index) : ch_(ch), index_(index) {}

     protected:
      StmtPtr mutate_write_channel(const WriteChannel& w, const StmtPtr& s) override {
        if (w.channel != ch_) return s;
        WriteChannel indexed = w;
        indexed.index = index_;
        return with_node(*s, std::move(indexed));
      }

     private:
      const std::string& ch_;
      const std::vector<Expr>& index_;
    } writes(ch_.name, index);
    return writes.mutate_stmts(body);
  }

  StmtList set_read_index(const StmtList& body, const std::vector<Expr>& index) {
    class Reads : public StmtMutator {
     public:
      Reads(const std::string& ch, const std::vector<Expr>& index) : ch_(ch), index_(index) {}

     protected:
      Expr mutate_call(const Expr& e) override {
        Expr m = mutate_operands(e);
        if (e->call_kind != CallKind::kChannel || e->operands[0]->name != ch_) return m;
        std::vector<Expr> operands{m->operands[0]};
        operands.insert(operands.end(), index_.begin(), index_.end());
        return make_call(m->name, CallKind::kChannel, m->type, operands, m->loc);
      }

     private:
      const std::string& ch_;
      const std::vector<Expr>& index_;
    } reads(ch_.name, index);
    return reads.mutate_stmts(body);
  }

  // The element a value goes through, at an iteration of the producer (copy x) or of the
  // consumer (copy y): equal for the two copies of one end.
  void same_element(poly::Set& set, const Copy& a, const Copy& b, bool producer) const {
    for (size_t d = 0; d < dims_.size(); ++d) {
      const Aff& f = producer ? dims_[dims_.size() - 1 - d]->aff : read_aff_[d];
      set.where(a.of(f) == b.of(f));
    }
  }

  void check_order() {
    const bool exact_sites = writes_.size() == 1 && reads_.size() == 1;
    // The loop variables both ends have: the values' identity when each end uses each of
    // their values once.
    for (size_t v = 0; v < c_->names.size(); ++v)
      if (common(c_->names[v]) == v) keys_.push_back(c_->names[v]);
    if (exact_sites && same_schedule()) return;
    if (exact_sites && !keys_.empty() && identifies(*p_, writes_) && identifies(*c_, reads_)) {
      exact();
      return;
    }
    for (const KernelView* end : {p_, c_})
      if (end->transformed) keeps_order(*end, exact_sites);
  }

  // The two ends have the same loop variables over the same ranges (every one a key) and run
  // the iterations in the same order (a consumer that inherits its producer's transform): a
  // value is written and read at the same point of that order, so two values cannot cross,
  // and isl need not be asked (exact() would find nothing).
  bool same_schedule() const {
    if (keys_.size() != c_->names.size() || p_->names.size() != c_->names.size()) return false;
    if (p_->position.constant != c_->position.constant) return false;
    for (size_t v = 0; v < c_->names.size(); ++v) {
      const size_t at = static_cast<size_t>(
          std::find(p_->names.begin(), p_->names.end(), c_->names[v]) - p_->names.begin());
      if (at == p_->names.size() || p_->position.coeff[at] != c_->position.coeff[v]) return false;
    }
    return true;
  }

  // Each iteration of `v` that uses the channel has its own values of the common loops.
  bool identifies(const KernelView& v, const std::vector<std::vector<Expr>>& paths) const {
    if (keys_.size() == v.names.size()) return true;  // every loop variable is a key
    poly::Set set;
    Copy a = add_copy(set, v, "a"), b = add_copy(set, v, "b");
    set.where(used_at(paths, a)).where(used_at(paths, b));
    // The keys are equal: the two iterations differ in another loop variable (fewer
    // disjuncts for isl than differing in any).
    std::vector<Cond> any;
    for (const std::string& name : v.names)
      if (std::find(keys_.begin(), keys_.end(), name) == keys_.end())
        any.push_back(a.var(name) != b.var(name));
    set.where(Cond::any_of(any));
    for (const std::string& k : keys_) set.where(a.var(k) == b.var(k));
    return poly::is_empty(set);
  }

  // Two values of one element that the producer writes in one order and the consumer reads in
  // the other.
  void exact() {
    poly::Set set;
    Copy x1 = add_copy(set, *p_, "x"), x2 = add_copy(set, *p_, "X");
    // When every loop variable of the consumer is a key, its iteration is the producer's
    // keys: the consumer's copies share the producer's dims (half the dims for isl).
    const bool alias = keys_.size() == c_->names.size();
    Copy y1 = alias ? alias_copy(*c_, x1) : add_copy(set, *c_, "y");
    Copy y2 = alias ? alias_copy(*c_, x2) : add_copy(set, *c_, "Y");
    set.where(used_at(writes_, x1)).where(used_at(writes_, x2));
    set.where(used_at(reads_, y1)).where(used_at(reads_, y2));
    for (const std::string& k : keys_) {
      if (alias) break;
      set.where(x1.var(k) == y1.var(k));
      set.where(x2.var(k) == y2.var(k));
    }
    same_element(set, x1, x2, true);
    set.where(x1.of(p_->position) < x2.of(p_->position));
    set.where(y2.of(c_->position) < y1.of(c_->position));
    auto w = poly::sample(set);
    if (!w) return;
    std::vector<std::string> keys;  // outermost first, in the consumer's loop order
    for (const std::string& n : outermost_first(*c_))
      if (std::find(keys_.begin(), keys_.end(), n) != keys_.end()) keys.push_back(n);
    const KernelView& at = c_->transformed ? *c_ : *p_;
    throw Diagnostic(at.at,
                     at.what + ": channel '" + ch_.name +
                         "' would hand its values over in another order: '" + p_->kernel +
                         "' writes the value of " + point(keys, y1, *w) + " before the value of " +
                         point(keys, y2, *w) + element_text(x1, *w) + ", but '" + c_->kernel +
                         "' reads them the other way round (each element of a channel is a "
                         "FIFO: its values are read in the order they are written)",
                     "stt-channel-order");
  }

  std::string element_text(const Copy& x, const std::vector<int64_t>& w) const {
    if (dims_.empty()) return "";
    std::string s = " into element [";
    for (size_t d = 0; d < dims_.size(); ++d) {
      const KernelView::Space& space = *dims_[dims_.size() - 1 - d];
      int64_t value = space.aff.constant - space.min;
      for (size_t v = 0; v < x.isl.size(); ++v) value += space.aff.coeff[v] * w[x.offset + v];
      s += (d ? ", " : "") + std::to_string(value);
    }
    return s + "]";
  }

  // The values cannot be matched by loop variables: the transformed end `v` must visit the
  // values of each element in the order of its merged kernel, which the other end keeps or
  // is held to as well.
  void keeps_order(const KernelView& v, bool sites_known) {
    const bool producer = &v == p_;
    const std::vector<std::vector<Expr>>& paths = producer ? writes_ : reads_;
    poly::Set set;
    Copy a = add_copy(set, v, "a"), b = add_copy(set, v, "b");
    if (sites_known) {
      set.where(used_at(paths, a)).where(used_at(paths, b));
      same_element(set, a, b, producer);
    }
    set.where(merged_first(a, b));
    set.where(b.of(v.position) < a.of(v.position));
    auto w = poly::sample(set);
    if (!w) return;
    const std::vector<std::string> names = outermost_first(v);
    const KernelView& other = producer ? *c_ : *p_;
    throw Diagnostic(
        v.at,
        v.what + ": it changes the order in which '" + v.kernel + "' " +
            (producer ? "writes" : "reads") + " the values of channel '" + ch_.name + "'" +
            (sites_known ? element_text_of(v, a, *w) : "") + ": its iteration " +
            point(names, a, *w) + " came before " + point(names, b, *w) +
            " and now comes after it; the loops of the two ends do not name the values alike "
            "(one of them splits or lacks a loop over them), so t2s-stt cannot tell whether '" +
            other.kernel + "' at the other end changes its order the same way",
        "stt-channel-order");
  }

  std::string element_text_of(const KernelView& v, const Copy& a,
                              const std::vector<int64_t>& w) const {
    if (dims_.empty()) return "";
    if (&v == p_) return element_text(a, w);
    std::string s = " (element [";
    for (size_t d = 0; d < read_aff_.size(); ++d) {
      int64_t value = read_aff_[d].constant;
      for (size_t i = 0; i < a.isl.size(); ++i) value += read_aff_[d].coeff[i] * w[a.offset + i];
      s += (d ? ", " : "") + std::to_string(value);
    }
    return s + "])";
  }

  Program& out_;
  Channel& ch_;
  const KernelView* p_ = nullptr;
  const KernelView* c_ = nullptr;
  std::vector<std::vector<Expr>> writes_, reads_;
  std::vector<const KernelView::Space*> dims_;  // innermost first
  std::vector<Aff> read_aff_;  // the element over the consumer's loops, outermost first
  std::vector<std::string> keys_;
};

}  // namespace

std::optional<KernelView> untransformed_view(const Kernel& k) {
  const LoopNest nest = loop_nest(k.body);
  const std::vector<const For*>& loops = nest.loops;  // outermost first
  if (loops.empty()) return std::nullopt;
  KernelView v;
  v.kernel = k.name;
  v.at = k.loc;
  v.what = "kernel '" + k.name + "'";
  const size_t n = loops.size();
  v.position = Aff::zero(n);
  int64_t stride = 1;
  for (size_t i = 0; i < n; ++i) {
    const For& l = *loops[n - 1 - i];  // innermost first
    if (l.min->kind != ExprKind::kIntImm || l.extent->kind != ExprKind::kIntImm)
      return std::nullopt;
    v.names.push_back(l.var);
    v.mins.push_back(l.min->int_value);
    v.extents.push_back(l.extent->int_value);
    v.input_order.push_back(i);
    // The same bound as a transformed kernel's (hand-edited IR may nest loops past it).
    const int64_t extent = std::max<int64_t>(l.extent->int_value, 1);
    if (extent > kMaxPositions / stride) throw PositionOverflow();
    v.position.coeff[i] = stride;
    v.position.constant = checked_add(v.position.constant, checked_mul(-stride, l.min->int_value));
    stride *= extent;
  }
  // Its innermost unrolled loops are PEs, as a transform's space loops (seed 003: "loop i is a
  // space loop (an unrolled or vectorized loop)"): a channel it writes inside them becomes an
  // array over them, one channel per unrolled PE, as after a space_time_transform. Vectorized
  // loops inside them are lanes, which the channel's type carries.
  for (size_t i = 0; i < n; ++i) {
    const For& l = *loops[n - 1 - i];
    if (l.loop_kind == LoopKind::kVectorized && v.space.empty()) continue;
    if (l.loop_kind != LoopKind::kUnrolled) break;
    Aff a = Aff::zero(n);
    a.coeff[i] = 1;
    v.space.push_back({l.var, a, l.min->int_value, l.extent->int_value});
  }
  v.body = *nest.body;
  return v;
}

void arrange_channels(Program& out, const std::map<std::string, KernelView>& views) {
  for (Channel& ch : out.channels) ChannelArranger(out, ch, views).run();
}

}  // namespace t2s::stt_internal
