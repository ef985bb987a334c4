#include "libs/explore/from_ir.h"

#include <algorithm>
#include <map>
#include <optional>

#include "libs/ir/linear.h"
#include "libs/ir/stmt_visitor.h"

namespace t2s::explore {

namespace {

// A condition in disjunctive normal form: any of the conjunctions holds. nullopt: not affine.
using Conj = std::vector<Constraint>;
using Dnf = std::vector<Conj>;
constexpr size_t kMaxTerms = 64;

class Builder {
 public:
  Builder(const Program& merged, const Kernel& k) : merged_(merged), kernel_(k) {}

  KernelProgram build() {
    const StmtList& body = walk_kernel_nest(kernel_.body, [&](const For& f) {
      if (f.min->kind != ExprKind::kIntImm || f.extent->kind != ExprKind::kIntImm)
        fail("loop '" + f.var + "' has bounds that are not constant");
      out_.loops.push_back(f.var);
      out_.mins.push_back(f.min->int_value);
      out_.extents.push_back(f.extent->int_value);
      return true;
    });
    if (out_.loops.empty()) fail("it has no loop nest");
    out_.program.space = out_.loops;
    out_.program.name = "merge group of " + kernel_.name;
    out_.program.loc = kernel_.loc;
    statements(body, Dnf{Conj{}}, {});
    if (out_.program.statements.empty()) fail("its loop nest computes nothing");
    // The original order: the loops, then the statements' order in the body.
    Placement id{"loops", {}, kernel_.loc};
    const size_t n = out_.loops.size();
    for (size_t s = 0; s < out_.program.statements.size(); ++s) {
      Statement& st = out_.program.statements[s];
      Affine f{std::vector<std::vector<int64_t>>(n + 1, std::vector<int64_t>(n, 0)),
               std::vector<int64_t>(n + 1, 0)};
      for (size_t d = 0; d < n; ++d) f.coeff[d][d] = 1;
      f.constant[n] = static_cast<int64_t>(s);
      st.schedule = IntMap::from_affine(st.domain, "", f);
      Affine idf{std::vector<std::vector<int64_t>>(n, std::vector<int64_t>(n, 0)),
                 std::vector<int64_t>(n, 0)};
      for (size_t d = 0; d < n; ++d) idf.coeff[d][d] = 1;
      id.maps.push_back(idf);
    }
    out_.program.placements.push_back(id);
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const std::string& why) {
    throw Diagnostic(kernel_.loc, "t2s-explore cannot model kernel '" + kernel_.name + "': " + why,
                     "explore-kernel");
  }

  int dim(const std::string& var) const {
    auto it = std::find(out_.loops.begin(), out_.loops.end(), var);
    return it == out_.loops.end() ? -1 : static_cast<int>(it - out_.loops.begin());
  }

  // The affine form of an index expression over the loops.
  std::optional<std::pair<std::vector<int64_t>, int64_t>> affine(const Expr& e) const {
    std::map<std::string, int64_t> coeffs;
    int64_t constant = 0;
    if (!linear_form(e, &coeffs, &constant)) return std::nullopt;
    std::vector<int64_t> c(out_.loops.size(), 0);
    for (const auto& [v, k] : coeffs) {
      int d = dim(v);
      if (d < 0) return std::nullopt;
      c[static_cast<size_t>(d)] += k;
    }
    return std::make_pair(c, constant);
  }

  static Dnf conj(const Dnf& a, const Dnf& b) {
    Dnf out;
    for (const Conj& x : a)
      for (const Conj& y : b) {
        Conj c = x;
        c.insert(c.end(), y.begin(), y.end());
        out.push_back(c);
      }
    return out;
  }

