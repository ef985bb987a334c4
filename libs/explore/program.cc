#include "libs/explore/program.h"

#include <algorithm>
#include <map>
#include <set>

#include "libs/explore/json.h"

namespace t2s::explore {

int PolyProgram::find_statement(const std::string& n) const {
  for (size_t i = 0; i < statements.size(); ++i)
    if (statements[i].name == n) return static_cast<int>(i);
  return -1;
}

int PolyProgram::find_placement(const std::string& n) const {
  for (size_t i = 0; i < placements.size(); ++i)
    if (placements[i].name == n) return static_cast<int>(i);
  return -1;
}

std::optional<std::vector<std::vector<int64_t>>> loop_order_rows(
    const std::vector<std::string>& loops, const std::vector<std::string>& space,
    std::string* error, size_t* bad) {
  std::vector<std::vector<int64_t>> rows;
  std::set<size_t> used;
  for (const std::string& l : loops) {
    if (bad) *bad = rows.size();
    bool down = !l.empty() && l[0] == '-';
    std::string name = down ? l.substr(1) : l;
    auto it = std::find(space.begin(), space.end(), name);
    if (it == space.end()) {
      std::string known;
      for (const std::string& s : space) known += (known.empty() ? "" : ", ") + s;
      *error = "'" + name + "' is not a dim of the common space (" + known + ")";
      return std::nullopt;
    }
    size_t d = static_cast<size_t>(it - space.begin());
    if (!used.insert(d).second) {
      *error = "loop '" + name + "' is named twice";
      return std::nullopt;
    }
    std::vector<int64_t> row(space.size(), 0);
    row[d] = down ? -1 : 1;
    rows.push_back(row);
  }
  return rows;
}

std::string ordering_text(const std::vector<std::vector<int64_t>>& rows,
                          const std::vector<std::string>& space) {
  auto vec = [](const std::vector<int64_t>& r) {
    std::string t = "[";
    for (size_t i = 0; i < r.size(); ++i) t += (i ? ", " : "") + std::to_string(r[i]);
    return t + "]";
  };
  bool loops = true;
  std::set<size_t> used;
  std::string names;
  for (const auto& r : rows) {
    size_t nonzero = 0, at = 0;
    for (size_t i = 0; i < r.size(); ++i)
      if (r[i] != 0) ++nonzero, at = i;
    if (nonzero != 1 || (r[at] != 1 && r[at] != -1) || !used.insert(at).second ||
        at >= space.size()) {
      loops = false;
      break;
    }
    names += (names.empty() ? "" : ", ") + std::string(r[at] < 0 ? "-" : "") + space[at];
  }
  if (loops && (rows.size() > 1 || rows.size() < space.size()))
    return "(" + names + (rows.size() < space.size() ? ", ..." : "") + ")";
  if (rows.size() == 1) return vec(rows[0]);
  std::string t = "[";
  for (size_t i = 0; i < rows.size(); ++i) t += (i ? ", " : "") + vec(rows[i]);
  return t + "]";
}

namespace {

using json::Value;

class Reader {
 public:
  Reader(const std::string& file, const Params& overrides) : file_(file), overrides_(overrides) {}

  PolyProgram read(const std::string& text) {
    Value doc = json::parse(text, file_);
    if (!doc.is_object()) fail(doc.loc, "the document must be a JSON object");
    p_.loc = doc.loc;
    for (size_t i = 0; i < doc.fields.size(); ++i) {
      static const char* const kKnown[] = {"t2s_explore", "name",       "params",   "space",
                                           "statements",  "placements", "orderings"};
      const std::string& key = doc.fields[i].first;
      if (std::find(std::begin(kKnown), std::end(kKnown), key) == std::end(kKnown))
        fail(doc.key_locs[i], "unknown field '" + key + "'");
    }
    const Value* version = doc.find("t2s_explore");
    if (!version) fail(doc.loc, "missing field 't2s_explore' (the format version, 1)");
    if (!version->is_int() || version->integer != 1)
      fail(version->loc, "'t2s_explore' must be 1, the only format version");
    if (const Value* n = doc.find("name")) p_.name = string(*n, "'name'");
    params(doc.find("params"));
    const Value* stmts = doc.find("statements");
    if (!stmts) fail(doc.loc, "missing field 'statements'");
    if (!stmts->is_array() || stmts->items.empty())
      fail(stmts->loc, "'statements' must be a non-empty array");
    for (const Value& s : stmts->items) statement(s);
    schedules(*stmts);
    space(doc.find("space"));
    placements(doc.find("placements"), *stmts);
    orderings(doc.find("orderings"));
    return std::move(p_);
  }

 private:
  [[noreturn]] void fail(const SourceLoc& loc, const std::string& message,
                         const std::string& rule = "explore-format") {
    throw Diagnostic(loc, message, rule);
  }

