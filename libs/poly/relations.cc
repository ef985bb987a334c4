#include "libs/poly/relations.h"

#include <isl/aff.h>
#include <isl/cpp.h>
#include <isl/map.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "libs/ir/diagnostic.h"
#include "libs/poly/isl_context.h"

namespace t2s::poly {

namespace {

using ContextRef = std::shared_ptr<const Context>;

// isl's message without its source file ("isl_stream.c:140: syntax error" -> "syntax error").
std::string isl_message(const isl::exception& e) {
  std::string m = e.what();
  size_t colon = m.find(": ");
  if (colon != std::string::npos && m.compare(0, 4, "isl_") == 0) m = m.substr(colon + 2);
  return m;
}

// Runs f; an isl error is an internal error naming the operation.
template <typename F>
auto guarded(const std::string& what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const isl::exception& e) {
    throw InternalError("poly: isl failed on " + what + ": " + e.what());
  }
}

// Names that isl's parser reserves; programmatic tuples are renamed so that a Func may be
// called `max` or `sum`.
bool isl_keyword(const std::string& s) {
  static const char* const kWords[] = {"exists", "and",   "or",    "not",  "implies", "mod",
                                       "min",    "max",   "floor", "ceil", "ceild",   "floord",
                                       "true",   "false", "infty", "NaN",  "domain",  "range",
                                       "params", "sum",   "rat",   "cst",  "lexmin",  "lexmax"};
  for (const char* w : kWords)
    if (s == w) return true;
  return false;
}

std::string isl_tuple(const std::string& name) {
  if (name.empty()) return "";
  return isl_keyword(name) || name.compare(0, 3, "tk_") == 0 ? "tk_" + name : name;
}

std::string tuple_text(const std::string& name, size_t n, const char* prefix) {
  std::string t = isl_tuple(name) + "[";
  for (size_t i = 0; i < n; ++i) t += (i ? ", " : "") + std::string(prefix) + std::to_string(i);
  return t + "]";
}

// sum(coeff_i * prefix_i) + constant.
std::string linear_text(const std::vector<int64_t>& coeff, int64_t constant, const char* prefix) {
  std::string t = std::to_string(constant);
  for (size_t i = 0; i < coeff.size(); ++i) {
    if (coeff[i] == 0) continue;
    t += coeff[i] < 0 ? " - " : " + ";
    t += std::to_string(coeff[i] < 0 ? -coeff[i] : coeff[i]) + "*" + prefix + std::to_string(i);
  }
  return t;
}

int64_t val_int(const isl::val& v) {
  if (v.is_null() || !v.is_int()) throw PolyError("a value that is not an integer");
  return v.get_num_si();
}

std::string optional_name(const char* s) { return s ? s : ""; }

// The coordinates of a point of a set (of a wrapped relation too: its pairs, flattened).
Point coordinates(const isl::point& pnt) {
  isl::space space = isl::manage(isl_point_get_space(pnt.get()));
  isl_size n = isl_space_dim(space.get(), isl_dim_set);
  Point p(static_cast<size_t>(std::max<isl_size>(n, 0)));
  for (isl_size i = 0; i < n; ++i)
    p[i] = val_int(isl::manage(isl_point_get_coordinate_val(pnt.get(), isl_dim_set, i)));
  return p;
}

// Thrown from inside isl's walk over the points to stop it at the limit.
struct PastLimit {};

std::vector<Point> enumerate(const isl::set& s, int64_t limit) {
  std::vector<Point> out;
  try {
    s.foreach_point([&](isl::point pnt) {
      if (static_cast<int64_t>(out.size()) >= limit) throw PastLimit{};
      out.push_back(coordinates(pnt));
    });
  } catch (const PastLimit&) {
    throw TooManyPoints("more than " + std::to_string(limit) + " points to enumerate");
  } catch (const isl::exception&) {
    throw PolyError("the set is unbounded: its points cannot be listed");
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Declares the parameters `params` for a text that declares none, reads it with `read`, and
// gives every parameter its value.
template <typename T, typename Read>
T read_with_params(const ContextRef& ctx, const std::string& text, const Params& params,
                   Read&& read) {
  size_t first = text.find_first_not_of(" \t\r\n");
  std::string full = text;
  if (!params.empty() && (first == std::string::npos || text[first] != '[')) {
    std::string decl = "[";
    for (size_t i = 0; i < params.size(); ++i) decl += (i ? ", " : "") + params[i].first;
    full = decl + "] -> " + text;
  }
  T t;
  try {
    t = read(full);
  } catch (const isl::exception& e) {
    // An unknown name is a syntax error to isl: say which name when declaring it as a
    // parameter makes the text readable.
    std::string decl;
    for (const auto& p : params) decl += p.first + ", ";
    for (size_t i = 0; i < text.size();) {
      if (!isalpha(static_cast<unsigned char>(text[i])) && text[i] != '_') {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < text.size() && (isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
        ++j;
      std::string id = text.substr(i, j - i);
      i = j;
      if (isl_keyword(id)) continue;
      try {
        read("[" + decl + id + "] -> " + text.substr(first == std::string::npos ? 0 : first));
      } catch (const isl::exception&) {
        continue;
      }
      throw PolyError("'" + id + "' is neither a dim nor a parameter with a value (give it one " +
                      "in \"params\")");
    }
    throw PolyError("isl cannot read it: " + isl_message(e));
  }
  if (t.is_null()) throw PolyError("isl cannot read it");
  isl::space space = t.space().params();
  isl_size n = isl_space_dim(space.get(), isl_dim_param);
  std::string names, values;
  for (isl_size i = 0; i < n; ++i) {
    std::string name = optional_name(isl_space_get_dim_name(space.get(), isl_dim_param, i));
    auto it =
        std::find_if(params.begin(), params.end(), [&](const auto& p) { return p.first == name; });
    if (it == params.end())
      throw PolyError("parameter '" + name + "' has no value (give it one in \"params\")");
    names += (i ? ", " : "") + name;
    values += std::string(i ? " and " : "") + name + " = " + std::to_string(it->second);
  }
  if (n == 0) return t;
  isl::set context_set(ctx->get(), "[" + names + "] -> { : " + values + " }");
  return t.intersect_params(context_set).project_out_all_params();
}

}  // namespace

Point Affine::apply(const Point& x) const {
  Point y(constant);
  for (size_t r = 0; r < coeff.size(); ++r)
    for (size_t c = 0; c < x.size() && c < coeff[r].size(); ++c) y[r] += coeff[r][c] * x[c];
  return y;
}

// Each object holds the context its isl object belongs to, declared first so that it is released
// last.
struct IntSet::Impl {
  ContextRef ctx;
  isl::set set;
  std::string tuple;
  std::vector<std::string> dims;
};

struct IntMap::Impl {
  ContextRef ctx;
  isl::map map;
  std::string in, out;
};

namespace {

std::shared_ptr<const IntSet::Impl> set_impl(ContextRef ctx, isl::set s, std::string tuple,
                                             std::vector<std::string> dims) {
  auto impl = std::make_shared<IntSet::Impl>();
  impl->ctx = std::move(ctx);
  impl->set = std::move(s);
  impl->tuple = std::move(tuple);
  impl->dims = std::move(dims);
  return impl;
}

std::vector<std::string> isl_dim_names(const isl::set& s) {
  std::vector<std::string> names;
  isl_size n = isl_set_dim(s.get(), isl_dim_set);
  for (isl_size i = 0; i < n; ++i) {
    std::string name = optional_name(isl_set_get_dim_name(s.get(), isl_dim_set, i));
    names.push_back(name.empty() ? "i" + std::to_string(i) : name);
  }
  return names;
}

}  // namespace

IntSet::IntSet() = default;

IntSet IntSet::box(const std::string& tuple, const std::vector<std::string>& dims,
                   const std::vector<int64_t>& lo, const std::vector<int64_t>& extent) {
  std::string text = "{ " + tuple_text(tuple, dims.size(), "x");
  for (size_t i = 0; i < dims.size(); ++i) {
    text += i ? " and " : " : ";
    text += std::to_string(lo[i]) + " <= x" + std::to_string(i) + " < " +
            std::to_string(lo[i] + extent[i]);
  }
  text += " }";
  ContextRef ctx = shared_context();
  isl::set s = guarded("a box", [&] { return isl::set(ctx->get(), text); });
  return IntSet(set_impl(ctx, s, tuple, dims));
}

IntSet IntSet::point(const std::string& tuple, const Point& p) {
  std::string text = "{ " + isl_tuple(tuple) + "[";
  for (size_t i = 0; i < p.size(); ++i) text += (i ? ", " : "") + std::to_string(p[i]);
  text += "] }";
  ContextRef ctx = shared_context();
  isl::set s = guarded("a point", [&] { return isl::set(ctx->get(), text); });
  std::vector<std::string> dims;
  for (size_t i = 0; i < p.size(); ++i) dims.push_back("i" + std::to_string(i));
  return IntSet(set_impl(ctx, s, tuple, dims));
}

IntSet IntSet::empty_like(const IntSet& s) {
  return IntSet(
      set_impl(s.impl_->ctx, isl::set::empty(s.impl_->set.space()), s.impl_->tuple, s.impl_->dims));
}

const std::string& IntSet::tuple() const { return impl_->tuple; }
size_t IntSet::dims() const { return impl_->dims.size(); }
std::vector<std::string> IntSet::dim_names() const { return impl_->dims; }
bool IntSet::empty() const {
  return guarded("emptiness", [&] { return impl_->set.is_empty(); });
}
bool IntSet::equal(const IntSet& o) const {
  return guarded("equality", [&] { return impl_->set.is_equal(o.impl_->set); });
}
bool IntSet::subset_of(const IntSet& o) const {
  return guarded("inclusion", [&] { return impl_->set.is_subset(o.impl_->set); });
}
IntSet IntSet::intersect(const IntSet& o) const {
  return IntSet(set_impl(
      impl_->ctx, guarded("intersection", [&] { return impl_->set.intersect(o.impl_->set); }),
      impl_->tuple, impl_->dims));
}
IntSet IntSet::subtract(const IntSet& o) const {
  return IntSet(
      set_impl(impl_->ctx,
               guarded("difference", [&] { return impl_->set.subtract(o.impl_->set).coalesce(); }),
               impl_->tuple, impl_->dims));
}
IntSet IntSet::unite(const IntSet& o) const {
  return IntSet(set_impl(
      impl_->ctx, guarded("union", [&] { return impl_->set.unite(o.impl_->set).coalesce(); }),
      impl_->tuple, impl_->dims));
}

IntSet IntSet::where(const Constraint& c) const {
  std::string text = "{ " + tuple_text(impl_->tuple, dims(), "x") + " : " +
                     linear_text(c.coeff, c.constant, "x") + (c.equality ? " = 0" : " >= 0") + " }";
  isl::set cs = guarded("a constraint", [&] { return isl::set(impl_->ctx->get(), text); });
  return IntSet(set_impl(impl_->ctx,
                         guarded("a constraint", [&] { return impl_->set.intersect(cs); }),
                         impl_->tuple, impl_->dims));
}

std::vector<Point> IntSet::points(int64_t limit) const { return enumerate(impl_->set, limit); }

int64_t IntSet::count(int64_t limit) const { return static_cast<int64_t>(points(limit).size()); }

std::optional<Point> IntSet::lexmin() const {
  if (empty()) return std::nullopt;
  isl::set m = guarded("lexmin", [&] { return impl_->set.lexmin(); });
  std::vector<Point> p = enumerate(m, 1);
  if (p.empty()) return std::nullopt;
  return p[0];
}

std::optional<std::vector<std::pair<int64_t, int64_t>>> IntSet::bounds() const {
  if (empty()) return std::nullopt;
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i < dims(); ++i) {
    isl::val lo = guarded("a bound", [&] { return impl_->set.dim_min_val(static_cast<int>(i)); });
    isl::val hi = guarded("a bound", [&] { return impl_->set.dim_max_val(static_cast<int>(i)); });
    if (!lo.is_int() || !hi.is_int()) return std::nullopt;
    out.emplace_back(lo.get_num_si(), hi.get_num_si());
  }
  return out;
}

std::string IntSet::str() const {
  std::ostringstream out;
  out << impl_->set;
  return out.str();
}

IntMap::IntMap() = default;

namespace {

std::shared_ptr<const IntMap::Impl> map_impl(ContextRef ctx, isl::map m, std::string in,
                                             std::string out) {
  auto impl = std::make_shared<IntMap::Impl>();
  impl->ctx = std::move(ctx);
  impl->map = std::move(m);
  impl->in = std::move(in);
  impl->out = std::move(out);
  return impl;
}

}  // namespace

IntMap IntMap::from_affine(const IntSet& domain, const std::string& out_tuple, const Affine& f) {
  std::string text =
      "{ " + tuple_text(domain.tuple(), domain.dims(), "x") + " -> " + isl_tuple(out_tuple) + "[";
  for (size_t r = 0; r < f.out_dims(); ++r)
    text += (r ? ", " : "") + linear_text(f.coeff[r], f.constant[r], "x");
  text += "] }";
  const ContextRef& ctx = domain.impl_->ctx;
  isl::map m = guarded("an affine map", [&] { return isl::map(ctx->get(), text); });
  m = guarded("an affine map", [&] { return m.intersect_domain(domain.impl_->set); });
  return IntMap(map_impl(ctx, m, domain.tuple(), out_tuple));
}

const std::string& IntMap::in_tuple() const { return impl_->in; }
const std::string& IntMap::out_tuple() const { return impl_->out; }
size_t IntMap::in_dims() const { return isl_map_dim(impl_->map.get(), isl_dim_in); }
size_t IntMap::out_dims() const { return isl_map_dim(impl_->map.get(), isl_dim_out); }
bool IntMap::empty() const {
  return guarded("emptiness", [&] { return impl_->map.is_empty(); });
}
bool IntMap::single_valued() const {
  return guarded("single-valuedness", [&] { return impl_->map.is_single_valued(); });
}
bool IntMap::injective() const {
  return guarded("injectivity", [&] { return impl_->map.is_injective(); });
}

IntSet IntMap::domain() const {
  isl::set s = guarded("a domain", [&] { return impl_->map.domain(); });
  return IntSet(set_impl(impl_->ctx, s, impl_->in, isl_dim_names(s)));
}

IntSet IntMap::range() const {
  isl::set s = guarded("a range", [&] { return impl_->map.range(); });
  return IntSet(set_impl(impl_->ctx, s, impl_->out, isl_dim_names(s)));
}

IntMap IntMap::intersect_domain(const IntSet& s) const {
  return IntMap(
      map_impl(impl_->ctx,
               guarded("a restriction", [&] { return impl_->map.intersect_domain(s.impl_->set); }),
               impl_->in, impl_->out));
}

IntMap IntMap::intersect_range(const IntSet& s) const {
  return IntMap(
      map_impl(impl_->ctx,
               guarded("a restriction", [&] { return impl_->map.intersect_range(s.impl_->set); }),
               impl_->in, impl_->out));
}

IntMap IntMap::reverse() const {
  return IntMap(map_impl(impl_->ctx, guarded("a reversal", [&] { return impl_->map.reverse(); }),
                         impl_->out, impl_->in));
}

IntMap IntMap::apply_range(const IntMap& o) const {
  return IntMap(map_impl(
      impl_->ctx, guarded("a composition", [&] { return impl_->map.apply_range(o.impl_->map); }),
      impl_->in, o.impl_->out));
}

IntMap IntMap::unite(const IntMap& o) const {
  return IntMap(map_impl(
      impl_->ctx, guarded("a union", [&] { return impl_->map.unite(o.impl_->map).coalesce(); }),
      impl_->in, impl_->out));
}

std::vector<std::pair<Point, Point>> IntMap::pairs(int64_t limit) const {
  isl::set wrapped = guarded("a relation", [&] { return impl_->map.wrap(); });
  std::vector<Point> flat = enumerate(wrapped, limit);
  const size_t n_in = in_dims();
  std::vector<std::pair<Point, Point>> out;
  out.reserve(flat.size());
  for (const Point& p : flat)
    out.emplace_back(Point(p.begin(), p.begin() + static_cast<long>(n_in)),
                     Point(p.begin() + static_cast<long>(n_in), p.end()));
  return out;
}

std::optional<Affine> IntMap::affine() const {
  if (!single_valued()) return std::nullopt;
  isl::pw_multi_aff pma = isl::manage(isl_pw_multi_aff_from_map(impl_->map.copy()));
  if (pma.is_null()) return std::nullopt;
  std::vector<Affine> found;
  bool ok = true;
  guarded("an affine function", [&] {
    pma.foreach_piece([&](const isl::set&, const isl::multi_aff& ma) {
      if (!ok) return;
      Affine f;
      isl_size n_out = isl_multi_aff_dim(ma.get(), isl_dim_out);
      isl_size n_in = isl_multi_aff_dim(ma.get(), isl_dim_in);
      for (isl_size r = 0; r < n_out && ok; ++r) {
        isl::aff aff = ma.at(r);
        if (isl_aff_dim(aff.get(), isl_dim_div) != 0) {
          ok = false;
          break;
        }
        std::vector<int64_t> row;
        try {
          for (isl_size c = 0; c < n_in; ++c)
            row.push_back(
                val_int(isl::manage(isl_aff_get_coefficient_val(aff.get(), isl_dim_in, c))));
          f.constant.push_back(val_int(aff.constant_val()));
          f.coeff.push_back(row);
        } catch (const PolyError&) {
          ok = false;
        }
      }
      if (ok) found.push_back(f);
    });
  });
  if (!ok || found.empty()) return std::nullopt;
  for (const Affine& f : found)
    if (f.coeff != found[0].coeff || f.constant != found[0].constant) return std::nullopt;
  return found[0];
}

std::string IntMap::str() const {
  std::ostringstream out;
  out << impl_->map;
  return out.str();
}

IntSet parse_set(const std::string& text, const Params& params) {
  ContextRef ctx = shared_context();
  isl::set s = read_with_params<isl::set>(
      ctx, text, params, [&](const std::string& t) { return isl::set(ctx->get(), t); });
  return IntSet(set_impl(ctx, s, optional_name(isl_set_get_tuple_name(s.get())), isl_dim_names(s)));
}

IntMap parse_map(const std::string& text, const Params& params) {
  size_t brace = text.find('{');
  if (brace == std::string::npos || text.find("->", brace) == std::string::npos)
    throw PolyError("a relation needs '->' between its two tuples");
  ContextRef ctx = shared_context();
  isl::map m = read_with_params<isl::map>(
      ctx, text, params, [&](const std::string& t) { return isl::map(ctx->get(), t); });
  return IntMap(map_impl(ctx, m, optional_name(isl_map_get_tuple_name(m.get(), isl_dim_in)),
                         optional_name(isl_map_get_tuple_name(m.get(), isl_dim_out))));
}

std::vector<IntMap> dataflow(const IntMap& sink, const std::vector<IntMap>& writes,
                             const std::vector<IntMap>& schedules) {
  return guarded("dataflow", [&] {
    const ContextRef& ctx = sink.impl_->ctx;
    isl::union_map must = isl::union_map::empty(ctx->get());
    for (const IntMap& w : writes) must = must.unite(isl::union_map(w.impl_->map));
    isl::union_map schedule = isl::union_map::empty(ctx->get());
    for (const IntMap& s : schedules) schedule = schedule.unite(isl::union_map(s.impl_->map));
    isl::union_flow flow = isl::union_access_info(isl::union_map(sink.impl_->map))
                               .set_must_source(must)
                               .set_schedule_map(schedule)
                               .compute_flow();
    isl::union_map deps = flow.must_dependence();
    // must_dependence: writer instance -> reader instance, one map per writer tuple.
    std::vector<IntMap> out;
    std::vector<std::string> seen;
    for (const IntMap& w : writes) {
      if (std::find(seen.begin(), seen.end(), w.in_tuple()) != seen.end()) continue;
      seen.push_back(w.in_tuple());
      isl::space space = isl::manage(isl_space_map_from_domain_and_range(
          w.impl_->map.space().domain().release(), sink.impl_->map.space().domain().release()));
      isl::map m = deps.extract_map(space);
      if (m.is_empty()) continue;
      out.push_back(IntMap(map_impl(ctx, m.coalesce(), w.in_tuple(), sink.in_tuple())));
    }
    return out;
  });
}

}  // namespace t2s::poly
