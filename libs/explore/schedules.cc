#include "libs/explore/schedules.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <thread>

#include "libs/explore/directive_text.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/passes/lower/lower.h"
#include "libs/passes/merge/merge.h"
#include "libs/passes/stt/stt.h"

namespace t2s::explore {

namespace {

// One loop of the transformed nest: its row over the group's loops (the kernel's order), and
// whether it is a space loop (else it runs sequentially: outer loops and time loops).
struct Entry {
  std::string name;
  std::vector<int64_t> row;
  bool space = false;
};

// The loops after the transforms `ds`, starting from `order` (outermost first); nullopt when
// a transform does not fit (t2s-stt then refuses it; its locality is not computed).
std::optional<std::vector<Entry>> transformed(const std::vector<std::string>& order,
                                              const std::vector<std::string>& dims,
                                              const std::vector<Directive>& ds) {
  std::vector<Entry> e;
  for (const std::string& n : order) {
    auto it = std::find(dims.begin(), dims.end(), n);
    if (it == dims.end()) return std::nullopt;
    std::vector<int64_t> row(dims.size(), 0);
    row[static_cast<size_t>(it - dims.begin())] = 1;
    e.push_back({n, row, false});
  }
  auto find = [&](const std::string& n) -> int {
    for (size_t i = 0; i < e.size(); ++i)
      if (e[i].name == n) return static_cast<int>(i);
    return -1;
  };
  for (const Directive& d : ds) {
    if (!d.is(DirectiveKind::kSpaceTimeTransform)) continue;
    if (d.args.size() == 3) {  // ({space}, {coefficients})
      const auto& space = d.args[0].items;
      const auto& coef = d.args[1].items;
      const size_t s = space.size();
      if (s == 0 || s > e.size()) return std::nullopt;
      for (size_t k = 0; k < s; ++k)  // space loops innermost, innermost first
        if (e[e.size() - 1 - k].name != space[k].text) return std::nullopt;
      for (size_t k = 0; k < s; ++k) e[e.size() - 1 - k].space = true;
      if (s == e.size()) {
        for (const DirectiveArg& c : coef)
          if (c.text != "0") return std::nullopt;
        continue;
      }
      Entry& t = e[e.size() - 1 - s];
      for (size_t k = 0; k < coef.size() && k < s; ++k) {
        const int64_t c = coef[k].integer().value();
        const std::vector<int64_t>& r = e[e.size() - 1 - k].row;
        for (size_t x = 0; x < r.size(); ++x) t.row[x] += c * r[x];
      }
      t.space = false;
      t.name = "t(" + t.name + ")";
    } else if (d.args.size() == 5) {  // ({src}, {dst}, matrix, reverse)
      const auto& src = d.args[0].items;
      const auto& rows = d.args[2].items;
      std::vector<std::vector<int64_t>> src_rows;
      std::vector<Entry> kept;
      for (const DirectiveArg& a : src) {
        int i = find(a.text);
        if (i < 0) return std::nullopt;
        src_rows.push_back(e[static_cast<size_t>(i)].row);
      }
      for (const Entry& x : e)
        if (std::none_of(src.begin(), src.end(),
                         [&](const DirectiveArg& a) { return a.text == x.name; }))
          kept.push_back(x);
      std::vector<Entry> made;
      for (size_t r = 0; r < rows.size(); ++r) {
        std::vector<int64_t> row(dims.size(), 0);
        for (size_t c = 0; c < rows[r].items.size() && c < src_rows.size(); ++c) {
          const int64_t m = rows[r].items[c].integer().value();
          for (size_t x = 0; x < row.size(); ++x) row[x] += m * src_rows[c][x];
        }
        made.push_back({"d" + std::to_string(r), row, r + 1 < rows.size()});
      }
      if (made.empty()) return std::nullopt;
      e = kept;
      e.push_back(made.back());
      e.insert(e.end(), made.begin(), made.end() - 1);
    }
  }
  return e;
}

int64_t dot(const std::vector<int64_t>& a, const Point& b) {
  int64_t s = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) s += a[i] * b[i];
  return s;
}

// The loop order (outermost first) after `reorder` directives applied to `order`.
std::vector<std::string> reordered(std::vector<std::string> order,
                                   const std::vector<Directive>& ds) {
  for (const Directive& d : ds) {
    if (!d.is(DirectiveKind::kReorder)) continue;
    std::vector<std::string> inner(order.rbegin(), order.rend());
    std::vector<size_t> pos;
    for (const DirectiveArg& a : d.args) {
      auto it = std::find(inner.begin(), inner.end(), a.text);
      if (it != inner.end()) pos.push_back(static_cast<size_t>(it - inner.begin()));
    }
    std::sort(pos.begin(), pos.end());
    size_t k = 0;
    for (const DirectiveArg& a : d.args)
      if (std::find(inner.begin(), inner.end(), a.text) != inner.end() && k < pos.size())
        inner[pos[k++]] = a.text;
    order.assign(inner.rbegin(), inner.rend());
  }
  return order;
}

// The vectorized loops of a statement tree, through loops and realizes only (not inside a let
// or an if).
class VectorizedLoops : public StmtVisitor {
 public:
  explicit VectorizedLoops(std::set<std::string>* out) : out_(out) {}