  std::string string(const Value& v, const std::string& what) {
    if (!v.is_string()) fail(v.loc, what + " must be a string, not " + v.kind_name());
    return v.string;
  }

  const Value& field(const Value& obj, const char* key, const std::string& what) {
    const Value* v = obj.find(key);
    if (!v) fail(obj.loc, what + " has no field '" + key + "'");
    return *v;
  }

  void only_fields(const Value& obj, std::initializer_list<const char*> known,
                   const std::string& what) {
    for (size_t i = 0; i < obj.fields.size(); ++i) {
      bool ok = false;
      for (const char* k : known) ok = ok || obj.fields[i].first == k;
      if (!ok) fail(obj.key_locs[i], "unknown field '" + obj.fields[i].first + "' in " + what);
    }
  }

  void params(const Value* v) {
    if (v) {
      if (!v->is_object()) fail(v->loc, "'params' must be an object of integers");
      for (const auto& [name, value] : v->fields) {
        if (!value.is_int())
          fail(value.loc, "parameter '" + name + "' must be an integer, not " + value.kind_name());
        p_.params.emplace_back(name, value.integer);
      }
    }
    for (const auto& [name, value] : overrides_) {
      auto it = std::find_if(p_.params.begin(), p_.params.end(),
                             [&](const auto& q) { return q.first == name; });
      if (it == p_.params.end())
        p_.params.emplace_back(name, value);
      else
        it->second = value;
    }
  }

  IntSet set(const Value& v, const std::string& what) {
    std::string text = string(v, what);
    try {
      return parse_set(text, p_.params);
    } catch (const PolyError& e) {
      fail(v.loc, what + ": " + e.what(), "explore-set");
    }
  }

  IntMap map(const Value& v, const std::string& what) {
    std::string text = string(v, what);
    try {
      return parse_map(text, p_.params);
    } catch (const PolyError& e) {
      fail(v.loc, what + ": " + e.what(), "explore-set");
    }
  }

  std::vector<Access> accesses(const Value* list, const Statement& s, const char* kind) {
    std::vector<Access> out;
    if (!list) return out;
    const std::string what = "'" + std::string(kind) + "' of statement '" + s.name + "'";
    if (!list->is_array()) fail(list->loc, what + " must be an array of relations");
    for (const Value& a : list->items) {
      IntMap rel = map(a, "an access of statement '" + s.name + "'");
      if (rel.in_tuple() != s.name || rel.in_dims() != s.domain.dims())
        fail(a.loc,
             "an access of statement '" + s.name + "' must map " + s.name + "[" +
                 std::to_string(s.domain.dims()) + " dims] to an array element",
             "explore-access");
      if (rel.out_tuple().empty())
        fail(a.loc, "an access must name its array ({ S[i] -> a[i] })", "explore-access");
      rel = rel.intersect_domain(s.domain);
      if (!rel.single_valued())
        fail(a.loc,
             "an access of statement '" + s.name +
                 "' must give one element per operation (it is not single-valued)",
             "explore-access");
      out.push_back(Access{rel, rel.out_tuple(), a.loc});
    }
    return out;
  }

  void statement(const Value& v) {
    if (!v.is_object()) fail(v.loc, "a statement must be an object");
    only_fields(v, {"name", "domain", "writes", "reads", "schedule"}, "a statement");
    Statement s;
    s.loc = v.loc;
    const Value& name = field(v, "name", "a statement");
    s.name = string(name, "a statement's 'name'");
    if (p_.find_statement(s.name) >= 0)
      fail(name.loc, "statement '" + s.name + "' is defined twice");
    const Value& domain = field(v, "domain", "statement '" + s.name + "'");
    s.domain = set(domain, "the domain of '" + s.name + "'");
    if (s.domain.tuple() != s.name)
      fail(domain.loc,
           "the domain of statement '" + s.name + "' must be a set of " + s.name +
               "[...] tuples, not '" + s.domain.tuple() + "'",
           "explore-set");
    if (!s.domain.bounds())
      fail(domain.loc, "the domain of statement '" + s.name + "' must be bounded", "explore-set");
    s.writes = accesses(v.find("writes"), s, "writes");
    s.reads = accesses(v.find("reads"), s, "reads");
    if (const Value* sched = v.find("schedule")) {
      s.schedule = map(*sched, "the schedule of '" + s.name + "'");
      if (s.schedule.in_tuple() != s.name || s.schedule.in_dims() != s.domain.dims() ||
          !s.schedule.out_tuple().empty())
        fail(sched->loc,
             "the schedule of '" + s.name + "' must map " + s.name + "[...] to a time tuple [...]",
             "explore-schedule");
      s.schedule = s.schedule.intersect_domain(s.domain);
      if (!s.schedule.affine())
        fail(sched->loc, "the schedule of '" + s.name + "' must be one affine function",
             "explore-schedule");
    }
    p_.statements.push_back(std::move(s));
  }