  // `e` (negated when `negate`) in DNF; nullopt when not affine or too large.
  std::optional<Dnf> condition(const Expr& e, bool negate) const {
    if (e->kind == ExprKind::kIntImm) return (e->int_value != 0) != negate ? Dnf{Conj{}} : Dnf{};
    if (e->kind == ExprKind::kUnary && e->unary_op == UnaryOp::kNot)
      return condition(e->operands[0], !negate);
    if (e->kind != ExprKind::kBinary) return std::nullopt;
    BinaryOp op = e->binary_op;
    if (op == BinaryOp::kAnd || op == BinaryOp::kOr) {
      auto a = condition(e->operands[0], negate), b = condition(e->operands[1], negate);
      if (!a || !b) return std::nullopt;
      bool is_and = (op == BinaryOp::kAnd) != negate;
      Dnf out = is_and ? conj(*a, *b) : *a;
      if (!is_and) out.insert(out.end(), b->begin(), b->end());
      if (out.size() > kMaxTerms) return std::nullopt;
      return out;
    }
    if (!is_comparison(op)) return std::nullopt;
    auto a = affine(e->operands[0]), b = affine(e->operands[1]);
    if (!a || !b) return std::nullopt;
    // d = a - b
    std::vector<int64_t> d(a->first.size());
    for (size_t i = 0; i < d.size(); ++i) d[i] = a->first[i] - b->first[i];
    const int64_t dc = a->second - b->second;
    auto ge = [&](int64_t sign, int64_t shift) {  // sign * d + shift >= 0
      Constraint c{d, sign * dc + shift, false};
      for (int64_t& x : c.coeff) x *= sign;
      return c;
    };
    if (negate) {
      switch (op) {
        case BinaryOp::kEQ:
          op = BinaryOp::kNE;
          break;
        case BinaryOp::kNE:
          op = BinaryOp::kEQ;
          break;
        case BinaryOp::kLT:
          op = BinaryOp::kGE;
          break;
        case BinaryOp::kLE:
          op = BinaryOp::kGT;
          break;
        case BinaryOp::kGT:
          op = BinaryOp::kLE;
          break;
        default:
          op = BinaryOp::kLT;
          break;  // kGE
      }
    }
    switch (op) {
      case BinaryOp::kEQ:
        return Dnf{Conj{Constraint{d, dc, true}}};
      case BinaryOp::kNE:
        return Dnf{Conj{ge(1, -1)}, Conj{ge(-1, -1)}};
      case BinaryOp::kLT:
        return Dnf{Conj{ge(-1, -1)}};
      case BinaryOp::kLE:
        return Dnf{Conj{ge(-1, 0)}};
      case BinaryOp::kGT:
        return Dnf{Conj{ge(1, -1)}};
      default:
        return Dnf{Conj{ge(1, 0)}};
    }
  }

  IntSet restrict(const IntSet& box, const Dnf& cond) const {
    IntSet out = IntSet::empty_like(box);
    for (const Conj& c : cond) {
      IntSet s = box;
      for (const Constraint& k : c) s = s.where(k);
      out = out.unite(s);
    }
    return out;
  }

  struct Read {
    std::string func;
    std::vector<Expr> args;
    Dnf cond;
    SourceLoc loc;
  };

  void reads(const Expr& e, const Dnf& cond, std::vector<Read>* out) {
    if (!e) return;
    if (e->kind == ExprKind::kSelect) {
      reads(e->operands[0], cond, out);
      auto c = condition(e->operands[0], false), nc = condition(e->operands[0], true);
      if (!c || !nc) {
        note("a select condition that is not affine (" + std::string("its reads count always") +
             ")");
        reads(e->operands[1], cond, out);
        if (e->operands.size() > 2) reads(e->operands[2], cond, out);
        return;
      }
      auto narrow = [&](const Dnf& extra) {
        Dnf d = conj(cond, extra);
        return d.size() > kMaxTerms ? cond : d;
      };
      reads(e->operands[1], narrow(*c), out);
      if (e->operands.size() > 2) reads(e->operands[2], narrow(*nc), out);
      return;
    }
    if (e->kind == ExprKind::kCall && e->call_kind == CallKind::kFunc)
      out->push_back(Read{e->name, e->operands, cond, e->loc});
    for (const Expr& op : e->operands) reads(op, cond, out);
  }

  void note(const std::string& n) {
    if (std::find(out_.notes.begin(), out_.notes.end(), n) == out_.notes.end())
      out_.notes.push_back(n);
  }

  void statements(const StmtList& list, const Dnf& cond, const std::vector<Read>& lets) {
    for (const StmtPtr& sp : list) {
      const Stmt& s = *sp;
      // The kinds the chain did not name.
      const auto otherwise = [&] {
        fail("its loop nest holds more than one level of loops or other statements");
      };
      match_stmt(
          s, [&](const For&) { otherwise(); },
          [&](const LetStmt& l) {
            std::vector<Read> rs = lets;
            reads(l.value, cond, &rs);
            statements(l.body, cond, rs);
          },
          [&](const IfThenElse& i) {
            std::vector<Read> rs = lets;
            reads(i.condition, cond, &rs);
            auto c = condition(i.condition, false), nc = condition(i.condition, true);
            if (!c || !nc) note("an if condition that is not affine (both branches count always)");
            Dnf then_c = c ? conj(cond, *c) : cond, else_c = nc ? conj(cond, *nc) : cond;
            statements(i.then_body, then_c.size() > kMaxTerms ? cond : then_c, rs);
            statements(i.else_body, else_c.size() > kMaxTerms ? cond : else_c, rs);
          },
          [&](const Provide& p) { provide(p, s.loc, cond, lets); },
          [&](const Alloc&) { otherwise(); },
          [&](const WriteChannel& w) { channel(w, s.loc, cond, lets); },
          [&](const Realize& r) { statements(r.body, cond, lets); },
          [&](const Shift&) { otherwise(); }, [&](const Push&) { otherwise(); });
    }
  }

