#include "libs/explore/report.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace t2s::explore {

using Json = nlohmann::ordered_json;

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
           storage(p, r.signals, ordering_key(p.placements[ord.placement], ord.rows))});
  for (const std::string& text : o.orders) {
    std::string error;
    auto rows = parse_ordering(text, p.space, &error);
    if (!rows) throw std::invalid_argument("--order " + error);
    r.orderings.push_back({"--order " + text, selected[0], *rows,
                           storage(p, r.signals, ordering_key(p.placements[selected[0]], *rows))});
  }
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
        << (s.overlap ? "" : "keeps the polytopes apart and ") << "admits a legal ordering\n";
  }
  if (!s.complete) out << "  the search stopped at a limit: the result is the best seen\n";
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

Json place_json(const PolyProgram& p, const PlacementSearchResult& s) {
  Json j;
  j["found"] = s.found;
  j["complete"] = s.complete;
  j["starting_set"] = s.starting_set;
  j["iterations"] = s.iterations;
  j["attempts"] = s.attempts;
  j["reorders"] = s.reorders;
  j["optimal_ranks"] = s.optimal;
  j["target_ranks"] = s.achieved;
  j["candidates"] = s.candidates;
  j["solutions"] = s.solutions;
  j["pruned"] = s.pruned;
  j["translated"] = s.translated;
  j["cone_dimension"] = s.cone_dimension;
  j["cone_first"] = s.cone_first;
  j["coefficients"] = s.coefficients;
  j["overlap"] = s.overlap;
  j["radius"] = s.radius;
  j["notes"] = s.notes;
  if (s.found) {
    j["placement"] = s.placement.name;
    Json maps = Json::object();
    for (size_t k = 0; k < p.statements.size(); ++k)
      maps[p.statements[k].name] = affine_text(p.statements[k], s.placement.maps[k]);
    j["maps"] = maps;
    j["ranks"] = s.ranks;
    j["costs"] = {{"locality", s.costs.locality},
                  {"refined_locality", s.costs.refined_locality},
                  {"data_reuse", s.costs.data_reuse}};
  }
  return j;
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
  for (const PlacementReport& pr : r.placements) {
    if (!pr.search) continue;
    const SearchResult& s = *pr.search;
    out << "\nsearch on placement '" << p.placements[pr.placement].name
        << "': loop orders and ordering vectors in [-" << r.bound << ", " << r.bound << "]^"
        << p.space.size() << ": " << s.candidates << " candidates, " << s.legal << " legal\n";
    if (s.best.empty()) {
      out << "  no legal ordering\n";
      continue;
    }
    out << "  smallest storage: " << s.best.front().between << " signals between steps, by "
        << s.best.size() << " ordering" << (s.best.size() > 1 ? "s" : "") << ":\n";
    rows = {{"order", "between", "at step"}};
    for (size_t i = 0; i < s.best.size() && i < 12; ++i)
      rows.push_back({ordering_text(s.best[i].rows, p.space), std::to_string(s.best[i].between),
                      std::to_string(s.best[i].at_step)});
    out << table(rows, "  ", {false, true, true});
    if (s.best.size() > 12) out << "  ... and " << s.best.size() - 12 << " more\n";
  }
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
    std::string order;
    for (size_t x : b.order) order += (order.empty() ? "" : " ") + b.sets[x].name;
    out << "  without ordering (data-flow graph, " << (b.exact ? "best" : "greedy")
        << " production order " << order << "): " << b.total << "\n";
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

namespace {

Json points_json(const std::vector<Point>& ps) {
  Json a = Json::array();
  for (const Point& x : ps) a.push_back(x);
  return a;
}

Json cone_json(const Cone& c) {
  Json j;
  j["rays"] = points_json(c.rays);
  j["lineality"] = points_json(c.lineality);
  j["dimension"] = c.dimension();
  if (auto a = angle_2d(c)) j["angle_degrees"] = std::round(*a * 180 / std::acos(-1.0) * 1e6) / 1e6;
  return j;
}

Json storage_json(const Storage& s) {
  Json j;
  j["legal"] = s.legal;
  if (!s.legal) j["violation"] = s.violation;
  j["between"] = s.between;
  j["at_step"] = s.at_step;
  j["steps"] = s.steps;
  return j;
}

}  // namespace

std::string report_json(const ExploreReport& r) {
  const PolyProgram& p = *r.program;
  Json doc;
  doc["t2s_explore_report"] = 1;
  doc["input"] = r.source;
  doc["name"] = p.name;
  Json params = Json::object();
  for (const auto& [n, v] : p.params) params[n] = v;
  doc["params"] = params;
  doc["space"] = p.space;
  Json stmts = Json::array();
  for (const Statement& s : p.statements)
    stmts.push_back({{"name", s.name}, {"dims", s.domain.dims()}});
  doc["statements"] = stmts;
  Json deps = Json::array();
  for (const Dependency& d : r.deps)
    deps.push_back({{"label", dependency_label(p, d)},
                    {"source", p.statements[d.src].name},
                    {"sink", p.statements[d.dst].name},
                    {"array", d.array},
                    {"read", d.read + 1},
                    {"instances", d.pairs.size()}});
  doc["dependencies"] = deps;
  doc["signals"] = r.signals.size();
  if (r.place) doc["placement_search"] = place_json(p, *r.place);
  Json placements = Json::array();
  for (const PlacementReport& pr : r.placements) {
    Json j;
    j["name"] = p.placements[pr.placement].name;
    Json pdeps = Json::array();
    for (size_t k = 0; k < r.deps.size(); ++k) {
      const PlacedDependency& d = pr.analysis.deps[k];
      Json vs = Json::array();
      for (const VectorCount& v : d.vectors)
        vs.push_back({{"vector", v.vector}, {"count", v.count}});
      pdeps.push_back({{"vectors", vs},
                       {"uniform", d.uniform},
                       {"linear_rank", d.linear_rank},
                       {"cone", cone_json(d.cone)},
                       {"locality", pr.costs.locality_per_dep[k]}});
    }
    j["dependencies"] = pdeps;
    j["dependency_cone"] = cone_json(pr.analysis.dependency_cone);
    j["allowed_cone"] = cone_json(pr.analysis.allowed);
    j["legal_vector"] = pr.analysis.legal_vector ? Json(*pr.analysis.legal_vector) : Json(nullptr);
    j["costs"] = {{"locality", pr.costs.locality},
                  {"refined_locality", pr.costs.refined_locality},
                  {"data_reuse", pr.costs.data_reuse}};
    if (pr.search) {
      Json best = Json::array();
      for (const RankedOrdering& o : pr.search->best)
        best.push_back({{"rows", o.rows},
                        {"order", ordering_text(o.rows, p.space)},
                        {"between", o.between},
                        {"at_step", o.at_step}});
      j["search"] = {{"bound", r.bound},
                     {"candidates", pr.search->candidates},
                     {"legal", pr.search->legal},
                     {"best", best}};
    }
    if (pr.bounds) {
      Json groups = Json::array();
      const size_t first_part = r.groups.size() - pr.estimates.size();
      for (size_t g = 0; g < r.groups.size(); ++g) {
        Json e = {{"group", r.groups[g].name},
                  {"lower", pr.bounds->groups[g].lower},
                  {"upper", pr.bounds->groups[g].upper},
                  {"lower_at", ordering_text(pr.bounds->groups[g].lower_at, p.space)},
                  {"upper_at", ordering_text(pr.bounds->groups[g].upper_at, p.space)}};
        if (g >= first_part && pr.estimates[g - first_part].known) {
          const PartEstimate& pe = pr.estimates[g - first_part];
          e["estimate"] = {{"lower", pe.lower},
                           {"upper", pe.upper},
                           {"lower_at", ordering_text(pe.lower_at, p.space)},
                           {"upper_at", ordering_text(pe.upper_at, p.space)}};
        }
        groups.push_back(e);
      }
      j["bounds"] = {{"fixed", ordering_text(pr.fixed, p.space)},
                     {"reversals", r.reversals},
                     {"completions", pr.bounds->completions},
                     {"legal", pr.bounds->legal},
                     {"groups", pr.bounds->legal ? groups : Json::array()}};
    }
    placements.push_back(j);
  }
  doc["placements"] = placements;
  Json ords = Json::array();
  ords.push_back({{"name", "original"}, {"storage", storage_json(r.original)}});
  for (const OrderingReport& o : r.orderings)
    ords.push_back({{"name", o.name},
                    {"placement", p.placements[o.placement].name},
                    {"rows", o.rows},
                    {"order", ordering_text(o.rows, p.space)},
                    {"storage", storage_json(o.storage)}});
  doc["orderings"] = ords;
  if (r.sets) {
    Json sets = Json::array();
    for (const BasicSet& s : r.sets->sets) {
      Json readers = Json::array();
      for (size_t x : s.readers) readers.push_back(p.statements[x].name);
      sets.push_back({{"name", s.name},
                      {"array", s.array},
                      {"writer", p.statements[s.writer].name},
                      {"readers", readers},
                      {"size", s.size},
                      {"alive_size", s.self ? s.needed_by_others : s.size}});
    }
    Json parts = Json::array();
    for (const DependencyPart& dp : r.sets->parts)
      parts.push_back({{"name", dp.name}, {"signals", dp.signals.size()}, {"lengths", dp.lengths}});
    doc["basic_sets"] = {{"sets", sets},
                         {"parts", parts},
                         {"total_without_ordering", r.sets->total},
                         {"exact", r.sets->exact}};
  }
  return doc.dump(2) + "\n";
}

}  // namespace t2s::explore