 protected:
  void visit_for(const For& loop, const Stmt&) override {
    if (loop.loop_kind == LoopKind::kVectorized) out_->insert(loop.var);
    visit_stmts(loop.body);
  }
  void visit_let(const LetStmt&, const Stmt&) override {}
  void visit_if(const IfThenElse&, const Stmt&) override {}

 private:
  std::set<std::string>* out_;
};

class Explorer {
 public:
  Explorer(const Program& program, const ScheduleOptions& o, const Limits& limits)
      : parsed_(program.stage == Stage::kParsed ? program : as_parsed(program)),
        o_(o),
        limits_(limits) {}

  std::vector<GroupSchedules> run() {
    std::vector<std::string> funcs;
    for (const Directive& d : parsed_.directives)
      if ((d.is(DirectiveKind::kMergeUres) || d.is(DirectiveKind::kSpaceTimeTransform)) &&
          std::find(funcs.begin(), funcs.end(), d.func) == funcs.end())
        funcs.push_back(d.func);
    for (const std::string& g : o_.groups)
      if (std::find(funcs.begin(), funcs.end(), g) == funcs.end() && !parsed_.find_func(g))
        throw std::invalid_argument("--group: no Func '" + g + "' in the program");
    std::vector<GroupSchedules> out;
    for (const std::string& f : o_.groups.empty() ? funcs : o_.groups) out.push_back(group(f));
    return out;
  }

