// The emulation's --profile (profile.h): markers in a kernel's body where a step starts and
// where a PE does useful work, by the rules of the performance model (docs/report.md).
#include "libs/backends/cpp/profile.h"

#include <algorithm>
#include <map>

#include "libs/ir/diagnostic.h"
#include "libs/ir/loop_walk.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"

namespace t2s {

namespace {

bool reads_channel(const Expr& e) {
  bool found = false;
  for_each_expr(e, [&](const Expr& x) {
    found = found || (x->kind == ExprKind::kCall && x->call_kind == CallKind::kChannel);
  });
  return found;
}

class Marker {
 public:
  Marker(const Kernel& k, size_t index, ProfileKernel* out) : k_(k), out_(out) {
    step_func_ = "t2s_profile_step_" + std::to_string(index);
    work_func_ = "t2s_profile_work_" + std::to_string(index);
    // The PE variables, in order of first appearance, with their constant ranges.
    for_each_loop(k.body, [&](const For& f, const Stmt& s) {
      if (f.loop_kind != LoopKind::kUnrolled) return;
      if (f.min->kind != ExprKind::kIntImm || f.extent->kind != ExprKind::kIntImm)
        throw Diagnostic(s.loc, "--profile needs unrolled loops with constant bounds",
                         "emit-unsupported");
      const int64_t lo = f.min->int_value, hi = lo + f.extent->int_value - 1;
      auto it = std::find(vars_.begin(), vars_.end(), f.var);
      if (it == vars_.end()) {
        vars_.push_back(f.var);
        range_[f.var] = {lo, hi};
      } else {
        range_[f.var] = {std::min(range_[f.var].first, lo), std::max(range_[f.var].second, hi)};
      }
    });
    out_->pes = 1;
    for (const std::string& v : vars_) out_->pes *= range_[v].second - range_[v].first + 1;
    out_->body = mark(k.body);
    if (!contains_serial_loop(k.body)) out_->body.insert(out_->body.begin(), step());
  }

 private:
  StmtPtr step() const { return make_provide(step_func_, {}, make_int(Type::Int(32), 0)); }

  // The PE's linear index: sum of (v - lo) * stride; a variable not in scope counts as its lo.
  StmtPtr work() const {
    Expr index = make_int(Type::Int(32), 0);
    int64_t stride = 1;
    for (const std::string& v : vars_) {
      const auto [lo, hi] = range_.at(v);
      if (std::find(scope_.begin(), scope_.end(), v) != scope_.end()) {
        const Expr offset = make_binary(BinaryOp::kSub, make_var(v, Type::Int(32), {}),
                                        make_int(Type::Int(32), lo), Type::Int(32));
        const Expr term =
            make_binary(BinaryOp::kMul, offset, make_int(Type::Int(32), stride), Type::Int(32));
        index = make_binary(BinaryOp::kAdd, index, term, Type::Int(32));
      }
      stride *= hi - lo + 1;
    }
    return make_provide(work_func_, {index}, make_int(Type::Int(32), 0));
  }

  StmtList mark(const StmtList& list) {
    StmtList out;
    for (const StmtPtr& sp : list) {
      const Stmt& s = *sp;
      // A statement that does work (a store, a channel write, a FIFO push) is counted before it.
      const auto work_then_stmt = [&] {
        out.push_back(work());
        out.push_back(sp);
      };
      match_stmt(
          s,
          [&](const For& f) {
            For copy = f;
            scope_.push_back(f.var);
            copy.body = mark(f.body);
            scope_.pop_back();
            if (f.loop_kind == LoopKind::kSerial && !contains_serial_loop(f.body))
              copy.body.insert(copy.body.begin(), step());
            out.push_back(with_node(s, copy));
          },
          [&](const LetStmt& let) {
            if (reads_channel(let.value)) out.push_back(work());
            LetStmt copy = let;
            copy.body = mark(let.body);
            out.push_back(with_node(s, copy));
          },
          [&](const IfThenElse& branch) {
            if (reads_channel(branch.condition)) out.push_back(work());
            IfThenElse copy = branch;
            copy.then_body = mark(branch.then_body);
            copy.else_body = mark(branch.else_body);
            out.push_back(with_node(s, copy));
          },
          [&](const Provide&) { work_then_stmt(); }, [&](const Alloc&) { out.push_back(sp); },
          [&](const WriteChannel&) { work_then_stmt(); },
          [&](const Realize& r) {
            Realize copy = r;
            copy.body = mark(r.body);
            out.push_back(with_node(s, copy));
          },
          [&](const Shift&) { out.push_back(sp); }, [&](const Push&) { work_then_stmt(); });
    }
    return out;
  }

  const Kernel& k_;
  ProfileKernel* out_;
  std::string step_func_, work_func_;
  std::vector<std::string> vars_;
  std::map<std::string, std::pair<int64_t, int64_t>> range_;
  std::vector<std::string> scope_;
};

}  // namespace

ProfileKernel profile_kernel(const Kernel& kernel, size_t index) {
  ProfileKernel out;
  Marker(kernel, index, &out);
  return out;
}

bool profile_marker(const std::string& func, size_t* index, bool* step) {
  for (const char* prefix : {"t2s_profile_step_", "t2s_profile_work_"}) {
    const std::string p = prefix;
    if (func.compare(0, p.size(), p) == 0) {
      *index = std::stoul(func.substr(p.size()));
      *step = p == "t2s_profile_step_";
      return true;
    }
  }
  return false;
}

}  // namespace t2s
