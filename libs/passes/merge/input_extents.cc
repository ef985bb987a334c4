// One walk over the merged kernels' accesses, with isl (AccessChecker): the inputs' shapes, the
// reads isl proves out of range (inputs below 0: input-negative-index; a URE outside its
// realized bounds: ure-read-bounds) and the realized output's coverage (output-unwritten).
//
// Infers the shape of each input from the indices the kernels read it at: for every read, isl
// computes the largest index over the loop domain restricted by the conditions under which the
// read happens (enclosing `if`s and select branches), so `select(j == 0, a(i, k), ...)` needs
// a's first dimension only as far as i goes. An input read at an index that is not
// quasi-affine keeps no extents; t2s-run then needs its data from a file. An input's indices
// start at 0: a read isl proves reaches a negative index, under conditions it knows all of, is
// `input-negative-index` at the read (it would fail at run time, and the OpenCL would read
// x[-1]); under a condition isl cannot see (a Func's value) the read may never happen there.
#include <algorithm>

#include "libs/ir/expr_printer.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/passes/merge/plan.h"
#include "libs/poly/poly.h"

namespace t2s::merge_internal {

namespace {

class AccessChecker {
 public:
  explicit AccessChecker(Program& p) : p_(p) {
    for (const Input& in : p.inputs) max_[in.name] = std::vector<int64_t>(in.dims, -1);
  }

  void kernel(const Kernel& k) { stmts(k.body); }

  void finish() {
    for (Input& in : p_.inputs) {
      in.extents.clear();
      if (unknown_.count(in.name)) continue;
      for (int64_t m : max_[in.name]) in.extents.push_back(std::max<int64_t>(m + 1, 0));
    }
  }

 private:
  void stmts(const StmtList& list) {
    for (const StmtPtr& s : list) stmt(*s);
  }

  void stmt(const Stmt& s) {
    // A statement that binds no loop variable, adds no condition and realizes nothing: its
    // operands and nested statements (a let variable is unknown to isl: reads indexed by it
    // keep no extents).
    const auto operands_and_children = [&] {
      for (const Expr* e : s.exprs()) expr(*e);
      for (const StmtList* child : s.children()) stmts(*child);
    };
    match_stmt(
        s,
        [&](const For& loop) {
          expr(loop.min);
          expr(loop.extent);
          auto lo = poly::Aff::from_expr(loop.min, dims_);
          auto ext = poly::Aff::from_expr(loop.extent, dims_);
          const std::string dim = "v" + std::to_string(domain_.dims().size());
          dims_[loop.var] = dim;
          domain_.add_dim(dim);
          size_t saved = domain_.constraints().size();
          if (lo && ext) domain_.where(poly::Cond::range(*lo, poly::Aff::dim(dim), *lo + *ext));
          stmts(loop.body);
          domain_.keep_constraints(saved);
          dims_.erase(loop.var);
        },
        [&](const LetStmt&) { operands_and_children(); },
        [&](const IfThenElse& branch) {
          expr(branch.condition);
          size_t saved = domain_.constraints().size();
          auto c = poly::Cond::from_expr(branch.condition, dims_);
          if (c) domain_.where(*c);
          if (!c) ++unseen_conditions_;
          stmts(branch.then_body);
          domain_.keep_constraints(saved);
          if (c) domain_.where(!*c);
          stmts(branch.else_body);
          domain_.keep_constraints(saved);
          if (!c) --unseen_conditions_;
        },
        [&](const Provide& w) {
          if (w.func == p_.output.func) output_write(w, s);
          operands_and_children();
        },
        [&](const Alloc&) { operands_and_children(); },
        [&](const WriteChannel&) { operands_and_children(); },
        [&](const Realize& r) {
          // Reads of the Func inside are checked against its bounds (constant at this stage).
          std::vector<std::pair<int64_t, int64_t>> bounds;
          for (size_t d = 0; d < r.mins.size() && d < r.extents.size(); ++d) {
            expr(r.mins[d]);
            expr(r.extents[d]);
            const Expr& lo = r.mins[d];
            const Expr& ext = r.extents[d];
            if (lo->kind == ExprKind::kIntImm && ext->kind == ExprKind::kIntImm)
              bounds.emplace_back(lo->int_value, ext->int_value);
          }
          const bool known = bounds.size() == r.mins.size();
          if (known) realized_[r.func] = bounds;
          stmts(r.body);
          if (known) realized_.erase(r.func);
        },
        [&](const Shift&) { operands_and_children(); },
        [&](const Push&) { operands_and_children(); });
  }

  void expr(const Expr& e) {
    if (!e) return;
    if (e->kind == ExprKind::kSelect) {
      expr(e->operands[0]);
      auto c = poly::Cond::from_expr(e->operands[0], dims_);
      size_t saved = domain_.constraints().size();
      if (c) domain_.where(*c);
      if (!c) ++unseen_conditions_;
      expr(e->operands[1]);
      domain_.keep_constraints(saved);
      if (e->operands.size() == 3) {
        if (c) domain_.where(!*c);
        expr(e->operands[2]);
        domain_.keep_constraints(saved);
      }
      if (!c) --unseen_conditions_;
      return;
    }
    for (const Expr& o : e->operands) expr(o);
    if (e->kind == ExprKind::kCall && e->call_kind == CallKind::kImage) read(e);
    if (e->kind == ExprKind::kCall && e->call_kind == CallKind::kFunc) func_read(e);
  }

  // "'x' is read at index -1 in its dimension 0 (x(i - 1) over ...), ": where a read isl
  // proves out of range reaches.
  static std::string read_at(const Expr& call, int64_t index, size_t dim) {
    return "'" + call->name + "' is read at index " + std::to_string(index) + " in its dimension " +
           std::to_string(dim) + " (" + print_expr(call) +
           " over the loops' bounds and the conditions it is read under), ";
  }