 private:
  GroupSchedules group(const std::string& f) {
    GroupSchedules g;
    g.func = f;
    // The program without the group's transforms; they go back at the first one's place.
    Program base = parsed_;
    base.directives.clear();
    insert_at_ = std::string::npos;
    loc_ = {};
    std::vector<Directive> own;
    for (const Directive& d : parsed_.directives) {
      if (d.func == f && d.is(DirectiveKind::kSpaceTimeTransform)) {
        if (insert_at_ == std::string::npos) insert_at_ = base.directives.size(), loc_ = d.loc;
        own.push_back(d);
        continue;
      }
      if (d.func == f && d.is(DirectiveKind::kMergeUres) && !loc_.valid()) loc_ = d.loc;
      base.directives.push_back(d);
    }
    if (insert_at_ == std::string::npos) insert_at_ = base.directives.size();
    base_ = base;
    func_ = f;
    // The group's loops and dependencies, from the merged program as the spec writes it.
    Program merged = lower_to(own.empty() ? base : parsed_, Stage::kMerged);
    const Kernel* kernel = nullptr;
    for (const Kernel& k : merged.kernels)
      if (k.name == f) kernel = &k;
    if (!kernel) throw std::invalid_argument("--group: '" + f + "' has no loop nest of its own");
    modelled_ = true;
    try {
      g.kernel = kernel_program(merged, f);
      g.deps = flow_dependencies(g.kernel.program, limits_);
      g.placed = analyze_placement(g.kernel.program, g.deps, g.kernel.program.placements[0]);
    } catch (const Diagnostic& d) {
      if (d.rule() != "explore-kernel") throw;
      // Not one perfect nest: the transforms are still judged by the passes, without the
      // dependencies (no locality, no early refusal).
      modelled_ = false;
      g.kernel = KernelProgram{};
      g.kernel.notes.push_back(d.message() + "; schedules are judged without its dependencies");
      walk_kernel_nest(kernel->body, [&](const For& loop) {
        g.kernel.loops.push_back(loop.var);
        g.kernel.mins.push_back(loop.min->kind == ExprKind::kIntImm ? loop.min->int_value : 0);
        g.kernel.extents.push_back(loop.extent->kind == ExprKind::kIntImm ? loop.extent->int_value
                                                                          : 0);
        return true;
      });
      g.kernel.program.space = g.kernel.loops;
      g.deps.clear();
      g.placed = PlacementAnalysis{};
    }
    dims_ = g.kernel.loops;
    baseline_ = dims_;
    if (!kernel->pending_order.empty())
      baseline_.assign(kernel->pending_order.rbegin(), kernel->pending_order.rend());
    vectorized_.clear();
    VectorizedLoops(&vectorized_).visit_stmts(kernel->body);
    deps_ = &g.deps;
    placed_ = &g.placed;
    program_ = &g.kernel.program;
    if (!own.empty()) {
      ScheduleCandidate c = evaluate_fresh(own, "spec");
      g.tried.push_back(c);
    }
    for (const std::string& t : o_.tries) {
      std::vector<Directive> ds;
      try {
        ds = parse_chain(t, f, loc_);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("--try ") + e.what());
      } catch (const Diagnostic& d) {
        ScheduleCandidate c;
        c.origin = "--try";
        c.text = t;
        c.rule = d.rule();
        c.message = d.message();
        g.tried.push_back(c);
        continue;
      }
      g.tried.push_back(evaluate_fresh(ds, "--try"));
    }
    g.pe_budget = std::max<int64_t>(o_.max_pes, 0);
    if (o_.max_pes < 0 && !g.tried.empty() && g.tried[0].origin == "spec" && g.tried[0].ok) {
      g.pe_budget = g.tried[0].pes;
      g.budget_from_spec = true;
    }
    if (o_.enumerate) enumerate(&g);
    auto better = [&](const ScheduleCandidate& a, const ScheduleCandidate& b) {
      // The spec's own array size is a soft budget: schedules within it first.
      if (g.budget_from_spec && (a.pes > g.pe_budget) != (b.pes > g.pe_budget))
        return b.pes > g.pe_budget;
      for (const std::string& key : o_.rank_by) {
        bool desc = !key.empty() && key[0] == '-';
        std::string k = desc ? key.substr(1) : key;
        int64_t x = k == "pes"       ? a.pes
                    : k == "time"    ? a.steps
                    : k == "storage" ? a.storage
                                     : a.locality;
        int64_t y = k == "pes"       ? b.pes
                    : k == "time"    ? b.steps
                    : k == "storage" ? b.storage
                                     : b.locality;
        if (x != y) return desc ? x > y : x < y;
      }
      return false;
    };
    std::stable_sort(g.ranked.begin(), g.ranked.end(), better);
    return g;
  }

  // base + the candidate's directives, at the place of the group's transforms.
  Program with(const std::vector<Directive>& ds) const {
    Program p = base_;
    p.directives.insert(p.directives.begin() + static_cast<long>(insert_at_), ds.begin(), ds.end());
    return p;
  }