  // Statements without a schedule run in textual order, each its own loop nest:
  // S_k[x] -> [k, x, 0...] padded to one dimension. Explicit schedules must be injective and
  // disjoint.
  void schedules(const Value& stmts) {
    size_t width = 0;
    for (const Statement& s : p_.statements)
      width = std::max(width, s.schedule.null() ? s.domain.dims() + 1 : s.schedule.out_dims());
    for (size_t k = 0; k < p_.statements.size(); ++k) {
      Statement& s = p_.statements[k];
      const SourceLoc& at = stmts.items[k].loc;
      if (s.schedule.null()) {
        Affine f;
        f.coeff.assign(width, std::vector<int64_t>(s.domain.dims(), 0));
        f.constant.assign(width, 0);
        f.constant[0] = static_cast<int64_t>(k);
        for (size_t d = 0; d < s.domain.dims(); ++d) f.coeff[d + 1][d] = 1;
        s.schedule = IntMap::from_affine(s.domain, "", f);
      } else if (s.schedule.out_dims() != width) {
        Affine f = *s.schedule.affine();
        f.coeff.resize(width, std::vector<int64_t>(s.domain.dims(), 0));
        f.constant.resize(width, 0);
        s.schedule = IntMap::from_affine(s.domain, "", f);
      }
      if (!s.schedule.injective())
        fail(at, "the schedule of '" + s.name + "' gives two operations the same time",
             "explore-schedule");
      for (size_t j = 0; j < k; ++j)
        if (!s.schedule.range().intersect(p_.statements[j].schedule.range()).empty())
          fail(at,
               "the schedules of '" + p_.statements[j].name + "' and '" + s.name +
                   "' give two operations the same time",
               "explore-schedule");
    }
  }

  void space(const Value* v) {
    if (!v) return;
    if (!v->is_array()) fail(v->loc, "'space' must be an array of dim names");
    for (const Value& n : v->items) {
      std::string name = string(n, "a name in 'space'");
      if (name.empty() || name[0] == '-')
        fail(n.loc, "a dim name must not be empty or start with '-'");
      if (std::find(p_.space.begin(), p_.space.end(), name) != p_.space.end())
        fail(n.loc, "dim '" + name + "' is named twice");
      p_.space.push_back(name);
    }
  }

  void default_space(size_t n, const SourceLoc& at) {
    if (p_.space.empty()) {
      for (size_t i = 0; i < n; ++i) p_.space.push_back("x" + std::to_string(i + 1));
    } else if (p_.space.size() != n) {
      fail(at,
           "the common space has " + std::to_string(n) + " dims, but 'space' names " +
               std::to_string(p_.space.size()),
           "explore-placement");
    }
  }

  void placements(const Value* v, const Value& stmts) {
    if (!v || (v->is_array() && v->items.empty())) {
      // The identity; a statement of fewer dims than the widest is padded with zeros (as the
      // book adds its loop q), so --place can start from a program without placements.
      size_t n = 0;
      bool same = true;
      for (const Statement& s : p_.statements) {
        same = same && (n == 0 || s.domain.dims() == n);
        n = std::max(n, s.domain.dims());
      }
      Placement id{same ? "identity" : "padded", {}, stmts.loc};
      for (const Statement& s : p_.statements) {
        const size_t m = s.domain.dims();
        Affine f{std::vector<std::vector<int64_t>>(n, std::vector<int64_t>(m, 0)),
                 std::vector<int64_t>(n, 0)};
        for (size_t d = 0; d < m; ++d) f.coeff[d][d] = 1;
        id.maps.push_back(f);
      }
      default_space(n, stmts.loc);
      p_.placements.push_back(std::move(id));
      return;
    }
    if (!v->is_array()) fail(v->loc, "'placements' must be an array");
    for (const Value& pv : v->items) {
      if (!pv.is_object()) fail(pv.loc, "a placement must be an object");
      only_fields(pv, {"name", "maps"}, "a placement");
      Placement pl;
      pl.loc = pv.loc;
      const Value& name = field(pv, "name", "a placement");
      pl.name = string(name, "a placement's 'name'");
      if (p_.find_placement(pl.name) >= 0)
        fail(name.loc, "placement '" + pl.name + "' is defined twice");
      const Value& maps = field(pv, "maps", "placement '" + pl.name + "'");
      if (!maps.is_object()) fail(maps.loc, "'maps' must be an object: statement name -> relation");
      for (size_t i = 0; i < maps.fields.size(); ++i)
        if (p_.find_statement(maps.fields[i].first) < 0)
          fail(maps.key_locs[i], "no statement '" + maps.fields[i].first + "'",
               "explore-placement");
      for (const Statement& s : p_.statements) {
        const Value* m = maps.find(s.name);
        if (!m)
          fail(maps.loc, "placement '" + pl.name + "' has no map for statement '" + s.name + "'",
               "explore-placement");
        IntMap rel = map(*m, "the placement of '" + s.name + "'");
        if (rel.in_tuple() != s.name || rel.in_dims() != s.domain.dims() ||
            !rel.out_tuple().empty())
          fail(m->loc,
               "the placement of '" + s.name + "' must map " + s.name +
                   "[...] to a point [...] of the common space",
               "explore-placement");
        rel = rel.intersect_domain(s.domain);
        std::optional<Affine> f = rel.affine();
        if (!f || !rel.domain().equal(s.domain))
          fail(m->loc,
               "the placement of '" + s.name +
                   "' must be one affine function (no division, no condition) on its domain",
               "explore-placement");
        if (!rel.injective())
          fail(m->loc, "the placement of '" + s.name + "' maps two operations onto one point",
               "explore-placement");
        if (!pl.maps.empty() && f->out_dims() != pl.maps[0].out_dims())
          fail(m->loc,
               "the placement of '" + s.name + "' has " + std::to_string(f->out_dims()) +
                   " dims; the common space of '" + pl.name + "' has " +
                   std::to_string(pl.maps[0].out_dims()),
               "explore-placement");
        if (!p_.placements.empty() && f->out_dims() != p_.placements[0].maps[0].out_dims())
          fail(m->loc, "every placement must map into a space of the same dimension",
               "explore-placement");
        pl.maps.push_back(*f);
      }
      default_space(pl.maps[0].out_dims(), pv.loc);
      p_.placements.push_back(std::move(pl));
    }
  }

