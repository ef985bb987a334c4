// t2s-gather: finding and checking one gather (seed 003, "Error checking"). Every error is
// located at the gather directive. docs/ir.md, "The gathered stage", states the form taken.
#include <algorithm>
#include <map>

#include "libs/ir/expr_printer.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"
#include "libs/passes/gather/gather_internal.h"

namespace t2s {
namespace gather_internal {
namespace {

// A read of A's channel in F's kernel: a read_channel, or the concat of the reads of a
// vectorized read's lanes.
struct Found {
  std::vector<size_t> path;
  const Stmt* stmt = nullptr;                      // the statement the read is (in) an operand of
  const Provide* provide = nullptr;                // its node, when it is a provide
  const WriteChannel* write = nullptr;             // its node, when it is a write_channel
  std::vector<const For*> loops;                   // the loops around it, outermost first
  std::vector<std::pair<std::string, Expr>> lets;  // the lets around it, outermost first
  // The condition of the outermost if around the read (or whose condition it is in); null
  // when there is none.
  Expr condition;
  Expr read;
  std::string place;       // "value" when it is (in) the value a statement writes
  bool in_select = false;  // inside a select's value or the right operand of && / ||
};

// Calls `f` on every write_channel of `list`, in program order.
template <typename F>
void for_each_write(const StmtList& list, F&& f) {
  class Writes : public StmtVisitor {
   public:
    explicit Writes(F& f) : f_(f) {}

   protected:
    void visit_write_channel(const WriteChannel& w, const Stmt&) override { f_(w); }

   private:
    F& f_;
  } writes(f);
  writes.visit_stmts(list);
}

class ReadFinder {
 public:
  explicit ReadFinder(std::string channel) : channel_(std::move(channel)) {}

  void stmts(const StmtList& list) {
    const Stmt* outer = stmt_;
    for (size_t i = 0; i < list.size(); ++i) {
      path_.push_back(i);
      stmt_ = list[i].get();
      stmt(*list[i]);
      path_.pop_back();
    }
    stmt_ = outer;
  }

  std::vector<Found> found;

 private:
  void stmt(const Stmt& s) {
    // The kinds the chain did not name.
    const auto otherwise = [&] {
      for (const Expr* e : s.exprs()) expr(*e, "a register access");
    };
    match_stmt(
        s,
        [&](const For& f) {
          expr(f.min, "a loop bound");
          expr(f.extent, "a loop bound");
          loops_.push_back(&f);
          stmts(f.body);
          loops_.pop_back();
        },
        [&](const LetStmt& l) {
          expr(l.value, "a let");
          lets_.push_back({l.var, l.value});
          stmts(l.body);
          lets_.pop_back();
        },
        [&](const IfThenElse& i) {
          ifs_.push_back(i.condition);
          expr(i.condition, "an if condition");
          stmts(i.then_body);
          stmts(i.else_body);
          ifs_.pop_back();
        },
        [&](const Provide& p) {
          provide_ = &p;
          for (const Expr& a : p.args) expr(a, "an index");
          expr(p.value, "value");
          provide_ = nullptr;
        },
        [&](const Alloc&) { otherwise(); },
        [&](const WriteChannel& w) {
          write_ = &w;
          for (const Expr& a : w.index) expr(a, "a channel index");
          expr(w.value, "value");
          write_ = nullptr;
        },
        [&](const Realize& r) {
          for (const Expr& e : r.mins) expr(e, "storage bounds");
          for (const Expr& e : r.extents) expr(e, "storage bounds");
          stmts(r.body);
        },
        [&](const Shift&) { otherwise(); }, [&](const Push&) { otherwise(); });
  }

  void expr(const Expr& e, const char* place, bool conditional = false) {
    if (!e) return;
    if (is_lane_reads_of(e, channel_) || is_read_of(e, channel_)) {
      found.push_back({path_, stmt_, provide_, write_, loops_, lets_,
                       ifs_.empty() ? nullptr : ifs_[0], e, place, conditional});
      return;
    }
    const bool logical = e->kind == ExprKind::kBinary &&
                         (e->binary_op == BinaryOp::kAnd || e->binary_op == BinaryOp::kOr);
    for (size_t i = 0; i < e->operands.size(); ++i)
      expr(e->operands[i], place,
           conditional || (e->kind == ExprKind::kSelect && i > 0) || (logical && i > 0));
  }

