// The order the kernels run in (order_kernels), once check_kernel_cycle has refused kernels that
// depend on each other in a cycle.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "libs/passes/merge/plan.h"
#include "libs/passes/merge/steps.h"

namespace t2s::merge_internal {

// Kernels joined by channels form a component that runs as one concurrent group, so it is
// kept contiguous. Components are ordered topologically; among the ready ones, host components
// go first: a host producer computes its values (into memory) before the device group that reads
// them starts, as T2S computes a host Func before the device kernels that read it. Every maximal
// run of consecutive device kernels runs concurrently (docs/ir.md), so emitting all ready host
// components before any ready device component keeps a device group from being split by a host
// kernel it does not depend on (two host loaders of one GEMM used to cut its device group in
// two, and the first half waited forever on a channel into the second).
std::vector<std::string> order_kernels(const std::vector<std::string>& names,
                                       const std::vector<Channel>& channels,
                                       const std::map<std::string, std::set<std::string>>& deps,
                                       const std::set<std::string>& device) {
  std::map<std::string, std::string> component;  // kernel -> component root
  std::function<std::string(const std::string&)> root = [&](const std::string& k) {
    auto it = component.find(k);
    if (it == component.end() || it->second == k) return k;
    return it->second = root(it->second);
  };
  for (const std::string& k : names) component[k] = k;
  for (const Channel& c : channels) {
    std::string a = root(c.consumer), b = root(c.producer);
    if (a != b) component[a] = b;
  }
  // Components in declaration order of their first kernel, members in declaration order.
  std::vector<std::string> roots;
  std::map<std::string, std::vector<std::string>> members;
  for (const std::string& k : names) {
    std::string r = root(k);
    if (!members.count(r)) roots.push_back(r);
    members[r].push_back(k);
  }
  std::vector<std::string> order;
  std::set<std::string> done;
  auto deps_done = [&](const std::string& k, const std::set<std::string>& also) {
    auto it = deps.find(k);
    if (it == deps.end()) return true;
    for (const std::string& dep : it->second)
      if (!done.count(dep) && !also.count(dep)) return false;
    return true;
  };
  // A component is ready when every dependency of its kernels outside it is done.
  auto component_ready = [&](const std::string& r) {
    std::set<std::string> inside(members[r].begin(), members[r].end());
    for (const std::string& k : members[r])
      if (!deps_done(k, inside)) return false;
    return true;
  };
  auto is_device_component = [&](const std::string& r) {
    for (const std::string& k : members[r])
      if (device.count(k)) return true;
    return false;
  };
  std::set<std::string> placed;  // component roots
  while (placed.size() < roots.size()) {
    std::string next;
    for (bool want_device : {false, true}) {
      for (const std::string& r : roots) {
        if (placed.count(r) || is_device_component(r) != want_device || !component_ready(r))
          continue;
        next = r;
        break;
      }
      if (!next.empty()) break;
    }
    if (next.empty()) throw InternalError("merge: kernels depend on each other in a cycle");
    placed.insert(next);
    // Its kernels in dependency order (the channel graph of a component is acyclic), ties in
    // declaration order.
    const std::vector<std::string>& ks = members[next];
    for (size_t emitted = 0; emitted < ks.size();) {
      bool progress = false;
      for (const std::string& k : ks) {
        if (done.count(k) || !deps_done(k, {})) continue;
        order.push_back(k);
        done.insert(k);
        ++emitted;
        progress = true;
        break;
      }
      if (!progress) throw InternalError("merge: kernels depend on each other in a cycle");
    }
  }
  return order;
}

std::vector<std::string> kernel_names(const Program& merged, const Plan& plan) {
  std::vector<std::string> names;
  for (const Func& f : merged.funcs)
    if (plan.group_of.count(f.name) && group(plan, f.name).rep == f.name) names.push_back(f.name);
  return names;
}

// A located error at the first isolated Func on the cycle (its isolation directive made the
// edge), with a note per link. Found with a depth-first search in declaration order, so the
// message is deterministic.
void check_kernel_cycle(const MergeContext& ctx, const Program& merged, const Plan& plan,
                        const KernelDependences& deps) {
  std::map<std::string, int> state;  // 1 on the path, 2 finished
  std::vector<std::string> path;
  std::vector<std::string> cycle;
  std::function<bool(const std::string&)> visit = [&](const std::string& k) {
    state[k] = 1;
    path.push_back(k);
    if (auto it = deps.needs.find(k); it != deps.needs.end())
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
  for (const std::string& k : kernel_names(merged, plan))
    if (state[k] == 0 && visit(k)) break;
  if (cycle.empty()) return;
  // cycle[i] depends on cycle[i + 1] (and the last on the first).
  // Funcs an isolation defines (not defined in the spec): their location is the directive.
  std::set<std::string> isolated;
  for (const Func& f : merged.funcs) {
    const Func* given = ctx.parsed.find_func(f.name);
    if (!given || !given->definition) isolated.insert(f.name);
  }
  auto reason = [&](size_t i) -> const KernelDependences::Reason& {
    return deps.reasons.at({cycle[i], cycle[(i + 1) % cycle.size()]});
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
  const KernelDependences::Reason& first = reason(at);
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
  Diagnostic d(func(merged, first.reader).loc,
               "kernels depend on each other in a cycle (" + chain +
                   ", each needing the next's values first): " + first.what + instead,
               "kernel-cycle");
  for (size_t n = 1; n < cycle.size(); ++n) {
    const KernelDependences::Reason& r = reason((at + n) % cycle.size());
    d.add_note(func(merged, r.reader).loc, r.what);
  }
  throw d;
}

}  // namespace t2s::merge_internal
