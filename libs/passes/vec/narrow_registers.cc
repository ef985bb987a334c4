// Step 4 of t2s-vec: registers that keep only the lanes they are read at, and in the vectorized
// kernels, the conditions the loops decide (known_conditions.cc) and lets nothing uses.
//
// A register of a vectorized PE holds one vector per slot. When every read of it takes the same
// lanes (`slice(C_shreg(pe, 3), 15, 1)`: the GEMM's partial sum is read back at the last lane
// of the previous step's chain only), storing the other lanes is waste an FPGA pays in
// registers: the register keeps those lanes alone, each write stores their slice of the value
// (folded through the `concat` that built it, so `C_shreg(pe, 0) = C_val_15`), and a `let`
// that nothing reads any more (the chain's `concat`) goes.
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"
#include "libs/passes/vec/vec_internal.h"

namespace t2s::vec_internal {
namespace {

// The register (or FIFO) a read names, or "".
std::string register_read(const Expr& x) {
  if (!x || x->kind != ExprKind::kCall) return "";
  if (x->call_kind == CallKind::kRegister) return x->name;
  if (x->call_kind == CallKind::kFifo && !x->operands.empty()) return x->operands[0]->name;
  return "";
}

bool is_slice(const Expr& x) {
  return x && x->kind == ExprKind::kCall && x->call_kind == CallKind::kIntrinsic &&
         x->name == "slice" && x->operands.size() == 3 &&
         x->operands[1]->kind == ExprKind::kIntImm && x->operands[2]->kind == ExprKind::kIntImm;
}

struct LaneRange {
  int64_t start = 0, count = 0;
  bool operator==(const LaneRange& o) const { return start == o.start && count == o.count; }
};

// Per register: the one lane range all its reads take, or nullopt when a read takes the whole
// vector or reads disagree.
class ReadRanges {
 public:
  explicit ReadRanges(const std::set<std::string>& candidates) {
    for (const std::string& r : candidates) ranges_[r] = std::nullopt, seen_[r] = false;
  }
  void visit(const Expr& x, bool under_slice, const LaneRange& range) {
    if (!x) return;
    const std::string r = register_read(x);
    if (!r.empty() && ranges_.count(r)) {
      if (!under_slice) {
        blocked_.insert(r);
      } else if (!seen_[r]) {
        ranges_[r] = range, seen_[r] = true;
      } else if (!(ranges_[r] && *ranges_[r] == range)) {
        blocked_.insert(r);
      }
    }
    const bool slice = is_slice(x);
    for (size_t i = 0; i < x->operands.size(); ++i) {
      const bool direct = slice && i == 0;
      visit(x->operands[i], direct,
            direct ? LaneRange{x->operands[1]->int_value, x->operands[2]->int_value} : LaneRange{});
    }
  }
  std::map<std::string, LaneRange> narrowable(const std::map<std::string, int>& lanes) const {
    std::map<std::string, LaneRange> out;
    for (const auto& [r, range] : ranges_)
      if (!blocked_.count(r) && range && range->count < lanes.at(r)) out[r] = *range;
    return out;
  }

