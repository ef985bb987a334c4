// The first steps of t2s-merge: the merge stage's directives read, the groups (which Funcs get a
// loop nest, which are inlined), and the checks on them before any loop is bounded.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "libs/ir/strings.h"
#include "libs/passes/merge/steps.h"

namespace t2s::merge_internal {

int64_t arg_int(const DirectiveArg& a, const SourceLoc& loc) {
  if (const std::optional<int64_t> v = a.integer()) return *v;
  throw Diagnostic(loc, "expected an integer constant, found '" + a.text + "'",
                   "constant-expected");
}

bool is_isolation_target(const MergeContext& ctx, const Plan& plan, const std::string& f) {
  for (const Isolation& iso : plan.isolations)
    if (iso.to == f) return true;
  for (const Directive* d : ctx.producer_chains)
    for (size_t i = 1; i < d->args.size(); ++i)
      if (arg_name(d->args[i]) == f) return true;
  return false;
}

std::set<std::string> isolation_targets(const MergeContext& ctx, const Plan& plan) {
  std::set<std::string> out;
  for (const Group& g : plan.groups)
    if (is_isolation_target(ctx, plan, g.rep)) out.insert(g.rep);
  return out;
}

MergeContext read_directives(const Program& parsed, Plan& plan) {
  MergeContext ctx{parsed, {}, {}, {}};
  using K = DirectiveKind;
  for (const Directive& d : parsed.directives) {
    const K k = d.kind();
    if (k == K::kMergeUres) {
      Group g;
      g.rep = d.func;
      g.members.push_back(d.func);
      g.merged = true;
      g.loc = d.loc;
      for (const DirectiveArg& a : d.args) g.members.push_back(arg_name(a));
      for (const std::string& m : g.members)
        if (!defined(parsed, m))
          throw Diagnostic(d.loc,
                           "merge_ures of '" + m +
                               "', which is never defined: every merged "
                               "URE needs a definition",
                           "merge-undefined");
      for (const std::string& m : g.members) {
        if (plan.group_of.count(m))
          throw Diagnostic(d.loc, "'" + m + "' is merged twice", "merge-twice");
        plan.group_of[m] = plan.groups.size();
      }
      plan.groups.push_back(g);
    } else if (k == K::kSetBounds || k == K::kReorder || k == K::kSplit || k == K::kUnroll ||
               k == K::kVectorize) {
      ctx.loop_directives.push_back(&d);
    } else if (k == K::kIsolateConsumer || k == K::kIsolateConsumerChain) {
      std::string from = d.func;
      for (const DirectiveArg& a : d.args) {
        // A Func's values go over one channel to one consumer: a second consumer would wait
        // for values the first one takes (a deadlock at run time).
        for (const Isolation& earlier : plan.isolations)
          if (earlier.from == from)
            throw Diagnostic(d.loc,
                             "'" + from + "' already has an isolated consumer, '" + earlier.to +
                                 "'; its values go to one consumer: make '" + arg_name(a) +
                                 "' read '" + earlier.to + "' (" + earlier.to +
                                 ".isolate_consumer(" + arg_name(a) + "), or " + from +
                                 ".isolate_consumer_chain(" + earlier.to + ", " + arg_name(a) +
                                 "))",
                             "isolate-consumer-twice")
                .add_note(earlier.loc, "'" + earlier.to + "' is isolated from '" + from + "' here");
        plan.isolations.push_back({from, arg_name(a), d.loc});
        from = arg_name(a);
      }
    } else if (k == K::kIsolateProducerChain) {
      ctx.producer_chains.push_back(&d);
    } else if (k == K::kMinDepth) {
      const int64_t depth = arg_int(d.args[0], d.loc);
      // (t2s-parse refuses these; hand-edited IR may carry them.)
      if (depth < 1 || depth > INT32_MAX)
        throw Diagnostic(
            d.loc, "min_depth: the depth must be from 1 to 2^31 - 1, not " + std::to_string(depth),
            "directive-args");
      plan.min_depth[d.func] = depth;
      ctx.min_depth_at[d.func] = d.loc;
    } else if (const DirectiveDecl* decl = d.decl();
               decl && decl->stage == DirectiveStage::kMerge && !decl->implemented) {
      throw Diagnostic(d.loc, "'" + d.name + "' is not supported yet", "unsupported-directive");
    }
    // space_time_transform, vectorize, unroll, gather, scatter and buffer belong to later
    // stages, which read them from `directives`.
  }
  return ctx;
}

void make_groups(const MergeContext& ctx, const Program& merged, Plan& plan) {
  std::set<std::string> isolated;
  for (const Isolation& iso : plan.isolations) {
    isolated.insert(iso.from);
    isolated.insert(iso.to);
  }
  for (const Directive* d : ctx.producer_chains) {
    isolated.insert(d->func);
    for (size_t i = 1; i < d->args.size(); ++i) isolated.insert(arg_name(d->args[i]));
  }
  // F.gather(A, v): both keep a loop nest (the gather stage rewrites their channel).
  for (const Directive& d : ctx.parsed.directives) {
    if (!d.is(DirectiveKind::kGather)) continue;
    if (defined(merged, d.func)) isolated.insert(d.func);
    if (!d.args.empty() && defined(merged, arg_name(d.args[0])))
      isolated.insert(arg_name(d.args[0]));
  }
  const std::set<std::string> roots = compute_root_funcs(merged, plan);
  for (const Func& f : merged.funcs) {
    if (plan.group_of.count(f.name)) continue;
    bool self_recursive = false;
    if (f.definition)
      for (const std::string& c : called_funcs(f.definition)) self_recursive |= c == f.name;
    // Halide's default: a Func that is not merged, not recursive, not realized, not
    // compute_root and not named by an isolation directive is inlined into its users,
    // whatever its Place.
    bool computed = f.name == ctx.parsed.output.func || isolated.count(f.name) ||
                    roots.count(f.name) || (f.definition && self_recursive && f.wraps.empty());
    if (!computed) {
      if (f.definition) plan.inlined.insert(f.name);
      continue;
    }
    Group g;
    g.rep = f.name;
    g.members = {f.name};
    g.loop_vars = f.args;
    g.loc = f.loc;
    plan.group_of[f.name] = plan.groups.size();
    plan.groups.push_back(g);
  }
  for (Group& g : plan.groups)
    if (g.merged) g.loop_vars = func(merged, g.rep).args;
  // A Func used but never defined (and not defined by an isolation directive).
  for (const Func& f : merged.funcs) {
    if (!f.definition) continue;
    for (const std::string& c : called_funcs(f.definition))
      if (!defined(merged, c) && !isolated.count(c))
        throw Diagnostic(f.loc, "'" + f.name + "' uses '" + c + "', which is never defined",
                         "undefined-func");
  }
}

void check_cycles(const Program& merged, const Plan& plan) {
  std::map<std::string, std::vector<std::string>> calls;
  for (const Func& f : merged.funcs)
    if (f.definition) calls[f.name] = called_funcs(f.definition);
  auto key = [&](const std::string& f) {
    auto it = plan.group_of.find(f);
    return it == plan.group_of.end() ? "func " + f : "group " + plan.groups[it->second].rep;
  };
  // Depth-first search for a path from a callee back to the caller through other nests.
  for (const Func& f : merged.funcs) {
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
                         "'" + f.name + "' and '" + join(path, ", ") +
                             "' depend on each other but are not in one loop nest: merge "
                             "them with merge_ures",
                         "merge-cycle");
    }
  }
}

void check_realized_consumer(const MergeContext& ctx, const Plan& plan) {
  const Output& output = ctx.parsed.output;
  for (const Isolation& iso : plan.isolations) {
    if (iso.from != output.func) continue;
    std::string last = iso.to;
    for (bool more = true; more;) {
      more = false;
      for (const Isolation& next : plan.isolations)
        if (next.from == last) {
          last = next.to;
          more = true;
          break;
        }
    }
    throw Diagnostic(output.loc,
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

}  // namespace t2s::merge_internal
