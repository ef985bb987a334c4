#include "libs/explore/report.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>

#include "libs/explore/report_internal.h"

namespace t2s::explore {

namespace report_internal {

std::string op_label(const PolyProgram& p, const Op& o) {
  std::string t = p.statements[o.stmt].name + "[";
  for (size_t i = 0; i < o.point.size(); ++i) t += (i ? ", " : "") + std::to_string(o.point[i]);
  return t + "]";
}

// The element a signal is, as array[index], from its producer's write of that array.
std::string element_text(const PolyProgram& p, const Signal& s) {
  const Statement& st = p.statements[s.producer.stmt];
  for (const Access& w : st.writes) {
    if (w.array != s.array) continue;
    auto f = w.rel.affine();
    if (!f) break;
    std::string t = s.array + "[";
    const Point x = f->apply(s.producer.point);
    for (size_t i = 0; i < x.size(); ++i) t += (i ? ", " : "") + std::to_string(x[i]);
    return t + "]";
  }
  return s.array + " of " + op_label(p, s.producer);
}

// The basic set of each signal (-1: none, without basic sets).
std::vector<int64_t> set_of_signals(const ExploreReport& r) {
  std::vector<int64_t> of(r.signals.size(), -1);
  if (r.sets)
    for (size_t x = 0; x < r.sets->sets.size(); ++x)
      for (size_t sig : r.sets->sets[x].signals) of[sig] = static_cast<int64_t>(x);
  return of;
}

// Alive signals grouped by basic set (or by array, without basic sets), the groups in set order:
// each group's name, its signals.
std::vector<std::pair<std::string, std::vector<size_t>>> alive_groups(
    const ExploreReport& r, const std::vector<size_t>& alive) {
  const std::vector<int64_t> of = set_of_signals(r);
  std::map<std::pair<int64_t, std::string>, std::vector<size_t>> groups;
  for (size_t sig : alive) {
    const int64_t x = of[sig];
    groups[{x, x >= 0 ? r.sets->sets[static_cast<size_t>(x)].name : r.signals[sig].array}]
        .push_back(sig);
  }
  std::vector<std::pair<std::string, std::vector<size_t>>> out;
  for (auto& [key, sigs] : groups) out.push_back({key.second, std::move(sigs)});
  return out;
}

std::string node_name(const PolyProgram& p, const GroupCosts& g, size_t node) {
  return node == 0 ? "P" : "C_" + p.statements[g.readers[node - 1]].name;
}

}  // namespace report_internal

using namespace report_internal;

std::string point_text(const Point& p) {
  std::string t = "(";
  for (size_t i = 0; i < p.size(); ++i) t += (i ? ", " : "") + std::to_string(p[i]);
  return t + ")";
}

std::string angle_text(double radians) {
  const double pi = std::acos(-1.0);
  double degrees = radians * 180 / pi;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g degrees", degrees);
  std::string t = buf;
  static const char* const kNames[] = {"0",     "pi/4",  "pi/2",  "3pi/4", "pi",
                                       "5pi/4", "3pi/2", "7pi/4", "2pi"};
  for (int k = 0; k <= 8; ++k)
    if (std::fabs(radians - k * pi / 4) < 1e-9) return t + " (" + kNames[k] + ")";
  std::snprintf(buf, sizeof buf, " (%.4f rad)", radians);
  return t + buf;
}

std::string table(const std::vector<std::vector<std::string>>& rows, const std::string& indent,
                  const std::vector<bool>& right_aligned) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      const bool right = c < right_aligned.size() && right_aligned[c];
      line += (c ? "  " : "") + (right ? pad + row[c] : row[c] + pad);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::optional<Rows> parse_ordering(const std::string& text, const std::vector<std::string>& space,
                                   std::string* error) {
  auto split = [](const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::string cur;
    for (char c : s) {
      if (c == sep) {
        parts.push_back(cur);
        cur.clear();
      } else if (c != ' ' && c != '(' && c != ')' && c != '[' && c != ']') {
        cur += c;
      }
    }
    parts.push_back(cur);
    return parts;
  };
  auto is_int = [](const std::string& s) {
    size_t i = s.size() > 1 && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (i == s.size()) return false;
    for (; i < s.size(); ++i)
      if (!isdigit(static_cast<unsigned char>(s[i]))) return false;
    return true;
  };
  Rows rows;
  bool numeric = true;
  for (const std::string& row : split(text, ';'))
    for (const std::string& x : split(row, ',')) numeric = numeric && is_int(x);
  if (!numeric) {
    if (text.find(';') != std::string::npos) {
      *error = "'" + text + "': rows are vectors of integers";
      return std::nullopt;
    }
    auto r = loop_order_rows(split(text, ','), space, error);
    if (!r) *error = "'" + text + "': " + *error;
    return r;
  }
  for (const std::string& row : split(text, ';')) {
    std::vector<int64_t> v;
    for (const std::string& x : split(row, ',')) {
      long long n = std::strtoll(x.c_str(), nullptr, 10);
      if (n > (1 << 20) || n < -(1 << 20)) {
        *error = "'" + text + "': coefficients beyond +-2^20 are refused";
        return std::nullopt;
      }
      v.push_back(n);
    }
    if (v.size() != space.size()) {
      *error = "'" + text + "': a vector of " + std::to_string(v.size()) +
               " entries; the common space has " + std::to_string(space.size()) + " dims";
      return std::nullopt;
    }
    if (std::all_of(v.begin(), v.end(), [](int64_t c) { return c == 0; })) {
      *error = "'" + text + "': an ordering vector must not be zero";
      return std::nullopt;
    }
    rows.push_back(v);
  }
  return rows;
}

namespace {

// The sets behind the counts (issue 35): each statement's domains, each basic set's contents and
// costs, and what is alive at each ordering's peak.
AccessDomain access_domain(const Statement& s, const Access& a, const Limits& limits) {
  AccessDomain d;
  d.array = a.array;
  d.elements = a.rel.intersect_domain(s.domain).range();
  try {
    d.count = d.elements.count(limits.max_points);
  } catch (const TooManyPoints&) {
  }
  return d;
}

void add_sets_behind_counts(const PolyProgram& p, const ExploreOptions& o, ExploreReport* r) {
  for (const Statement& s : p.statements) {
    StatementReport sr;
    try {
      sr.operations = s.domain.count(o.limits.max_points);
    } catch (const TooManyPoints&) {
    }
    for (const Access& a : s.writes) sr.definition.push_back(access_domain(s, a, o.limits));
    for (const Access& a : s.reads) sr.operand.push_back(access_domain(s, a, o.limits));
    r->statements.push_back(std::move(sr));
  }
  if (r->sets) {
    r->contents = basic_set_contents(p, r->deps, *r->sets, o.limits);
    for (PlacementReport& pr : r->placements)
      pr.group_costs = basic_group_costs(*r->sets, r->signals, p.placements[pr.placement]);
  }
  if (r->original.legal) r->original_peak = storage_peak(r->signals, original_key(p));
  for (OrderingReport& ord : r->orderings)
    if (ord.storage.legal)
      ord.peak = storage_peak(r->signals, ordering_key(p.placements[ord.placement], ord.rows));
}

}  // namespace

ExploreReport explore(const PolyProgram& p, const ExploreOptions& o) {
  if (o.place) {
    std::vector<Dependency> deps = flow_dependencies(p, o.limits);
    PlacementSearchResult found = search_placements(p, deps, read_values(deps), o.place_options);
    ExploreOptions inner = o;
    inner.place = false;
    if (!found.found) {
      ExploreReport r = explore(p, inner);
      r.place = std::move(found);
      return r;
    }
    auto owned = std::make_shared<PolyProgram>(p);
    std::string name = "masai";
    for (int k = 2; owned->find_placement(name) >= 0; ++k) name = "masai-" + std::to_string(k);
    found.placement.name = name;
    owned->placements.push_back(found.placement);
    if (!inner.placements.empty()) inner.placements.push_back(name);
    ExploreReport r = explore(*owned, inner);
    r.owned = owned;
    r.place = std::move(found);
    return r;
  }
  ExploreReport r;
  r.program = &p;
  r.bound = o.bound;
  r.reversals = o.reversals;
  r.deps = flow_dependencies(p, o.limits);
  r.signals = read_values(r.deps);
  std::vector<size_t> selected;
  for (const std::string& name : o.placements) {
    int k = p.find_placement(name);
    if (k < 0) {
      std::string known;
      for (const Placement& pl : p.placements) known += (known.empty() ? "" : ", ") + pl.name;
      throw std::invalid_argument("--placement: no placement '" + name + "' (the input has " +
                                  known + ")");
    }
    if (std::find(selected.begin(), selected.end(), static_cast<size_t>(k)) == selected.end())
      selected.push_back(static_cast<size_t>(k));
  }
  if (selected.empty())
    for (size_t k = 0; k < p.placements.size(); ++k) selected.push_back(k);
  r.original = storage(p, r.signals, original_key(p));
  if (o.basic_sets || o.bounds) {
    r.sets = basic_sets(p, r.signals, p.placements[selected[0]], o.limits);
    r.groups = storage_groups(p, r.signals, *r.sets);
  }
  Rows fixed;
  if (!o.fix.empty()) {
    std::string error;
    auto rows = loop_order_rows(o.fix, p.space, &error);
    if (!rows) throw std::invalid_argument("--fix: " + error);
    fixed = *rows;
  }
  for (size_t k : selected) {
    PlacementReport pr;
    pr.placement = k;
    pr.analysis = analyze_placement(p, r.deps, p.placements[k]);
    pr.costs = placement_costs(r.deps, r.signals, p.placements[k]);
    if (o.search)
      pr.search = search_orderings(p, r.deps, r.signals, p.placements[k], pr.analysis, o.bound);
    if (o.bounds) {
      pr.fixed = fixed;
      pr.bounds = partial_order_bounds(p, r.deps, r.signals, p.placements[k], pr.analysis, fixed,
                                       o.reversals, r.groups);
      for (const DependencyPart& dp : r.sets->parts)
        pr.estimates.push_back(estimate_part(dp, part_vectors(dp, r.signals, p.placements[k]),
                                             pr.bounds->legal_orders));
    }
    r.placements.push_back(std::move(pr));
  }
  for (const Ordering& ord : p.orderings)
    if (std::find(selected.begin(), selected.end(), ord.placement) != selected.end())
      r.orderings.push_back(
          {ord.name, ord.placement, ord.rows,
           storage(p, r.signals, ordering_key(p.placements[ord.placement], ord.rows)),
           std::nullopt});
  for (const std::string& text : o.orders) {
    std::string error;
    auto rows = parse_ordering(text, p.space, &error);
    if (!rows) throw std::invalid_argument("--order " + error);
    r.orderings.push_back({"--order " + text, selected[0], *rows,
                           storage(p, r.signals, ordering_key(p.placements[selected[0]], *rows)),
                           std::nullopt});
  }
  add_sets_behind_counts(p, o, &r);
  return r;
}

namespace {

std::string rays_text(const Cone& c) {
  std::string t;
  for (const Point& ray : c.rays) t += (t.empty() ? "" : " ") + point_text(ray);
  if (!c.lineality.empty()) {
    t += (t.empty() ? "" : " ") + std::string("lines");
    for (const Point& l : c.lineality) t += " +-" + point_text(l);
  }
  return t.empty() ? "none (the origin)" : t;
}

std::string vectors_text(const PlacedDependency& d) {
  if (d.vectors.size() <= 3) {
    std::string t;
    for (const VectorCount& v : d.vectors)
      t += (t.empty() ? "" : ", ") + point_text(v.vector) + " x" + std::to_string(v.count);
    return t;
  }
  return std::to_string(d.vectors.size()) + " vectors, " + point_text(d.vectors.front().vector) +
         " .. " + point_text(d.vectors.back().vector);
}

std::string yes(bool b) { return b ? "yes" : "no"; }

std::string storage_cells(const Storage& s, std::vector<std::string>* row) {
  row->push_back(s.legal ? "yes" : "no");
  row->push_back(s.legal ? std::to_string(s.between) : "-");
  row->push_back(s.legal ? std::to_string(s.at_step) : "-");
  row->push_back(std::to_string(s.steps));
  return s.violation;
}

std::string ranks_text(const std::vector<size_t>& ranks) {
  std::string t;
  for (size_t x : ranks) t += (t.empty() ? "" : " ") + std::to_string(x);
  return t.empty() ? "-" : t;
}

// MASAI's placement search (--place): what it searched and the placement it found.
std::string place_text(const PolyProgram& p, const std::vector<Dependency>& deps,
                       const PlacementSearchResult& s) {
  std::ostringstream out;
  std::string coeff;
  for (int64_t c : s.coefficients) coeff += (coeff.empty() ? "" : ", ") + std::to_string(c);
  out << "\nplacement search (MASAI, section 3.5.5): starting set of up to " << s.starting_set
      << " linear mappings per statement (coefficients " << coeff << "); " << s.iterations
      << " backtracking steps in " << s.attempts << " attempts (" << s.reorders
      << " reorderings)\n";
  out << "  ranks rank(I - D') per dependency: each alone at best " << ranks_text(s.optimal)
      << "; together " << ranks_text(s.achieved) << "\n";
  if (!s.candidates.empty()) {
    std::string c;
    for (size_t k = 0; k < s.candidates.size(); ++k)
      c += (c.empty() ? "" : ", ") + p.statements[k].name + " " + std::to_string(s.candidates[k]);
    out << "  mappings meeting those ranks' constraints: " << c << "; " << s.solutions
        << " linear placements meet them together; " << s.pruned
        << " cannot beat the best by locality alone, " << s.translated
        << " of the others have a translation (within " << s.radius << ") that "
        << (s.overlap ? "" : "keeps the polytopes apart and ") << "admits a legal ordering ("
        << s.constructed << " as built from the bounding boxes; " << s.checks
        << " translations checked by the exact search)\n";
  }
  if (!s.complete) {
    std::string limits;
    for (const std::string& l : s.stopped_by) limits += (limits.empty() ? "" : "; ") + l;
    out << "  the search stopped at a limit: " << limits << "; the result is the best seen\n";
  }
  for (const std::string& n : s.notes) out << "  " << n << "\n";
  if (!s.found) return out.str();
  out << "  best ("
      << (s.cone_first
              ? "dependency cone of dimension " + std::to_string(s.cone_dimension) + ", then "
              : "")
      << "locality, then data reuse): placement '" << s.placement.name << "', locality "
      << s.costs.locality << ", refined locality " << s.costs.refined_locality << ", data reuse "
      << s.costs.data_reuse << ", ranks " << ranks_text(s.ranks) << "\n";
  for (size_t k = 0; k < p.statements.size(); ++k)
    out << "    " << affine_text(p.statements[k], s.placement.maps[k]) << "\n";
  (void)deps;
  return out.str();
}

// ---- the sets behind the counts (text) -------------------------------------------------------

std::string count_text(int64_t n, const std::string& what) {
  return n < 0 ? "more than the limit of " + what : std::to_string(n) + " " + what;
}

// Each statement's iteration domain, definition domains and operand domains.
std::string domains_text(const ExploreReport& r) {
  const PolyProgram& p = *r.program;
  if (r.statements.size() != p.statements.size()) return "";
  std::vector<std::vector<std::string>> rows = {{"statement", "domain", "set", "points"}};
  for (size_t k = 0; k < p.statements.size(); ++k) {
    const Statement& s = p.statements[k];
    const StatementReport& sr = r.statements[k];
    rows.push_back({s.name, "iteration", s.domain.str(), count_text(sr.operations, "operations")});
    for (const AccessDomain& d : sr.definition)
      rows.push_back({"", "definition", d.elements.str(), count_text(d.count, "elements")});
    for (size_t i = 0; i < sr.operand.size(); ++i)
      rows.push_back({"", "operand " + std::to_string(i + 1), sr.operand[i].elements.str(),
                      count_text(sr.operand[i].count, "elements")});
  }
  return "\nstatement domains (iteration: its operations; definition: the elements it writes;\n"
         "operand k: the elements its read k names):\n" +
         table(rows, "  ", {false, false, false, false});
}

std::string step_text(const PolyProgram& p, const StepOps& st) {
  std::string ops;
  for (const Op& o : st.first) ops += (ops.empty() ? "" : ", ") + op_label(p, o);
  const int64_t more = st.size - static_cast<int64_t>(st.first.size());
  if (more > 0) ops += " and " + std::to_string(more) + " more";
  return "step " + std::to_string(st.index + 1) + " (" + ops + ")";
}

std::string alive_text(const ExploreReport& r, const std::vector<size_t>& alive) {
  const PolyProgram& p = *r.program;
  auto groups = alive_groups(r, alive);
  std::string sizes;
  for (const auto& [name, sigs] : groups)
    sizes += (sizes.empty() ? "" : ", ") + name + " " + std::to_string(sigs.size());
  std::string out = "    " + std::string(r.sets ? "basic sets: " : "arrays: ") + sizes + "\n";
  size_t listed = 0;
  for (const auto& [name, sigs] : groups) {
    std::string line = "    " + name + ":";
    bool first = true;
    for (size_t sig : sigs) {
      if (listed == kValuesListed) break;
      const std::string v = element_text(p, r.signals[sig]);
      if (!first && line.size() + v.size() + 3 > 100) {
        out += line + ",\n";
        line = "     ";
      } else if (!first) {
        line += ",";
      }
      line += " " + v;
      first = false;
      ++listed;
    }
    if (!first) out += line + "\n";
    if (listed == kValuesListed) break;
  }
  if (alive.size() > listed)
    out += "    ... and " + std::to_string(alive.size() - listed) + " more\n";
  return out;
}

std::string peak_text(const ExploreReport& r, const std::string& name, const StoragePeak& pk) {
  const PolyProgram& p = *r.program;
  std::string out;
  if (pk.after.index < 0) {
    out += "  " + name + ": no value is alive between two steps\n";
  } else {
    out += "  " + name + ": " + std::to_string(pk.between_alive.size()) + " alive between " +
           step_text(p, pk.after) + " and " + step_text(p, pk.before) + "\n";
    out += alive_text(r, pk.between_alive);
  }
  if (pk.busiest.index >= 0 && !pk.at_step_alive.empty()) {
    out += "  " + name + ": " + std::to_string(pk.at_step_alive.size()) + " needed at " +
           step_text(p, pk.busiest) + "\n";
    out += alive_text(r, pk.at_step_alive);
  }
  return out;
}

// What is alive at each legal ordering's peaks.
std::string peaks_text(const ExploreReport& r) {
  std::string out;
  if (r.original_peak) out += peak_text(r, "original", *r.original_peak);
  for (const OrderingReport& o : r.orderings)
    if (o.peak) out += peak_text(r, o.name, *o.peak);
  if (out.empty()) return "";
  return "\nstorage peaks: the first cut with the most values alive between two steps, and the\n"
         "first step that needs the most (steps count from 1; at most " +
         std::to_string(kValuesListed) + " values listed):\n" + out;
}

// Every legal candidate of --search ranked, the illegal ones counted.
std::string search_text(const ExploreReport& r, const PlacementReport& pr) {
  if (!pr.search) return "";
  const PolyProgram& p = *r.program;
  const SearchResult& s = *pr.search;
  std::ostringstream out;
  out << "\nsearch on placement '" << p.placements[pr.placement].name
      << "': loop orders and ordering vectors in [-" << r.bound << ", " << r.bound << "]^"
      << p.space.size() << ": " << s.candidates << " candidates, " << s.legal << " legal\n";
  if (s.best.empty()) {
    out << "  no legal ordering\n";
    return out.str();
  }
  out << "  smallest storage: " << s.best.front().between << " signals between steps, by "
      << s.best.size() << " ordering" << (s.best.size() > 1 ? "s" : "") << "\n";
  out << "  every legal candidate, ranked (between, then at step, then candidate order):\n";
  std::vector<std::vector<std::string>> rows = {{"rank", "order", "between", "at step"}};
  const std::vector<int64_t> ranks = search_ranks(s.all);
  for (size_t i = 0; i < s.all.size(); ++i)
    rows.push_back({std::to_string(ranks[i]), ordering_text(s.all[i].rows, p.space),
                    std::to_string(s.all[i].between), std::to_string(s.all[i].at_step)});
  out << table(rows, "  ", {true, false, true, true});
  if (!s.illegal.empty())
    out << "  " << s.illegal.size() << " illegal candidate" << (s.illegal.size() > 1 ? "s" : "")
        << " (a dependency runs backwards or within one step): not ranked\n";
  return out.str();
}

// Each basic set's contents, as isl sets.
std::string contents_text(const ExploreReport& r) {
  if (!r.sets || r.contents.size() != r.sets->sets.size()) return "";
  std::string out = "  contents (the elements of each set):\n";
  std::vector<std::vector<std::string>> rows;
  for (size_t x = 0; x < r.contents.size(); ++x)
    rows.push_back({r.sets->sets[x].name, r.contents[x].elements.str(),
                    std::to_string(r.contents[x].count) + " elements"});
  return out + table(rows, "    ", {false, false, true});
}

// The basic sets alive at the peak of the traversal without ordering.
std::string sets_peak_text(const ExploreReport& r) {
  const BasicSets& b = *r.sets;
  if (b.total < 0 || b.order.empty()) return "";
  std::string alive;
  for (const auto& [x, size] : b.peak_alive)
    alive += (alive.empty() ? "" : ", ") + b.sets[x].name + " " + std::to_string(size);
  return "  alive at that peak (after producing " + b.sets[b.order[b.peak_after]].name +
         "): " + (alive.empty() ? "nothing" : alive) + "\n";
}

// Figure 3.29: the costs per basic group and the extended dependency graphs.
std::string group_costs_text(const ExploreReport& r, const PlacementReport& pr) {
  if (!r.sets || pr.group_costs.empty()) return "";
  const PolyProgram& p = *r.program;
  std::vector<std::vector<std::string>> rows = {
      {"group", "readers", "values", "locality", "refined", "data reuse", "Loc(P -> C_S)"}};
  std::string graphs;
  for (const GroupCosts& g : pr.group_costs) {
    std::string readers, to;
    for (size_t i = 0; i < g.readers.size(); ++i) {
      readers += (readers.empty() ? "" : " ") + p.statements[g.readers[i]].name;
      to += (to.empty() ? "" : ", ") + p.statements[g.readers[i]].name + " " +
            std::to_string(g.production_to[i]);
    }
    const std::string& name = r.sets->sets[g.set].name;
    rows.push_back({name, readers.empty() ? "-" : readers, std::to_string(g.values),
                    std::to_string(g.locality), std::to_string(g.refined_locality),
                    std::to_string(g.data_reuse), to.empty() ? "-" : to});
    if (g.readers.size() < 2) continue;
    std::string edges;
    for (size_t i = 0; i < g.readers.size(); ++i)
      edges += (edges.empty() ? "" : ", ") + std::string("Loc(P -> ") + node_name(p, g, i + 1) +
               ") " + std::to_string(g.production_to[i]);
    for (size_t i = 0; i < g.readers.size(); ++i)
      for (size_t t = i + 1; t < g.readers.size(); ++t)
        edges += ", Loc(" + node_name(p, g, i + 1) + " <-> " + node_name(p, g, t + 1) + ") " +
                 std::to_string(g.consumers[i][t]);
    std::string tree;
    for (const auto& [a, b] : g.tree_edges)
      tree += (tree.empty() ? "" : ", ") + node_name(p, g, a) + " - " + node_name(p, g, b);
    graphs += "  " + name + "'s extended dependency graph: " + edges +
              ";\n    minimum spanning tree " + std::to_string(g.tree) + " (" + tree + ")\n";
  }
  return "  costs per basic group (figure 3.29):\n" +
         table(rows, "  ", {false, false, true, true, true, true, false}) + graphs;
}

}  // namespace

std::string report_text(const ExploreReport& r) {
  const PolyProgram& p = *r.program;
  std::ostringstream out;
  out << (p.name.empty() ? r.source : p.name) << "\n";
  if (!p.params.empty()) {
    out << "parameters:";
    for (const auto& [n, v] : p.params) out << " " << n << " = " << v;
    out << "\n";
  }
  out << "\nstatements (" << p.statements.size() << "), in textual order:\n";
  std::vector<std::vector<std::string>> rows = {
      {"statement", "dims", "operations", "writes", "reads"}};
  for (const Statement& s : p.statements) {
    std::string w, rd;
    for (const Access& a : s.writes) w += (w.empty() ? "" : ", ") + a.array;
    for (const Access& a : s.reads) rd += (rd.empty() ? "" : ", ") + a.array;
    int64_t ops = -1;
    try {
      ops = s.domain.count(1'000'000);
    } catch (const TooManyPoints&) {
    }
    rows.push_back({s.name, std::to_string(s.domain.dims()),
                    ops < 0 ? "> 1000000" : std::to_string(ops), w.empty() ? "-" : w,
                    rd.empty() ? "-" : rd});
  }
  out << table(rows, "  ", {false, true, true, false, false});
  out << domains_text(r);
  out << "\nflow dependencies (" << r.deps.size() << ", exact dataflow):\n";
  rows = {{"#", "dependency", "instances"}};
  for (size_t k = 0; k < r.deps.size(); ++k)
    rows.push_back({std::to_string(k + 1), dependency_label(p, r.deps[k]),
                    std::to_string(r.deps[k].pairs.size())});
  out << table(rows, "  ", {true, false, true});
  out << "  signals read: " << r.signals.size() << "\n";
  if (r.place) out << place_text(p, r.deps, *r.place);
  for (const PlacementReport& pr : r.placements) {
    const Placement& pl = p.placements[pr.placement];
    std::string space;
    for (const std::string& s : p.space) space += (space.empty() ? "" : ", ") + s;
    out << "\nplacement '" << pl.name << "' (common space " << space << "):\n";
    rows = {{"#", "vectors (dst - src) x instances", "uniform", "rank", "cone rays", "locality"}};
    for (size_t k = 0; k < r.deps.size(); ++k) {
      const PlacedDependency& d = pr.analysis.deps[k];
      rows.push_back({std::to_string(k + 1), vectors_text(d), yes(d.uniform),
                      std::to_string(d.linear_rank), rays_text(d.cone),
                      std::to_string(pr.costs.locality_per_dep[k])});
    }
    out << table(rows, "  ", {true, false, false, true, false, true});
    const Cone& dc = pr.analysis.dependency_cone;
    out << "  dependency cone: " << rays_text(dc) << "; dimension " << dc.dimension();
    if (auto a = angle_2d(dc)) out << ", angle " << angle_text(*a);
    out << "\n  allowed ordering vectors (pi . d >= 0): " << rays_text(pr.analysis.allowed);
    if (pr.analysis.legal_vector)
      out << "; strictly legal: " << point_text(*pr.analysis.legal_vector);
    else if (!pr.analysis.backward_zero.empty())
      out << "; none is legal: dependency " << pr.analysis.backward_zero[0] + 1
          << " joins two statements on one point against their order";
    else
      out << "; none is legal (the dependency cone holds a line)";
    out << "\n  costs: locality " << pr.costs.locality << ", refined locality "
        << pr.costs.refined_locality << ", data reuse " << pr.costs.data_reuse << "\n";
    out << group_costs_text(r, pr);
  }
  out << "\nstorage (signals alive between two steps; at a step, with what it reads and "
         "writes):\n";
  rows = {{"ordering", "placement", "order", "legal", "between", "at step", "steps"}};
  std::vector<std::string> notes;
  {
    std::vector<std::string> row = {"original (the statements' schedules)", "-", "-"};
    storage_cells(r.original, &row);
    rows.push_back(row);
  }
  for (const OrderingReport& o : r.orderings) {
    std::vector<std::string> row = {o.name, p.placements[o.placement].name,
                                    ordering_text(o.rows, p.space)};
    std::string v = storage_cells(o.storage, &row);
    if (!v.empty()) notes.push_back(o.name + ": " + v);
    rows.push_back(row);
  }
  out << table(rows, "  ", {false, false, false, false, true, true, true});
  for (const std::string& n : notes) out << "  illegal: " << n << "\n";
  out << peaks_text(r);
  for (const PlacementReport& pr : r.placements) out << search_text(r, pr);
  if (r.sets) {
    const BasicSets& b = *r.sets;
    out << "\nbasic sets (chapter 4):\n";
    rows = {{"set", "writer", "readers", "size", "alive size"}};
    for (const BasicSet& s : b.sets) {
      std::string readers;
      for (size_t x : s.readers) readers += (readers.empty() ? "" : " ") + p.statements[x].name;
      rows.push_back({s.name, p.statements[s.writer].name, readers.empty() ? "-" : readers,
                      std::to_string(s.size),
                      std::to_string(s.self ? s.needed_by_others : s.size)});
    }
    out << table(rows, "  ", {false, false, false, true, true});
    out << contents_text(r);
    std::string order;
    for (size_t x : b.order) order += (order.empty() ? "" : " ") + b.sets[x].name;
    out << "  without ordering (data-flow graph, " << (b.exact ? "best" : "greedy")
        << " production order " << order << "): " << b.total << "\n";
    out << sets_peak_text(r);
    rows = {{"dependency part", "signals", "lengths"}};
    for (const DependencyPart& dp : b.parts) {
      std::string lengths;
      for (size_t d = 0; d < dp.lengths.size(); ++d)
        lengths += (lengths.empty() ? "" : ", ") + p.space[d] + " " + std::to_string(dp.lengths[d]);
      rows.push_back({dp.name, std::to_string(dp.signals.size()), lengths});
    }
    out << table(rows, "  ", {false, true, false});
  }
  for (const PlacementReport& pr : r.placements) {
    if (!pr.bounds) continue;
    const PartialBounds& b = *pr.bounds;
    out << "\nbounds on placement '" << p.placements[pr.placement].name << "' with "
        << (pr.fixed.empty() ? std::string("nothing") : ordering_text(pr.fixed, p.space))
        << " fixed outermost: " << b.completions << " completion" << (b.completions == 1 ? "" : "s")
        << (r.reversals ? " (loops up or down)" : "") << ", " << b.legal << " legal\n";
    if (b.legal == 0) {
      if (!r.reversals) out << "  (no loop order running every loop up is legal: --reversals)\n";
      continue;
    }
    rows = {{"group", "lower", "upper", "lower at", "upper at", "estimated (4.3)"}};
    const size_t first_part = r.groups.size() - pr.estimates.size();
    for (size_t g = 0; g < r.groups.size(); ++g) {
      std::string estimate = "-";
      if (g >= first_part && pr.estimates[g - first_part].known) {
        const PartEstimate& e = pr.estimates[g - first_part];
        estimate = std::to_string(e.lower) + " .. " + std::to_string(e.upper);
      }
      rows.push_back({r.groups[g].name, std::to_string(b.groups[g].lower),
                      std::to_string(b.groups[g].upper),
                      ordering_text(b.groups[g].lower_at, p.space),
                      ordering_text(b.groups[g].upper_at, p.space), estimate});
    }
    out << table(rows, "  ", {false, true, true, false, false, false});
  }
  return out.str();
}

}  // namespace t2s::explore