  std::string channel_;
  std::vector<size_t> path_;
  const Stmt* stmt_ = nullptr;
  const Provide* provide_ = nullptr;
  const WriteChannel* write_ = nullptr;
  std::vector<const For*> loops_;
  std::vector<std::pair<std::string, Expr>> lets_;
  std::vector<Expr> ifs_;  // the conditions of the ifs around, outermost first
};

class Analysis {
 public:
  Analysis(const Program& p, const Directive& d) : p_(p), d_(d) {}

  Site run() {
    s_.directive = &d_;
    s_.func = d_.func;
    if (d_.args.size() < 2) fail("gather takes a Func and a loop", "gather-loop");
    s_.source = d_.args[0].text;
    s_.var = d_.args[1].text;
    s_.down = d_.args.size() > 2 && d_.args[2].text == "GatherStrategy::Down";
    kernels();
    channel();
    const Found r = read();
    loops(r);
    if (s_.form == Site::kWhole) {
      if (s_.write) s_.out_channel = s_.write->channel;
      return s_;
    }
    if (s_.form == Site::kUnrolled)
      unrolled_read();
    else
      vectorized_read();
    output();
    if (s_.form == Site::kUnrolled && s_.down) down_keeps_order(r);
    return s_;
  }

 private:
  [[noreturn]] void fail(const std::string& message, const char* rule) const {
    throw Diagnostic(d_.loc, "gather: " + message, rule);
  }

  std::string q(const std::string& name) const { return "'" + name + "'"; }

  // F must have a kernel of its own; A's values come from the kernel of its merge group.
  void kernels() {
    std::map<std::string, std::string> rep_of;  // merged member -> representative
    std::map<std::string, std::vector<std::string>> members;
    for (const Directive& m : p_.directives) {
      if (!m.is(DirectiveKind::kMergeUres)) continue;
      for (const DirectiveArg& a : m.args) {
        rep_of[a.text] = m.func;
        members[m.func].push_back(a.text);
      }
    }
    if (rep_of.count(s_.func))
      fail(q(s_.func) + " is merged into " + q(rep_of.at(s_.func)) +
               " (merge_ures); gather needs a Func with a kernel of its own, such as an isolated "
               "consumer",
           "gather-func");
    if (members.count(s_.func))
      fail(q(s_.func) + " computes the merged UREs " + s_.func + ", " +
               join_names(members.at(s_.func)) +
               " in one kernel; gather needs a Func whose kernel computes it alone, such as an "
               "isolated consumer",
           "gather-func");
    kernel_ = nullptr;
    for (const Kernel& k : p_.kernels)
      if (k.name == s_.func) kernel_ = &k;
    if (!kernel_)
      fail(q(s_.func) +
               " has no kernel of its own; gather needs F's loop nest (an isolated "
               "consumer of " +
               q(s_.source) + ")",
           "gather-func");
    s_.source_kernel = rep_of.count(s_.source) ? rep_of.at(s_.source) : s_.source;
  }

  void channel() {
    std::vector<std::string> names;
    for (const Channel& c : p_.channels)
      if (c.producer == s_.source_kernel && c.consumer == s_.func) names.push_back(c.name);
    const std::string from = s_.source_kernel == s_.source
                                 ? q(s_.source)
                                 : q(s_.source) + " (kernel " + q(s_.source_kernel) + ")";
    if (names.empty())
      fail("no channel carries the values of " + from + " to " + q(s_.func) +
               "; gather needs F to read A's values over a channel, as an isolated consumer on "
               "the device does",
           "gather-channel");
    if (names.size() > 1)
      fail(q(s_.func) + " reads several channels from " + from + " (" + join_names(names) +
               "); gather needs exactly one",
           "gather-channel");
    s_.in_channel = names[0];
    in_ = p_.find_channel(s_.in_channel);
  }

