#include "libs/passes/merge/merge.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>

#include "libs/ir/expr_parser.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/program_facts.h"
#include "libs/ir/visitor.h"
#include "libs/passes/merge/plan.h"
#include "libs/passes/merge/rewrite.h"

namespace t2s {

using namespace merge_internal;

namespace {

// Loop nests larger than this are refused rather than attempted (DESIGN.md section 5).
constexpr int64_t kMaxIterations = 1000000000000;  // 10^12: GEMM 1024^3 and beyond
constexpr int64_t kMaxStorageElements = int64_t{1} << 31;

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

const std::string& arg_name(const DirectiveArg& a) { return a.text; }

int64_t arg_int(const DirectiveArg& a, const SourceLoc& loc) {
  if (const std::optional<int64_t> v = a.integer()) return *v;
  throw Diagnostic(loc, "expected an integer constant, found '" + a.text + "'",
                   "constant-expected");
}

class Merger {
 public:
  explicit Merger(const Program& parsed) : in_(parsed), out_(parsed), names_(parsed) {
    out_.stage = Stage::kMerged;
    out_.kernels.clear();
    out_.buffers.clear();
    out_.channels.clear();
  }

  Program run() {
    read_directives();
    check_structure(out_, plan_);
    check_initial_values(out_);
    make_groups();
    check_cycles();
    check_realized_consumer();
    resolve_bounds();
    infer_bounds(out_, plan_, isolation_targets());
    // Isolated Funcs get their loops in apply_isolation, and are checked there.
    const GroupFilter own_loops = [&](const Group& g) { return !is_isolation_target(g.rep); };
    finish_splits(plan_, own_loops);
    check_distances(out_, plan_, own_loops);
    check_split_order(out_, plan_, own_loops);
    apply_isolation();
    lower();
    infer_input_extents(out_);
    // `funcs` stay as the spec wrote them (isolation's rewrites live in the kernels), so any
    // later stage can be merged again to give its reference (t2s-run --check).
    out_.funcs = in_.funcs;
    return std::move(out_);
  }

 private:
  Func& func(const std::string& name) { return *out_.find_func(name); }
  bool defined(const std::string& name) {
    const Func* f = out_.find_func(name);
    return f && f->definition;
  }

  // ---------------------------------------------------------------------------------------
  // Directives

  void read_directives() {
    using K = DirectiveKind;
    for (const Directive& d : in_.directives) {
      const K k = d.kind();
      if (k == K::kMergeUres) {
        Group g;
        g.rep = d.func;
        g.members.push_back(d.func);
        g.merged = true;
        g.loc = d.loc;
        for (const DirectiveArg& a : d.args) g.members.push_back(arg_name(a));
        for (const std::string& m : g.members)
          if (!defined(m))
            throw Diagnostic(d.loc,
                             "merge_ures of '" + m +
                                 "', which is never defined: every merged "
                                 "URE needs a definition",
                             "merge-undefined");
        for (const std::string& m : g.members) {
          if (plan_.group_of.count(m))
            throw Diagnostic(d.loc, "'" + m + "' is merged twice", "merge-twice");
          plan_.group_of[m] = plan_.groups.size();
        }
        plan_.groups.push_back(g);
      } else if (k == K::kSetBounds || k == K::kReorder || k == K::kSplit || k == K::kUnroll ||
                 k == K::kVectorize) {
        loop_directives_.push_back(&d);
      } else if (k == K::kIsolateConsumer || k == K::kIsolateConsumerChain) {
        std::string from = d.func;
        for (const DirectiveArg& a : d.args) {
          // A Func's values go over one channel to one consumer: a second consumer would wait
          // for values the first one takes (a deadlock at run time).
          for (const Isolation& earlier : plan_.isolations)
            if (earlier.from == from)
              throw Diagnostic(d.loc,
                               "'" + from + "' already has an isolated consumer, '" + earlier.to +
                                   "'; its values go to one consumer: make '" + arg_name(a) +
                                   "' read '" + earlier.to + "' (" + earlier.to +
                                   ".isolate_consumer(" + arg_name(a) + "), or " + from +
                                   ".isolate_consumer_chain(" + earlier.to + ", " + arg_name(a) +
                                   "))",
                               "isolate-consumer-twice")
                  .add_note(earlier.loc,
                            "'" + earlier.to + "' is isolated from '" + from + "' here");
          plan_.isolations.push_back({from, arg_name(a), d.loc});
          from = arg_name(a);
        }
      } else if (k == K::kIsolateProducerChain) {
        producer_directives_.push_back(&d);
      } else if (k == K::kMinDepth) {
        const int64_t depth = arg_int(d.args[0], d.loc);
        // (t2s-parse refuses these; hand-edited IR may carry them.)
        if (depth < 1 || depth > INT32_MAX)
          throw Diagnostic(
              d.loc,
              "min_depth: the depth must be from 1 to 2^31 - 1, not " + std::to_string(depth),
              "directive-args");
        plan_.min_depth[d.func] = depth;
        min_depth_loc_[d.func] = d.loc;
      } else if (const DirectiveDecl* decl = d.decl();
                 decl && decl->stage == DirectiveStage::kMerge && !decl->implemented) {
        throw Diagnostic(d.loc, "'" + d.name + "' is not supported yet", "unsupported-directive");
      }
      // space_time_transform, vectorize, unroll, gather, scatter and buffer belong to later
      // stages, which read them from `directives`.
    }
  }

  // ---------------------------------------------------------------------------------------
  // Which Funcs get a loop nest, which are inlined

  void make_groups() {
    std::set<std::string> isolated;
    for (const Isolation& iso : plan_.isolations) {
      isolated.insert(iso.from);
      isolated.insert(iso.to);
    }
    for (const Directive* d : producer_directives_) {
      isolated.insert(d->func);
      for (size_t i = 1; i < d->args.size(); ++i) isolated.insert(arg_name(d->args[i]));
    }
    // F.gather(A, v): both keep a loop nest (the gather stage rewrites their channel).
    for (const Directive& d : in_.directives) {
      if (!d.is(DirectiveKind::kGather)) continue;
      if (defined(d.func)) isolated.insert(d.func);
      if (!d.args.empty() && defined(arg_name(d.args[0]))) isolated.insert(arg_name(d.args[0]));
    }
    const std::set<std::string> roots = compute_root_funcs(out_, plan_);
    for (const Func& f : out_.funcs) {
      if (plan_.group_of.count(f.name)) continue;
      bool self_recursive = false;
      if (f.definition)
        for (const std::string& c : called_funcs(f.definition)) self_recursive |= c == f.name;
      // Halide's default: a Func that is not merged, not recursive, not realized, not
      // compute_root and not named by an isolation directive is inlined into its users,
      // whatever its Place.
      bool computed = f.name == in_.output.func || isolated.count(f.name) || roots.count(f.name) ||
                      (f.definition && self_recursive && f.wraps.empty());
      if (!computed) {
        if (f.definition) plan_.inlined.insert(f.name);
        continue;
      }
      Group g;
      g.rep = f.name;
      g.members = {f.name};
      g.loop_vars = f.args;
      g.loc = f.loc;
      plan_.group_of[f.name] = plan_.groups.size();
      plan_.groups.push_back(g);
    }
    for (Group& g : plan_.groups)
      if (g.merged) g.loop_vars = func(g.rep).args;
    // A Func used but never defined (and not defined by an isolation directive).
    for (const Func& f : out_.funcs) {
      if (!f.definition) continue;
      for (const std::string& c : called_funcs(f.definition))
        if (!defined(c) && !isolated.count(c))
          throw Diagnostic(f.loc, "'" + f.name + "' uses '" + c + "', which is never defined",
                           "undefined-func");
    }
  }

