// t2s-explore's JSON report (report.h: report_json), beside the text report of report.cc.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "libs/explore/report.h"
#include "libs/explore/report_internal.h"

namespace t2s::explore {

using Json = nlohmann::ordered_json;
using namespace report_internal;
namespace {

Json place_json(const PolyProgram& p, const PlacementSearchResult& s) {
  Json j;
  j["found"] = s.found;
  j["complete"] = s.complete;
  j["stopped_by"] = s.stopped_by;
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
  j["constructed"] = s.constructed;
  j["checks"] = s.checks;
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

// ---- the sets behind the counts (JSON) -------------------------------------------------------

Json count_json(int64_t n) { return n < 0 ? Json(nullptr) : Json(n); }

Json statements_json(const ExploreReport& r) {
  const PolyProgram& p = *r.program;
  Json stmts = Json::array();
  for (size_t k = 0; k < p.statements.size(); ++k) {
    const Statement& s = p.statements[k];
    Json j = {{"name", s.name}, {"dims", s.domain.dims()}};
    if (k < r.statements.size()) {
      const StatementReport& sr = r.statements[k];
      j["operations"] = count_json(sr.operations);
      j["domain"] = s.domain.str();
      Json defs = Json::array(), operands = Json::array();
      for (const AccessDomain& d : sr.definition)
        defs.push_back(
            {{"array", d.array}, {"set", d.elements.str()}, {"elements", count_json(d.count)}});
      for (size_t i = 0; i < sr.operand.size(); ++i)
        operands.push_back({{"read", i + 1},
                            {"array", sr.operand[i].array},
                            {"set", sr.operand[i].elements.str()},
                            {"elements", count_json(sr.operand[i].count)}});
      j["definition_domains"] = defs;
      j["operand_domains"] = operands;
    }
    stmts.push_back(j);
  }
  return stmts;
}

Json step_json(const PolyProgram& p, const StepOps& st) {
  Json ops = Json::array();
  for (const Op& o : st.first) ops.push_back(op_label(p, o));
  return {{"step", st.index + 1}, {"operations", st.size}, {"first", ops}};
}

Json alive_json(const ExploreReport& r, const std::vector<size_t>& alive) {
  const PolyProgram& p = *r.program;
  Json groups = Json::array(), values = Json::array();
  size_t listed = 0;
  for (const auto& [name, sigs] : alive_groups(r, alive)) {
    groups.push_back({{"name", name}, {"values", sigs.size()}});
    for (size_t sig : sigs) {
      if (listed == kValuesListed) break;
      values.push_back({{"element", element_text(p, r.signals[sig])},
                        {"producer", op_label(p, r.signals[sig].producer)},
                        {"group", name}});
      ++listed;
    }
  }
  return {{"alive", alive.size()},
          {r.sets ? "basic_sets" : "arrays", groups},
          {"values", values},
          {"more", alive.size() - listed}};
}

Json peak_json(const ExploreReport& r, const StoragePeak& pk) {
  const PolyProgram& p = *r.program;
  Json j;
  if (pk.after.index >= 0) {
    j["between"] = alive_json(r, pk.between_alive);
    j["between"]["after"] = step_json(p, pk.after);
    j["between"]["before"] = step_json(p, pk.before);
  } else {
    j["between"] = nullptr;
  }
  if (pk.busiest.index >= 0 && !pk.at_step_alive.empty()) {
    j["at_step"] = alive_json(r, pk.at_step_alive);
    j["at_step"]["step"] = step_json(p, pk.busiest);
  } else {
    j["at_step"] = nullptr;
  }
  return j;
}

Json search_json(const ExploreReport& r, const SearchResult& s) {
  const PolyProgram& p = *r.program;
  auto entry = [&](const RankedOrdering& o) {
    return Json{{"rows", o.rows},
                {"order", ordering_text(o.rows, p.space)},
                {"between", o.between},
                {"at_step", o.at_step}};
  };
  Json best = Json::array(), ranked = Json::array(), illegal = Json::array();
  for (const RankedOrdering& o : s.best) best.push_back(entry(o));
  const std::vector<int64_t> ranks = search_ranks(s.all);
  for (size_t i = 0; i < s.all.size(); ++i) {
    Json e = {{"rank", ranks[i]}};
    e.update(entry(s.all[i]));
    ranked.push_back(e);
  }
  for (const Rows& rows : s.illegal) illegal.push_back(ordering_text(rows, p.space));
  return {{"bound", r.bound}, {"candidates", s.candidates}, {"legal", s.legal},
          {"best", best},     {"ranked", ranked},           {"illegal", illegal}};
}

Json group_costs_json(const ExploreReport& r, const PlacementReport& pr) {
  const PolyProgram& p = *r.program;
  Json out = Json::array();
  for (const GroupCosts& g : pr.group_costs) {
    Json readers = Json::array(), to = Json::array(), between = Json::array(), tree = Json::array();
    for (size_t i = 0; i < g.readers.size(); ++i) {
      readers.push_back(p.statements[g.readers[i]].name);
      to.push_back({{"reader", p.statements[g.readers[i]].name}, {"locality", g.production_to[i]}});
      for (size_t t = i + 1; t < g.readers.size(); ++t)
        between.push_back(
            {{"readers", {p.statements[g.readers[i]].name, p.statements[g.readers[t]].name}},
             {"locality", g.consumers[i][t]}});
    }
    Json j = {{"set", r.sets->sets[g.set].name},
              {"readers", readers},
              {"values", g.values},
              {"locality", g.locality},
              {"refined_locality", g.refined_locality},
              {"data_reuse", g.data_reuse},
              {"production_to", to}};
    if (g.readers.size() > 1) {
      for (const auto& [a, b] : g.tree_edges)
        tree.push_back({node_name(p, g, a), node_name(p, g, b)});
      j["extended_graph"] = {{"consumers", between}, {"tree", g.tree}, {"tree_edges", tree}};
    }
    out.push_back(j);
  }
  return out;
}

// Each basic set's contents, and the sets alive at the traversal's peak.
void add_sets_json(const ExploreReport& r, Json* basic_sets) {
  const BasicSets& b = *r.sets;
  Json& sets = (*basic_sets)["sets"];
  for (size_t x = 0; x < r.contents.size() && x < sets.size(); ++x) {
    sets[x]["elements"] = r.contents[x].elements.str();
    sets[x]["element_count"] = r.contents[x].count;
    sets[x]["operations"] = r.contents[x].operations.str();
  }
  if (b.total < 0 || b.order.empty()) return;
  Json alive = Json::array();
  for (const auto& [x, size] : b.peak_alive)
    alive.push_back({{"set", b.sets[x].name}, {"size", size}});
  (*basic_sets)["peak"] = {{"after", b.sets[b.order[b.peak_after]].name}, {"alive", alive}};
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
  doc["statements"] = statements_json(r);
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
    if (r.sets) j["group_costs"] = group_costs_json(r, pr);
    if (pr.search) j["search"] = search_json(r, *pr.search);
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
  if (r.original_peak) ords.back()["peak"] = peak_json(r, *r.original_peak);
  for (const OrderingReport& o : r.orderings) {
    ords.push_back({{"name", o.name},
                    {"placement", p.placements[o.placement].name},
                    {"rows", o.rows},
                    {"order", ordering_text(o.rows, p.space)},
                    {"storage", storage_json(o.storage)}});
    if (o.peak) ords.back()["peak"] = peak_json(r, *o.peak);
  }
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
    add_sets_json(r, &doc["basic_sets"]);
  }
  return doc.dump(2) + "\n";
}

}  // namespace t2s::explore