  void measure(const Program& stt, ScheduleCandidate* c) const {
    c->pes = 1;
    c->steps = 1;
    for (const Kernel& k : stt.kernels) {
      if (k.name != func_) continue;
      // The PE array and the steps: the constant loops down to the first that is not.
      walk_kernel_nest(k.body, [&](const For& loop) {
        if (loop.extent->kind != ExprKind::kIntImm) return false;
        if (loop.loop_kind == LoopKind::kUnrolled) c->pes *= loop.extent->int_value;
        if (loop.loop_kind == LoopKind::kSerial) c->steps *= loop.extent->int_value;
        return true;
      });
    }
    for (const Register& r : stt.registers) {
      if (r.kernel != func_) continue;
      int64_t pes = 1;
      for (int64_t e : r.shape) pes *= e;
      c->storage += r.depth * pes;
      c->naive += r.naive * pes;
    }
  }

  void locality(const std::vector<std::string>& order, ScheduleCandidate* c) const {
    if (!modelled_) return;
    auto entries = transformed(order, dims_, c->directives);
    if (!entries) return;
    c->locality_known = true;
    for (size_t k = 0; k < deps_->size(); ++k)
      for (const VectorCount& v : placed_->deps[k].vectors)
        for (const Entry& e : *entries) {
          int64_t x = dot(e.row, v.vector);
          c->locality += v.count * (x < 0 ? -x : x);
        }
  }

  ScheduleCandidate evaluate_fresh(const std::vector<Directive>& ds, const std::string& origin) {
    ScheduleCandidate c;
    c.directives = ds;
    c.origin = origin;
    c.text = chain_text(func_, ds);
    try {
      Program stt = lower_to(with(ds), Stage::kStt);
      c.ok = true;
      measure(stt, &c);
      locality(reordered(baseline_, ds), &c);
    } catch (const Diagnostic& d) {
      c.rule = d.rule();
      c.message = d.message();
    }
    return c;
  }

  void enumerate(GroupSchedules* g) {
    std::vector<std::string> movable;
    for (const std::string& n : baseline_)
      if (!vectorized_.count(n)) movable.push_back(n);
    std::vector<std::vector<std::string>> orders;
    std::vector<std::string> perm = movable;
    g->all_orders = o_.orders == ScheduleOptions::Orders::kAll ||
                    (o_.orders == ScheduleOptions::Orders::kAuto && movable.size() <= 3);
    if (g->all_orders) {
      std::sort(perm.begin(), perm.end());
      do orders.push_back(perm);
      while (std::next_permutation(perm.begin(), perm.end()));
      // The spec's own order first.
      auto it = std::find(orders.begin(), orders.end(), movable);
      if (it != orders.end()) std::rotate(orders.begin(), it, it + 1);
    } else {
      orders.push_back(movable);
    }
    const int64_t b = o_.bound;
    auto vectors = [b](size_t n) {
      std::vector<std::vector<int64_t>> out;
      std::vector<int64_t> v(n, -b);
      for (;;) {
        out.push_back(v);
        size_t i = 0;
        while (i < n && v[i] == b) v[i++] = -b;
        if (i == n) return out;
        ++v[i];
      }
    };
    auto stt = [&](const std::vector<std::string>& space, const std::vector<int64_t>& c) {
      std::vector<DirectiveArg> names, coefs;
      for (const std::string& s : space) names.push_back(DirectiveArg::expr(s));
      if (std::any_of(c.begin(), c.end(), [](int64_t x) { return x != 0; }))
        for (int64_t x : c) coefs.push_back(DirectiveArg::expr(std::to_string(x)));
      return Directive::make(func_, DirectiveKind::kSpaceTimeTransform,
                             {DirectiveArg::list(names), DirectiveArg::list(coefs),
                              DirectiveArg::enumerator("SpaceTimeTransform::NoCheckTime")},
                             loc_);
    };
    for (const std::vector<std::string>& order0 : orders) {
      std::vector<std::string> order = order0;
      for (const std::string& n : baseline_)
        if (vectorized_.count(n)) order.push_back(n);
      std::vector<Directive> prefix;
      if (order != baseline_) {
        Directive r = Directive::make(func_, DirectiveKind::kReorder, {}, loc_);
        for (auto it = order.rbegin(); it != order.rend(); ++it)
          r.args.push_back(DirectiveArg::expr(*it));
        prefix.push_back(r);
      }
      std::vector<std::vector<Directive>> cands;
      const size_t m = order0.size();
      for (size_t s = 1; s <= m && static_cast<int64_t>(s) <= o_.max_space; ++s) {
        std::vector<std::string> space(order0.rbegin(), order0.rbegin() + static_cast<long>(s));
        for (const auto& c :
             s == m ? std::vector<std::vector<int64_t>>{std::vector<int64_t>(s, 0)} : vectors(s)) {
          std::vector<Directive> ds = prefix;
          ds.push_back(stt(space, c));
          cands.push_back(ds);
          if (!o_.chain || s < 2) continue;
          for (size_t s2 = 1; s2 < s; ++s2) {
            std::vector<std::string> space2(space.begin(), space.begin() + static_cast<long>(s2));
            for (const auto& c2 : vectors(s2)) {
              std::vector<Directive> chained = ds;
              chained.push_back(stt(space2, c2));
              cands.push_back(chained);
            }
          }
        }
      }
      g->enumerated += static_cast<int64_t>(cands.size());
      if (g->enumerated > o_.max_candidates)
        throw std::invalid_argument("more than " + std::to_string(o_.max_candidates) +
                                    " candidate schedules: lower --bound, drop --chain or use "
                                    "--keep-order");
      evaluate_order(order, cands, g);
    }
    judge_all(g);
  }