  std::vector<int64_t> int_vector(const Value& v, const std::string& what) {
    if (!v.is_array()) fail(v.loc, what + " must be an array of integers");
    std::vector<int64_t> out;
    for (const Value& x : v.items) {
      if (!x.is_int()) fail(x.loc, what + " must hold integers");
      if (x.integer > (1 << 20) || x.integer < -(1 << 20))
        fail(x.loc, what + ": coefficients beyond +-2^20 are refused", "explore-ordering");
      out.push_back(x.integer);
    }
    if (out.size() != p_.space.size())
      fail(v.loc,
           what + " has " + std::to_string(out.size()) + " entries; the common space has " +
               std::to_string(p_.space.size()) + " dims",
           "explore-ordering");
    if (std::all_of(out.begin(), out.end(), [](int64_t c) { return c == 0; }))
      fail(v.loc, what + " must not be zero", "explore-ordering");
    return out;
  }

  void orderings(const Value* v) {
    if (!v) return;
    if (!v->is_array()) fail(v->loc, "'orderings' must be an array");
    for (const Value& ov : v->items) {
      if (!ov.is_object()) fail(ov.loc, "an ordering must be an object");
      only_fields(ov, {"name", "placement", "vector", "rows", "loops"}, "an ordering");
      Ordering o;
      o.loc = ov.loc;
      o.name = string(field(ov, "name", "an ordering"), "an ordering's 'name'");
      if (const Value* pl = ov.find("placement")) {
        int k = p_.find_placement(string(*pl, "'placement'"));
        if (k < 0) fail(pl->loc, "no placement '" + pl->string + "'", "explore-ordering");
        o.placement = static_cast<size_t>(k);
      }
      int forms = !!ov.find("vector") + !!ov.find("rows") + !!ov.find("loops");
      if (forms != 1)
        fail(ov.loc, "ordering '" + o.name + "' needs exactly one of 'vector', 'rows', 'loops'",
             "explore-ordering");
      if (const Value* vec = ov.find("vector")) o.rows.push_back(int_vector(*vec, "'vector'"));
      if (const Value* rows = ov.find("rows")) {
        if (!rows->is_array() || rows->items.empty())
          fail(rows->loc, "'rows' must be a non-empty array of vectors");
        for (const Value& r : rows->items) o.rows.push_back(int_vector(r, "a row"));
      }
      if (const Value* loops = ov.find("loops")) {
        if (!loops->is_array() || loops->items.empty())
          fail(loops->loc, "'loops' must be a non-empty array of dim names");
        std::vector<std::string> names;
        for (const Value& l : loops->items) names.push_back(string(l, "a loop name"));
        std::string error;
        size_t bad = 0;
        auto rows = loop_order_rows(names, p_.space, &error, &bad);
        if (!rows) fail(loops->items[bad].loc, error, "explore-ordering");
        o.rows = *rows;
      }
      p_.orderings.push_back(std::move(o));
    }
  }

  std::string file_;
  Params overrides_;
  PolyProgram p_;
};

}  // namespace

PolyProgram read_poly_program(const std::string& text, const std::string& file,
                              const Params& overrides) {
  return Reader(file, overrides).read(text);
}

}  // namespace t2s::explore
