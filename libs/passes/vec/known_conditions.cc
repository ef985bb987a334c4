// Conditions the loops decide. Computing lane by lane substitutes each lane's value of a loop
// (`k = ko * 4 + kk` with kk = 0 .. 3), which leaves conditions such as `ko * 4 == 7` that no
// iteration makes true: isl (libs/poly) decides them over the enclosing loops' ranges and the
// enclosing `if`s, so the code keeps only the lanes that can run (`if (ko * 4 + 3 == 7)` and no
// if for lanes 0 to 2). Only quasi-affine conditions of loop variables with constant ranges are
// decided; everything else stays as it is.
#include <optional>

#include "libs/ir/visitor.h"
#include "libs/passes/vec/vec_internal.h"
#include "libs/poly/poly.h"

namespace t2s::vec_internal {
namespace {

class KnownConditions : public SplicingMutator {
 protected:
  // A decided if gives way to the branch taken; the branches of the others are seen under their
  // condition (the then branch) or its negation (the else branch).
  StmtPtr mutate_if(const IfThenElse& i, const StmtPtr& s) override {
    Expr c = mutate(i.condition);
    std::optional<bool> known = decide(c);
    if (known) return splice(mutate_stmts(*known ? i.then_body : i.else_body));
    IfThenElse copy = i;
    copy.condition = c;
    auto cond = poly::Cond::from_expr(c, dims_);
    const size_t n = context_.constraints().size();
    if (cond) context_.where(*cond);
    copy.then_body = mutate_stmts(i.then_body);
    context_.keep_constraints(n);
    if (cond) context_.where(!*cond);
    copy.else_body = mutate_stmts(i.else_body);
    context_.keep_constraints(n);
    return with_node(*s, copy);
  }

  // The body is seen within the loop's range (a constant one); the bounds stay as they are.
  StmtPtr mutate_for(const For& f, const StmtPtr& s) override {
    const bool constant = f.min->kind == ExprKind::kIntImm && f.extent->kind == ExprKind::kIntImm;
    const size_t n = context_.constraints().size();
    const auto previous = dims_.find(f.var);
    const std::optional<std::string> shadowed =
        previous == dims_.end() ? std::nullopt : std::optional<std::string>(previous->second);
    if (constant) {
      const std::string dim = "d" + std::to_string(context_.dims().size());
      context_.add_dim(dim);
      dims_[f.var] = dim;
      context_.where(poly::Cond::range(f.min->int_value, poly::Aff::dim(dim),
                                       f.min->int_value + f.extent->int_value));
    } else {
      dims_.erase(f.var);
    }
    For copy = f;
    copy.body = mutate_stmts(f.body);
    context_.keep_constraints(n);
    if (shadowed)
      dims_[f.var] = *shadowed;
    else
      dims_.erase(f.var);
    return with_node(*s, copy);
  }

  StmtPtr mutate_let(const LetStmt& l, const StmtPtr& s) override {
    if (!dims_.count(l.var)) return mutate_children(s);
    // A let that rebinds a loop's name hides the loop within its body.
    const std::string dim = dims_.at(l.var);
    dims_.erase(l.var);
    StmtPtr done = mutate_children(s);
    dims_[l.var] = dim;
    return done;
  }

 protected:
  Expr mutate_select(const Expr& e) override {
    Expr c = mutate(e->operands[0]);
    if (e->operands.size() == 3 && c->type.lanes == 1) {
      if (std::optional<bool> known = decide(c)) return mutate(e->operands[*known ? 1 : 2]);
    }
    std::vector<Expr> ops{c};
    for (size_t i = 1; i < e->operands.size(); ++i) ops.push_back(mutate(e->operands[i]));
    return make_select(ops[0], ops[1], ops.size() > 2 ? ops[2] : nullptr, e->type, e->loc);
  }

 private:
  // True or false when every iteration of the enclosing loops (within the enclosing ifs) gives
  // the condition that value.
  std::optional<bool> decide(const Expr& c) {
    if (c->type.lanes != 1 || c->kind == ExprKind::kIntImm) return std::nullopt;
    auto cond = poly::Cond::from_expr(c, dims_);
    if (!cond) return std::nullopt;
    poly::Set holds = context_, fails = context_;
    holds.where(*cond);
    fails.where(!*cond);
    if (poly::is_empty(holds)) return false;
    if (poly::is_empty(fails)) return true;
    return std::nullopt;
  }

  poly::Set context_;
  poly::VarDims dims_;
};

}  // namespace

StmtList decide_known_conditions(const StmtList& body) {
  KnownConditions k;
  return k.mutate_stmts(body);
}

}  // namespace t2s::vec_internal