  Found read() {
    ReadFinder finder(s_.in_channel);
    finder.stmts(kernel_->body);
    const std::string ch = "channel " + q(s_.in_channel);
    if (finder.found.empty())
      fail(q(s_.func) + " does not read " + ch + " (from " + q(s_.source) + ")", "gather-read");
    if (finder.found.size() > 1)
      fail(q(s_.func) + " reads " + ch + " " + std::to_string(finder.found.size()) +
               " times; gather needs exactly one read",
           "gather-read");
    const Found& r = finder.found[0];
    if (r.condition)
      fail(q(s_.func) + " reads " + ch + " under a condition (if " + print_expr(r.condition) +
               "); gather needs an unconditional read",
           "gather-read");
    if (r.in_select)
      fail(q(s_.func) + " reads " + ch +
               " in a branch of a select (or the right operand of && or ||), under a condition; "
               "gather needs an unconditional read",
           "gather-read");
    const std::string needs =
        "; gather needs the value read to be what F writes to its consumer's channel or stores "
        "to its own storage";
    if (r.place != "value")
      fail(q(s_.func) + " reads " + ch + " in " + r.place + needs, "gather-read");
    s_.stmt = r.stmt;
    s_.provide = r.provide;
    s_.write = r.write;
    if (s_.provide && s_.provide->func != s_.func)
      fail(q(s_.func) + " stores the value read from " + ch + " to " + q(s_.provide->func) +
               ", not to its own storage" + needs,
           "gather-read");
    s_.path = r.path;
    s_.read = r.read;
    if (is_lane_reads_of(r.read, s_.in_channel)) {
      const Expr& value = s_.value();
      // A tensor of lanes (several vectorized loops) is the concat of the reads reshaped.
      const bool reshaped = value->kind == ExprKind::kCall && value->name == "reshape" &&
                            value->call_kind == CallKind::kIntrinsic &&
                            value->operands.at(0) == r.read;
      if (value != r.read && !reshaped)
        fail(q(s_.func) + " computes with the vector read from " + ch +
                 "; gathering a vectorized loop needs the vector itself written on",
             "gather-read");
    }
    return r;
  }

  // F reads A's channel whole, a vector of one lane per value of v: A's kernel vectorizes v
  // (its own directive, or one it inherited from an isolated consumer chain), and no transform
  // re-arranges its lanes. Seed 003: gathering makes the values of v's PEs reach F's consumer
  // in ascending order of v, and a vector already holds them so.
  bool whole_vector_read(const Found& r) {
    if (r.read->kind != ExprKind::kCall || r.read->call_kind != CallKind::kChannel ||
        r.read->operands.size() != 1 + in_->dims.size() || in_->type.lanes < 2 ||
        in_->type.is_tensor())
      return false;
    bool vectorized = false, transformed = false;
    for (const Directive& d : p_.directives) {
      if (d.func != s_.source_kernel && d.func != s_.source) continue;
      if (d.is(DirectiveKind::kSpaceTimeTransform)) transformed = true;
      if (d.is(DirectiveKind::kVectorize) && !d.args.empty() && d.args[0].text == s_.var)
        vectorized = true;
    }
    if (!vectorized || transformed) return false;
    s_.pes = in_->type.lanes;
    s_.vmin = 0;
    return true;
  }

  bool vectorizes(const std::string& var) const {
    for (const Directive& v : p_.directives)
      if (v.is(DirectiveKind::kVectorize) && v.func == s_.func && !v.args.empty() &&
          v.args[0].text == var)
        return true;
    return false;
  }

  void loops(const Found& r) {
    std::vector<Loop> all;  // outermost first
    for (const For* f : r.loops) all.push_back(as_loop(*f));
    s_.lets = r.lets;
    std::vector<std::string> names;
    for (const Loop& l : all) names.push_back(l.var);
    const Loop* v = nullptr;
    for (const Loop& l : all)
      if (l.var == s_.var) v = &l;
    if (!v && whole_vector_read(r)) {
      s_.form = Site::kWhole;
    } else if (!v) {
      if (!is_lane_reads_of(r.read, s_.in_channel) || !vectorizes(s_.var))
        fail(q(s_.func) + " has no loop " + q(s_.var) + " around its read of channel " +
                 q(s_.in_channel) +
                 (names.empty() ? std::string(" (it has no loops there)")
                                : "; its loops there are " + join_names(names)),
             "gather-loop");
      s_.form = Site::kVectorized;
    } else if (v->kind != LoopKind::kUnrolled) {
      fail("loop " + q(s_.var) + " of " + q(s_.func) + " is " + loop_kind_name(v->kind) +
               "; gather needs a space loop (unrolled, or vectorized)",
           "gather-loop");
    } else {
      s_.serialised = vectorizes(s_.var);
    }
    const Loop* first_space = nullptr;
    for (const Loop& l : all) {
      if (l.kind == LoopKind::kUnrolled) {
        if (!l.constant)
          fail("space loop " + q(l.var) + " of " + q(s_.func) + " has no constant bounds",
               "gather-loop");
        if (!first_space) first_space = &l;
        s_.space.insert(s_.space.begin(), l);
      } else {
        if (first_space)
          fail(loop_kind_name(l.kind) + std::string(" loop ") + q(l.var) + " of " + q(s_.func) +
                   " is inside its space loop " + q(first_space->var) +
                   "; the space loops must be the innermost loops around the read of channel " +
                   q(s_.in_channel),
               "gather-loop");
        s_.serial.push_back(l);
      }
    }
    if (s_.form == Site::kWhole) {
      // Each PE of F's other space loops reads its own element, a whole vector of v's lanes.
      std::vector<Expr> index(r.read->operands.begin() + 1, r.read->operands.end());
      space_indices(index, std::vector<bool>(index.size(), false));
      return;
    }
    if (in_->dims.empty())
      fail("channel " + q(s_.in_channel) + " from " + q(s_.source_kernel) + " to " + q(s_.func) +
               " is a single channel; gathering needs the values of " + q(s_.source) +
               " on a channel array, one channel per PE of " + q(s_.source_kernel) +
               " (a space_time_transform of " + q(s_.source_kernel) +
               ", or its innermost loops unrolled" + "), indexed by the space loops of " +
               q(s_.func),
           "gather-loop");
  }

