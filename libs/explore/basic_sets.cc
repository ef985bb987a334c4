#include "libs/explore/basic_sets.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace t2s::explore {

namespace {

// Σ alive sizes once the sets of `produced` exist.
int64_t alive_size(const BasicSets& b, const std::vector<std::vector<size_t>>& succ,
                   const std::vector<bool>& produced) {
  int64_t total = 0;
  for (size_t x = 0; x < b.sets.size(); ++x) {
    if (!produced[x]) continue;
    const BasicSet& s = b.sets[x];
    if (succ[x].empty()) {
      if (s.readers.empty()) total += s.size;  // an unread set: an output, kept
      continue;
    }
    bool pending = false;
    for (size_t y : succ[x]) pending = pending || !produced[y];
    if (pending) total += s.self ? s.needed_by_others : s.size;
  }
  return total;
}

// The sets alive once the sets of `produced` exist, each with the size it occupies (as
// alive_size counts them).
std::vector<std::pair<size_t, int64_t>> alive_sets(const BasicSets& b,
                                                   const std::vector<std::vector<size_t>>& succ,
                                                   const std::vector<bool>& produced) {
  std::vector<std::pair<size_t, int64_t>> out;
  for (size_t x = 0; x < b.sets.size(); ++x) {
    if (!produced[x]) continue;
    const BasicSet& s = b.sets[x];
    if (succ[x].empty()) {
      if (s.readers.empty()) out.push_back({x, s.size});
      continue;
    }
    bool pending = false;
    for (size_t y : succ[x]) pending = pending || !produced[y];
    if (pending) out.push_back({x, s.self ? s.needed_by_others : s.size});
  }
  return out;
}

// The first production of b->order after which the alive sets reach b->total, and those sets.
void find_peak(BasicSets* b, const std::vector<std::vector<size_t>>& succ) {
  std::vector<bool> produced(b->sets.size(), false);
  for (size_t i = 0; i < b->order.size(); ++i) {
    produced[b->order[i]] = true;
    if (alive_size(*b, succ, produced) != b->total) continue;
    b->peak_after = i;
    b->peak_alive = alive_sets(*b, succ, produced);
    return;
  }
}

void traverse(BasicSets* b) {
  const size_t n = b->sets.size();
  std::vector<std::vector<size_t>> pred(n), succ(n);
  for (const auto& [x, y] : b->edges) {
    pred[y].push_back(x);
    succ[x].push_back(y);
  }
  auto ready = [&](size_t x, const std::vector<bool>& produced) {
    if (produced[x]) return false;
    for (size_t y : pred[x])
      if (!produced[y]) return false;
    return true;
  };
  if (n <= 20) {
    // best[mask]: the smallest peak with which exactly the sets of mask can be produced.
    const size_t full = (size_t{1} << n) - 1;
    const int64_t inf = std::numeric_limits<int64_t>::max();
    std::vector<int64_t> best(full + 1, inf);
    std::vector<int> last(full + 1, -1);
    best[0] = 0;
    std::vector<bool> produced(n);
    for (size_t mask = 0; mask <= full; ++mask) {
      if (best[mask] == inf) continue;
      for (size_t i = 0; i < n; ++i) produced[i] = (mask >> i) & 1;
      for (size_t x = 0; x < n; ++x) {
        if (!ready(x, produced)) continue;
        produced[x] = true;
        int64_t peak = std::max(best[mask], alive_size(*b, succ, produced));
        produced[x] = false;
        size_t next = mask | (size_t{1} << x);
        if (peak < best[next]) best[next] = peak, last[next] = static_cast<int>(x);
      }
    }
    if (best[full] == inf) {  // a cycle between sets: no order
      b->total = -1;
      return;
    }
    b->total = best[full];
    for (size_t mask = full; mask;) {
      size_t x = static_cast<size_t>(last[mask]);
      b->order.insert(b->order.begin(), x);
      mask &= ~(size_t{1} << x);
    }
    find_peak(b, succ);
    return;
  }
  b->exact = false;
  std::vector<bool> produced(n, false);
  int64_t peak = 0;
  for (size_t step = 0; step < n; ++step) {
    size_t pick = n;
    int64_t cost = 0;
    for (size_t x = 0; x < n; ++x) {
      if (!ready(x, produced)) continue;
      produced[x] = true;
      int64_t c = alive_size(*b, succ, produced);
      produced[x] = false;
      if (pick == n || c < cost) pick = x, cost = c;
    }
    if (pick == n) {
      b->total = -1;
      return;
    }
    produced[pick] = true;
    b->order.push_back(pick);
    peak = std::max(peak, cost);
  }
  b->total = peak;
  find_peak(b, succ);
}

}  // namespace

