// Infers the shape of each input from the indices the kernels read it at: for every read, isl
// computes the largest index over the loop domain restricted by the conditions under which the
// read happens (enclosing `if`s and select branches), so `select(j == 0, a(i, k), ...)` needs
// a's first dimension only as far as i goes. An input read at an index that is not
// quasi-affine keeps no extents; t2s-run then needs its data from a file.
#include <algorithm>

#include "libs/passes/merge/plan.h"
#include "libs/poly/poly.h"

namespace t2s::merge_internal {

namespace {

class ExtentFinder {
 public:
  explicit ExtentFinder(Program& p) : p_(p) {
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
    if (const For* loop = s.as<For>()) {
      expr(loop->min);
      expr(loop->extent);
      auto lo = poly::affine_text(loop->min, names_);
      auto ext = poly::affine_text(loop->extent, names_);
      std::string isl = "v" + std::to_string(vars_.size());
      names_[loop->var] = isl;
      vars_.push_back(isl);
      size_t saved = constraints_.size();
      if (lo && ext) constraints_.push_back(*lo + " <= " + isl + " < " + *lo + " + " + *ext);
      stmts(loop->body);
      constraints_.resize(saved);
      names_.erase(loop->var);
    } else if (const IfThenElse* branch = s.as<IfThenElse>()) {
      expr(branch->condition);
      size_t saved = constraints_.size();
      if (auto c = poly::condition_text(branch->condition, names_)) constraints_.push_back(*c);
      stmts(branch->then_body);
      constraints_.resize(saved);
      if (auto c = poly::condition_text(branch->condition, names_))
        constraints_.push_back("not (" + *c + ")");
      stmts(branch->else_body);
      constraints_.resize(saved);
    } else {
      // A let variable is unknown to isl: reads indexed by it keep no extents.
      for (const Expr* e : s.exprs()) expr(*e);
      for (const StmtList* child : s.children()) stmts(*child);
    }
  }

  void expr(const Expr& e) {
    if (!e) return;
    if (e->kind == ExprKind::kSelect) {
      expr(e->operands[0]);
      auto c = poly::condition_text(e->operands[0], names_);
      size_t saved = constraints_.size();
      if (c) constraints_.push_back(*c);
      expr(e->operands[1]);
      constraints_.resize(saved);
      if (e->operands.size() == 3) {
        if (c) constraints_.push_back("not (" + *c + ")");
        expr(e->operands[2]);
        constraints_.resize(saved);
      }
      return;
    }
    for (const Expr& o : e->operands) expr(o);
    if (e->kind == ExprKind::kCall && e->call_kind == CallKind::kImage) read(e);
  }

  void read(const Expr& call) {
    if (unknown_.count(call->name)) return;
    std::vector<std::string> indices;
    for (const Expr& a : call->operands) {
      auto t = poly::affine_text(a, names_);
      if (!t) {
        unknown_.insert(call->name);
        return;
      }
      indices.push_back(*t);
    }
    auto ranges = poly::value_ranges(vars_, constraints_, indices);
    if (!ranges) return;  // never read
    std::vector<int64_t>& m = max_[call->name];
    for (size_t d = 0; d < indices.size(); ++d) {
      if (!(*ranges)[d]) {
        unknown_.insert(call->name);
        return;
      }
      m[d] = std::max(m[d], (*ranges)[d]->max);
    }
  }

  Program& p_;
  poly::IslNames names_;
  std::vector<std::string> vars_;
  std::vector<std::string> constraints_;
  std::map<std::string, std::vector<int64_t>> max_;
  std::set<std::string> unknown_;
};

}  // namespace

void infer_input_extents(Program& p) {
  ExtentFinder finder(p);
  for (const Kernel& k : p.kernels) finder.kernel(k);
  finder.finish();
}

}  // namespace t2s::merge_internal
