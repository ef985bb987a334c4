#include <functional>

#include "libs/passes/merge/plan.h"

namespace t2s::merge_internal {

std::vector<std::string> order_kernels(const std::vector<std::string>& names,
                                       const std::vector<Channel>& channels,
                                       const std::map<std::string, std::set<std::string>>& deps) {
  std::map<std::string, std::string> component;  // kernel -> component root
  std::function<std::string(const std::string&)> root = [&](const std::string& k) {
    auto it = component.find(k);
    if (it == component.end() || it->second == k) return k;
    return it->second = root(it->second);
  };
  for (const std::string& k : names) component[k] = k;
  for (const Channel& c : channels) component[root(c.consumer)] = root(c.producer);
  std::vector<std::string> order;
  std::set<std::string> done;
  // Ready when every dependency (inside or outside its component) is done: the channel graph
  // of a component is acyclic.
  auto ready = [&](const std::string& k) {
    auto it = deps.find(k);
    if (it == deps.end()) return true;
    for (const std::string& dep : it->second)
      if (!done.count(dep)) return false;
    return true;
  };
  while (order.size() < names.size()) {
    bool progress = false;
    for (const std::string& k : names) {
      if (done.count(k) || !ready(k)) continue;
      order.push_back(k);
      done.insert(k);
      progress = true;
      // Place the rest of its component right after it, in dependency order.
      for (bool more = true; more;) {
        more = false;
        for (const std::string& m : names) {
          if (done.count(m) || root(m) != root(k) || !ready(m)) continue;
          order.push_back(m);
          done.insert(m);
          more = true;
        }
      }
      break;
    }
    if (!progress) throw InternalError("merge: kernels depend on each other in a cycle");
  }
  return order;
}

}  // namespace t2s::merge_internal