  // Every index of the read (but those `skip` marks) is a different space loop over that
  // dimension; returns the loop of each index (none for those skipped). A space loop that
  // indexes nothing is allowed: its PEs read one element in turn, in that loop's order, which
  // gathering keeps (it reverses or counts only along v, which indexes the read), so each still
  // gets the value it got before (a collector that inherits the drainer's PEs (jjj, iii) after
  // the drainer gathered along iii: PE (iii, jjj) reads the iii-th value of channel jjj).
  std::vector<size_t> space_indices(const std::vector<Expr>& index, const std::vector<bool>& skip) {
    std::vector<size_t> loop_of(index.size(), SIZE_MAX);
    std::vector<bool> used(s_.space.size(), false);
    for (size_t d = 0; d < index.size(); ++d) {
      if (skip[d]) continue;
      std::optional<size_t> l = index_loop(inline_lets(index[d], s_.lets), s_.space);
      if (!l || s_.space[*l].extent != in_->dims[d] || used[*l])
        fail("index " + std::to_string(d) + " of the read of channel " + q(s_.in_channel) + " in " +
                 q(s_.func) + " is " + q(print_expr(index[d])) + ", not a space loop of " +
                 q(s_.func) + " over the channel's dimension (extent " +
                 std::to_string(in_->dims[d]) + ")",
             "gather-loop");
      used[*l] = true;
      loop_of[d] = *l;
    }
    return loop_of;
  }

  // The indices of the read (of its first lane for a vector read), the dimensions along which
  // the lanes read different elements (those of F's vectorized loops; none when every lane
  // reads the same element: lanes matched to a wider reader), and the one along which lane l
  // reads element l, if any.
  struct ReadIndex {
    std::vector<Expr> index;
    std::vector<bool> varying;
    size_t varying_count = 0;
    std::optional<size_t> lane_dim;
  };

  ReadIndex read_index() const {
    ReadIndex r;
    r.varying.assign(in_->dims.size(), false);
    if (!is_lane_reads_of(s_.read, s_.in_channel)) {
      r.index.assign(s_.read->operands.begin() + 1, s_.read->operands.end());
      return r;
    }
    const std::vector<Expr>& parts = s_.read->operands;
    const size_t n = parts.size();
    r.index.assign(parts[0]->operands.begin() + 1, parts[0]->operands.end());
    for (size_t d = 0; d < in_->dims.size(); ++d) {
      bool lanes = in_->dims[d] == static_cast<int64_t>(n), same = true;
      for (size_t l = 0; l < n; ++l) {
        const Expr& x = parts[l]->operands[1 + d];
        lanes = lanes && x->kind == ExprKind::kIntImm && x->int_value == static_cast<int64_t>(l);
        same = same && equal(x, parts[0]->operands[1 + d]);
      }
      r.varying[d] = !same;
      r.varying_count += !same;
      if (lanes && !r.lane_dim) r.lane_dim = d;
    }
    return r;
  }