  // The candidates of one loop order: merged once here; each is judged by the stt pass later
  // (judge_all, in parallel).
  void evaluate_order(const std::vector<std::string>& order,
                      const std::vector<std::vector<Directive>>& cands, GroupSchedules* g) {
    std::optional<Diagnostic> merge_error;
    std::shared_ptr<const Program> merged;
    for (const std::vector<Directive>& ds : cands) {
      Task t;
      t.c.directives = ds;
      t.c.origin = "enumerated";
      t.c.text = chain_text(func_, ds);
      t.order = order;
      if (backwards_in_time(order, ds, &t.c)) {
        ++g->refused_by_time;
        if (o_.show_refused) g->refused.push_back(t.c);
        continue;
      }
      if (!merged && !merge_error) {
        try {
          merged = std::make_shared<const Program>(lower_to(with(ds), Stage::kMerged));
        } catch (const Diagnostic& d) {
          merge_error = d;
        }
      }
      if (merge_error) {
        t.c.rule = merge_error->rule();
        t.c.message = merge_error->message();
        g->refused.push_back(t.c);
        continue;
      }
      t.merged = merged;
      tasks_.push_back(std::move(t));
    }
  }

  struct Task {
    ScheduleCandidate c;
    std::vector<std::string> order;
    std::shared_ptr<const Program> merged;
  };

  void judge(Task* t) const {
    Program m = *t->merged;
    std::vector<Directive> rest;
    size_t at = std::string::npos;
    for (const Directive& d : m.directives) {
      if (d.func == func_ && d.is(DirectiveKind::kSpaceTimeTransform)) {
        if (at == std::string::npos) at = rest.size();
        continue;
      }
      rest.push_back(d);
    }
    if (at == std::string::npos) at = rest.size();
    for (const Directive& d : t->c.directives)
      if (d.is(DirectiveKind::kSpaceTimeTransform))
        rest.insert(rest.begin() + static_cast<long>(at++), d);
    m.directives = rest;
    try {
      Program stt = lower_to(m, Stage::kStt);
      t->c.ok = true;
      measure(stt, &t->c);
      locality(t->order, &t->c);
    } catch (const Diagnostic& d) {
      t->c.rule = d.rule();
      t->c.message = d.message();
    } catch (const std::exception& e) {
      t->c.rule = "internal";
      t->c.message = std::string("the stt pass failed: ") + e.what();
    }
  }