  // Funcs that depend on each other must share a loop nest (merge_ures).
  void check_cycles() {
    std::map<std::string, std::vector<std::string>> calls;
    for (const Func& f : out_.funcs)
      if (f.definition) calls[f.name] = called_funcs(f.definition);
    auto key = [&](const std::string& f) {
      auto it = plan_.group_of.find(f);
      return it == plan_.group_of.end() ? "func " + f : "group " + plan_.groups[it->second].rep;
    };
    // Depth-first search for a path from a callee back to the caller through other nests.
    for (const Func& f : out_.funcs) {
      if (!f.definition) continue;
      for (const std::string& c : calls[f.name]) {
        if (key(c) == key(f.name)) continue;
        std::vector<std::string> path;
        std::set<std::string> seen;
        std::function<bool(const std::string&)> reaches = [&](const std::string& x) {
          if (x == f.name) return true;
          if (!seen.insert(x).second) return false;
          path.push_back(x);
          for (const std::string& y : calls[x])
            if (reaches(y)) return true;
          path.pop_back();
          return false;
        };
        if (reaches(c))
          throw Diagnostic(f.loc,
                           "'" + f.name + "' and '" + join(path) +
                               "' depend on each other but are not in one loop nest: merge "
                               "them with merge_ures",
                           "merge-cycle");
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // Loop bounds and order

  void resolve_bounds() {
    for (const Directive* d : loop_directives_) {
      auto it = plan_.group_of.find(d->func);
      if (it == plan_.group_of.end())
        throw Diagnostic(
            d->loc,
            d->name + " on '" + d->func +
                "', which has no loop nest of its own (it is inlined into its "
                "users: it is not merged, recursive, realized, isolated, gathered or compute_root)",
            "directive-on-inlined");
      Group& g = plan_.groups[it->second];
      if (g.rep != d->func)
        throw Diagnostic(d->loc,
                         d->name + " on '" + d->func + "', which is merged into '" + g.rep +
                             "': call it on the representative '" + g.rep + "'",
                         "merge-directive-on-member");
      // An isolated Func has no loops until apply_isolation copies them (copy_loops): its loop
      // directives wait until then (apply_deferred).
      if (is_isolation_target(d->func))
        deferred_[d->func].push_back(d);
      else
        apply_loop(g, *d);
    }
    // A realized isolated consumer copies the loops of the Func its chain starts from, so the
    // realize extents bound that Func's loops (over its arguments).
    // (The verifier refuses cycles of isolations; the walk stops after one step per isolation
    // all the same.)
    std::string source = in_.output.func;
    for (size_t steps = 0; steps < plan_.isolations.size(); ++steps) {
      auto iso = std::find_if(plan_.isolations.begin(), plan_.isolations.end(),
                              [&](const Isolation& i) { return i.to == source; });
      if (iso == plan_.isolations.end()) break;
      source = iso->from;
    }
    const Func* output = out_.find_func(source);
    for (Group& g : plan_.groups) {
      bool has_output = std::find(g.members.begin(), g.members.end(), source) != g.members.end();
      for (const std::string& v : g.loop_vars) {
        auto pos = std::find(output->args.begin(), output->args.end(), v);
        if (has_output && pos != output->args.end()) {
          int64_t e = in_.output.extents[pos - output->args.begin()];
          if (!g.bounds.count(v)) {
            g.bounds[v] = {0, e};
          } else if (g.bounds[v].min != 0 || g.bounds[v].extent != e) {
            throw Diagnostic(
                in_.output.loc,
                "'" + in_.output.func + "' is realized with extent " + std::to_string(e) + " in '" +
                    v + "', but " +
                    (source == in_.output.func ? "its loop"
                                               : "the loop of '" + source + "' it copies") +
                    " runs over [" + std::to_string(g.bounds[v].min) + ", " +
                    std::to_string(g.bounds[v].min + g.bounds[v].extent) + ")",
                "realize-bounds");
          }
        }
      }
    }
  }

  // A set_bounds, reorder, split, unroll or vectorize directive `d` on the loops of group `g`.
  void apply_loop(Group& g, const Directive& d) {
    if (d.is(DirectiveKind::kReorder)) {  // the last reorder, and the order before the first
      if (g.reorder < 0) g.defined_order = g.loop_vars;
      g.reorder = static_cast<int>(&d - in_.directives.data());
    }
    if (d.is(DirectiveKind::kVectorize)) {
      if (d.args.size() != 1)
        throw Diagnostic(d.loc, "vectorize: expected (v) in the IR's normal form (docs/ir.md)",
                         "directive-args");
      // A loop given two kind directives takes the later one (as T2SP): vectorize after
      // unroll vectorizes.
      if (auto n = plan_.nests.find(g.rep); n != plan_.nests.end())
        n->second.unrolled.erase(arg_name(d.args[0]));
      plan_.vectorized[g.rep][arg_name(d.args[0])] = d.loc;
      return;
    }
    if (apply_loop_directive(plan_, g, d)) return;
    auto check_var = [&](const std::string& v) {
      if (std::find(g.loop_vars.begin(), g.loop_vars.end(), v) == g.loop_vars.end())
        throw Diagnostic(d.loc,
                         "'" + v + "' is not a loop of '" + g.rep + "' (" + join(g.loop_vars) + ")",
                         d.is(DirectiveKind::kReorder) ? "reorder-var" : "set-bounds-var");
    };
    if (d.is(DirectiveKind::kSetBounds)) {
      for (size_t i = 0; i + 2 < d.args.size(); i += 3) {
        const std::string& v = arg_name(d.args[i]);
        check_var(v);
        LoopBound b{arg_int(d.args[i + 1], d.loc), arg_int(d.args[i + 2], d.loc)};
        if (b.extent <= 0)
          throw Diagnostic(
              d.loc, "extent of '" + v + "' must be positive, not " + std::to_string(b.extent),
              "set-bounds-extent");
        auto copied = g.bounds.find(v);
        if (is_isolation_target(g.rep) && copied != g.bounds.end() &&
            (copied->second.min != b.min || copied->second.extent != b.extent))
          throw Diagnostic(d.loc,
                           "set_bounds of '" + v + "' on '" + g.rep + "', an isolated Func, to [" +
                               std::to_string(b.min) + ", " + std::to_string(b.min + b.extent) +
                               "): it copies its loops from the nest it is isolated from, where '" +
                               v + "' runs over [" + std::to_string(copied->second.min) + ", " +
                               std::to_string(copied->second.min + copied->second.extent) + ")",
                           "set-bounds-var");
        g.bounds[v] = b;
      }
    } else {
      std::vector<std::string> order;
      for (const DirectiveArg& a : d.args) {
        check_var(arg_name(a));
        if (std::find(order.begin(), order.end(), arg_name(a)) != order.end())
          throw Diagnostic(d.loc, "'" + arg_name(a) + "' appears twice in reorder", "reorder-var");
        order.push_back(arg_name(a));
      }
      // Halide's reorder: the named loops take the positions they occupied, in the given
      // order (innermost first); other loops stay where they are.
      std::vector<size_t> slots;
      for (size_t i = 0; i < g.loop_vars.size(); ++i)
        if (std::find(order.begin(), order.end(), g.loop_vars[i]) != order.end())
          slots.push_back(i);
      for (size_t i = 0; i < slots.size(); ++i) g.loop_vars[slots[i]] = order[i];
    }
  }

  // Bounds of groups that copy another's (isolated consumers and producers); called once the
  // isolation edges are known.
  // The loops of `from` over `vars`, in its order. An isolated consumer copies its producer's
  // split loops too (it inherits the producer's schedule); an isolated producer copies the
  // loops as declared and bounded (`with_splits` false): its own directives act on its own
  // copy, whatever its consumer splits (T2S: each Func's schedule is its own; channel lanes
  // are matched by t2s-vec, orders checked by check_channel_order).
  void copy_loops(Group& g, const Group& from, const std::vector<std::string>& vars,
                  bool with_splits = true) {
    g.loop_vars.clear();
    for (const std::string& v : from.loop_vars)
      if (std::find(vars.begin(), vars.end(), v) != vars.end()) g.loop_vars.push_back(v);
    g.bounds = from.bounds;
    if (with_splits) copy_nest(plan_, g, from, vars);
  }

  void check_all_bounds() {
    for (const Group& g : plan_.groups) {
      check_group_bounds(g);
      int64_t iterations = 1;
      for (const std::string& v : g.loop_vars) {
        auto it = g.bounds.find(v);
        iterations = it->second.extent > kMaxIterations ? kMaxIterations + 1
                                                        : iterations * it->second.extent;
        if (iterations > kMaxIterations)
          throw Diagnostic(g.loc,
                           "the loop nest of '" + g.rep + "' has more than " +
                               std::to_string(kMaxIterations) + " iterations",
                           "loop-too-large");
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // Isolation: new Funcs, their loop nests, and the edges values travel along

  Group& group(const std::string& f) { return plan_.groups[plan_.group_of.at(f)]; }

  // The realized Func is the end of its consumer chain: a consumer isolated from it would get
  // values nothing reads (its kernel would be dead; t2s-stt found it empty).
  void check_realized_consumer() {
    for (const Isolation& iso : plan_.isolations) {
      if (iso.from != in_.output.func) continue;
      std::string last = iso.to;
      for (bool more = true; more;) {
        more = false;
        for (const Isolation& next : plan_.isolations)
          if (next.from == last) {
            last = next.to;
            more = true;
            break;
          }
      }
      throw Diagnostic(in_.output.loc,
                       "'" + iso.from +
                           "' is realized, but its values go on to its isolated "
                           "consumer '" +
                           iso.to +
                           "', which nothing would read: realize the "
                           "last Func of the chain, '" +
                           last + "' (" + last + ".realize(...))",
                       "isolate-realize")
          .add_note(iso.loc, "'" + iso.to + "' is isolated from '" + iso.from + "' here");
    }
  }

  void apply_isolation() {
    check_all_bounds_for_merges();
    for (Isolation& iso : plan_.isolations) {
      if (!defined(iso.from))
        throw Diagnostic(iso.loc, "'" + iso.from + "' is not defined, so it has no consumer",
                         "isolate-undefined");
      Func& from = func(iso.from);
      Func& to = func(iso.to);
      to.type = from.type;
      to.args = from.args;
      to.definition = make_call(from.name, CallKind::kFunc, from.type, var_exprs(from.args));
      to.loc = iso.loc;
      Group& g = group(iso.to);
      g.copies = iso.from;
      g.loc = iso.loc;
      copy_loops(g, group(iso.from), from.args);
      inherit_schedule(in_, plan_, g, group(iso.from), iso.loc);
      apply_deferred(g);
    }
    for (const Directive* d : producer_directives_) isolate_producers(*d);
    check_all_bounds();
    // The checks run on the other nests before (Merger::run), now on the isolated ones.
    const GroupFilter isolated = [&](const Group& g) { return is_isolation_target(g.rep); };
    finish_splits(plan_, isolated);
    check_distances(out_, plan_, isolated);
    check_split_order(out_, plan_, isolated);
  }

  // The loop directives of isolated Func `g.rep`, in program order, once it has its loops.
  void apply_deferred(Group& g) {
    auto it = deferred_.find(g.rep);
    if (it == deferred_.end()) return;
    for (const Directive* d : it->second) apply_loop(g, *d);
  }

  void check_all_bounds_for_merges() {
    for (const Group& g : plan_.groups)
      if (g.copies.empty() && !is_isolation_target(g.rep)) check_group_bounds(g);
  }

  std::set<std::string> isolation_targets() {
    std::set<std::string> out;
    for (const Group& g : plan_.groups)
      if (is_isolation_target(g.rep)) out.insert(g.rep);
    return out;
  }

  bool is_isolation_target(const std::string& f) {
    for (const Isolation& iso : plan_.isolations)
      if (iso.to == f) return true;
    for (const Directive* d : producer_directives_)
      for (size_t i = 1; i < d->args.size(); ++i)
        if (arg_name(d->args[i]) == f) return true;
    return false;
  }

  void check_group_bounds(const Group& g) {
    for (const std::string& v : g.loop_vars)
      if (!g.bounds.count(v))
        throw Diagnostic(g.loc,
                         "no bounds for loop '" + v + "' of '" + g.rep + "': give " + g.rep +
                             ".set_bounds(" + v + ", min, extent)",
                         "merge-bounds");
  }

  // F.isolate_producer_chain(x, P1, ..., Pn): `x` must occur exactly once in the definitions
  // of F's merge group (any of its UREs, not only F's own definition).
  // `x` may be a list {x0, x1, ...}: each value is isolated in turn, the first into P1..Pn, the
  // others into Funcs of their own merged into P1..Pn's kernels (named Pi_1, Pi_2, ...; each
  // value keeps its own channels), so one producer kernel sends several values.
  void isolate_producers(const Directive& d) {
    if (!defined(d.func)) {
      // A chain built in steps names each link after the directive that defines it.
      for (const Directive* later : producer_directives_)
        for (size_t i = 1; later != &d && i < later->args.size(); ++i)
          if (arg_name(later->args[i]) == d.func)
            throw Diagnostic(d.loc,
                             "'" + d.func +
                                 "' is not defined yet: a later isolate_producer_chain defines "
                                 "it; isolate from it after that directive",
                             "isolate-undefined")
                .add_note(later->loc, "'" + d.func + "' is defined here");
      throw Diagnostic(d.loc, "'" + d.func + "' is not defined", "isolate-undefined");
    }
    std::vector<std::string> producers;
    for (size_t i = 1; i < d.args.size(); ++i) producers.push_back(arg_name(d.args[i]));
    if (d.args[0].kind != DirectiveArg::kList) {
      isolate_value(d, d.args[0], producers);
      return;
    }
    for (size_t v = 0; v < d.args[0].items.size(); ++v) {
      std::vector<std::string> names = producers;
      if (v > 0) {
        for (std::string& name : names) name = value_producer(name, v, d);
      }
      isolate_value(d, d.args[0].items[v], names);
    }
  }

  // A Func that carries value `v` of a list isolation in producer `p`'s kernel. It exists in
  // the merged kernels only (the IR's funcs stay as the spec wrote them), so its values must
  // leave over channels, never through a buffer.
  std::string value_producer(const std::string& p, size_t v, const Directive& d) {
    for (const std::string& end : {p, group(d.func).rep})
      if (!on_device(end))
        throw Diagnostic(d.loc,
                         "isolate_producer_chain of a list " +
                             (end == p ? "into '" + p + "'" : "read by '" + end + "'") +
                             ", which is on the host: the values of a list after the first travel "
                             "over channels of their own, so the producers and the reader must "
                             "be on Place::Device",
                         "isolate-producer-list");
    const SourceLoc& loc = d.loc;
    const std::string name = names_.fresh(p + "_" + std::to_string(v));
    Func f;
    f.name = name;
    f.place = Place::kDevice;
    f.loc = loc;
    out_.funcs.push_back(f);
    const size_t index = plan_.group_of.at(p);
    plan_.groups[index].members.push_back(name);
    plan_.group_of[name] = index;
    return name;
  }

  void isolate_value(const Directive& d, const DirectiveArg& value,
                     const std::vector<std::string>& producers) {
    if (value.kind != DirectiveArg::kExpr || !value.value)
      throw Diagnostic(d.loc, "the value to isolate must be an expression", "directive-args");
    Expr x = resolve_in_program(value.value, out_);
    // Occurrences: a bare name stands for every call of that Func or input.
    bool by_name = x->kind == ExprKind::kVar;
    std::vector<Expr> conditions;  // select conditions on the path to the occurrence
    int count = 0;
    Expr found;
    std::string found_in;                // the URE whose definition holds the occurrence
    std::vector<std::string> occurs_in;  // every URE with an occurrence, in merge order
    std::string current;
    std::function<void(const Expr&, std::vector<Expr>&)> find = [&](const Expr& e,
                                                                    std::vector<Expr>& path) {
      bool match = by_name ? (e->kind == ExprKind::kCall && e->name == x->name) : equal(e, x);
      if (match) {
        if (++count == 1) {
          conditions = path;
          found = e;
          found_in = current;
        }
        if (std::find(occurs_in.begin(), occurs_in.end(), current) == occurs_in.end())
          occurs_in.push_back(current);
        return;
      }
      if (e->kind == ExprKind::kSelect) {
        find(e->operands[0], path);
        path.push_back(e->operands[0]);
        find(e->operands[1], path);
        path.pop_back();
        if (e->operands.size() == 3) {
          path.push_back(make_unary(UnaryOp::kNot, e->operands[0], e->operands[0]->type));
          find(e->operands[2], path);
          path.pop_back();
        }
        return;
      }
      for (const Expr& o : e->operands) find(o, path);
    };
    const Group& rg = group(d.func);
    for (const std::string& m : rg.members) {
      if (!func(m).definition) continue;
      current = m;
      std::vector<Expr> path;
      find(func(m).definition, path);
    }
    if (count != 1) {
      std::string where = rg.members.size() > 1
                              ? "the merge group of '" + rg.rep + "' (" + join(rg.members) + ")"
                              : "the definition of '" + d.func + "'";
      if (!occurs_in.empty() && rg.members.size() > 1) where += ", in " + join(occurs_in);
      throw Diagnostic(d.loc,
                       "'" + value.text + "' occurs " + std::to_string(count) + " times in " +
                           where + "; isolate_producer_chain needs exactly one occurrence",
                       "isolate-producer-occurrence");
    }
    Func& reader = func(found_in);
    // The producer follows the conditions on loop variables. A condition that reads Func values
    // (`select(F(n), w(n) - 4, ...)` with F a merged URE) is the reader's to decide: the
    // producer sends the value wherever the loop conditions hold, and the reader takes it from
    // the channel there, before its select (a let), so both ends agree on every value whatever
    // F computes (T2SP accepts such a producer).
    // A chain built one link at a time (`A.isolate_producer_chain(a, feed);
    // feed.isolate_producer_chain(a, load);`) isolates from a producer whose definition is the
    // bare value: when it sends lives in its producer condition, which the new links keep, so
    // every link sends exactly the values the next one reads.
    Expr condition;
    if (auto it = producer_condition_.find(found_in); it != producer_condition_.end())
      condition = it->second;
    bool func_condition = false;
    for (const Expr& c : conditions) {
      if (!called_funcs(c).empty()) {
        func_condition = true;
        continue;
      }
      condition = condition ? make_binary(BinaryOp::kAnd, condition, c, Type::Bool()) : c;
    }
    const Func& rep = func(rg.rep);
    // Without the reader's Func condition the producer may reach input indices the program
    // never read (`select(F(n), w(n - 1), 7)` with F(0) false reads w(-1)): inputs start at 0
    // (their extents are inferred as the largest index read plus one), so each index that is
    // not a plain loop variable or a constant is guarded, and the producer sends 0 below it.
    Expr sent = found;
    if (func_condition) {
      Expr guard;
      for_each_expr(found, [&](const Expr& e) {
        if (e->kind != ExprKind::kCall || e->call_kind != CallKind::kImage) return;
        for (const Expr& index : e->operands) {
          if (index->kind == ExprKind::kVar || index->kind == ExprKind::kIntImm) continue;
          Expr ge = make_binary(BinaryOp::kGE, index, make_int(index->type, 0), Type::Bool());
          guard = guard ? make_binary(BinaryOp::kAnd, guard, ge, Type::Bool()) : ge;
        }
      });
      if (guard) sent = make_select(guard, found, zero_of(found->type), found->type, found->loc);
    }
    std::string prev;
    for (const std::string& producer : producers) {
      Func& p = func(producer);
      if (p.definition)
        throw Diagnostic(d.loc,
                         "'" + p.name +
                             "' is already defined; isolate_producer_chain "
                             "defines it",
                         "isolate-defined");
      p.type = found->type;
      p.args = rep.args;
      p.definition =
          prev.empty() ? sent : make_call(prev, CallKind::kFunc, found->type, var_exprs(rep.args));
      p.loc = d.loc;
      Group& g = group(p.name);
      g.loc = d.loc;
      copy_loops(g, rg, rep.args, /*with_splits=*/false);
      if (p.place == Place::kDevice) inherit_array_schedule(in_, plan_, g, rg, d.loc);
      apply_deferred(g);
      if (!prev.empty()) plan_.isolations.push_back({prev, p.name, d.loc});
      prev = p.name;
    }
    // The reader now reads the last producer.
    Expr last = make_call(prev, CallKind::kFunc, found->type, var_exprs(rep.args));
    NodeReplacer swap(found, last);
    reader.definition = swap.mutate(reader.definition);
    plan_.isolations.push_back({prev, reader.name, d.loc});
    for (const std::string& producer : producers) producer_condition_[producer] = condition;
    if (func_condition) hoisted_reads_[reader.name][prev] = condition;
  }

  // ---------------------------------------------------------------------------------------
  // Lowering

  static Expr zero_of(Type t) {
    return t.is_float() ? make_float(t, 0.0) : t.is_bool() ? make_bool(false) : make_int(t, 0);
  }

  std::string kernel_of(const std::string& f) { return group(f).rep; }
  bool on_device(const std::string& kernel) {
    for (const std::string& m : group(kernel).members)
      if (func(m).place == Place::kDevice) return true;
    return false;
  }

  // The channel carrying `from`'s values into `to`, if both kernels are on the device.
  const Channel* channel_between(const std::string& from, const std::string& to) {
    for (const Channel& c : out_.channels)
      if (c.producer == kernel_of(from) && c.consumer == kernel_of(to) &&
          channel_func_[c.name] == from)
        return &c;
    return nullptr;
  }

  void lower() {
    // Channels for isolation edges between device kernels; buffers otherwise.
    for (const Isolation& iso : plan_.isolations) {
      bool channel = on_device(kernel_of(iso.from)) && on_device(kernel_of(iso.to));
      if (!channel) {
        need_buffer_.insert(iso.from);
        continue;
      }
      Channel c;
      c.name = names_.fresh(iso.from + "_to_" + iso.to);
      c.type = func(iso.from).type;
      c.depth = plan_.min_depth.count(iso.to) ? plan_.min_depth[iso.to] : 0;
      c.producer = kernel_of(iso.from);
      c.consumer = kernel_of(iso.to);
      c.loc = iso.loc;
      channel_func_[c.name] = iso.from;
      out_.channels.push_back(c);
      check_channel_order(iso, c);
    }
    device_read_channels();
    for (const auto& [f, depth] : plan_.min_depth) {
      bool found = false;
      for (const Channel& c : out_.channels) found |= c.consumer == kernel_of(f);
      if (!found)
        throw Diagnostic(min_depth_loc_[f],
                         "min_depth on '" + f +
                             "', which reads no channel (min_depth sets the depth of the channel "
                             "into a Func)",
                         "min-depth");
    }
    // Inline, then find which Funcs each kernel reads from other kernels' memory.
    std::map<std::string, Inlined> values;  // computed Func -> definition with inlined calls
    for (const Group& g : plan_.groups)
      for (const std::string& m : g.members)
        values[m] = inline_calls(out_, plan_, func(m).definition, [&](const std::string& f) {
          return channel_between(f, m) != nullptr;
        });
    std::map<std::string, std::set<std::string>> reads_in_kernel;  // kernel -> Funcs read
    for (const Group& g : plan_.groups) {
      for (const std::string& m : g.members) {
        std::vector<std::string> called = called_funcs(values[m].value);
        for (const auto& [name, v] : values[m].lets)
          for (const std::string& c : called_funcs(v))
            if (std::find(called.begin(), called.end(), c) == called.end()) called.push_back(c);
        for (const std::string& c : called) {
          if (kernel_of(c) == g.rep) {
            reads_in_kernel[g.rep].insert(c);
            continue;
          }
          if (channel_between(c, m)) continue;
          if (on_device(g.rep) && on_device(kernel_of(c))) {
            auto why = device_read_refusal_.find({m, c});
            throw Diagnostic(func(m).loc,
                             "device Func '" + m + "' reads '" + c +
                                 "', which another device kernel computes, and the read cannot "
                                 "be a channel" +
                                 (why == device_read_refusal_.end() ? "" : ": " + why->second) +
                                 "; connect them with isolate_consumer or isolate_producer_chain",
                             "merge-device-read");
          }
          need_buffer_.insert(c);
          kernel_deps_[g.rep].insert(kernel_of(c));
          dep_reasons_.emplace(std::make_pair(g.rep, kernel_of(c)),
                               DepReason{m, "'" + m + "' reads '" + c + "' from memory"});
        }
      }
    }
    need_buffer_.insert(in_.output.func);
    for (const Channel& c : out_.channels) {
      kernel_deps_[c.consumer].insert(c.producer);
      dep_reasons_.emplace(std::make_pair(c.consumer, c.producer),
                           DepReason{c.consumer, "'" + c.consumer + "' reads channel '" + c.name +
                                                     "' that '" + c.producer + "' writes"});
    }
    check_kernel_cycle();

    // Global buffers.
    for (const Func& f : out_.funcs) {
      if (!need_buffer_.count(f.name)) continue;
      Buffer b;
      b.name = f.name;
      b.type = f.type;
      b.loc = f.loc;
      if (f.name == in_.output.func) {
        for (int64_t e : in_.output.extents) {
          b.mins.push_back(make_int(Type::Int(32), 0));
          b.extents.push_back(make_int(Type::Int(32), e));
        }
      } else {
        storage_bounds(f.name, &b.mins, &b.extents);
      }
      check_storage(f.name, b.extents, f.loc);
      out_.buffers.push_back(b);
    }

    for (const Group& g : kernel_order())
      out_.kernels.push_back(make_kernel(g, values, reads_in_kernel[g.rep]));
  }

  // Both ends of an isolation's channel visit its values in one order (a FIFO pairs them in
  // order); a reorder of an isolated Func must keep it.
  // A device Func with a kernel of its own (compute_root) read by another device kernel sends
  // its values over a channel, as in T2S (device kernels talk over channels; seed 002 1.1
  // matches the lanes when both ends vectorize). The read must take each value once, in the
  // order it is computed: one call in the whole program, unconditional, at the reader's own
  // loop variables named as the Func's arguments, over the same bounds, the reader having no
  // other loop. Otherwise merge-device-read says which of these fails.
  void device_read_channels() {
    for (const Group& g : plan_.groups) {
      if (!on_device(g.rep)) continue;
      for (const std::string& m : g.members) {
        if (!func(m).definition) continue;
        for (const std::string& c : called_funcs(func(m).definition)) {
          if (!plan_.group_of.count(c) || kernel_of(c) == g.rep || channel_between(c, m) ||
              !on_device(kernel_of(c)))
            continue;
          std::string why = device_channel_refusal(c, m);
          if (!why.empty()) {
            device_read_refusal_[{m, c}] = why;
            continue;
          }
          Channel ch;
          ch.name = names_.fresh(c + "_to_" + m);
          ch.type = func(c).type;
          ch.depth = 0;
          ch.producer = kernel_of(c);
          ch.consumer = kernel_of(m);
          ch.loc = func(m).loc;
          channel_func_[ch.name] = c;
          out_.channels.push_back(ch);
          check_channel_order(Isolation{c, m, func(m).loc}, out_.channels.back());
        }
      }
    }
  }

  // Why the read of `c` by `m` cannot be a channel ("" when it can).
  std::string device_channel_refusal(const std::string& c, const std::string& m) {
    if (c == in_.output.func) return "'" + c + "' is the realized output";
    // Every call of c outside its own definition, and where it sits.
    int calls = 0;
    bool conditional = false;
    Expr call;
    for (const Func& f : out_.funcs) {
      if (f.name == c || !f.definition) continue;
      std::function<void(const Expr&, bool)> walk = [&](const Expr& e, bool under) {
        if (e->kind == ExprKind::kCall && e->call_kind == CallKind::kFunc && e->name == c) {
          ++calls;
          if (f.name == m) {
            call = e;
            conditional = conditional || under;
          }
        }
        if (e->kind == ExprKind::kSelect) {
          walk(e->operands[0], under);
          for (size_t i = 1; i < e->operands.size(); ++i) walk(e->operands[i], true);
          return;
        }
        if (e->kind == ExprKind::kBinary &&
            (e->binary_op == BinaryOp::kAnd || e->binary_op == BinaryOp::kOr)) {
          walk(e->operands[0], under);
          walk(e->operands[1], true);
          return;
        }
        for (const Expr& o : e->operands) walk(o, under);
      };
      walk(f.definition, false);
    }
    if (calls != 1)
      return "'" + c + "' is read " + std::to_string(calls) +
             " times in the program (a channel has one reader, which takes each value once)";
    if (conditional) return "the read of '" + c + "' is under a condition";
    const Func& cf = func(c);
    if (call->operands.size() != cf.args.size()) return "the read of '" + c + "' is malformed";
    for (size_t a = 0; a < cf.args.size(); ++a)
      if (call->operands[a]->kind != ExprKind::kVar || call->operands[a]->name != cf.args[a])
        return "the read " + print_expr(call) + " is not at " + c + "'s own arguments (" +
               join(cf.args) + ")";
    const Group &producer = group(c), &consumer = group(m);
    std::set<std::string> args(cf.args.begin(), cf.args.end());
    for (const std::string& v : consumer.loop_vars)
      if (!args.count(v))
        return "'" + consumer.rep + "' has the loop '" + v + "', which '" + c +
               "' lacks: it would read each value more than once";
    for (const std::string& a : cf.args) {
      auto p = producer.bounds.find(a), q = consumer.bounds.find(a);
      if (p == producer.bounds.end() || q == consumer.bounds.end() ||
          p->second.min != q->second.min || p->second.extent != q->second.extent)
        return "the loops '" + a + "' of '" + producer.rep + "' and '" + consumer.rep +
               "' have different bounds";
    }
    return "";
  }

  // An isolated consumer that copies its producer's loops and orders them itself in no way (no
  // reorder or split of its own, no pending order) may visit the values in the order the
  // producer sends them: each of its loops takes the place in the producer's nest of the loop
  // the sent condition ties it to (T2SP's LU sends O(i, bb, j, b) under `j == k`, so j runs at
  // k's place, outside bb), else its own place. A consumer with a transform of its own keeps its
  // order for t2s-stt as a pending order. True when the loops were reordered (the caller checks
  // the new order again).
  bool follow_producer_order(const Group& producer, Group& consumer,
                             const std::vector<std::string>& args, const Expr& sent) {
    if (consumer.copies.empty() || consumer.reorder >= 0 || !consumer.pending_order.empty() ||
        has_directive(in_, consumer.rep, {DirectiveKind::kSplit, DirectiveKind::kReorder}))
      return false;
    if (auto n = plan_.nests.find(consumer.rep);
        n != plan_.nests.end() && !n->second.splits.empty())
      return false;
    auto place = [&](const std::string& v) -> size_t {
      return static_cast<size_t>(
          std::find(producer.loop_vars.begin(), producer.loop_vars.end(), v) -
          producer.loop_vars.begin());
    };
    std::map<std::string, size_t> key;
    for (const std::string& v : consumer.loop_vars) key[v] = place(v);
    if (sent)
      for_each_expr(sent, [&](const Expr& e) {
        if (e->kind != ExprKind::kBinary || e->binary_op != BinaryOp::kEQ) return;
        const Expr &a = e->operands[0], &b = e->operands[1];
        if (a->kind != ExprKind::kVar || b->kind != ExprKind::kVar) return;
        for (const auto& [arg, loop] : {std::pair(a->name, b->name), std::pair(b->name, a->name)})
          if (key.count(arg) && contains(args, arg) && !contains(args, loop) &&
              place(loop) < producer.loop_vars.size())
            key[arg] = place(loop);
      });
    std::vector<std::string> order = consumer.loop_vars;
    std::stable_sort(order.begin(), order.end(),
                     [&](const std::string& x, const std::string& y) { return key[x] < key[y]; });
    if (order == consumer.loop_vars) return false;
    const bool transformed =
        has_directive(in_, consumer.rep, {DirectiveKind::kSpaceTimeTransform}) ||
        plan_.inherited.count(consumer.rep);
    if (transformed) consumer.pending_order = consumer.loop_vars;
    consumer.loop_vars = order;
    return true;
  }

  void check_channel_order(const Isolation& iso, const Channel& c) {
    const Func& from = func(iso.from);
    Expr sent;
    if (auto it = producer_condition_.find(iso.from); it != producer_condition_.end())
      sent = it->second;
    else if (from.definition && is_write_when(from.definition))
      sent = from.definition->operands[0];
    const Group& producer = group(iso.from);
    Group& consumer = group(iso.to);
    auto swap = channel_order_swap(plan_, producer, consumer, from.args, sent);
    if (swap && follow_producer_order(producer, consumer, from.args, sent))
      swap = channel_order_swap(plan_, producer, consumer, from.args, sent);
    if (!swap) return;
    auto value = [&](const std::vector<int64_t>& at) {
      std::string s = from.name + "(";
      for (size_t i = 0; i < at.size(); ++i) s += (i ? ", " : "") + std::to_string(at[i]);
      return s + ")";
    };
    SourceLoc loc = iso.loc;  // at the reorder of the isolated end, if any
    std::string what = "the loop orders of '" + producer.rep + "' and '" + consumer.rep + "'";
    for (const Group* g : {static_cast<const Group*>(&consumer), &producer})
      if (is_isolation_target(g->rep) && g->reorder >= 0) {
        loc = in_.directives[g->reorder].loc;
        what = "reorder of '" + g->rep + "'";
      }
    throw Diagnostic(loc,
                     what + " makes the two ends of channel '" + c.name +
                         "' visit its values in different orders: '" + producer.rep + "' sends " +
                         value(swap->first) + " before " + value(swap->second) + ", but '" +
                         consumer.rep +
                         "' reads them in the other order (a channel keeps the order values are "
                         "written in; both ends must visit them in one order)",
                     "isolate-order");
  }

  void storage_bounds(const std::string& f, std::vector<Expr>* mins, std::vector<Expr>* extents) {
    const Group& g = group(f);
    for (const std::string& a : func(f).args) {
      const LoopBound& b = g.bounds.at(a);
      mins->push_back(make_int(Type::Int(32), b.min));
      extents->push_back(make_int(Type::Int(32), b.extent));
    }
  }

  void check_storage(const std::string& f, const std::vector<Expr>& extents, const SourceLoc& loc) {
    int64_t n = 1;
    for (const Expr& e : extents) {
      n *= std::max<int64_t>(e->int_value, 1);
      if (n > kMaxStorageElements)
        throw Diagnostic(loc, "storage of '" + f + "' would exceed 2^31 elements",
                         "loop-too-large");
    }
  }

  // Kernels that depend on each other in a cycle cannot be ordered: a located error at the
  // first isolated Func on the cycle (its isolation directive made the edge), with a note per
  // link. Found with a depth-first search in declaration order, so the message is deterministic.
  void check_kernel_cycle() {
    std::vector<std::string> names;
    for (const Func& f : out_.funcs)
      if (plan_.group_of.count(f.name) && group(f.name).rep == f.name) names.push_back(f.name);
    std::map<std::string, int> state;  // 1 on the path, 2 finished
    std::vector<std::string> path;
    std::vector<std::string> cycle;
    std::function<bool(const std::string&)> visit = [&](const std::string& k) {
      state[k] = 1;
      path.push_back(k);
      if (auto it = kernel_deps_.find(k); it != kernel_deps_.end())
        for (const std::string& d : it->second) {
          if (state[d] == 1) {
            cycle.assign(std::find(path.begin(), path.end(), d), path.end());
            return true;
          }
          if (state[d] == 0 && visit(d)) return true;
        }
      path.pop_back();
      state[k] = 2;
      return false;
    };
    for (const std::string& k : names)
      if (state[k] == 0 && visit(k)) break;
    if (cycle.empty()) return;
    // cycle[i] depends on cycle[i + 1] (and the last on the first).
    // Funcs an isolation defines (not defined in the spec): their location is the directive.
    std::set<std::string> isolated;
    for (const Func& f : out_.funcs) {
      const Func* given = in_.find_func(f.name);
      if (!given || !given->definition) isolated.insert(f.name);
    }
    auto reason = [&](size_t i) -> const DepReason& {
      return dep_reasons_.at({cycle[i], cycle[(i + 1) % cycle.size()]});
    };
    std::string chain;
    size_t at = cycle.size();
    for (size_t i = 0; i < cycle.size(); ++i) {
      chain += "'" + cycle[i] + "' -> ";
      if (at == cycle.size() && isolated.count(reason(i).reader)) at = i;
    }
    const bool through_isolation = at != cycle.size();
    if (!through_isolation) at = 0;
    chain += "'" + cycle[0] + "'";
    const DepReason& first = reason(at);
    // What to write instead: a kernel runs whole before the kernels that read its memory, so no
    // two kernels may each need the other's values.
    const std::string instead =
        through_isolation
            ? "; an isolated Func cannot read values its own consumer computes"
            : "; a kernel runs whole before the kernels that read its memory, so two kernels "
              "cannot each need the other's values: compute what '" +
                  cycle[(at + 1) % cycle.size()] +
                  "' needs from the inputs, or make it a URE of the merge group (over the "
                  "group's loops, merged with merge_ures)";
    Diagnostic d(func(first.reader).loc,
                 "kernels depend on each other in a cycle (" + chain +
                     ", each needing the next's values first): " + first.what + instead,
                 "kernel-cycle");
    for (size_t n = 1; n < cycle.size(); ++n) {
      const DepReason& r = reason((at + n) % cycle.size());
      d.add_note(func(r.reader).loc, r.what);
    }
    throw d;
  }

  std::vector<Group> kernel_order() {
    std::vector<std::string> names;
    for (const Func& f : out_.funcs)
      if (plan_.group_of.count(f.name) && group(f.name).rep == f.name) names.push_back(f.name);
    std::set<std::string> device;
    for (const std::string& k : names)
      if (on_device(k)) device.insert(k);
    std::vector<Group> out;
    for (const std::string& k : order_kernels(names, out_.channels, kernel_deps_, device))
      out.push_back(group(k));
    return out;
  }

  Kernel make_kernel(const Group& g, const std::map<std::string, Inlined>& values,
                     const std::set<std::string>& local_reads) {
    Kernel k;
    k.name = g.rep;
    k.place = on_device(g.rep) ? Place::kDevice : Place::kHost;
    k.loc = func(g.rep).loc;
    k.pending_order = g.pending_order;
    if (auto it = plan_.inherited.find(g.rep); it != plan_.inherited.end())
      k.inherited_transforms = it->second;
    StmtList inner;
    for (const std::string& m : g.members) {
      for (const StmtPtr& s : compute(m, values.at(m), local_reads)) inner.push_back(s);
    }
    // Loops, innermost first in loop_vars.
    StmtList body = inner;
    for (const std::string& v : g.loop_vars) {
      if (plan_.nests.count(g.rep)) break;  // split or unrolled loops: nest_loops (split.cc)
      body = {make_for(v, make_int(Type::Int(32), g.bounds.at(v).min),
                       make_int(Type::Int(32), g.bounds.at(v).extent), LoopKind::kSerial, body)};
    }
    if (plan_.nests.count(g.rep)) body = nest_loops(plan_, g, inner);
    if (auto v = plan_.vectorized.find(g.rep); v != plan_.vectorized.end())
      mark_vectorized(g.rep, v->second, &body);
    // Local storage for Funcs read inside this kernel only.
    for (auto it = g.members.rbegin(); it != g.members.rend(); ++it) {
      if (!local_reads.count(*it) || need_buffer_.count(*it)) continue;
      std::vector<Expr> mins, extents;
      storage_bounds(*it, &mins, &extents);
      check_storage(*it, extents, func(*it).loc);
      body = {make_realize(*it, func(*it).type, mins, extents, body, func(*it).loc)};
    }
    k.body = body;
    return k;
  }

  // The statements computing one value of Func `m` per iteration.
  StmtList compute(const std::string& m, const Inlined& inlined,
                   const std::set<std::string>& local_reads) {
    const Func& f = func(m);
    Expr value = inlined.value;
    Expr condition;
    if (is_write_when(value)) {
      condition = value->operands[0];
      value = value->operands[1];
    }
    auto it = producer_condition_.find(m);
    if (it != producer_condition_.end()) condition = it->second;
    // Values arriving over a channel. A read the producer sends whatever a Func condition of
    // the reader says (isolate_value) is taken before the value is computed, into a let.
    std::vector<std::pair<std::string, Expr>> hoisted;  // let name -> the read
    const auto hoist = hoisted_reads_.find(m);
    CallInliner to_channel([&](const Expr& call) -> Expr {
      if (call->call_kind != CallKind::kFunc) return nullptr;
      const Channel* c = channel_between(call->name, m);
      if (!c) return nullptr;
      Expr read = make_call("read_channel", CallKind::kChannel, c->type, {make_var(c->name)});
      if (hoist == hoisted_reads_.end() || !hoist->second.count(call->name)) return read;
      const std::string name = c->name + "_value";
      for (const auto& [n, e] : hoisted)
        if (n == name) return make_var(name, c->type, call->loc);
      const Expr& when = hoist->second.at(call->name);
      hoisted.emplace_back(
          name, when ? make_select(when, read, zero_of(c->type), c->type, call->loc) : read);
      return make_var(name, c->type, call->loc);
    });
    value = to_channel.mutate(value);
    // An isolated consumer of a write-when Func copies its condition when that condition only
    // involves the consumer's own loops (otherwise the producer writes once per point).
    const Group& g = group(m);
    if (!g.copies.empty()) {
      const Func& from = func(g.copies);
      if (is_write_when(from.definition)) {
        bool own = true;
        for (const std::string& v : used_vars(from.definition->operands[0]))
          own &= std::count(f.args.begin(), f.args.end(), v) > 0;
        if (own) condition = from.definition->operands[0];
      }
    }
    StmtList stmts;
    bool stored = local_reads.count(m) || need_buffer_.count(m);
    std::vector<Expr> args = var_exprs(f.args);
    if (stored) {
      stmts.push_back(make_provide(m, args, value, f.loc));
    }
    for (const Channel& c : out_.channels) {
      if (channel_func_[c.name] != m) continue;
      stmts.push_back(make_write_channel(
          c.name, {}, stored ? make_call(m, CallKind::kFunc, f.type, args) : value, c.loc));
    }
    const size_t hoisted_by_value = hoisted.size();
    for (auto it = hoisted.rbegin(); it != hoisted.rend(); ++it)
      stmts = {make_let(it->first, it->second, stmts, f.loc)};
    if (condition) stmts = {make_if(condition, stmts, {}, f.loc)};
    // Inlined values used more than once, bound before they are used (outermost first).
    for (auto it = inlined.lets.rbegin(); it != inlined.lets.rend(); ++it) {
      stmts = {make_let(it->first, to_channel.mutate(it->second), stmts, f.loc)};
      // The isolated read is in the reader's own definition, never in an inlined Func's.
      if (hoisted.size() != hoisted_by_value)
        throw InternalError("merge: the hoisted read of '" + m + "' is inside the let '" +
                            it->first + "'");
    }
    return stmts;
  }

  const Program& in_;
  Program out_;
  // The names merge makes up (the Funcs of a list isolation's values, channels), fresh against
  // every name the spec declares and every one given out before.
  NameSupply names_;
  Plan plan_;
  std::vector<const Directive*> loop_directives_;
  std::vector<const Directive*> producer_directives_;
  // The loop directives of isolated Funcs, applied once their loops are copied.
  std::map<std::string, std::vector<const Directive*>> deferred_;
  std::map<std::string, SourceLoc> min_depth_loc_;
  std::map<std::string, Expr> producer_condition_;  // producer Func -> when it sends
  // reader -> (last producer -> the loop conditions of the read): reads under a Func condition,
  // taken into a let before the reader's value (compute()).
  std::map<std::string, std::map<std::string, Expr>> hoisted_reads_;
  std::set<std::string> need_buffer_;
  std::map<std::string, std::string> channel_func_;  // channel -> the Func it carries
  std::map<std::string, std::set<std::string>> kernel_deps_;
  // (reader, Func) -> why device_read_channels made no channel, for merge-device-read.
  std::map<std::pair<std::string, std::string>, std::string> device_read_refusal_;
  // Why a kernel depends on another (for kernel-cycle): the Func that reads, and how.
  struct DepReason {
    std::string reader, what;
  };
  std::map<std::pair<std::string, std::string>, DepReason> dep_reasons_;
};

}  // namespace

Program as_parsed(const Program& lowered) {
  Program p = lowered;
  p.stage = Stage::kParsed;
  p.kernels.clear();
  p.buffers.clear();
  p.channels.clear();
  p.registers.clear();
  for (Input& in : p.inputs) in.extents.clear();
  return p;
}

Program merge_pass(const Program& parsed) {
  if (parsed.stage != Stage::kParsed)
    throw InternalError("merge_pass needs a parsed-stage program");
  return Merger(parsed).run();
}

}  // namespace t2s
