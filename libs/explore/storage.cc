#include "libs/explore/storage.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>

namespace t2s::explore {

namespace {

// The operations that write or read signals, numbered once for many orderings.
struct OpTable {
  std::vector<Op> ops;
  std::vector<size_t> producer;                                   // per signal
  std::vector<std::vector<std::pair<size_t, size_t>>> consumers;  // per signal: op, dependency

  explicit OpTable(const std::vector<Signal>& signals) {
    std::map<Op, size_t> index;
    auto id = [&](const Op& o) {
      auto [it, inserted] = index.emplace(o, ops.size());
      if (inserted) ops.push_back(o);
      return it->second;
    };
    for (const Signal& s : signals) {
      producer.push_back(id(s.producer));
      consumers.emplace_back();
      for (const auto& [op, dep] : s.consumers) consumers.back().push_back({id(op), dep});
    }
  }
};

std::string op_text(const PolyProgram& p, const Op& o) {
  std::string t = p.statements[o.stmt].name + "[";
  for (size_t i = 0; i < o.point.size(); ++i) t += (i ? ", " : "") + std::to_string(o.point[i]);
  return t + "]";
}

// The steps of an order: each operation's step (the rank of its key among the distinct keys),
// and the operations in key order (ties in table order).
struct Steps {
  std::vector<size_t> step;   // per operation of the table
  std::vector<size_t> order;  // operations sorted by key
  size_t count = 0;
};

Steps steps_of(const OpTable& table, const KeyFn& key) {
  std::vector<std::vector<int64_t>> keys;
  keys.reserve(table.ops.size());
  for (const Op& o : table.ops) keys.push_back(key(o));
  Steps s;
  s.order.resize(keys.size());
  std::iota(s.order.begin(), s.order.end(), 0);
  std::stable_sort(s.order.begin(), s.order.end(),
                   [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  s.step.resize(keys.size());
  size_t steps = 0;
  for (size_t i = 0; i < s.order.size(); ++i) {
    if (i > 0 && keys[s.order[i]] != keys[s.order[i - 1]]) ++steps;
    s.step[s.order[i]] = steps;
  }
  s.count = s.order.empty() ? 0 : steps + 1;
  return s;
}

Storage storage_of(const PolyProgram& p, const std::vector<Signal>& signals, const OpTable& table,
                   const KeyFn& key, const std::vector<SignalGroup>& groups) {
  Storage out;
  // Steps: the distinct keys, in order.
  const Steps st = steps_of(table, key);
  const std::vector<size_t>& step = st.step;
  out.steps = static_cast<int64_t>(st.count);
  const size_t n_steps = static_cast<size_t>(out.steps);
  // Legality: every consumer in a later step than its producer.
  for (size_t s = 0; s < signals.size() && out.legal; ++s)
    for (const auto& [c, dep] : table.consumers[s]) {
      if (step[c] > step[table.producer[s]]) continue;
      out.legal = false;
      out.violation = op_text(p, table.ops[table.producer[s]]) + " -> " + op_text(p, table.ops[c]) +
                      " runs " + (step[c] == step[table.producer[s]] ? "in one step" : "backwards");
      break;
    }
  std::vector<SignalGroup> all;
  if (groups.empty()) {
    all.push_back(SignalGroup{"all", {}, std::nullopt});
    all[0].signals.resize(signals.size());
    std::iota(all[0].signals.begin(), all[0].signals.end(), 0);
  }
  const std::vector<SignalGroup>& gs = groups.empty() ? all : groups;
  for (const SignalGroup& g : gs) {
    std::vector<int64_t> births(n_steps + 1, 0), deaths(n_steps + 1, 0);
    for (size_t s : g.signals) {
      size_t last = 0;
      bool any = false;
      for (const auto& [c, dep] : table.consumers[s]) {
        if (g.reader && table.ops[c].stmt != *g.reader) continue;
        last = any ? std::max(last, step[c]) : step[c];
        any = true;
      }
      if (!any) continue;
      size_t born = step[table.producer[s]];
      if (last <= born) continue;  // illegal: never alive across a cut
      ++births[born];
      ++deaths[last];
    }
    int64_t alive = 0, between = 0, at_step = 0;
    for (size_t k = 0; k < n_steps; ++k) {
      at_step = std::max(at_step, alive + births[k]);  // alive before k, and k's own writes
      alive += births[k] - deaths[k];
      between = std::max(between, alive);
    }
    out.group_between.push_back(between);
    out.group_at_step.push_back(at_step);
  }
  out.between = out.group_between.empty() ? 0 : out.group_between[0];
  out.at_step = out.group_at_step.empty() ? 0 : out.group_at_step[0];
  return out;
}

std::vector<int64_t> times(const Rows& rows, const Point& x) {
  std::vector<int64_t> t;
  for (const auto& r : rows) {
    __int128 s = 0;
    for (size_t i = 0; i < x.size(); ++i) s += static_cast<__int128>(r[i]) * x[i];
    t.push_back(static_cast<int64_t>(s));
  }
  return t;
}

// Every permutation of `dims`, each dim running up, or also down with `signs`.
std::vector<Rows> loop_orders(const std::vector<size_t>& dims, size_t n, bool signs) {
  std::vector<Rows> out;
  std::vector<size_t> perm = dims;
  std::sort(perm.begin(), perm.end());
  do {
    const size_t variants = signs ? (size_t{1} << perm.size()) : 1;
    for (size_t mask = 0; mask < variants; ++mask) {
      Rows rows;
      for (size_t i = 0; i < perm.size(); ++i) {
        std::vector<int64_t> r(n, 0);
        r[perm[i]] = (mask >> i) & 1 ? -1 : 1;
        rows.push_back(r);
      }
      out.push_back(rows);
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
  return out;
}

}  // namespace

Storage storage(const PolyProgram& p, const std::vector<Signal>& signals, const KeyFn& key,
                const std::vector<SignalGroup>& groups) {
  OpTable table(signals);
  return storage_of(p, signals, table, key, groups);
}

StoragePeak storage_peak(const std::vector<Signal>& signals, const KeyFn& key) {
  OpTable table(signals);
  const Steps st = steps_of(table, key);
  StoragePeak out;
  out.steps = static_cast<int64_t>(st.count);
  // Each signal's life [born, last], as storage_of counts it (never alive: skipped).
  std::vector<std::pair<size_t, size_t>> life(signals.size());
  std::vector<bool> counted(signals.size(), false);
  std::vector<int64_t> births(st.count + 1, 0), deaths(st.count + 1, 0);
  for (size_t s = 0; s < signals.size(); ++s) {
    if (table.consumers[s].empty()) continue;
    size_t last = 0;
    for (const auto& [c, dep] : table.consumers[s]) last = std::max(last, st.step[c]);
    const size_t born = st.step[table.producer[s]];
    if (last <= born) continue;
    life[s] = {born, last};
    counted[s] = true;
    ++births[born];
    ++deaths[last];
  }
  int64_t alive = 0, between = 0, at_step = 0;
  size_t cut = st.count, busiest = st.count;
  for (size_t k = 0; k < st.count; ++k) {
    if (busiest == st.count || alive + births[k] > at_step)
      at_step = alive + births[k], busiest = k;
    alive += births[k] - deaths[k];
    if (alive > between) between = alive, cut = k;
  }
  auto ops_of = [&](size_t k) {
    StepOps o;
    o.index = static_cast<int64_t>(k);
    for (size_t i : st.order) {
      if (st.step[i] != k) continue;
      if (o.first.size() < 4) o.first.push_back(table.ops[i]);
      ++o.size;
    }
    return o;
  };
  if (cut < st.count) {
    out.after = ops_of(cut);
    out.before = ops_of(cut + 1);
    for (size_t s = 0; s < signals.size(); ++s)
      if (counted[s] && life[s].first <= cut && cut < life[s].second)
        out.between_alive.push_back(s);
  }
  if (busiest < st.count) {
    out.busiest = ops_of(busiest);
    for (size_t s = 0; s < signals.size(); ++s)
      if (counted[s] && life[s].first <= busiest && busiest <= life[s].second)
        out.at_step_alive.push_back(s);
  }
  return out;
}

KeyFn ordering_key(const Placement& placement, const Rows& rows) {
  return [&placement, rows](const Op& o) {
    std::vector<int64_t> k = times(rows, place(placement, o));
    k.push_back(static_cast<int64_t>(o.stmt));
    return k;
  };
}

KeyFn original_key(const PolyProgram& p) {
  std::vector<Affine> schedules;
  for (const Statement& s : p.statements) schedules.push_back(*s.schedule.affine());
  return [schedules](const Op& o) { return schedules[o.stmt].apply(o.point); };
}

bool legal_rows(const std::vector<Dependency>& deps, const PlacementAnalysis& placed,
                const Rows& rows) {
  for (size_t k = 0; k < deps.size(); ++k) {
    const int64_t order = static_cast<int64_t>(deps[k].dst) - static_cast<int64_t>(deps[k].src);
    for (const VectorCount& v : placed.deps[k].vectors) {
      std::vector<int64_t> t = times(rows, v.vector);
      t.push_back(order);
      if (t <= std::vector<int64_t>(t.size(), 0)) return false;
    }
  }
  return true;
}

SearchResult search_orderings(const PolyProgram& p, const std::vector<Dependency>& deps,
                              const std::vector<Signal>& signals, const Placement& placement,
                              const PlacementAnalysis& placed, int64_t bound) {
  const size_t n = placement.maps.empty() ? 0 : placement.maps[0].out_dims();
  if (bound < 0) throw std::invalid_argument("--search: a negative bound on the vector entries");
  double count = 1;
  for (size_t i = 0; i < n; ++i) count *= 2 * static_cast<double>(bound) + 1;
  if (count > 200000)
    throw std::invalid_argument("--search: " + std::to_string(static_cast<int64_t>(count)) +
                                " ordering vectors in [-" + std::to_string(bound) + ", " +
                                std::to_string(bound) + "]^" + std::to_string(n) +
                                " are too many (at most 200000); lower --search-bound");
  std::vector<Rows> candidates;
  std::vector<size_t> dims(n);
  std::iota(dims.begin(), dims.end(), 0);
  if (n <= 7) candidates = loop_orders(dims, n, n <= 5);
  // Primitive vectors of [-bound, bound]^n.
  std::vector<int64_t> v(n, -bound);
  while (n > 0) {
    int64_t g = 0;
    for (int64_t x : v) g = std::gcd(g, x < 0 ? -x : x);
    if (g == 1) candidates.push_back({v});
    size_t i = 0;
    while (i < n && v[i] == bound) v[i++] = -bound;
    if (i == n) break;
    ++v[i];
  }
  // A loop order of one dim is also a vector: each candidate once.
  std::vector<Rows> unique;
  std::set<Rows> seen;
  for (const Rows& rows : candidates)
    if (seen.insert(rows).second) unique.push_back(rows);
  candidates = unique;
  SearchResult r;
  OpTable table(signals);
  for (const Rows& rows : candidates) {
    ++r.candidates;
    if (!legal_rows(deps, placed, rows)) {
      r.illegal.push_back(rows);
      continue;
    }
    Storage s = storage_of(p, signals, table, ordering_key(placement, rows), {});
    if (!s.legal) {
      r.illegal.push_back(rows);
      continue;
    }
    ++r.legal;
    r.all.push_back({rows, s.between, s.at_step});
  }
  std::stable_sort(r.all.begin(), r.all.end(),
                   [](const RankedOrdering& a, const RankedOrdering& b) {
                     return a.between != b.between ? a.between < b.between : a.at_step < b.at_step;
                   });
  for (const RankedOrdering& o : r.all)
    if (o.between == r.all.front().between) r.best.push_back(o);
  return r;
}

std::vector<int64_t> search_ranks(const std::vector<RankedOrdering>& all) {
  std::vector<int64_t> ranks;
  for (size_t i = 0; i < all.size(); ++i) {
    const bool tie =
        i > 0 && all[i].between == all[i - 1].between && all[i].at_step == all[i - 1].at_step;
    ranks.push_back(tie ? ranks.back() : static_cast<int64_t>(i) + 1);
  }
  return ranks;
}

PartialBounds partial_order_bounds(const PolyProgram& p, const std::vector<Dependency>& deps,
                                   const std::vector<Signal>& signals, const Placement& placement,
                                   const PlacementAnalysis& placed, const Rows& fixed,
                                   bool reversals, const std::vector<SignalGroup>& groups) {
  const size_t n = placement.maps.empty() ? 0 : placement.maps[0].out_dims();
  std::vector<size_t> free;
  for (size_t d = 0; d < n; ++d) {
    bool used = false;
    for (const auto& r : fixed) used = used || r[d] != 0;
    if (!used) free.push_back(d);
  }
  double completions = 1;
  for (size_t i = 1; i <= free.size(); ++i)
    completions *= static_cast<double>(i) * (reversals ? 2 : 1);
  if (completions > 100000)
    throw std::invalid_argument("--bounds: " + std::to_string(static_cast<int64_t>(completions)) +
                                " completions of the fixed loops are too many; fix more loops");
  PartialBounds b;
  b.groups.resize(groups.size());
  OpTable table(signals);
  for (const Rows& tail : loop_orders(free, n, reversals)) {
    Rows rows = fixed;
    rows.insert(rows.end(), tail.begin(), tail.end());
    ++b.completions;
    if (!legal_rows(deps, placed, rows)) continue;
    Storage s = storage_of(p, signals, table, ordering_key(placement, rows), groups);
    if (!s.legal) continue;
    for (size_t g = 0; g < groups.size(); ++g) {
      GroupBounds& gb = b.groups[g];
      const int64_t v = s.group_between[g];
      if (b.legal == 0 || v < gb.lower) gb.lower = v, gb.lower_at = rows;
      if (b.legal == 0 || v > gb.upper) gb.upper = v, gb.upper_at = rows;
    }
    ++b.legal;
    b.legal_orders.push_back(rows);
  }
  return b;
}

}  // namespace t2s::explore
