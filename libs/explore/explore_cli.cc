#include "libs/explore/explore_cli.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "libs/explore/masai.h"
#include "libs/frontend/frontend.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/verify.h"

namespace t2s::explore {

void add_options(Tool& tool, CliOptions* o) {
  CLI::App& app = tool.app();
  app.add_option("--format", o->format,
                 "Report as text tables (text) or as one JSON document (json)")
      ->check(CLI::IsMember({"text", "json"}))
      ->default_str("text");
  app.add_option("-P,--param", o->params,
                 "Give parameter NAME of a polyhedral program the value VALUE, replacing the "
                 "document's; repeatable")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  app.add_option("--placement", o->explore.placements,
                 "Analyse only this placement of a polyhedral program (default: every one); "
                 "repeatable")
      ->type_name("NAME")
      ->allow_extra_args(false);
  app.add_option("--order", o->explore.orders,
                 "Also report the storage of this ordering of the first analysed placement: loop "
                 "names outermost first (\"x2,x1\"; \"-x1\" runs x1 down), an ordering vector "
                 "(\"1,1\") or rows compared lexicographically (\"1,0;0,1\"); repeatable")
      ->type_name("ORDER")
      ->allow_extra_args(false);
  app.add_flag("--search", o->explore.search,
               "Search the legal orderings of smallest storage: every loop order (loops up or "
               "down) and every ordering vector with entries in [-B, B] (--bound)");
  app.add_option("--bound", o->bound,
                 "B: the largest absolute entry of searched ordering vectors (--search; default "
                 "2) and of enumerated scheduling vectors (spec input; default 1); 0 to 8")
      ->check(CLI::Range(0, 8))
      ->type_name("B");
  app.add_option("--search-bound", o->search_bound,
                 "B: the largest absolute entry of the ordering vectors --search tries, for "
                 "bounds above --bound's 8 (replaces --bound for the search; implies --search); "
                 "0 to 100000, at most 200000 vectors ((2B + 1)^dims)")
      ->check(CLI::Range(int64_t{0}, int64_t{100000}))
      ->type_name("B");
  app.add_flag("--bounds", o->explore.bounds,
               "Chapter 4: the smallest and largest storage, in total, per array and per "
               "dependency part, over every legal completion of the loops fixed by --fix");
  app.add_option("--fix", o->explore.fix,
                 "Loops fixed outermost for --bounds, outermost first (\"k\", or \"k,-i\" with i "
                 "running down); implies --bounds")
      ->type_name("LOOPS")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_flag("--reversals", o->explore.reversals,
               "--bounds: completions may also run each loop downwards");
  app.add_flag(
      "--no-basic-sets", [o](int64_t) { o->explore.basic_sets = false; },
      "Leave out chapter 4's basic sets and the estimate without ordering");
  app.add_option("--max-points", o->explore.limits.max_points,
                 "Refuse inputs with more dependency instances or operations than this (exit 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->default_str("2000000");
  app.add_flag("--place", o->explore.place,
               "Search placements (MASAI, section 3.5.5): linear mappings of each statement "
               "from the starting set of --coefficients, backtracking "
               "on the ranks of the mapped dependencies, then the translation of smallest "
               "locality that keeps the polytopes apart (see --place-overlap) and admits a legal "
               "ordering; the best (smallest dependency cone, then locality, then data reuse) is "
               "analysed as placement 'masai'");
  app.add_flag("--place-overlap", o->explore.place_options.overlap,
               "--place: statements may share points, running there in their textual order "
               "(one loop body; always so for a spec's merge group)");
  app.add_flag(
      "--place-locality-first", [o](int64_t) { o->explore.place_options.cone_first = false; },
      "--place: the smallest locality whatever the dependency cone (default: the smallest "
      "dimension of the dependency cone first, as the book)");
  app.add_option("--place-radius", o->explore.place_options.radius,
                 "--place: translations at most R from the polytopes' aligned corners (default: "
                 "the sum of their extents in the widest dim)")
      ->type_name("R")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20));
  app.add_option("--place-limit", o->explore.place_options.max_solutions,
                 "--place: stop after N linear placements meeting the final ranks (default "
                 "20000)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--place-checks", o->explore.place_options.max_checks,
                 "--place: the exact translation search checks at most N translations per "
                 "linear placement (default 100000; past it the result is incomplete and says "
                 "so)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--starting-set", o->starting_set,
                 "Print the size of MASAI-1's starting set of linear mappings of an N-dimensional "
                 "space (section 3.5.5.2: N x N matrices of --coefficients, and the non-singular "
                 "ones) and exit; no input is read")
      ->type_name("N")
      ->check(CLI::Range(1, 6));
  app.add_option("--coefficients", o->coefficients,
                 "The coefficient values of --starting-set (default 0,1) and of --place's "
                 "mappings (default -1,0,1 in a space of up to 2 dims, 0,1 beyond)")
      ->each([o](const std::string&) { o->coefficients_given = true; })
      ->delimiter(',')
      ->type_name("LIST")
      ->allow_extra_args(false);
  // Spec input.
  app.add_option("--spec", o->spec,
                 "The spec an IR input was made from; read only to show its lines in diagnostics")
      ->type_name("FILE");
  tool.add_frontend_options();
  app.add_option("--group", o->schedules.groups,
                 "Spec input: explore this merge group (its representative Func; default: every "
                 "group); repeatable")
      ->type_name("FUNC")
      ->allow_extra_args(false);
  app.add_flag("--best", o->schedules.best,
               "Spec input: print only the top-ranked schedule and the directives to paste");
  app.add_option("--try", o->schedules.tries,
                 "Spec input: judge these directives in place of the group's transforms, e.g. "
                 "\"space_time_transform({i, j}, {2, 3})\" or \"reorder(j, i)."
                 "space_time_transform(j)\"; repeatable")
      ->type_name("DIRECTIVES")
      ->allow_extra_args(false);
  app.add_flag(
      "--no-enumerate", [o](int64_t) { o->schedules.enumerate = false; },
      "Spec input: judge only the spec's own transform and --try, enumerate nothing");
  app.add_option("--rank-by", o->schedules.rank_by,
                 "Spec input: ranking keys, most significant first, among pes, time, storage, "
                 "locality (-KEY: largest first); the default ranks the fastest schedule within "
                 "the PE budget (--max-pes) first")
      ->delimiter(',')
      ->type_name("KEYS")
      ->default_str("time,storage,pes,locality");
  app.add_flag("--chain", o->schedules.chain,
               "Spec input: also enumerate chained transforms (a second projection of the "
               "innermost space loops, seed 000's case 3)");
  app.add_flag(
      "--keep-order", [o](int64_t) { o->schedules.orders = ScheduleOptions::Orders::kSpec; },
      "Spec input: only the group's own loop order (no reorder)");
  app.add_flag(
      "--all-orders", [o](int64_t) { o->schedules.orders = ScheduleOptions::Orders::kAll; },
      "Spec input: every loop order, however many loops (default: every order for "
      "groups of up to 3 loops, the group's own order beyond)");
  app.add_option("--max-space", o->schedules.max_space,
                 "Spec input: at most N innermost loops to space (default 3)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{1}, int64_t{16}));
  app.add_option("--min-pes", o->schedules.min_pes,
                 "Spec input: rank only schedules with at least N PEs")
      ->type_name("N")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  app.add_option("--max-pes", o->schedules.max_pes,
                 "Spec input: the PE budget, rank only schedules with at most N PEs (0: no "
                 "limit; default: the PEs of the group's own space_time_transform as a soft "
                 "budget, schedules within it ranked first, the others after them)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  app.add_option("--top", o->schedules.top, "Spec input: rows of the ranking table (default 20)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_flag("--show-refused", o->schedules.show_refused,
               "Spec input: also list every refused candidate and why");
  app.add_flag("--polyhedral", o->polyhedral,
               "Spec input: also the report of a polyhedral program on each group's loop nest "
               "(costs, storage of orderings, basic sets; implied by --search, --bounds, --fix "
               "and --order, whose loop names are the group's loops)");
}

namespace {

bool polyhedral(const std::string& text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{' &&
         text.find("\"t2s_explore\"") != std::string::npos;
}

Params parse_params(const std::vector<std::string>& defs) {
  Params out;
  for (const std::string& d : defs) {
    size_t eq = d.find('=');
    std::string name = eq == std::string::npos ? "" : d.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : d.substr(eq + 1);
    char* end = nullptr;
    long long v = std::strtoll(value.c_str(), &end, 10);
    if (name.empty() || value.empty() || *end != '\0')
      throw UsageError("--param '" + d + "': expected NAME=INTEGER");
    out.emplace_back(name, v);
  }
  return out;
}

// --starting-set N: the size of MASAI-1's starting set, as text or JSON (--format).
std::string starting_set_report(const CliOptions& o) {
  auto s = masai_starting_set(static_cast<size_t>(o.starting_set), o.coefficients);
  if (!s) throw UsageError("--starting-set: too many matrices to enumerate");
  if (o.format == "json") {
    nlohmann::ordered_json j;
    j["t2s_explore_starting_set"] = 1;
    j["dims"] = o.starting_set;
    j["coefficients"] = o.coefficients;
    j["matrices"] = s->matrices;
    j["nonsingular"] = s->nonsingular;
    return j.dump(2) + "\n";
  }
  std::string coeff;
  for (int64_t c : o.coefficients) coeff += (coeff.empty() ? "" : ", ") + std::to_string(c);
  std::ostringstream out;
  out << "MASAI-1 starting set for " << o.starting_set << " x " << o.starting_set
      << " mappings with coefficients {" << coeff << "}: " << s->matrices << " matrices, "
      << s->nonsingular << " non-singular\n";
  return out.str();
}

}  // namespace

void run(Tool& tool, const CliOptions& o) {
  if (o.starting_set > 0) {
    tool.write_output(starting_set_report(o));
    return;
  }
  const std::string& input = tool.input_path();
  const std::string display = input == "-" ? "<stdin>" : input;
  std::string text = read_file_or_stdin(input);
  ExploreOptions eo = o.explore;
  if (o.coefficients_given) eo.place_options.coefficients = o.coefficients;
  if (!eo.fix.empty()) eo.bounds = true;
  eo.bound = o.bound >= 0 ? o.bound : 2;
  if (o.search_bound >= 0) {
    eo.bound = o.search_bound;
    eo.search = true;
  }
  ScheduleOptions so = o.schedules;
  so.bound = o.bound >= 0 ? o.bound : 1;
  if (polyhedral(text)) {
    tool.sources().add("", display, text);
    PolyProgram p = read_poly_program(text, "", parse_params(o.params));
    ExploreReport r;
    try {
      r = explore(p, eo);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    r.source = display;
    tool.write_output(o.format == "json" ? report_json(r) : report_text(r));
    return;
  }
  // A spec, or its parsed or merged IR.
  std::string error;
  if (!valid_rank_keys(so.rank_by, &error)) throw UsageError("--rank-by: " + error);
  Program program;
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    if (!o.spec.empty()) {
      tool.sources().add("", o.spec, read_file_or_stdin(o.spec));
      size_t slash = o.spec.rfind('/');
      tool.sources().set_base_dir(slash == std::string::npos ? "" : o.spec.substr(0, slash));
    }
    program = read_program(text, display);
    verify_program(program, display);
  } else {
    tool.sources().add("", display, text);
    if (input != "-") {
      size_t slash = input.rfind('/');
      tool.sources().set_base_dir(slash == std::string::npos ? "" : input.substr(0, slash));
    }
    program = parse_spec(tool.sources(), tool.frontend_options());
  }
  std::vector<GroupSchedules> groups;
  try {
    groups = explore_schedules(program, so, eo.limits);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  // A refused --try is the answer to the question asked: the tool fails (exit 1, nothing
  // written), saying why, as t2s-stt would on the spec with those directives.
  std::optional<Diagnostic> refused;
  for (const GroupSchedules& g : groups)
    for (const ScheduleCandidate& c : g.tried) {
      if (c.origin != "--try" || c.ok) continue;
      const std::string what =
          "--try '" + c.text + "' on merge group '" + g.func + "' is refused: " + c.message;
      if (!refused)
        refused.emplace(SourceLoc{}, what, c.rule);
      else
        refused->add_note(SourceLoc{}, what + " [" + c.rule + "]");
    }
  if (refused) throw *refused;
  // The polyhedral report on each group's loop nest, when asked.
  // A merge group's UREs share its loop nest: their points coincide by design.
  eo.place_options.overlap = true;
  const bool polyhedral = o.polyhedral || eo.search || eo.bounds || eo.place || !eo.orders.empty();
  std::vector<ExploreReport> reports;
  if (polyhedral)
    for (const GroupSchedules& g : groups) {
      if (g.kernel.program.statements.empty()) continue;
      try {
        reports.push_back(explore(g.kernel.program, eo));
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
      reports.back().source = display + ", merge group " + g.func;
    }
  if (o.format == "json") {
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(schedules_json(groups, so, display));
    if (polyhedral) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const ExploreReport& r : reports)
        list.push_back(nlohmann::ordered_json::parse(report_json(r)));
      doc["polyhedral"] = list;
    }
    tool.write_output(doc.dump(2) + "\n");
    return;
  }
  std::string report = schedules_text(groups, so);
  for (const ExploreReport& r : reports) report += "\n" + report_text(r);
  tool.write_output(report);
}

}  // namespace t2s::explore