  // v is one of the space loops that index the read. A vector read's lanes may run along other
  // dimensions, F's vectorized loops (one, or several: a tensor of lanes): the values passed
  // along are vectors, whatever element each lane reads (seed 003: gathering is orthogonal to
  // vectorization).
  void unrolled_read() {
    const ReadIndex r = read_index();
    std::vector<size_t> loop_of = space_indices(r.index, r.varying);
    for (size_t d = 0; d < loop_of.size(); ++d) {
      if (r.varying[d] || s_.space[loop_of[d]].var != s_.var) continue;
      s_.in_dim = d;
      s_.space_index = loop_of[d];
      s_.vmin = s_.space[loop_of[d]].min;
      s_.pes = s_.space[loop_of[d]].extent;
    }
    if (s_.pes == 0)
      fail("space loop " + q(s_.var) + " of " + q(s_.func) + " does not index channel " +
               q(s_.in_channel) + "; gathering along " + q(s_.var) +
               " needs its PEs to read the elements along one dimension of the channel",
           "gather-loop");
  }

  // The lanes of v read the channel's elements 0, 1, ..., n - 1 along v's dimension, the same
  // element along the others.
  void vectorized_read() {
    const ReadIndex r = read_index();
    const size_t n = s_.read->operands.size();
    if (r.varying_count > 1 && tensor_read(r)) return;
    if (r.varying_count > 1)
      fail("the " + std::to_string(n) + " lanes of the vector read of channel " + q(s_.in_channel) +
               " in " + q(s_.func) + " run along " + std::to_string(r.varying_count) +
               " of its dimensions (F vectorizes several of its space loops), and which PE along " +
               q(s_.var) + " owns which lane is not known: the producer " + q(s_.source_kernel) +
               " must write the channel at its loop " + q(s_.var) +
               ", and every PE own the same elements along the other dimensions; else vectorize " +
               q(s_.var) + " alone, or gather along an unrolled loop",
           "gather-loop");
    if (!r.lane_dim || (r.varying_count == 1 && !r.varying[*r.lane_dim]))
      fail("the lanes of the vector read of channel " + q(s_.in_channel) + " in " + q(s_.func) +
               " do not read its elements 0, 1, ... along one dimension (of extent " +
               std::to_string(n) + ")",
           "gather-loop");
    s_.in_dim = *r.lane_dim;
    s_.vmin = 0;
    s_.pes = static_cast<int64_t>(n);
    space_indices(r.index, r.varying);
  }

  // The channel dimension the producer indexes with its loop v (the consumer inherited it), or
  // none: the producer's write of A's channel at a variable named v.
  std::optional<size_t> producer_dim_of_v() const {
    std::optional<size_t> dim;
    for (const Kernel& k : p_.kernels) {
      if (k.name != s_.source_kernel) continue;
      for_each_write(k.body, [&](const WriteChannel& w) {
        if (w.channel != s_.in_channel) return;
        for (size_t d = 0; d < w.index.size(); ++d)
          if (w.index[d]->kind == ExprKind::kVar && w.index[d]->name == s_.var) dim = d;
      });
    }
    return dim;
  }

  // Seed 003, Code 3 with loop j vectorized too: the lanes run along several dimensions of the
  // channel (a tensor of lanes), v's among them. Each value of v must own the same number of
  // lanes, reading the same elements along the other dimensions in the same order, so that
  // PE v's own values are one read pattern at v. Records each lane's v; false when the read
  // is not of that form (the caller's message follows).
  bool tensor_read(const ReadIndex& r) {
    const std::optional<size_t> dim = producer_dim_of_v();
    if (!dim || !r.varying[*dim]) return false;
    const std::vector<Expr>& parts = s_.read->operands;
    const int64_t pes = in_->dims[*dim];
    std::map<int64_t, std::vector<size_t>> lanes_of;  // v -> its lanes, in order
    std::vector<int64_t> lane_v;
    for (const Expr& part : parts) {
      const Expr& x = part->operands[1 + *dim];
      if (x->kind != ExprKind::kIntImm || x->int_value < 0 || x->int_value >= pes) return false;
      lanes_of[x->int_value].push_back(lane_v.size());
      lane_v.push_back(x->int_value);
    }
    if (static_cast<int64_t>(lanes_of.size()) != pes) return false;
    const std::vector<size_t>& first = lanes_of.begin()->second;
    for (const auto& [v, lanes] : lanes_of) {
      if (lanes.size() != first.size()) return false;
      for (size_t i = 0; i < lanes.size(); ++i)
        for (size_t d = 0; d < in_->dims.size(); ++d)
          if (d != *dim &&
              !equal(parts[lanes[i]]->operands[1 + d], parts[first[i]]->operands[1 + d]))
            return false;
    }
    s_.in_dim = *dim;
    s_.vmin = 0;
    s_.pes = pes;
    s_.lane_v = lane_v;
    space_indices(r.index, r.varying);
    return true;
  }

