#include <functional>

#include "libs/passes/merge/plan.h"

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

}  // namespace t2s::merge_internal