  // A read of a realized Func (a URE of the kernel) outside its bounds, which isl proves under
  // conditions it sees all of: `C(i, j, k - 1)` at k = 0 without a select that excludes it.
  void func_read(const Expr& call) {
    auto it = realized_.find(call->name);
    if (it == realized_.end() || unseen_conditions_ > 0) return;
    const auto& bounds = it->second;
    if (call->operands.size() != bounds.size()) return;
    std::vector<poly::Aff> indices;
    for (const Expr& a : call->operands) {
      auto t = poly::Aff::from_expr(a, dims_);
      if (!t) return;
      indices.push_back(*t);
    }
    auto ranges = poly::value_ranges(domain_, indices);
    if (!ranges) return;  // never read
    for (size_t d = 0; d < indices.size(); ++d) {
      if (!(*ranges)[d]) return;
      const auto [lo, ext] = bounds[d];
      int64_t bad;
      if ((*ranges)[d]->min < lo)
        bad = (*ranges)[d]->min;
      else if ((*ranges)[d]->max >= lo + ext)
        bad = (*ranges)[d]->max;
      else
        continue;
      throw Diagnostic(call->loc,
                       read_at(call, bad, d) + "outside its bounds [" + std::to_string(lo) + ", " +
                           std::to_string(lo + ext) +
                           "): guard the read with a select on the loop variable (as "
                           "`select(k == 0, 0, C(i, j, k - 1))` does) or change the bounds",
                       "ure-read-bounds");
    }
  }

  void read(const Expr& call) {
    if (unknown_.count(call->name)) return;
    std::vector<poly::Aff> indices;
    for (const Expr& a : call->operands) {
      auto t = poly::Aff::from_expr(a, dims_);
      if (!t) {
        unknown_.insert(call->name);
        return;
      }
      indices.push_back(*t);
    }
    auto ranges = poly::value_ranges(domain_, indices);
    if (!ranges) return;  // never read
    std::vector<int64_t>& m = max_[call->name];
    for (size_t d = 0; d < indices.size(); ++d) {
      if (!(*ranges)[d]) {
        unknown_.insert(call->name);
        return;
      }
      m[d] = std::max(m[d], (*ranges)[d]->max);
      if ((*ranges)[d]->min < 0 && unseen_conditions_ == 0)
        throw Diagnostic(call->loc,
                         read_at(call, (*ranges)[d]->min, d) +
                             "but an input's indices start at 0: shift the index, or guard the "
                             "read with a select on the loop variable",
                         "input-negative-index");
    }
  }

  // A write of the realized output: where it happens (isl's domain and the indices), unless a
  // condition or an index isl cannot see makes the place unknown.
  void output_write(const Provide& w, const Stmt& s) {
    if (!output_loc_.valid()) output_loc_ = s.loc;
    if (unseen_conditions_ > 0) {
      output_unknown_ = true;
      return;
    }
    poly::Image piece{domain_, {}};
    for (size_t d = 0; d < w.args.size(); ++d) {
      auto t = poly::Aff::from_expr(w.args[d], dims_);
      if (!t || d >= p_.output.extents.size()) {
        output_unknown_ = true;
        return;
      }
      // Only the elements of the realized region count.
      piece.set.where(poly::Cond::range(poly::Aff(0), *t, poly::Aff(p_.output.extents[d])));
      piece.exprs.push_back(*t);
    }
    output_pieces_.push_back(std::move(piece));
  }

 public:
  // The realized output must be written everywhere: isl counts the elements its writes reach
  // (over the loops' bounds and the conditions of its definition). A condition that never holds
  // (`select(k == K, ...)` with k < K) or a set_bounds that leaves elements out would otherwise
  // be found at run time only (run-output-unwritten).
  void check_output() const {
    if (output_unknown_ || !output_loc_.valid()) return;
    int64_t total = 1;
    for (int64_t e : p_.output.extents)
      if (__builtin_mul_overflow(total, e, &total)) return;
    auto written = poly::count_union_of_images(output_pieces_, 4096);
    if (!written || *written >= total) return;
    const std::string& out = p_.output.func;
    if (*written == 0)
      throw Diagnostic(output_loc_,
                       "'" + out +
                           "' is never written: the condition of its definition never "
                           "holds within its loops' bounds, so the realized output would stay "
                           "unwritten",
                       "output-unwritten")
          .add_note(p_.output.loc, "'" + out + "' is realized here");
    throw Diagnostic(output_loc_,
                     "only " + std::to_string(*written) + " of the " + std::to_string(total) +
                         " elements of '" + out +
                         "' are ever written (over its loops' bounds and the condition of its "
                         "definition); the others would stay unwritten",
                     "output-unwritten")
        .add_note(p_.output.loc, "'" + out + "' is realized here");
  }

 private:
  Program& p_;
  SourceLoc output_loc_;
  bool output_unknown_ = false;
  std::vector<poly::Image> output_pieces_;
  poly::VarDims dims_;  // the Vars of the enclosing loops
  // Every loop seen so far is a dim; the enclosing loops' bounds and conditions constrain it.
  poly::Set domain_;
  std::map<std::string, std::vector<int64_t>> max_;
  std::set<std::string> unknown_;
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> realized_;  // min, extent
  int unseen_conditions_ = 0;  // enclosing conditions isl cannot represent
};

}  // namespace

void infer_input_extents(Program& p) {
  AccessChecker finder(p);
  for (const Kernel& k : p.kernels) finder.kernel(k);
  finder.check_output();
  finder.finish();
}

}  // namespace t2s::merge_internal
