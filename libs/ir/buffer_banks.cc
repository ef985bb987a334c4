#include "libs/ir/buffer_banks.h"

#include <algorithm>
#include <set>

#include "libs/ir/expr_printer.h"
#include "libs/ir/visitor.h"

namespace t2s {

namespace {

int64_t power_of_two_at_least(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

bool is_literal(const Expr& e, int64_t v) {
  return e && e->kind == ExprKind::kIntImm && e->int_value == v;
}

bool uses_any(const Expr& e, const std::vector<std::string>& vars) {
  bool found = false;
  for_each_expr(e, [&](const Expr& x) {
    found = found || (x->kind == ExprKind::kVar &&
                      std::find(vars.begin(), vars.end(), x->name) != vars.end());
  });
  return found;
}

// The loops a condition fixes to one iteration: its conjuncts `var == literal`.
void fixed_by(const Expr& c, std::set<std::string>* out) {
  if (!c || c->kind != ExprKind::kBinary) return;
  if (c->binary_op == BinaryOp::kAnd) {
    fixed_by(c->operands[0], out);
    fixed_by(c->operands[1], out);
  } else if (c->binary_op == BinaryOp::kEQ) {
    const Expr& a = c->operands[0];
    const Expr& b = c->operands[1];
    if (a->kind == ExprKind::kVar && b->kind == ExprKind::kIntImm) out->insert(a->name);
    if (b->kind == ExprKind::kVar && a->kind == ExprKind::kIntImm) out->insert(b->name);
  }
}

// One access of the storage and the loops around it that run in parallel (unrolled or
// vectorized) and that no condition around it fixes: its copies in one cycle.
struct Access {
  std::vector<Expr> index;
  std::vector<std::string> parallel;
  Type value_type;
};

class AccessFinder {
 public:
  explicit AccessFinder(const std::string& func) : func_(func) {}
  std::vector<Access> writes, reads;

  void walk(const StmtList& list, const std::vector<std::string>& parallel,
            const std::set<std::string>& fixed) {
    for (const StmtPtr& s : list) {
      if (!s) continue;
      std::vector<std::string> free;
      for (const std::string& v : parallel)
        if (!fixed.count(v)) free.push_back(v);
      for (const Expr* e : s->exprs())
        for_each_expr(*e, [&](const Expr& x) {
          if (x->kind == ExprKind::kCall && x->call_kind == CallKind::kFunc && x->name == func_)
            reads.push_back(Access{x->operands, free, x->type});
        });
      if (const For* f = s->as<For>()) {
        std::vector<std::string> inner = parallel;
        if (f->loop_kind != LoopKind::kSerial) inner.push_back(f->var);
        walk(f->body, inner, fixed);
      } else if (const LetStmt* l = s->as<LetStmt>()) {
        walk(l->body, parallel, fixed);
      } else if (const IfThenElse* i = s->as<IfThenElse>()) {
        std::set<std::string> then_fixed = fixed;
        fixed_by(i->condition, &then_fixed);
        walk(i->then_body, parallel, then_fixed);
        walk(i->else_body, parallel, fixed);
      } else if (const Provide* p = s->as<Provide>()) {
        if (p->func == func_) writes.push_back(Access{p->args, free, p->value->type});
      } else if (const Realize* r = s->as<Realize>()) {
        walk(r->body, parallel, fixed);
      }
    }
  }

 private:
  std::string func_;
};

}  // namespace

int64_t BufferBanks::elements() const {
  int64_t n = 1;
  for (int64_t e : extents) n *= e;
  return n;
}

BufferBanks buffer_banks(const Realize& r) {
  BufferBanks b;
  const size_t n = r.extents.size();
  for (size_t d = 0; d < n; ++d) {
    b.layout.push_back(d);
    b.extents.push_back(r.extents[d]->kind == ExprKind::kIntImm ? r.extents[d]->int_value : 1);
  }
  const auto refuse = [&](const std::string& why) {
    b.why_not = why;
    return b;
  };
  AccessFinder finder(r.func);
  finder.walk(r.body, {}, {});
  if (finder.writes.size() > 1) return refuse("it is written at several places");
  if (finder.reads.size() > 1) return refuse("it is read at several places");
  int lane_dim = -1;
  int64_t lanes = 1;
  if (!finder.writes.empty()) {
    const Access& w = finder.writes[0];
    if (!w.parallel.empty())
      return refuse("the PEs along '" + w.parallel[0] + "' write it in the same cycle");
    for (size_t d = 0; d < w.index.size() && d < n; ++d) {
      const Expr& a = w.index[d];
      if (a->kind != ExprKind::kCall || a->call_kind != CallKind::kIntrinsic || a->name != "ramp")
        continue;
      if (lane_dim >= 0 || !r.mins[d] || r.mins[d]->kind != ExprKind::kIntImm ||
          !is_literal(a->operands[0], r.mins[d]->int_value) || !is_literal(a->operands[1], 1) ||
          !is_literal(a->operands[2], b.extents[d]))
        return refuse("a cycle writes lanes that are not one whole dimension");
      lane_dim = static_cast<int>(d);
      lanes = b.extents[d];
    }
    if (w.value_type.lanes != lanes)
      return refuse("a cycle writes lanes that are not one whole dimension");
  }
  std::vector<size_t> pe_dims;
  if (!finder.reads.empty()) {
    const Access& rd = finder.reads[0];
    std::set<std::string> indexing;
    for (size_t d = 0; d < rd.index.size() && d < n; ++d) {
      const Expr& a = rd.index[d];
      if (static_cast<int>(d) == lane_dim) continue;  // within one word, whatever its lanes
      if (a->kind == ExprKind::kVar &&
          std::find(rd.parallel.begin(), rd.parallel.end(), a->name) != rd.parallel.end() &&
          indexing.insert(a->name).second) {
        pe_dims.push_back(d);
        continue;
      }
      if (uses_any(a, rd.parallel))
        return refuse("the PEs read it at `" + print_expr(a) + "` (dimension " +
                      std::to_string(d + 1) + "), not at their own loop's index");
    }
    for (const std::string& v : rd.parallel)
      if (!indexing.count(v))
        return refuse("the PEs along '" + v + "' read the same word in one cycle");
  }
  b.banked = true;
  b.lane_dim = lane_dim;
  b.pe_dims = pe_dims;
  b.layout.clear();
  if (lane_dim >= 0) {
    b.layout.push_back(static_cast<size_t>(lane_dim));
    b.word_lanes = b.extents[lane_dim] = power_of_two_at_least(lanes);
  }
  for (size_t d : pe_dims) {
    b.layout.push_back(d);
    b.extents[d] = power_of_two_at_least(b.extents[d]);
    b.banks *= b.extents[d];
  }
  for (size_t d = 0; d < n; ++d)
    if (std::find(b.layout.begin(), b.layout.end(), d) == b.layout.end()) b.layout.push_back(d);
  return b;
}

}  // namespace t2s