 private:
  std::map<std::string, std::optional<LaneRange>> ranges_;
  std::map<std::string, bool> seen_;
  std::set<std::string> blocked_;
};

// Lanes [start, start + count) of `v`, looking through `concat`s (and lets bound to them) so
// that a chain's lane is its let, not a slice of the whole vector.
Expr slice_of(const Expr& v, const LaneRange& range, const std::map<std::string, Expr>& lets) {
  Expr x = v;
  while (x->kind == ExprKind::kVar && lets.count(x->name)) x = lets.at(x->name);
  if (range.start == 0 && range.count == x->type.lanes) return v;
  if (x->kind == ExprKind::kCall && x->call_kind == CallKind::kIntrinsic && x->name == "concat") {
    int64_t at = 0;
    std::vector<Expr> parts;
    for (const Expr& part : x->operands) {
      const int64_t lo = at, hi = at + part->type.lanes;
      at = hi;
      if (hi <= range.start || lo >= range.start + range.count) continue;
      if (lo < range.start || hi > range.start + range.count) {
        // A part that straddles the range: its overlap.
        const int64_t from = std::max(lo, range.start);
        const int64_t to = std::min(hi, range.start + range.count);
        parts.push_back(slice_of(part, {from - lo, to - from}, lets));
      } else {
        parts.push_back(part);
      }
    }
    if (parts.size() == 1) return parts[0];
    return make_call("concat", CallKind::kIntrinsic, v->type.with_lanes(range.count), parts,
                     v->loc);
  }
  return make_call("slice", CallKind::kIntrinsic, v->type.with_lanes(range.count),
                   {v, lit32(range.start), lit32(range.count)}, v->loc);
}

class Narrower : public StmtMutator {
 public:
  Narrower(const std::map<std::string, LaneRange>& ranges, const std::map<std::string, Type>& types)
      : ranges_(ranges), types_(types) {}

 protected:
  StmtPtr mutate_let(const LetStmt& l, const StmtPtr& s) override {
    lets_[l.var] = l.value;
    StmtPtr out = mutate_children(s);
    lets_.erase(l.var);
    return out;
  }
  // A write of a narrowed register stores the slice of its (rewritten) value.
  StmtPtr mutate_provide(const Provide& p, const StmtPtr& s) override {
    if (!ranges_.count(p.func)) return mutate_children(s);
    Provide sliced = p;
    for (Expr& a : sliced.args) a = mutate(a);
    sliced.value = slice_of(mutate(p.value), ranges_.at(p.func), lets_);
    return with_node(*s, std::move(sliced));
  }
  StmtPtr mutate_push(const Push& p, const StmtPtr& s) override {
    if (!ranges_.count(p.fifo)) return mutate_children(s);
    Push sliced = p;
    for (Expr& i : sliced.pe) i = mutate(i);
    sliced.value = slice_of(mutate(p.value), ranges_.at(p.fifo), lets_);
    return with_node(*s, std::move(sliced));
  }

  Expr mutate_call(const Expr& e) override {
    if (is_slice(e)) {
      const std::string r = register_read(e->operands[0]);
      if (!r.empty() && ranges_.count(r)) {
        Expr read = mutate_operands(e->operands[0]);
        return make_call(read->name, read->call_kind, types_.at(r), read->operands, read->loc);
      }
    }
    return mutate_operands(e);
  }

 private:
  const std::map<std::string, LaneRange>& ranges_;
  const std::map<std::string, Type>& types_;
  std::map<std::string, Expr> lets_;
};

// Values whose evaluation has no effect: no channel read, no FIFO pop, no read of memory that
// could be out of bounds.
bool pure(const Expr& e) {
  bool ok = true;
  for_each_expr(e, [&](const Expr& x) {
    if (x->kind == ExprKind::kCall && x->call_kind != CallKind::kIntrinsic &&
        x->call_kind != CallKind::kRegister)
      ok = false;
  });
  return ok;
}

bool uses_var(const StmtList& list, const std::string& var) {
  bool used = false;
  for_each_stmt_expr(list, [&](const Expr& x) {
    if (x->kind == ExprKind::kVar && x->name == var) used = true;
  });
  return used;
}

// The lets named in `candidates` whose value is a variable (a copy): name -> that variable.
class CopyLets : public StmtVisitor {
 public:
  CopyLets(const std::set<std::string>& candidates, std::map<std::string, Expr>* copies)
      : candidates_(candidates), copies_(copies) {}

 protected:
  void visit_let(const LetStmt& l, const Stmt&) override {
    if (candidates_.count(l.var) && l.value->kind == ExprKind::kVar) (*copies_)[l.var] = l.value;
    visit_stmts(l.body);
  }