  // Every pending candidate through the stt pass, on a few threads (the passes share no
  // mutable state; libs/poly gives each question its own isl context), results in order.
  void judge_all(GroupSchedules* g) {
    const size_t n = tasks_.size();
    size_t workers = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), 4);
    workers = std::min(workers, std::max<size_t>(n, 1));
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i = next++; i < n; i = next++) judge(&tasks_[i]);
    };
    std::vector<std::thread> threads;
    for (size_t w = 1; w < workers; ++w) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
    for (Task& t : tasks_) {
      if (!t.c.ok) {
        g->refused.push_back(t.c);
      } else if ((o_.min_pes == 0 || t.c.pes >= o_.min_pes) &&
                 (o_.max_pes <= 0 || t.c.pes <= o_.max_pes)) {
        g->ranked.push_back(t.c);
      }
    }
    tasks_.clear();
  }

  // A dependence whose time distance (outer loops, then time loops) is negative is broken
  // whatever the PEs do: such candidates are refused without running the stt pass.
  bool backwards_in_time(const std::vector<std::string>& order, const std::vector<Directive>& ds,
                         ScheduleCandidate* c) const {
    auto entries = transformed(order, dims_, ds);
    if (!entries) return false;
    for (size_t k = 0; k < deps_->size(); ++k)
      for (const VectorCount& v : placed_->deps[k].vectors) {
        for (const Entry& e : *entries) {
          if (e.space) continue;
          int64_t t = dot(e.row, v.vector);
          if (t > 0) break;
          if (t < 0) {
            // Backwards in the time loop of a scheduling vector: T'd < 0 (seed 000's check 2,
            // t2s-stt's stt-schedule); in an outer loop: the order itself is broken.
            c->rule = e.name.rfind("t(", 0) == 0 ? "stt-schedule" : "stt-dependence";
            c->message = "the dependence " + dependency_label(*program_of(), (*deps_)[k]) +
                         " at distance " + point_text_of(v.vector) + " runs " + std::to_string(-t) +
                         " step" + (t == -1 ? "" : "s") + " backwards in loop " + e.name;
            return true;
          }
        }
      }
    return false;
  }

  const PolyProgram* program_of() const { return program_; }

  static std::string point_text_of(const Point& p) {
    std::string t = "(";
    for (size_t i = 0; i < p.size(); ++i) t += (i ? ", " : "") + std::to_string(p[i]);
    return t + ")";
  }

  Program parsed_;
  ScheduleOptions o_;
  Limits limits_;
  Program base_;
  size_t insert_at_ = 0;
  SourceLoc loc_;
  std::string func_;
  std::vector<std::string> dims_, baseline_;
  std::set<std::string> vectorized_;
  const std::vector<Dependency>* deps_ = nullptr;
  const PlacementAnalysis* placed_ = nullptr;
  const PolyProgram* program_ = nullptr;
  std::vector<Task> tasks_;
  bool modelled_ = true;
};

}  // namespace

bool valid_rank_keys(const std::vector<std::string>& keys, std::string* error) {
  for (const std::string& k : keys) {
    std::string key = !k.empty() && k[0] == '-' ? k.substr(1) : k;
    if (key != "pes" && key != "time" && key != "storage" && key != "locality") {
      *error = "unknown ranking key '" + k + "' (pes, time, storage, locality; -KEY: descending)";
      return false;
    }
  }
  return true;
}

std::vector<GroupSchedules> explore_schedules(const Program& program, const ScheduleOptions& o,
                                              const Limits& limits) {
  Explorer e(program, o, limits);
  return e.run();
}

}  // namespace t2s::explore