  void provide(const Provide& p, const SourceLoc& loc, const Dnf& cond,
               const std::vector<Read>& lets) {
    Statement st;
    st.name = p.func;
    for (int n = 2; out_.program.find_statement(st.name) >= 0; ++n)
      st.name = p.func + "_" + std::to_string(n);
    st.loc = loc;
    IntSet box = IntSet::box(st.name, out_.loops, out_.mins, out_.extents);
    st.domain = restrict(box, cond);
    auto w = access(p.func, p.args, st.domain);
    if (!w) fail("'" + p.func + "' is written at an index that is not affine in the loops");
    st.writes.push_back(Access{*w, p.func, loc});
    std::vector<Read> rs = lets;
    for (const Expr& a : p.args) reads(a, Dnf{Conj{}}, &rs);
    reads(p.value, Dnf{Conj{}}, &rs);
    add_reads(&st, rs, loc);
    out_.program.statements.push_back(std::move(st));
  }

  // A value sent over a channel: a statement that only reads (named after the channel).
  void channel(const WriteChannel& w, const SourceLoc& loc, const Dnf& cond,
               const std::vector<Read>& lets) {
    Statement st;
    st.name = w.channel;
    for (int n = 2; out_.program.find_statement(st.name) >= 0; ++n)
      st.name = w.channel + "_" + std::to_string(n);
    st.loc = loc;
    st.domain = restrict(IntSet::box(st.name, out_.loops, out_.mins, out_.extents), cond);
    std::vector<Read> rs = lets;
    for (const Expr& a : w.index) reads(a, Dnf{Conj{}}, &rs);
    reads(w.value, Dnf{Conj{}}, &rs);
    add_reads(&st, rs, loc);
    out_.program.statements.push_back(std::move(st));
  }

  void add_reads(Statement* st, const std::vector<Read>& rs, const SourceLoc& loc) {
    for (const Read& r : rs) {
      auto m = access(r.func, r.args, restrict(st->domain, r.cond));
      if (!m) {
        note("a read of '" + r.func + "' at an index that is not affine (left out)");
        continue;
      }
      st->reads.push_back(Access{*m, r.func, r.loc.valid() ? r.loc : loc});
    }
  }

  std::optional<IntMap> access(const std::string& array, const std::vector<Expr>& args,
                               const IntSet& domain) const {
    Affine f;
    for (const Expr& a : args) {
      auto af = affine(a);
      if (!af) return std::nullopt;
      f.coeff.push_back(af->first);
      f.constant.push_back(af->second);
    }
    return IntMap::from_affine(domain, array, f);
  }

  const Program& merged_;
  const Kernel& kernel_;
  KernelProgram out_;
};

}  // namespace

const StmtList& walk_kernel_nest(const StmtList& body,
                                 const std::function<bool(const For&)>& on_loop) {
  using Next = const StmtList*;  // the list to go on with; null to stop at this one
  const StmtList* list = &body;
  while (list->size() == 1) {
    const Next next = match_stmt(
        *(*list)[0], [&](const For& loop) -> Next { return on_loop(loop) ? &loop.body : nullptr; },
        [](const LetStmt&) -> Next { return nullptr; },
        [](const IfThenElse&) -> Next { return nullptr; },
        [](const Provide&) -> Next { return nullptr; },
        [](const Alloc&) -> Next { return nullptr; },
        [](const WriteChannel&) -> Next { return nullptr; },
        [](const Realize& r) -> Next { return &r.body; },
        [](const Shift&) -> Next { return nullptr; }, [](const Push&) -> Next { return nullptr; });
    if (!next) break;
    list = next;
  }
  return *list;
}

KernelProgram kernel_program(const Program& merged, const std::string& kernel) {
  for (const Kernel& k : merged.kernels)
    if (k.name == kernel) return Builder(merged, k).build();
  throw Diagnostic({}, "no kernel '" + kernel + "' in the merged program", "explore-kernel");
}

}  // namespace t2s::explore