 private:
  const std::set<std::string>& candidates_;
  std::map<std::string, Expr>* copies_;
};

// A let named in `candidates` that nothing reads (once its body has dropped its own) and whose
// value has no effect gives way to its body.
class UnusedLets : public SplicingMutator {
 public:
  explicit UnusedLets(const std::set<std::string>& candidates) : candidates_(candidates) {}

 protected:
  StmtPtr mutate_let(const LetStmt& l, const StmtPtr& s) override {
    LetStmt copy = l;
    copy.body = mutate_stmts(l.body);
    if (candidates_.count(l.var) && pure(l.value) && !uses_var(copy.body, l.var))
      return splice(std::move(copy.body));
    return with_node(*s, std::move(copy));
  }

 private:
  const std::set<std::string>& candidates_;
};

// `list` with the uses of each let named in `candidates` whose value is another variable (a lane
// copied from another lane) reading that variable instead (the let is then unused).
StmtList propagate_copies(const StmtList& list, const std::set<std::string>& candidates) {
  // Let names are unique in a vectorized kernel (t2s-vec takes fresh names), so a copy's uses
  // can read the original directly.
  std::map<std::string, Expr> copies;
  CopyLets(candidates, &copies).visit_stmts(list);
  if (copies.empty()) return list;
  // Chains of copies (x_8 = x_4 = x_0) resolve to the first.
  for (auto& [name, value] : copies)
    while (value->kind == ExprKind::kVar && copies.count(value->name) &&
           copies.at(value->name) != value)
      value = copies.at(value->name);
  VarSubstituter substitute(copies);
  return substitute.mutate_stmts(list);
}

// `list` without the lets named in `candidates` that nothing reads and whose value has no
// effect.
StmtList drop_unused_lets(const StmtList& list, const std::set<std::string>& candidates) {
  return UnusedLets(candidates).mutate_stmts(list);
}

}  // namespace

Program narrow_registers(const Program& program, const VectorRegisters& registers,
                         std::vector<std::string>* notes) {
  std::set<std::string> candidates;
  std::map<std::string, int> lanes;
  for (const auto& [name, reg] : registers) {
    candidates.insert(name);
    lanes[name] = reg.lane_type.lanes;
  }
  ReadRanges reads(candidates);
  for (const Kernel& k : program.kernels)
    for_each_stmt(k.body, [&](const Stmt& s) {
      for (const Expr* e : s.exprs()) reads.visit(*e, false, {});
    });
  const std::map<std::string, LaneRange> ranges = reads.narrowable(lanes);
  if (ranges.empty()) return program;
  Program out = program;
  std::map<std::string, Type> types;
  for (Register& r : out.registers) {
    auto it = ranges.find(r.name);
    if (it == ranges.end()) continue;
    const LaneRange& range = it->second;
    r.type = r.type.with_lanes(static_cast<int>(range.count));
    types[r.name] = r.type;
    notes->push_back(
        "register " + r.name + ": keeps lane" + (range.count == 1 ? " " : "s ") +
        std::to_string(range.start) +
        (range.count == 1 ? "" : " to " + std::to_string(range.start + range.count - 1)) +
        " only (" + r.type.name() + "; every read takes " + (range.count == 1 ? "it" : "them") +
        ")");
  }
  Narrower narrower(ranges, types);
  for (Kernel& k : out.kernels) k.body = narrower.mutate_stmts(k.body);
  return out;
}

// A let the rewrite left unread (the `concat` of a chain whose register was narrowed or removed)
// goes.
Program simplify_vectorized_kernels(const Program& program, const std::set<std::string>& kernels,
                                    const std::set<std::string>& pass_names,
                                    const std::set<std::string>& names) {
  Program out = program;
  for (Kernel& k : out.kernels)
    if (kernels.count(k.name))
      k.body =
          drop_unused_lets(propagate_copies(decide_known_conditions(k.body), pass_names), names);
  return out;
}

}  // namespace t2s::vec_internal
