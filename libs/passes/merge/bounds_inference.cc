// Halide's bounds inference for loop nests: a loop of a group that neither set_bounds nor the
// realize extents bound gets the range its consumers read. For every read of one of the
// group's Funcs in another group whose bounds are all known (through the Funcs inlined into
// that group), isl computes the range of each index over the consumer's loop domain restricted
// by the conditions under which the read happens (select branches); the loop gets the union
// (the hull) of those ranges. Groups are processed consumers first, so a chain of producers
// gets bounds transitively. A loop whose reads are not all quasi-affine with bounded ranges,
// or that no read determines, keeps no bounds (t2s-merge then reports merge-bounds).
#include <algorithm>
#include <functional>

#include "libs/ir/expr_printer.h"
#include "libs/ir/visitor.h"
#include "libs/passes/merge/plan.h"
#include "libs/poly/poly.h"

namespace t2s::merge_internal {

namespace {

// What the reads of one producer group tell about its loops.
struct ReadRanges {
  std::map<std::string, poly::Interval> range;  // loop var -> hull of the ranges read
  std::set<std::string> unknown;                // loop vars read at an index isl cannot bound
};

class ReadFinder {
 public:
  ReadFinder(const Program& p, const Plan& plan, size_t producer, ReadRanges& out,
             std::function<bool(const std::string&)> reaches)
      : p_(p), plan_(plan), producer_(producer), out_(out), reaches_(std::move(reaches)) {}

  // The reads in the definitions of consumer group `g`, whose bounds are all known.
  void group(const Group& g) {
    domain_ = poly::Set();
    dims_.clear();
    seen_.clear();
    for (const std::string& v : g.loop_vars) {
      const std::string dim = "v" + std::to_string(domain_.dims().size());
      dims_[v] = dim;
      domain_.add_dim(dim);
      const LoopBound& b = g.bounds.at(v);
      domain_.where(poly::Cond::range(b.min, poly::Aff::dim(dim), b.min + b.extent));
    }
    for (const std::string& m : g.members) {
      const Func* f = p_.find_func(m);
      if (f && f->definition) expr(f->definition);
    }
  }

 private:
  void expr(const Expr& e) {
    if (!e) return;
    if (e->kind == ExprKind::kSelect) {
      expr(e->operands[0]);
      auto c = poly::Cond::from_expr(e->operands[0], dims_);
      const std::string text = print_expr(e->operands[0]);
      size_t saved = domain_.constraints().size();
      if (c) domain_.where(*c);
      conds_.push_back(text);
      expr(e->operands[1]);
      conds_.pop_back();
      domain_.keep_constraints(saved);
      if (e->operands.size() == 3) {
        if (c) domain_.where(!*c);
        conds_.push_back("!" + text);
        expr(e->operands[2]);
        conds_.pop_back();
        domain_.keep_constraints(saved);
      }
      return;
    }
    for (const Expr& o : e->operands) expr(o);
    if (e->kind != ExprKind::kCall || e->call_kind != CallKind::kFunc) return;
    if (plan_.inlined.count(e->name)) {
      // The inlined definition is evaluated here, with the call's arguments; only when it
      // reaches the producer, and once per call and enclosing conditions (a diamond of inlined
      // Funcs reads the same call many times).
      const Func* f = p_.find_func(e->name);
      if (!f || !f->definition || !reaches_(e->name)) return;
      std::string key = print_expr(e);
      for (const std::string& c : conds_) key += "\n" + c;
      if (!seen_.insert(key).second) return;
      std::map<std::string, Expr> with;
      for (size_t i = 0; i < f->args.size() && i < e->operands.size(); ++i)
        with[f->args[i]] = e->operands[i];
      VarSubstituter r(with);
      expr(r.mutate(f->definition));
      return;
    }
    auto it = plan_.group_of.find(e->name);
    if (it != plan_.group_of.end() && it->second == producer_) read(e);
  }

  void read(const Expr& call) {
    const Func* f = p_.find_func(call->name);
    if (!f) return;
    std::vector<poly::Aff> indices;
    std::vector<std::string> vars;
    for (size_t d = 0; d < call->operands.size() && d < f->args.size(); ++d) {
      auto t = poly::Aff::from_expr(call->operands[d], dims_);
      if (!t) {
        out_.unknown.insert(f->args[d]);
        continue;
      }
      indices.push_back(*t);
      vars.push_back(f->args[d]);
    }
    auto ranges = poly::value_ranges(domain_, indices);
    if (!ranges) return;  // never read
    for (size_t d = 0; d < indices.size(); ++d) {
      if (!(*ranges)[d]) {
        out_.unknown.insert(vars[d]);
        continue;
      }
      auto [at, fresh] = out_.range.emplace(vars[d], *(*ranges)[d]);
      if (!fresh) {
        at->second.min = std::min(at->second.min, (*ranges)[d]->min);
        at->second.max = std::max(at->second.max, (*ranges)[d]->max);
      }
    }
  }