  // Down runs the PEs along v from the highest index down: nothing else they do may depend on
  // their order (another channel or a register).
  void down_keeps_order(const Found& r) const {
    const For* v_loop = nullptr;
    for (const For* f : r.loops)
      if (f->var == s_.var) v_loop = f;
    std::string other;
    auto expr = [&](const Expr& e) {
      for_each_expr(e, [&](const Expr& x) {
        if (!other.empty() || x->kind != ExprKind::kCall || is_read_of(x, s_.in_channel)) return;
        if (x->call_kind == CallKind::kChannel || x->call_kind == CallKind::kFifo)
          other = std::string(x->call_kind == CallKind::kChannel ? "channel " : "register ") +
                  q(x->operands[0]->name);
        if (x->call_kind == CallKind::kRegister) other = "register " + q(x->name);
      });
    };
    for_each_stmt(v_loop->body, [&](const Stmt& st) {
      // The first other channel or register, by statement, then by operand.
      if (other.empty())
        match_stmt(
            st, [](const For&) {}, [](const LetStmt&) {}, [](const IfThenElse&) {},
            [&](const Provide& pr) {
              if (p_.find_register(pr.func)) other = "register " + q(pr.func);
            },
            [](const Alloc&) {},
            [&](const WriteChannel& w) {
              if (&st != s_.stmt) other = "channel " + q(w.channel);
            },
            [](const Realize&) {}, [&](const Shift& sh) { other = "register " + q(sh.reg); },
            [&](const Push& pu) { other = "register " + q(pu.fifo); });
      for (const Expr* e : st.exprs()) expr(*e);
    });
    if (!other.empty())
      fail("GatherStrategy::Down runs the PEs of " + q(s_.func) + " along " + q(s_.var) +
               " from the highest index down, which would change the order of its accesses to " +
               other + "; gathering Down needs F's PEs along " + q(s_.var) +
               " to use no other channel or register",
           "gather-order");
  }

  // What F does with the value: a provide to its own storage, or a write to a channel indexed
  // by its space loops (all of them, or all but v).
  void output() {
    const WriteChannel* w = s_.write;
    if (!w) return;
    s_.out_channel = w->channel;
    const Channel* out = p_.find_channel(w->channel);
    std::vector<bool> used(s_.space.size(), false);
    bool ok = out && out->dims.size() == w->index.size();
    for (size_t d = 0; ok && d < w->index.size(); ++d) {
      std::optional<size_t> l = index_loop(inline_lets(w->index[d], s_.lets), s_.space);
      ok = l && !used[*l] && s_.space[*l].extent == out->dims[d];
      if (!ok) break;
      used[*l] = true;
      if (s_.space[*l].var == s_.var) s_.out_dim = d;
    }
    for (size_t l = 0; l < s_.space.size() && ok; ++l) ok = used[l] || s_.space[l].var == s_.var;
    if (ok) return;
    std::vector<std::string> index, space, others;
    for (const Expr& e : w->index) index.push_back(print_expr(e));
    for (const Loop& l : s_.space) {  // innermost first, as channel indices are
      space.push_back(l.var);
      if (l.var != s_.var) others.push_back(l.var);
    }
    fail(q(s_.func) + " writes channel " + q(w->channel) + " at (" + join_names(index) +
             "); gathering needs it indexed by F's space loops (" + join_names(space) + ")" +
             (s_.form == Site::kUnrolled
                  ? std::string(", or by all of them but ") + q(s_.var) +
                        (others.empty() ? " (no index)" : " (" + join_names(others) + ")")
                  : std::string()),
         "gather-loop");
  }

  const Program& p_;
  const Directive& d_;
  const Kernel* kernel_ = nullptr;
  const Channel* in_ = nullptr;
  Site s_;
};

}  // namespace

Site analyse(const Program& p, const Directive& d) { return Analysis(p, d).run(); }

}  // namespace gather_internal
}  // namespace t2s