BasicSets basic_sets(const PolyProgram& p, const std::vector<Signal>& signals,
                     const Placement& placement, const Limits& limits) {
  std::map<std::pair<Op, std::string>, size_t> signal_of;
  for (size_t s = 0; s < signals.size(); ++s)
    signal_of[{signals[s].producer, signals[s].array}] = s;
  // Every written element, grouped by (writer, array, readers).
  struct Key {
    size_t writer;
    std::string array;
    std::vector<size_t> readers;
    bool operator<(const Key& o) const {
      return std::tie(writer, array, readers) < std::tie(o.writer, o.array, o.readers);
    }
  };
  std::map<Key, std::vector<std::pair<Op, int64_t>>> groups;  // op, signal (-1: unread)
  int64_t budget = limits.max_points;
  for (size_t st = 0; st < p.statements.size(); ++st) {
    const Statement& s = p.statements[st];
    if (s.writes.empty()) continue;
    std::vector<Point> points;
    try {
      points = s.domain.points(budget);
    } catch (const TooManyPoints&) {
      throw Diagnostic(s.loc,
                       "more than " + std::to_string(limits.max_points) +
                           " operations: too many to enumerate (see --max-points)",
                       "explore-limit");
    }
    budget -= static_cast<int64_t>(points.size());
    for (const Point& x : points)
      for (const Access& w : s.writes) {
        Op op{st, x};
        auto it = signal_of.find({op, w.array});
        Key k{st, w.array, {}};
        int64_t sig = -1;
        if (it != signal_of.end()) {
          sig = static_cast<int64_t>(it->second);
          std::set<size_t> readers;
          for (const auto& [c, dep] : signals[it->second].consumers) readers.insert(c.stmt);
          k.readers.assign(readers.begin(), readers.end());
        }
        groups[k].push_back({op, sig});
      }
  }
  // The book's numbering: per array, by writer, more readers first, later readers first.
  std::vector<Key> keys;
  for (const auto& [k, members] : groups) keys.push_back(k);
  std::stable_sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.writer != b.writer) return a.writer < b.writer;
    if (a.readers.size() != b.readers.size()) return a.readers.size() > b.readers.size();
    return a.readers > b.readers;
  });
  BasicSets b;
  std::map<std::string, int> per_array;
  std::map<std::pair<Op, std::string>, size_t> set_of;
  for (const Key& k : keys) {
    BasicSet s;
    s.array = k.array;
    s.name = k.array + "(" + std::to_string(per_array[k.array]++) + ")";
    s.writer = k.writer;
    s.readers = k.readers;
    for (const auto& [op, sig] : groups[k]) {
      ++s.size;
      if (sig >= 0) s.signals.push_back(static_cast<size_t>(sig));
      set_of[{op, k.array}] = b.sets.size();
    }
    b.sets.push_back(std::move(s));
  }
  // The data-flow graph: X -> Y when an operation that writes into Y reads an element of X.
  std::set<std::pair<size_t, size_t>> edges;
  for (size_t x = 0; x < b.sets.size(); ++x) {
    BasicSet& s = b.sets[x];
    for (size_t sig : s.signals) {
      bool other = false;
      for (const auto& [c, dep] : signals[sig].consumers) {
        const Statement& reader = p.statements[c.stmt];
        if (reader.writes.empty()) other = true;
        for (const Access& w : reader.writes) {
          size_t y = set_of.at({c, w.array});
          if (y == x) {
            s.self = true;
          } else {
            other = true;
            edges.insert({x, y});
          }
        }
      }
      if (other) ++s.needed_by_others;
    }
  }
  b.edges.assign(edges.begin(), edges.end());
  // Dependency parts: per set, per reading statement.
  const size_t n = placement.maps.empty() ? 0 : placement.maps[0].out_dims();
  for (size_t x = 0; x < b.sets.size(); ++x)
    for (size_t r : b.sets[x].readers) {
      DependencyPart dp;
      dp.set = x;
      dp.reader = r;
      dp.writer = b.sets[x].writer;
      dp.name = b.sets[x].name + " -> " + p.statements[r].name;
      std::vector<int64_t> lo(n, std::numeric_limits<int64_t>::max()),
          hi(n, std::numeric_limits<int64_t>::min());
      for (size_t sig : b.sets[x].signals) {
        bool read = false;
        for (const auto& [c, dep] : signals[sig].consumers) read = read || c.stmt == r;
        if (!read) continue;
        dp.signals.push_back(sig);
        Point at = place(placement, signals[sig].producer);
        for (size_t d = 0; d < n; ++d) {
          lo[d] = std::min(lo[d], at[d]);
          hi[d] = std::max(hi[d], at[d]);
        }
      }
      for (size_t d = 0; d < n; ++d)
        dp.lengths.push_back(dp.signals.empty() ? 0 : hi[d] - lo[d] + 1);
      b.parts.push_back(std::move(dp));
    }
  traverse(&b);
  return b;
}

