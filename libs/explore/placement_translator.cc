#include "libs/explore/placement_translator.h"

#include <stdexcept>

namespace t2s::explore::placement_internal {

void Translator::setup() {
  image_sets.assign(ns, {});
  for (size_t s = 0; s < ns; ++s) image_sets[s].insert(images[s].begin(), images[s].end());
  // Translations move every vector of a dependency together: its self-dependencies' vectors
  // and the differences between one dependency's vectors stay, so the cone spans them.
  std::vector<Point> all;
  selfv.clear();
  self_cost = 0;
  for (size_t k = 0; k < deps.size(); ++k) {
    for (const auto& [v, c] : vectors[k]) {
      Point w = v;
      for (size_t i = 0; i < dims; ++i) w[i] -= vectors[k][0].first[i];
      all.push_back(w);
      if (self(k)) {
        all.push_back(v);
        selfv.push_back(v);
        for (size_t i = 0; i < dims; ++i) self_cost += c * std::llabs(v[i]);
      }
    }
  }
  fixed.clear();
  std::vector<Point> echelon;
  for (const Point& w : all)
    if (!is_zero(w) && echelon.size() < dims && !extend_span(&echelon, w))
      fixed.push_back(primitive(w));
  // The branch and bound places statement 0, then always the statement most tied (by
  // instances) to those placed.
  std::vector<int64_t> weight(deps.size(), 0);
  for (size_t k = 0; k < deps.size(); ++k)
    for (const auto& vc : vectors[k]) weight[k] += vc.second;
  order.assign(1, 0);
  std::vector<bool> placed(ns, false);
  placed[0] = true;
  completes.assign(1, {});
  while (order.size() < ns) {
    size_t pick = ns;
    int64_t most = -1;
    for (size_t s = 0; s < ns; ++s) {
      if (placed[s]) continue;
      int64_t w = 0;
      for (size_t k = 0; k < deps.size(); ++k)
        if (!self(k) && ((deps[k].src == s && placed[deps[k].dst]) ||
                         (deps[k].dst == s && placed[deps[k].src])))
          w += weight[k];
      if (w > most) most = w, pick = s;
    }
    std::vector<size_t> done;
    for (size_t k = 0; k < deps.size(); ++k)
      if (!self(k) && ((deps[k].src == pick && placed[deps[k].dst]) ||
                       (deps[k].dst == pick && placed[deps[k].src])))
        done.push_back(k);
    placed[pick] = true;
    order.push_back(pick);
    completes.push_back(done);
  }
  // The construction follows the dependencies (sources first, textual order among equals).
  std::vector<size_t> indegree(ns, 0);
  for (size_t k = 0; k < deps.size(); ++k)
    if (!self(k)) ++indegree[deps[k].dst];
  std::vector<bool> done(ns, false);
  topo.clear();
  while (topo.size() < ns) {
    size_t pick = ns;
    for (size_t s = 0; s < ns && pick == ns; ++s)
      if (!done[s] && indegree[s] == 0) pick = s;
    for (size_t s = 0; s < ns && pick == ns; ++s)
      if (!done[s]) pick = s;  // a cycle: textual order
    done[pick] = true;
    topo.push_back(pick);
    for (size_t k = 0; k < deps.size(); ++k)
      if (!self(k) && deps[k].src == pick && indegree[deps[k].dst] > 0) --indegree[deps[k].dst];
  }
}

bool Translator::within(const std::vector<Point>& t) const {
  for (size_t s = 0; s < ns; ++s)
    for (size_t d = 0; d < dims; ++d)
      if (t[s][d] < lo(s, d) || t[s][d] > hi(s, d)) return false;
  return true;
}

bool Translator::apart(size_t a, const Point& ta, size_t b, const Point& tb) const {
  if (!boxes[a] || !boxes[b]) return true;
  for (size_t d = 0; d < dims; ++d)
    if ((*boxes[a])[d].second + ta[d] < (*boxes[b])[d].first + tb[d] ||
        (*boxes[b])[d].second + tb[d] < (*boxes[a])[d].first + ta[d])
      return true;
  if (images[a].size() > images[b].size()) return apart(b, tb, a, ta);
  Point y(dims);
  for (const Point& x : images[a]) {
    for (size_t d = 0; d < dims; ++d) y[d] = x[d] + ta[d] - tb[d];
    if (image_sets[b].count(y)) return false;
  }
  return true;
}

int64_t Translator::dep_cost(size_t k, const Point& delta) const {
  int64_t c = 0;
  for (const auto& [v, n] : vectors[k])
    for (size_t d = 0; d < dims; ++d) c += n * std::llabs(v[d] + delta[d]);
  return c;
}

Point Translator::delta(size_t k, const std::vector<Point>& t) const {
  Point x(dims);
  for (size_t d = 0; d < dims; ++d) x[d] = t[deps[k].dst][d] - t[deps[k].src][d];
  return x;
}

int64_t Translator::locality(const std::vector<Point>& t) const {
  int64_t c = self_cost;
  for (size_t k = 0; k < deps.size(); ++k)
    if (!self(k)) c += dep_cost(k, delta(k, t));
  return c;
}

bool Translator::add(ConeState* st, const std::vector<Point>& w, size_t cone_dim) const {
  for (const Point& x : w)
    if (st->span.size() < dims && !extend_span(&st->span, x) && st->span.size() > cone_dim)
      return false;
  bool fits = !st->pi.empty();
  for (const Point& x : w) fits = fits && dot(st->pi, x) > 0;
  st->vectors.insert(st->vectors.end(), w.begin(), w.end());
  if (fits || st->vectors.empty()) return true;
  std::sort(st->vectors.begin(), st->vectors.end());
  st->vectors.erase(std::unique(st->vectors.begin(), st->vectors.end()), st->vectors.end());
  // Cheap ordering vectors first (the vectors' sum, the axes), then the exact cone.
  auto positive = [&](const Point& pi) {
    for (const Point& x : st->vectors)
      if (dot(pi, x) <= 0) return false;
    return true;
  };
  std::vector<Point> tries(1, Point(dims, 0));
  for (const Point& x : st->vectors)
    for (size_t d = 0; d < dims; ++d) tries[0][d] += x[d];
  for (size_t d = 0; d < dims; ++d)
    for (int64_t sign : {1, -1}) {
      Point e(dims, 0);
      e[d] = sign;
      tries.push_back(e);
    }
  for (const Point& pi : tries)
    if (positive(pi)) {
      st->pi = pi;
      return true;
    }
  std::optional<Point> pi = strictly_positive_vector(conic_hull(st->vectors, dims));
  if (!pi) return false;
  st->pi = *pi;
  return true;
}

bool Translator::dep_vectors(size_t k, const Point& dx, std::vector<Point>* out) const {
  for (const auto& [v, c] : vectors[k]) {
    Point x = v;
    for (size_t d = 0; d < dims; ++d) x[d] += dx[d];
    if (is_zero(x)) {
      // Two statements on one point run in the statements' order.
      if (overlap && deps[k].src < deps[k].dst) continue;
      return false;
    }
    out->push_back(std::move(x));
  }
  return true;
}

std::optional<ConeState> Translator::root(size_t cone_dim) const {
  ConeState st;
  for (const Point& f : fixed) extend_span(&st.span, f);
  if (st.span.size() > cone_dim) return std::nullopt;
  for (const Point& v : selfv)
    if (is_zero(v)) return std::nullopt;
  if (!add(&st, selfv, cone_dim)) return std::nullopt;
  return st;
}

bool Translator::legal(const std::vector<Point>& t, size_t cone_dim) const {
  auto st = root(cone_dim);
  if (!st) return false;
  for (size_t k = 0; k < deps.size(); ++k) {
    if (self(k)) continue;
    std::vector<Point> w;
    if (!dep_vectors(k, delta(k, t), &w) || !add(&*st, w, cone_dim)) return false;
  }
  return true;
}

bool Translator::valid(const std::vector<Point>& t, size_t cone_dim) const {
  if (!within(t)) return false;
  if (!overlap)
    for (size_t a = 0; a < ns; ++a)
      for (size_t b = a + 1; b < ns; ++b)
        if (!apart(a, t[a], b, t[b])) return false;
  return legal(t, cone_dim);
}

std::optional<int64_t> Translator::alone(size_t k, size_t cone_dim) const {
  const size_t a = deps[k].src, b = deps[k].dst;
  std::vector<int64_t> key = {static_cast<int64_t>(k), static_cast<int64_t>(chosen[a]),
                              static_cast<int64_t>(chosen[b]), static_cast<int64_t>(cone_dim)};
  for (size_t d = 0; d < dims; ++d) {
    key.push_back(lo(b, d) - hi(a, d));
    key.push_back(hi(b, d) - lo(a, d));
    key.push_back(offset[b][d] - offset[a][d]);
  }
  auto known = alone_cache->find(key);
  if (known != alone_cache->end()) return known->second;
  std::optional<int64_t> found = alone_search(k, cone_dim);
  alone_cache->emplace(std::move(key), found);
  return found;
}

std::optional<int64_t> Translator::alone_search(size_t k, size_t cone_dim) const {
  const size_t a = deps[k].src, b = deps[k].dst;
  ConeState base;
  std::vector<Point> own;
  for (size_t j = 0; j < deps.size(); ++j)
    if (self(j) && (deps[j].src == a || deps[j].src == b))
      for (const auto& vc : vectors[j]) own.push_back(vc.first);
  for (const Point& v : own) extend_span(&base.span, v);
  for (const auto& vc : vectors[k]) {
    Point w = vc.first;
    for (size_t d = 0; d < dims; ++d) w[d] -= vectors[k][0].first[d];
    if (!is_zero(w) && base.span.size() < dims) extend_span(&base.span, w);
  }
  if (base.span.size() > cone_dim || !add(&base, own, cone_dim)) return std::nullopt;
  std::vector<Line> lines;
  for (size_t d = 0; d < dims; ++d) {
    std::map<int64_t, int64_t> pts;
    for (const auto& [v, c] : vectors[k]) pts[-v[d]] += c;
    lines.emplace_back(pts, lo(b, d) - hi(a, d), hi(b, d) - lo(a, d), offset[b][d] - offset[a][d]);
  }
  Grid g(std::move(lines));
  int64_t cost = 0, pops = 0;
  Point dx;
  const Point zero(dims, 0);
  while (g.next(&cost, &dx)) {
    // Past this many, the cost reached bounds the rest from below.
    if (++pops > 5000) return cost;
    if (!overlap && !apart(a, zero, b, dx)) continue;
    std::vector<Point> w;
    if (!dep_vectors(k, dx, &w)) continue;
    ConeState st = base;
    if (add(&st, w, cone_dim)) return cost;
  }
  return std::nullopt;
}

std::optional<int64_t> Translator::lower_bound(size_t cone_dim,
                                               std::vector<int64_t>* per_dep) const {
  if (!root(cone_dim)) return std::nullopt;
  per_dep->assign(deps.size(), 0);
  int64_t total = self_cost;
  for (size_t k = 0; k < deps.size(); ++k) {
    if (self(k)) continue;
    auto c = alone(k, cone_dim);
    if (!c) return std::nullopt;
    (*per_dep)[k] = *c;
    total += *c;
  }
  return total;
}

std::optional<std::vector<Point>> Translator::build(const Point& u, size_t cone_dim) const {
  auto st0 = root(cone_dim);
  if (!st0) return std::nullopt;
  ConeState st = *st0;
  std::vector<Point> t(ns, Point(dims, 0));
  std::vector<bool> placed(ns, false);
  int64_t extents = 0;
  for (size_t s = 0; s < ns; ++s)
    if (boxes[s])
      for (size_t d = 0; d < dims; ++d) extents += (*boxes[s])[d].second - (*boxes[s])[d].first + 1;
  const int64_t uu = dot(u, u);
  for (size_t s : topo) {
    Point m(dims);
    for (size_t d = 0; d < dims; ++d) {
      std::map<int64_t, int64_t> pts;
      for (size_t k = 0; k < deps.size(); ++k) {
        if (self(k)) continue;
        for (const auto& [v, c] : vectors[k]) {
          if (deps[k].dst == s && placed[deps[k].src]) pts[t[deps[k].src][d] - v[d]] += c;
          if (deps[k].src == s && placed[deps[k].dst]) pts[t[deps[k].dst][d] + v[d]] += c;
        }
      }
      m[d] = Line(pts, INT64_MIN / 8, INT64_MAX / 8, offset[s][d]).at(0).second;
    }
    // How far along u the box of s clears every placed box (a separating hyperplane).
    int64_t lambda_clear = 0;
    if (boxes[s]) {
      int64_t low = 0;
      for (size_t d = 0; d < dims; ++d)
        low += u[d] * (u[d] > 0 ? (*boxes[s])[d].first : (*boxes[s])[d].second) + u[d] * m[d];
      for (size_t a = 0; a < ns; ++a) {
        if (!placed[a] || !boxes[a]) continue;
        int64_t high = 0;
        for (size_t d = 0; d < dims; ++d)
          high += u[d] * (u[d] > 0 ? (*boxes[a])[d].second : (*boxes[a])[d].first) + u[d] * t[a][d];
        if (high >= low) lambda_clear = std::max(lambda_clear, (high - low) / uu + 1);
      }
    }
    bool ok = false;
    for (int64_t lambda = 0; lambda <= lambda_clear + extents + 2 && !ok; ++lambda) {
      for (size_t d = 0; d < dims; ++d) t[s][d] = m[d] + lambda * u[d];
      bool clear = true;
      for (size_t a = 0; a < ns && clear; ++a)
        if (placed[a] && !overlap) clear = apart(a, t[a], s, t[s]);
      if (!clear) continue;
      ConeState next = st;
      bool legal_so_far = true;
      for (size_t k = 0; k < deps.size() && legal_so_far; ++k) {
        if (self(k)) continue;
        const size_t other = deps[k].src == s ? deps[k].dst : deps[k].src;
        if ((deps[k].src != s && deps[k].dst != s) || !placed[other]) continue;
        std::vector<Point> w;
        Point dx(dims);
        for (size_t d = 0; d < dims; ++d) dx[d] = t[deps[k].dst][d] - t[deps[k].src][d];
        legal_so_far = dep_vectors(k, dx, &w) && add(&next, w, cone_dim);
      }
      if (!legal_so_far) continue;
      st = std::move(next);
      ok = true;
    }
    if (!ok) return std::nullopt;
    placed[s] = true;
  }
  // Statement 0 stays put.
  const Point t0 = t[0];
  for (Point& x : t)
    for (size_t d = 0; d < dims; ++d) x[d] -= t0[d];
  if (!valid(t, cone_dim)) return std::nullopt;
  return t;
}

int64_t Translator::compact(std::vector<Point>* t, size_t cone_dim) const {
  int64_t cost = locality(*t);
  for (bool improved = true; improved;) {
    improved = false;
    for (size_t s = 0; s < ns; ++s)
      for (size_t d = 0; d < dims; ++d)
        for (int64_t step : {-1, 1}) {
          std::vector<Point> next = *t;
          if (s == 0) {
            for (size_t a = 1; a < ns; ++a) next[a][d] -= step;
          } else {
            next[s][d] += step;
          }
          const int64_t c = locality(next);
          if (c >= cost || !valid(next, cone_dim)) continue;
          *t = std::move(next);
          cost = c;
          improved = true;
        }
  }
  return cost;
}

std::optional<std::pair<int64_t, std::vector<Point>>> Translator::construct(size_t cone_dim) const {
  std::vector<Point> dirs;
  for (size_t d = 0; d < dims; ++d) {
    Point e(dims, 0);
    e[d] = 1;
    dirs.push_back(e);
  }
  for (size_t i = 0; i < fixed.size(); ++i) {
    dirs.push_back(fixed[i]);
    for (size_t j = i + 1; j < fixed.size(); ++j) {
      Point p = fixed[i], q = fixed[i];
      for (size_t d = 0; d < dims; ++d) p[d] += fixed[j][d], q[d] -= fixed[j][d];
      dirs.push_back(primitive(p));
      dirs.push_back(primitive(q));
    }
  }
  const size_t n = dirs.size();
  for (size_t i = 0; i < n; ++i) {
    Point m = dirs[i];
    for (int64_t& x : m) x = -x;
    dirs.push_back(m);
  }
  std::sort(dirs.begin(), dirs.end());
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  std::optional<std::pair<int64_t, std::vector<Point>>> best;
  for (const Point& u : dirs) {
    if (is_zero(u)) continue;
    auto t = build(u, cone_dim);
    if (!t) continue;
    const int64_t c = compact(&*t, cone_dim);
    if (!best || c < best->first) best = std::make_pair(c, std::move(*t));
  }
  return best;
}

Translator::Candidates Translator::candidates(size_t level, const std::vector<Point>& t,
                                              const ConeState& st, size_t cone_dim) const {
  const size_t s = order[level];
  std::vector<Line> lines;
  for (size_t d = 0; d < dims; ++d) {
    std::map<int64_t, int64_t> pts;
    for (size_t k : completes[level])
      for (const auto& [v, c] : vectors[k]) {
        if (deps[k].dst == s) pts[t[deps[k].src][d] - v[d]] += c;
        if (deps[k].src == s) pts[t[deps[k].dst][d] + v[d]] += c;
      }
    lines.emplace_back(pts, lo(s, d), hi(s, d), offset[s][d]);
  }
  Candidates out;
  if (completes[level].empty() || st.span.size() < cone_dim || cone_dim >= dims) {
    out.grid.emplace(std::move(lines));
    return out;
  }
  // Every vector stays in the span: one of the first dependency's fixes the coset.
  const size_t k = completes[level][0];
  const Point& v0 = vectors[k][0].first;
  out.c0.resize(dims);
  for (size_t d = 0; d < dims; ++d)
    out.c0[d] = deps[k].dst == s ? t[deps[k].src][d] - v0[d] : t[deps[k].dst][d] + v0[d];
  if (cone_dim == 1) {
    const Point u = primitive(st.span[0]);
    int64_t from = INT64_MIN / 8, to = INT64_MAX / 8;
    for (size_t d = 0; d < dims; ++d) {
      const int64_t l = lo(s, d) - out.c0[d], h = hi(s, d) - out.c0[d];
      if (u[d] == 0) {
        if (l > 0 || h < 0) from = 1, to = 0;
        continue;
      }
      // l <= lambda u <= h.
      auto floor_div = [](int64_t a, int64_t b) {
        return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
      };
      auto ceil_div = [&](int64_t a, int64_t b) { return -floor_div(-a, b); };
      int64_t a = u[d] > 0 ? ceil_div(l, u[d]) : ceil_div(h, u[d]);
      int64_t b = u[d] > 0 ? floor_div(h, u[d]) : floor_div(l, u[d]);
      from = std::max(from, a);
      to = std::min(to, b);
    }
    out.u = u;
    out.from = from;
    out.to = to;
    out.lines = std::move(lines);
    return out;
  }
  auto known = normals_of.find(st.span);
  if (known == normals_of.end()) {
    std::vector<Point> both;
    for (const Point& b : st.span) {
      both.push_back(b);
      Point m = b;
      for (int64_t& x : m) x = -x;
      both.push_back(m);
    }
    known = normals_of.emplace(st.span, halfspace_cone(both, dims).lineality).first;
  }
  out.normals = known->second;
  out.grid.emplace(std::move(lines));
  return out;
}

void Translator::descend(size_t level, int64_t partial, std::vector<Point>* t, const ConeState& st,
                         size_t cone_dim, const std::vector<int64_t>& tail, int64_t* bound,
                         std::optional<std::pair<int64_t, std::vector<Point>>>* best) {
  if (level == ns) {
    *best = std::make_pair(partial, *t);
    *bound = partial - 1;
    return;
  }
  const size_t s = order[level];
  Candidates cand = candidates(level, *t, st, cone_dim);
  int64_t cost = 0;
  Point x;
  bool exhausted = false;
  while (cand.next(&cost, &x, &checks, max_checks, &exhausted)) {
    if (partial + cost + tail[level + 1] > *bound) break;
    if (checks >= max_checks) {
      cut = true;
      return;
    }
    ++checks;
    (*t)[s] = x;
    bool ok = true;
    for (size_t l = 0; l < level && ok && !overlap; ++l) ok = apart(order[l], (*t)[order[l]], s, x);
    if (!ok) continue;
    ConeState next = st;
    for (size_t k : completes[level]) {
      std::vector<Point> w;
      ok = ok && dep_vectors(k, delta(k, *t), &w) && add(&next, w, cone_dim);
    }
    if (!ok) continue;
    descend(level + 1, partial + cost, t, next, cone_dim, tail, bound, best);
    if (cut) return;
  }
  if (exhausted) cut = true;
}

void Translator::load(const std::vector<std::vector<Point>>& points,
                      const std::vector<const Matrix*>& maps) {
  images.assign(ns, {});
  for (size_t st = 0; st < ns; ++st)
    for (const Point& x : points[st]) images[st].push_back(times(*maps[st], x));
  vectors.assign(deps.size(), {});
  for (size_t k = 0; k < deps.size(); ++k) {
    std::map<Point, int64_t> counts;
    for (const auto& [x, y] : deps[k].pairs) {
      Point v = times(*maps[deps[k].dst], y);
      Point u = times(*maps[deps[k].src], x);
      for (size_t i = 0; i < dims; ++i) v[i] -= u[i];
      ++counts[v];
    }
    vectors[k].assign(counts.begin(), counts.end());
  }
}

void Translator::frame(std::vector<std::optional<std::vector<std::pair<int64_t, int64_t>>>> b,
                       int64_t limit) {
  boxes = std::move(b);
  int64_t r = 0;
  offset.assign(ns, Point(dims, 0));
  for (size_t i = 0; i < dims; ++i) {
    int64_t sum = 0, low0 = 0;
    for (size_t st = 0; st < ns; ++st) {
      if (!boxes[st]) continue;
      const int64_t l = (*boxes[st])[i].first, h = (*boxes[st])[i].second;
      // Apart, a polytope may need to pass all the others; sharing points, only one.
      sum = overlap ? std::max(sum, h - l + 1) : sum + h - l + 1;
      if (st == 0) low0 = l;
      offset[st][i] = low0 - l;
    }
    r = std::max(r, sum);
  }
  radius = limit >= 0 ? std::min(limit, r) : r;
  setup();
}

Translator::Outcome Translator::translate(size_t cone_dim, int64_t best, int64_t per_placement,
                                          int64_t checks_left, bool build) {
  Outcome out;
  std::vector<int64_t> alone_costs;
  auto lower = lower_bound(cone_dim, &alone_costs);
  if (!lower) return out;  // no translation at all: exact
  if (best >= 0 && *lower > best) {
    out.pruned = true;
    return out;
  }
  if (build) out.t = construct(cone_dim);
  int64_t limit = best >= 0 ? best : kNone;
  if (out.t && out.t->first > limit) out.t.reset();
  if (out.t) {
    out.built = true;
    limit = out.t->first - 1;
  }
  checks = 0;
  if (checks_left <= 0) {
    out.skipped = true;
    return out;
  }
  max_checks = std::min(per_placement, checks_left);
  auto e = exact(cone_dim, limit, alone_costs);
  if (e) {
    out.t = std::move(e);
    out.built = false;
  }
  out.cut = cut;
  return out;
}

std::optional<std::pair<int64_t, std::vector<Point>>> Translator::exact(
    size_t cone_dim, int64_t bound, const std::vector<int64_t>& alone) {
  cut = false;
  auto st = root(cone_dim);
  if (!st) return std::nullopt;
  std::vector<int64_t> tail(ns + 1, 0);
  for (size_t l = ns; l-- > 0;) {
    tail[l] = tail[l + 1];
    for (size_t k : completes[l]) tail[l] += alone[k];
  }
  std::vector<Point> t(ns, Point(dims, 0));
  std::optional<std::pair<int64_t, std::vector<Point>>> best;
  descend(1, self_cost, &t, *st, cone_dim, tail, &bound, &best);
  return best;
}

}  // namespace t2s::explore::placement_internal