  const Program& p_;
  const Plan& plan_;
  size_t producer_;
  ReadRanges& out_;
  std::function<bool(const std::string&)> reaches_;  // whether an inlined Func reads producer_
  std::vector<std::string> conds_;                   // the enclosing select conditions, as text
  std::set<std::string> seen_;                       // inlined calls walked, with conds_
  poly::VarDims dims_;
  poly::Set domain_;
};

// A nest is a consumer of itself: a URE that reads its own earlier values (P(i - 1)) needs
// them computed too, so inferred ranges grow until they hold every value the nest reads of
// itself (the select that starts the recursion, `i == 0`, stops the growth). Loops bounded
// by set_bounds or realize are left alone (reads outside them are the program's business).
void close_under_own_reads(const Program& p, Plan& plan, size_t g,
                           const std::set<std::string>& inferred) {
  Group& group = plan.groups[g];
  if (inferred.empty()) return;
  for (const std::string& v : group.loop_vars)
    if (!group.bounds.count(v)) return;
  constexpr int kMaxRounds = 4096;
  for (int round = 0;; ++round) {
    ReadRanges ranges;
    ReadFinder finder(p, plan, g, ranges, [](const std::string&) { return false; });
    finder.group(group);
    bool grew = false;
    for (const std::string& v : inferred) {
      auto it = ranges.range.find(v);
      if (it == ranges.range.end()) continue;
      LoopBound& b = group.bounds[v];
      const int64_t lo = std::min(b.min, it->second.min);
      const int64_t hi = std::max(b.min + b.extent - 1, it->second.max);
      if (lo == b.min && hi == b.min + b.extent - 1) continue;
      if (round == kMaxRounds)
        throw Diagnostic(plan.groups[g].loc,
                         "the range of loop '" + v + "' of '" + group.rep +
                             "' that its consumers read keeps growing with the values '" +
                             group.rep + "' reads of itself (now [" + std::to_string(lo) + ", " +
                             std::to_string(hi + 1) + ")); give " + group.rep + ".set_bounds(" + v +
                             ", min, extent)",
                         "merge-bounds");
      b = {lo, hi - lo + 1};
      grew = true;
    }
    if (!grew) return;
  }
}

}  // namespace

void infer_bounds(const Program& p, Plan& plan, const std::set<std::string>& copied) {
  const size_t n = plan.groups.size();
  // The groups each inlined Func reads, through the Funcs inlined into it (memoized: inlined
  // Funcs may form a diamond).
  std::map<std::string, std::set<size_t>> inlined_reads;
  std::function<void(const Expr&, std::set<size_t>&)> calls = [&](const Expr& e,
                                                                  std::set<size_t>& out) {
    if (!e) return;
    for (const Expr& o : e->operands) calls(o, out);
    if (e->kind != ExprKind::kCall || e->call_kind != CallKind::kFunc) return;
    if (plan.inlined.count(e->name)) {
      auto it = inlined_reads.find(e->name);
      if (it == inlined_reads.end()) {
        std::set<size_t> reads;
        const Func* f = p.find_func(e->name);
        if (f && f->definition) calls(f->definition, reads);
        it = inlined_reads.emplace(e->name, std::move(reads)).first;
      }
      out.insert(it->second.begin(), it->second.end());
      return;
    }
    auto it = plan.group_of.find(e->name);
    if (it != plan.group_of.end()) out.insert(it->second);
  };
  // consumers[g]: the other groups that read one of g's Funcs (through inlined Funcs).
  std::vector<std::set<size_t>> consumers(n);
  for (size_t g = 0; g < n; ++g) {
    std::set<size_t> reads;
    for (const std::string& m : plan.groups[g].members) {
      const Func* f = p.find_func(m);
      if (f && f->definition) calls(f->definition, reads);
    }
    for (size_t r : reads)
      if (r != g) consumers[r].insert(g);
  }
  // Consumers first: a group once every group reading it is done (nests form no cycle:
  // check_cycles), in group order among the ready ones.
  std::vector<size_t> pending(n);
  for (size_t g = 0; g < n; ++g) pending[g] = consumers[g].size();
  std::vector<bool> done(n, false);
  for (size_t step = 0; step < n; ++step) {
    size_t g = n;
    for (size_t c = 0; c < n && g == n; ++c)
      if (!done[c] && pending[c] == 0) g = c;
    if (g == n) return;  // a cycle: check_cycles has refused it already
    done[g] = true;
    for (size_t producer = 0; producer < n; ++producer)
      if (consumers[producer].count(g)) --pending[producer];
    Group& group = plan.groups[g];
    if (copied.count(group.rep)) continue;  // bounds copied from another nest later
    bool missing = false;
    for (const std::string& v : group.loop_vars) missing |= !group.bounds.count(v);
    if (!missing) continue;
    ReadRanges ranges;
    ReadFinder finder(p, plan, g, ranges, [&](const std::string& f) {
      auto it = inlined_reads.find(f);
      return it != inlined_reads.end() && it->second.count(g) > 0;
    });
    for (size_t c : consumers[g]) {
      const Group& consumer = plan.groups[c];
      if (copied.count(consumer.rep)) continue;
      bool known = true;
      for (const std::string& v : consumer.loop_vars) known &= consumer.bounds.count(v) > 0;
      if (known) finder.group(consumer);
    }
    std::set<std::string> inferred;
    for (const std::string& v : group.loop_vars) {
      if (group.bounds.count(v) || ranges.unknown.count(v)) continue;
      auto it = ranges.range.find(v);
      if (it == ranges.range.end()) continue;
      group.bounds[v] = {it->second.min, it->second.max - it->second.min + 1};
      inferred.insert(v);
    }
    close_under_own_reads(p, plan, g, inferred);
  }
}

}  // namespace t2s::merge_internal
