#include "libs/explore/deps.h"

#include <algorithm>
#include <map>
#include <set>

namespace t2s::explore {

std::string dependency_label(const PolyProgram& p, const Dependency& d) {
  const Statement& dst = p.statements[d.dst];
  std::string label = p.statements[d.src].name + " -> " + dst.name + " (" + d.array;
  if (dst.reads.size() > 1) label += ", read " + std::to_string(d.read + 1);
  return label + ")";
}

std::vector<Dependency> flow_dependencies(const PolyProgram& p, const Limits& limits) {
  std::vector<IntMap> writes, schedules;
  for (const Statement& s : p.statements) {
    for (const Access& w : s.writes) writes.push_back(w.rel);
    schedules.push_back(s.schedule);
  }
  std::vector<Dependency> out;
  int64_t instances = 0;
  for (size_t dst = 0; dst < p.statements.size(); ++dst) {
    const Statement& s = p.statements[dst];
    for (size_t r = 0; r < s.reads.size(); ++r) {
      for (IntMap& rel : dataflow(s.reads[r].rel, writes, schedules)) {
        Dependency d;
        d.src = static_cast<size_t>(p.find_statement(rel.in_tuple()));
        d.dst = dst;
        d.read = r;
        d.array = s.reads[r].array;
        d.rel = rel;
        try {
          d.pairs = rel.pairs(limits.max_points - instances);
        } catch (const TooManyPoints&) {
          throw Diagnostic(s.reads[r].loc,
                           "more than " + std::to_string(limits.max_points) +
                               " dependency instances: too many to enumerate (see --max-points)",
                           "explore-limit");
        }
        instances += static_cast<int64_t>(d.pairs.size());
        out.push_back(std::move(d));
      }
    }
  }
  // Stable order: by sink statement, read, then source statement.
  std::stable_sort(out.begin(), out.end(), [](const Dependency& a, const Dependency& b) {
    if (a.dst != b.dst) return a.dst < b.dst;
    if (a.read != b.read) return a.read < b.read;
    return a.src < b.src;
  });
  return out;
}

std::vector<Signal> read_values(const std::vector<Dependency>& deps) {
  std::map<std::pair<Op, std::string>, Signal> by_key;
  for (size_t k = 0; k < deps.size(); ++k) {
    const Dependency& d = deps[k];
    for (const auto& [x, y] : d.pairs) {
      Op prod{d.src, x};
      Signal& s = by_key[{prod, d.array}];
      s.producer = prod;
      s.array = d.array;
      s.consumers.push_back({Op{d.dst, y}, k});
    }
  }
  std::vector<Signal> out;
  out.reserve(by_key.size());
  for (auto& [key, s] : by_key) out.push_back(std::move(s));
  return out;
}

Point place(const Placement& placement, const Op& op) {
  return placement.maps[op.stmt].apply(op.point);
}

PlacementAnalysis analyze_placement(const PolyProgram& p, const std::vector<Dependency>& deps,
                                    const Placement& placement) {
  (void)p;
  PlacementAnalysis a;
  size_t index = 0;
  const size_t n = placement.maps.empty() ? 0 : placement.maps[0].out_dims();
  std::set<Point> all;
  for (const Dependency& d : deps) {
    std::map<Point, int64_t> counts;
    for (const auto& [x, y] : d.pairs) {
      Point px = placement.maps[d.src].apply(x);
      Point py = placement.maps[d.dst].apply(y);
      for (size_t i = 0; i < n; ++i) py[i] -= px[i];
      ++counts[py];
    }
    PlacedDependency pd;
    std::vector<Point> nonzero;
    for (const auto& [v, c] : counts) {
      pd.vectors.push_back({v, c});
      if (std::any_of(v.begin(), v.end(), [](int64_t x) { return x != 0; })) {
        nonzero.push_back(v);
        all.insert(v);
      }
    }
    pd.uniform = pd.vectors.size() == 1;
    std::vector<Point> differences;
    for (const VectorCount& v : pd.vectors) {
      Point d = v.vector;
      for (size_t i = 0; i < n; ++i) d[i] -= pd.vectors[0].vector[i];
      differences.push_back(d);
    }
    pd.linear_rank = rank(differences, n);
    if (d.src >= d.dst && counts.count(Point(n, 0))) a.backward_zero.push_back(index);
    ++index;
    pd.cone = conic_hull(nonzero, n);
    a.deps.push_back(std::move(pd));
  }
  a.dependency_cone = conic_hull(std::vector<Point>(all.begin(), all.end()), n);
  a.allowed = dual(a.dependency_cone);
  if (a.backward_zero.empty()) a.legal_vector = strictly_positive_vector(a.dependency_cone);
  return a;
}

}  // namespace t2s::explore
