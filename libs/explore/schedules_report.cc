// t2s-explore's report on a spec's schedules: text tables and JSON.
#include <nlohmann/json.hpp>
#include <sstream>

#include "libs/explore/report.h"
#include "libs/explore/schedules.h"

namespace t2s::explore {

namespace {

using Json = nlohmann::ordered_json;

std::string budget_text(const GroupSchedules& g) {
  if (g.pe_budget == 0 || g.budget_from_spec) return "";
  return " within " + std::to_string(g.pe_budget) + " PEs";
}

std::string soft_budget_text(const GroupSchedules& g) {
  if (!g.budget_from_spec) return "";
  return ", those within " + std::to_string(g.pe_budget) +
         " PEs (the spec's own array; --max-pes N sets a budget) first";
}

std::string joined(const std::vector<std::string>& v, const std::string& sep) {
  std::string t;
  for (const std::string& s : v) t += (t.empty() ? "" : sep) + s;
  return t;
}

std::vector<std::string> metrics_row(const ScheduleCandidate& c) {
  return {std::to_string(c.pes),
          std::to_string(c.steps),
          std::to_string(c.storage),
          std::to_string(c.naive),
          c.locality_known ? std::to_string(c.locality) : "-",
          c.text};
}

void group_text(const GroupSchedules& g, const ScheduleOptions& o, std::ostringstream& out) {
  const KernelProgram& k = g.kernel;
  std::vector<std::string> loops;
  for (size_t i = 0; i < k.loops.size(); ++i)
    loops.push_back(k.loops[i] + " " + std::to_string(k.extents[i]));
  std::vector<std::string> stmts;
  for (const Statement& s : k.program.statements) stmts.push_back(s.name);
  if (o.best) {
    if (g.ranked.empty()) {
      out << "merge group " << g.func << ": no legal schedule among " << g.enumerated
          << " candidates\n";
      return;
    }
    const ScheduleCandidate& c = g.ranked.front();
    out << "best schedule of merge group " << g.func << " (ranked by " << joined(o.rank_by, ", ")
        << soft_budget_text(g) << ", among " << g.ranked.size() << " legal of " << g.enumerated
        << budget_text(g) << "): " << c.pes << " PEs, " << c.steps << " time steps, " << c.storage
        << " register values (naive " << c.naive << ")";
    if (c.locality_known) out << ", locality " << c.locality;
    out << "\n  " << c.text << "\n";
    return;
  }
  out << "merge group " << g.func << ": loops " << joined(loops, ", ")
      << " (outermost first); statements " << joined(stmts, ", ") << "\n";
  for (const std::string& n : k.notes) out << "  note: " << n << "\n";
  out << "  dependencies (flow, exact), vectors over (" << joined(k.loops, ", ") << "):\n";
  std::vector<std::vector<std::string>> rows = {{"#", "dependency", "vectors x instances"}};
  for (size_t d = 0; d < g.deps.size(); ++d) {
    std::string vs;
    for (const VectorCount& v : g.placed.deps[d].vectors)
      vs += (vs.empty() ? "" : ", ") + point_text(v.vector) + " x" + std::to_string(v.count);
    rows.push_back({std::to_string(d + 1), dependency_label(k.program, g.deps[d]), vs});
  }
  out << table(rows, "    ", {true, false, false});
  std::string rays;
  for (const Point& r : g.placed.dependency_cone.rays)
    rays += (rays.empty() ? "" : " ") + point_text(r);
  out << "  dependency cone: " << (rays.empty() ? "the origin" : rays);
  if (g.placed.legal_vector)
    out << "; a legal ordering vector: " << point_text(*g.placed.legal_vector);
  out << "\n";
  if (!g.tried.empty()) {
    out << "  judged:\n";
    rows = {{"", "PEs", "steps", "registers", "naive", "locality", "directives"}};
    std::vector<std::string> refusals;
    for (const ScheduleCandidate& c : g.tried) {
      if (c.ok) {
        std::vector<std::string> row = {c.origin};
        for (const std::string& x : metrics_row(c)) row.push_back(x);
        rows.push_back(row);
      } else {
        refusals.push_back(c.origin + " " + c.text + "\n      refused: " + c.message + " [" +
                           c.rule + "]");
      }
    }
    if (rows.size() > 1) out << table(rows, "    ", {false, true, true, true, true, true, false});
    for (const std::string& r : refusals) out << "    " << r << "\n";
  }
  if (!o.enumerate) return;
  out << "  schedules: " << g.enumerated << " enumerated ("
      << (g.all_orders ? "every loop order" : "the spec's loop order") << ", up to " << o.max_space
      << " innermost loops to space, vectors in [-" << o.bound << ", " << o.bound << "]"
      << (o.chain ? ", chained" : "") << "): " << g.ranked.size() << " legal"
      << (o.min_pes ? " with at least " + std::to_string(o.min_pes) + " PEs" : "") << budget_text(g)
      << ", " << g.refused_by_time << " refused for a dependence backwards in time, "
      << g.refused.size() - (o.show_refused ? static_cast<size_t>(g.refused_by_time) : 0)
      << " refused by t2s-merge / t2s-stt\n";
  if (g.ranked.empty()) return;
  out << "  ranked by " << joined(o.rank_by, ", ") << soft_budget_text(g) << ":\n";
  rows = {{"#", "PEs", "steps", "registers", "naive", "locality", "directives"}};
  for (size_t i = 0; i < g.ranked.size() && static_cast<int64_t>(i) < o.top; ++i) {
    std::vector<std::string> row = {std::to_string(i + 1)};
    for (const std::string& x : metrics_row(g.ranked[i])) row.push_back(x);
    rows.push_back(row);
  }
  out << table(rows, "    ", {true, true, true, true, true, true, false});
  if (static_cast<int64_t>(g.ranked.size()) > o.top)
    out << "    ... " << g.ranked.size() - static_cast<size_t>(o.top) << " more (--top)\n";
  if (o.show_refused && !g.refused.empty()) {
    out << "  refused:\n";
    for (const ScheduleCandidate& c : g.refused)
      out << "    " << c.text << "\n      " << c.message << " [" << c.rule << "]\n";
  }
}

Json candidate_json(const ScheduleCandidate& c) {
  Json j;
  j["directives"] = c.text;
  j["origin"] = c.origin;
  j["legal"] = c.ok;
  if (!c.ok) {
    j["rule"] = c.rule;
    j["message"] = c.message;
    return j;
  }
  j["pes"] = c.pes;
  j["time_steps"] = c.steps;
  j["registers"] = c.storage;
  j["naive_registers"] = c.naive;
  j["locality"] = c.locality_known ? Json(c.locality) : Json(nullptr);
  return j;
}

}  // namespace

std::string schedules_text(const std::vector<GroupSchedules>& groups, const ScheduleOptions& o) {
  std::ostringstream out;
  if (groups.empty())
    out << "no merge group to explore (no merge_ures or space_time_transform directive; "
           "--group FUNC names a Func with a loop nest of its own)\n";
  for (size_t i = 0; i < groups.size(); ++i) {
    if (i) out << "\n";
    group_text(groups[i], o, out);
  }
  return out.str();
}

std::string schedules_json(const std::vector<GroupSchedules>& groups, const ScheduleOptions& o,
                           const std::string& source) {
  Json doc;
  doc["t2s_explore_schedules"] = 1;
  doc["input"] = source;
  doc["rank_by"] = o.rank_by;
  doc["bound"] = o.bound;
  doc["chain"] = o.chain;
  doc["max_space"] = o.max_space;
  Json gs = Json::array();
  for (const GroupSchedules& g : groups) {
    Json j;
    j["func"] = g.func;
    j["pe_budget"] = g.pe_budget;
    j["pe_budget_from_spec"] = g.budget_from_spec;
    Json loops = Json::array();
    for (size_t i = 0; i < g.kernel.loops.size(); ++i)
      loops.push_back({{"loop", g.kernel.loops[i]},
                       {"min", g.kernel.mins[i]},
                       {"extent", g.kernel.extents[i]}});
    j["loops"] = loops;
    Json deps = Json::array();
    for (size_t d = 0; d < g.deps.size(); ++d) {
      Json vs = Json::array();
      for (const VectorCount& v : g.placed.deps[d].vectors)
        vs.push_back({{"vector", v.vector}, {"count", v.count}});
      deps.push_back({{"label", dependency_label(g.kernel.program, g.deps[d])}, {"vectors", vs}});
    }
    j["dependencies"] = deps;
    j["dependency_cone_rays"] = g.placed.dependency_cone.rays;
    j["notes"] = g.kernel.notes;
    Json tried = Json::array();
    for (const ScheduleCandidate& c : g.tried) tried.push_back(candidate_json(c));
    j["judged"] = tried;
    j["enumerated"] = g.enumerated;
    j["every_loop_order"] = g.all_orders;
    j["refused_backwards_in_time"] = g.refused_by_time;
    Json ranked = Json::array();
    for (size_t i = 0; i < g.ranked.size(); ++i) {
      if (o.best && i > 0) break;
      ranked.push_back(candidate_json(g.ranked[i]));
    }
    j["ranked"] = ranked;
    Json refused = Json::array();
    for (const ScheduleCandidate& c : g.refused) refused.push_back(candidate_json(c));
    j["refused"] = refused;
    gs.push_back(j);
  }
  doc["groups"] = gs;
  return doc.dump(2) + "\n";
}

}  // namespace t2s::explore
