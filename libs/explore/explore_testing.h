// Test-only: brute forces that run loop programs in a given order and count what is alive, by
// the definitions and independently of libs/explore (no isl, no dependency analysis: the
// program is executed and every read looks up the last write of its element).
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace t2s::explore::testing {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// An operation: a statement name and its iterators.
struct BOp {
  std::string stmt;
  std::vector<int64_t> it;
  bool operator<(const BOp& o) const { return std::tie(stmt, it) < std::tie(o.stmt, o.it); }
  bool operator==(const BOp& o) const { return stmt == o.stmt && it == o.it; }
};

// A read or a write of one array element.
struct BAccess {
  std::string array;
  std::vector<int64_t> index;
};

// What an operation reads and writes (reads happen first).
struct BEffect {
  std::vector<BAccess> reads, writes;
};

// One flow dependency instance.
struct BInstance {
  BOp src, dst;
  std::string array;
  std::vector<int64_t> index;
};

// Runs `ops` in the given order (the program's original order) and returns, for every read
// of an element written earlier, the instance (last writer -> reader).
inline std::vector<BInstance> run(const std::vector<BOp>& ops,
                                  const std::function<BEffect(const BOp&)>& effect) {
  std::map<std::pair<std::string, std::vector<int64_t>>, BOp> last;
  std::vector<BInstance> out;
  for (const BOp& op : ops) {
    BEffect e = effect(op);
    for (const BAccess& r : e.reads) {
      auto it = last.find({r.array, r.index});
      if (it != last.end()) out.push_back({it->second, op, r.array, r.index});
    }
    for (const BAccess& w : e.writes) last[{w.array, w.index}] = op;
  }
  return out;
}

struct BStorage {
  bool legal = true;
  int64_t between = 0, at_step = 0;
};

// Live counts for operations run in `steps` (each step a set of operations run together):
// a signal (a source instance) is alive from its writer's step to its last reader's step,
// counting only the readers `counts` accepts.
inline BStorage live(const std::vector<std::vector<BOp>>& steps,
                     const std::vector<BInstance>& instances,
                     const std::function<bool(const BInstance&)>& counts = nullptr) {
  std::map<BOp, int64_t> step_of;
  for (size_t s = 0; s < steps.size(); ++s)
    for (const BOp& op : steps[s]) step_of[op] = static_cast<int64_t>(s);
  BStorage out;
  // signal (writer, array, index) -> [birth, death]
  std::map<std::tuple<BOp, std::string, std::vector<int64_t>>, std::pair<int64_t, int64_t>> life;
  for (const BInstance& in : instances) {
    int64_t b = step_of.at(in.src), d = step_of.at(in.dst);
    if (d <= b) out.legal = false;
    if (counts && !counts(in)) continue;
    auto key = std::make_tuple(in.src, in.array, in.index);
    auto it = life.find(key);
    if (it == life.end())
      life[key] = {b, d};
    else
      it->second.second = std::max(it->second.second, d);
  }
  for (size_t s = 0; s < steps.size(); ++s) {
    const int64_t k = static_cast<int64_t>(s);
    int64_t across = 0, at = 0;
    for (const auto& [key, bd] : life) {
      if (bd.first <= k && bd.second > k) ++across;
      if (bd.first <= k && bd.second >= k) ++at;
    }
    out.between = std::max(out.between, across);
    out.at_step = std::max(out.at_step, at);
  }
  return out;
}

// Operations sorted by a key into steps (equal keys: one step).
inline std::vector<std::vector<BOp>> steps_by(
    std::vector<BOp> ops, const std::function<std::vector<int64_t>(const BOp&)>& key) {
  std::stable_sort(ops.begin(), ops.end(),
                   [&](const BOp& a, const BOp& b) { return key(a) < key(b); });
  std::vector<std::vector<BOp>> steps;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (i == 0 || key(ops[i]) != key(ops[i - 1])) steps.emplace_back();
    steps.back().push_back(ops[i]);
  }
  return steps;
}

// One operation per step, in the given order.
inline std::vector<std::vector<BOp>> sequential(const std::vector<BOp>& ops) {
  std::vector<std::vector<BOp>> steps;
  for (const BOp& op : ops) steps.push_back({op});
  return steps;
}

}  // namespace t2s::explore::testing