std::vector<BasicSetContents> basic_set_contents(const PolyProgram& p,
                                                 const std::vector<Dependency>& deps,
                                                 const BasicSets& b, const Limits& limits) {
  std::vector<BasicSetContents> out;
  int64_t budget = limits.max_points;
  for (const BasicSet& s : b.sets) {
    const Statement& writer = p.statements[s.writer];
    // Per statement, the writer's instances whose element of the array it reads.
    std::vector<std::optional<IntSet>> read_by(p.statements.size());
    for (const Dependency& d : deps) {
      if (d.src != s.writer || d.array != s.array) continue;
      IntSet from = d.rel.domain();
      read_by[d.dst] = read_by[d.dst] ? read_by[d.dst]->unite(from) : from;
    }
    IntSet ops = writer.domain;
    for (size_t st = 0; st < p.statements.size(); ++st) {
      if (!read_by[st]) continue;
      const bool reader = std::find(s.readers.begin(), s.readers.end(), st) != s.readers.end();
      ops = reader ? ops.intersect(*read_by[st]) : ops.subtract(*read_by[st]);
    }
    std::optional<IntSet> elements;
    for (const Access& w : writer.writes) {
      if (w.array != s.array) continue;
      IntSet e = w.rel.intersect_domain(ops).range();
      elements = elements ? elements->unite(e) : e;
    }
    BasicSetContents c{ops, *elements, 0};
    try {
      c.count = c.elements.count(budget);
    } catch (const TooManyPoints&) {
      throw Diagnostic(writer.loc,
                       "more than " + std::to_string(limits.max_points) +
                           " elements in basic sets: too many to enumerate (see --max-points)",
                       "explore-limit");
    }
    budget -= c.count;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<SignalGroup> storage_groups(const PolyProgram& p, const std::vector<Signal>& signals,
                                        const BasicSets& b) {
  (void)p;
  std::vector<SignalGroup> groups;
  SignalGroup all{"total", {}, std::nullopt};
  std::map<std::string, SignalGroup> arrays;
  for (size_t s = 0; s < signals.size(); ++s) {
    all.signals.push_back(s);
    SignalGroup& g = arrays[signals[s].array];
    g.name = "array " + signals[s].array;
    g.signals.push_back(s);
  }
  groups.push_back(std::move(all));
  for (auto& [name, g] : arrays) groups.push_back(std::move(g));
  for (const DependencyPart& dp : b.parts)
    groups.push_back(SignalGroup{"part " + dp.name, dp.signals, dp.reader});
  return groups;
}

std::optional<int64_t> part_estimate(const DependencyPart& dp, const std::vector<Point>& vectors,
                                     const Rows& rows) {
  // The levels of the loop order: the dim each row runs along and its direction.
  const size_t n = dp.lengths.size();
  if (rows.size() != n) return std::nullopt;
  std::vector<size_t> dim(n);
  std::vector<int64_t> sign(n);
  std::vector<bool> used(n, false);
  for (size_t l = 0; l < n; ++l) {
    if (rows[l].size() != n) return std::nullopt;
    size_t nonzero = 0;
    for (size_t d = 0; d < n; ++d)
      if (rows[l][d] != 0) dim[l] = d, sign[l] = rows[l][d], ++nonzero;
    if (nonzero != 1 || (sign[l] != 1 && sign[l] != -1) || used[dim[l]]) return std::nullopt;
    used[dim[l]] = true;
  }
  if (dp.signals.empty()) return 0;
  // Node counts saturate far above any part's size (the result is at most that size), so a
  // large bounding box cannot overflow; every term below is non-negative.
  using Wide = __int128;
  const Wide cap = Wide{1} << 62;
  auto sat = [&](Wide x) { return x > cap ? cap : x; };
  std::vector<Wide> inner(n + 1, 1);  // P_l: the product of the lengths inside level l
  for (size_t l = n; l-- > 0;) inner[l] = sat(inner[l + 1] * dp.lengths[dim[l]]);
  Wide best = 0;
  for (const Point& v : vectors) {
    // E_l from the innermost level out (see basic_sets.h).
    Wide e = dp.writer < dp.reader ? 1 : 0;
    for (size_t l = n; l-- > 0;) {
      const Wide w = Wide{sign[l]} * v[dim[l]], length = dp.lengths[dim[l]];
      if (w < 0)
        e = 0;
      else if (w >= length)
        e = sat(length * inner[l + 1]);
      else
        e = sat(w * inner[l + 1] + e);
    }
    best = std::max(best, e);
  }
  return static_cast<int64_t>(std::min<Wide>(best, static_cast<Wide>(dp.signals.size())));
}

PartEstimate estimate_part(const DependencyPart& dp, const std::vector<Point>& vectors,
                           const std::vector<Rows>& orders) {
  PartEstimate e;
  for (const Rows& rows : orders) {
    auto v = part_estimate(dp, vectors, rows);
    if (!v) return PartEstimate{};
    if (!e.known || *v < e.lower) e.lower = *v, e.lower_at = rows;
    if (!e.known || *v > e.upper) e.upper = *v, e.upper_at = rows;
    e.known = true;
  }
  return e;
}

std::vector<Point> part_vectors(const DependencyPart& dp, const std::vector<Signal>& signals,
                                const Placement& placement) {
  std::set<Point> out;
  for (size_t s : dp.signals) {
    const Point from = place(placement, signals[s].producer);
    for (const auto& [op, dep] : signals[s].consumers) {
      if (op.stmt != dp.reader) continue;
      Point v = place(placement, op);
      for (size_t d = 0; d < v.size(); ++d) v[d] -= from[d];
      out.insert(v);
    }
  }
  return {out.begin(), out.end()};
}

}  // namespace t2s::explore
