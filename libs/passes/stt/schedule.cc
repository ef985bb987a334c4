// The schedule of a space-time transform: the kernel's loop nest, each directive's transform
// step (the new loops, their exact bounds, how to recover the original loop variables), the
// flattened time and the guard around the PE body.
#include <algorithm>
#include <cctype>
#include <utility>

#include "libs/ir/expr_printer.h"
#include "libs/passes/stt/stt_internal.h"

namespace t2s::stt_internal {

// Kernel body = realize statements around one perfect loop nest.
OriginalLoops peel_loops(const TransformContext& ctx, NameSupply& name_supply) {
  OriginalLoops o;
  LoopNest nest = loop_nest(ctx.kernel.body);
  o.realizes = std::move(nest.realizes);
  std::vector<const For*> loops = std::move(nest.loops);
  if (loops.empty())
    ctx.fail(
        "its kernel is not a single loop nest (t2s-stt transforms the loop nest of a merge "
        "group or of an isolated Func)",
        "stt-structure");
  o.body = *nest.body;
  if (o.body.empty()) ctx.fail("its loop nest has no statements (hand-edited IR)", "stt-structure");
  // Innermost first.
  std::reverse(loops.begin(), loops.end());
  // A reorder the merged stage left to this pass (it is legal only in the transformed order):
  // the bounds are constants (checked below), so the loops of the box may be permuted.
  const std::vector<const For*> input_loops = loops;
  if (!ctx.kernel.pending_order.empty()) {
    std::vector<const For*> reordered;
    for (const std::string& v : ctx.kernel.pending_order)
      for (const For* l : loops)
        if (l->var == v) reordered.push_back(l);
    if (reordered.size() != loops.size())
      throw InternalError("stt: the pending order of '" + ctx.kernel.name +
                          "' is not an order of its loops");
    loops = reordered;  // (the driver clears the kernel's pending order)
  }
  const size_t n = loops.size();
  for (size_t v = 0; v < n; ++v) {
    const For& l = *loops[v];
    if (l.min->kind != ExprKind::kIntImm || l.extent->kind != ExprKind::kIntImm)
      ctx.fail("loop '" + l.var + "' has bounds that are not constants (" + print_expr(l.min) +
                   ", " + print_expr(l.extent) + "); PEs need constant extents",
               "stt-bounds");
    if (l.extent->int_value < 1) ctx.fail("loop '" + l.var + "' is empty", "stt-bounds");
    o.names.push_back(l.var);
    o.isl.push_back("x" + std::to_string(v));
    o.mins.push_back(l.min->int_value);
    o.extents.push_back(l.extent->int_value);
    o.loops.push_back(Loop{l.var, Aff::var(n, v), l.min->int_value, l.extent->int_value, false});
    name_supply.take(l.var);
    if (l.loop_kind == LoopKind::kUnrolled) o.unrolled.insert(l.var);
    if (l.loop_kind == LoopKind::kVectorized) o.vectorized.insert(l.var);
  }
  for (const For* l : input_loops)
    o.input_order.push_back(
        static_cast<size_t>(std::find(o.names.begin(), o.names.end(), l->var) - o.names.begin()));
  return o;
}

// The iteration domain over the dims isl (x0, x1, ...: the original loops).
poly::Set OriginalLoops::domain() const {
  poly::Set s(isl);
  for (size_t v = 0; v < names.size(); ++v)
    s.where(poly::Cond::range(mins[v], poly::Aff::dim(isl[v]), mins[v] + extents[v]));
  return s;
}

// Pairs of iterations (x, y), x before y in the original loop order (outermost first); `ys`
// receives the dim names of y.
poly::Set OriginalLoops::ordered_pairs(std::vector<std::string>* ys,
                                       const std::vector<size_t>* order) const {
  poly::Set pairs = domain();
  for (size_t v = 0; v < isl.size(); ++v) {
    ys->push_back("y" + std::to_string(v));
    pairs.add_dim(ys->back());
    pairs.where(poly::Cond::range(mins[v], poly::Aff::dim(ys->back()), mins[v] + extents[v]));
  }
  std::optional<poly::Cond> before;
  for (size_t p = 0; p < isl.size(); ++p) {
    const size_t v = order ? (*order)[p] : p;
    const poly::Aff x = poly::Aff::dim(isl[v]), y = poly::Aff::dim((*ys)[v]);
    before = before ? x < y || (x == y && *before) : x < y;
  }
  pairs.where(before.value_or(poly::Cond::always(false)));
  return pairs;
}

// The original loops, outermost first: "k, j, i".
std::string OriginalLoops::loop_order() const {
  std::string s;
  for (size_t v = names.size(); v-- > 0;) s += names[v] + (v ? ", " : "");
  return s;
}

// `a` over the dims isl, for isl's questions.
poly::Aff OriginalLoops::poly_of(const Aff& a) const {
  return poly::Aff::linear(a.coeff, isl, a.constant);
}

// [min, max] of `a` over the iteration domain (isl).
std::pair<int64_t, int64_t> OriginalLoops::range_of(const Aff& a) const {
  auto r = poly::value_ranges(domain(), {poly_of(a)});
  if (!r || !(*r)[0]) throw InternalError("stt: empty or unbounded loop domain");
  return {(*r)[0]->min, (*r)[0]->max};
}

size_t position(const std::vector<Loop>& loops, const std::string& name) {
  for (size_t i = 0; i < loops.size(); ++i)
    if (loops[i].name == name) return i;
  return loops.size();
}

namespace {

// The nest while schedule_kernel applies the directives to it.
struct Nest {
  std::vector<Loop> loops;  // the current loops, innermost first
  // Vectorized loops no transform names: lanes of each PE, set aside until place_lanes.
  std::vector<Loop> lanes;
  std::vector<TransformStep> steps;
  std::vector<ScheduleVector> schedule_vectors;
  int time_vars = 0;
  bool check_time = false;
};

// The innermost `vars.size()` loops must be exactly `vars` (in any order).
void check_innermost(const TransformContext& ctx, const std::vector<Loop>& loops,
                     const std::vector<std::string>& vars, const std::string& what) {
  std::string order;
  for (const Loop& l : loops) order += (order.empty() ? "" : ", ") + l.name;
  for (const std::string& v : vars) {
    size_t p = position(loops, v);
    if (p == loops.size())
      ctx.fail(what + " '" + v +
                   "' is not a loop of the kernel (its loops, innermost first: " + order + ")",
               "stt-space-loops");
    if (p >= vars.size())
      ctx.fail((vars.size() == 1 ? what + " must be the innermost loop"
                                 : what + "s must be the " + std::to_string(vars.size()) +
                                       " innermost loops, adjacent") +
                   ", but '" + v + "' is loop " + std::to_string(p + 1) +
                   " from the inside (loops, innermost first: " + order +
                   "); reorder the loops first",
               "stt-space-loops");
  }
}

std::vector<std::string> names_of(const DirectiveArg& list) {
  std::vector<std::string> out;
  for (const DirectiveArg& a : list.items) out.push_back(a.text);
  return out;
}

// (check_form has found every integer argument an integer.)
int64_t int_of(const DirectiveArg& a) { return a.integer().value(); }

// The normal forms of docs/ir.md, checked before they are trusted (IR may be written by hand):
//   simple:  [{space vars}, {one integer per space var} or {}, check]
//   general: [{src vars}, {dst vars}, {{one integer per src var} per dst var},
//             {{var, expr}...}, check]
void check_form(const TransformContext& ctx, const Directive& d) {
  auto is_identifier = [](const std::string& t) {
    if (t.empty() || !(std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_')) return false;
    for (char c : t)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
  };
  auto bad = [&](const std::string& what) {
    ctx.fail("the directive is not in its normal form (docs/ir.md): " + what, "directive-args");
  };
  auto is_list = [](const DirectiveArg& a) { return a.kind == DirectiveArg::kList; };
  auto names = [&](const DirectiveArg& a, const char* what) {
    if (!is_list(a) || a.items.empty()) bad(std::string(what) + " must be a non-empty list");
    for (size_t i = 0; i < a.items.size(); ++i) {
      const DirectiveArg& v = a.items[i];
      if (v.kind != DirectiveArg::kExpr || !is_identifier(v.text))
        bad(std::string(what) + " must name loops");
      // (A loop named twice made more space loops than the kernel has: a write past its loops.)
      for (size_t j = 0; j < i; ++j)
        if (a.items[j].text == v.text)
          bad(std::string(what) + " must name distinct loops ('" + v.text + "' twice)");
    }
  };
  auto integers = [&](const DirectiveArg& a, size_t n, const char* what) {
    if (!is_list(a) || a.items.size() != n)
      bad(std::string(what) + " must be a list of " + std::to_string(n) + " integers");
    for (const DirectiveArg& c : a.items)
      if (!c.integer()) bad(std::string(what) + " must hold integer constants");
  };
  if (d.args.size() != 3 && d.args.size() != 5) bad("3 or 5 arguments");
  if (d.args.back().kind != DirectiveArg::kEnum ||
      (d.args.back().text != "SpaceTimeTransform::CheckTime" &&
       d.args.back().text != "SpaceTimeTransform::NoCheckTime"))
    bad("the last argument must be SpaceTimeTransform::CheckTime or ::NoCheckTime");
  names(d.args[0], d.args.size() == 3 ? "the space loops" : "the source loops");
  if (d.args.size() == 3) {
    if (!d.args[1].items.empty() || !is_list(d.args[1]))
      integers(d.args[1], d.args[0].items.size(), "the scheduling vector");
    return;
  }
  names(d.args[1], "the destination loops");
  const size_t src = d.args[0].items.size(), dst = d.args[1].items.size();
  if (dst > src) bad("more destination loops than source loops");
  if (!is_list(d.args[2]) || d.args[2].items.size() != dst)
    bad("the matrix must have one row per destination loop");
  for (const DirectiveArg& row : d.args[2].items) integers(row, src, "each row of the matrix");
  if (!is_list(d.args[3])) bad("the reverse mapping must be a list");
  for (const DirectiveArg& pair : d.args[3].items)
    if (!is_list(pair) || pair.items.size() != 2 || pair.items[0].kind != DirectiveArg::kExpr ||
        !is_identifier(pair.items[0].text) || pair.items[1].kind != DirectiveArg::kExpr)
      bad("the reverse mapping must be a list of {var, expression} pairs");
}

// space_time_transform({space...}, {vector} or {}, check)
void apply_simple(const TransformContext& ctx, const OriginalLoops& o,
                  const std::vector<std::string>& space, const DirectiveArg& vector, bool check,
                  Nest& nest, NameSupply& name_supply) {
  std::vector<Loop>& loops = nest.loops;
  check_innermost(ctx, loops, space, "space loop");
  const size_t m = space.size();
  for (size_t i = 0; i < m; ++i) loops[i].space = true;
  for (size_t i = m; i < loops.size(); ++i) loops[i].space = false;
  std::vector<int64_t> v;
  for (const DirectiveArg& c : vector.items) v.push_back(int_of(c));
  bool all_zero = std::all_of(v.begin(), v.end(), [](int64_t c) { return c == 0; });
  if (m == loops.size()) {
    if (!all_zero)
      ctx.fail(
          "every loop is a space loop, so no loop is left to become time for the scheduling "
          "vector",
          "stt-no-time-loop");
    return;
  }
  if (all_zero) return;  // The next loop out is the time loop, as it is (seed: (0, ..., 0, 1)).
  Loop& next = loops[m];
  const std::string t = fresh_name(name_supply, "t" + std::to_string(++nest.time_vars));
  Aff aff = next.aff;
  // forward: v[m-1] * s[m-1] + ... + v[0] * s[0] + next; recover: t - v[0] * s[0] - ...
  std::vector<Expr> forward;
  Expr recover = loop_var(t);
  for (size_t i = 0; i < m; ++i) {
    if (v[i] == 0) continue;
    const Loop& s = loops[position(loops, space[i])];
    aff.add(s.aff, v[i]);
    forward.insert(forward.begin(), linear_term(v[i], space[i]));
    recover = binop(v[i] > 0 ? BinaryOp::kSub : BinaryOp::kAdd, recover,
                    linear_term(v[i] > 0 ? v[i] : -v[i], space[i]));
  }
  forward.push_back(loop_var(next.name));
  TransformStep step;
  step.recover.emplace_back(next.name, recover);
  if (check) step.check.emplace_back(t, sum_of(forward));
  nest.steps.push_back(step);
  ScheduleVector sv{ctx.at, space, {}, v, next.name, aff, {}};
  for (size_t i = 0; i < m; ++i) sv.space_aff.push_back(loops[position(loops, space[i])].aff);
  for (size_t i = m + 1; i < loops.size(); ++i) sv.outer_aff.push_back(loops[i].aff);
  nest.schedule_vectors.push_back(sv);
  auto [lo, hi] = o.range_of(aff);
  next = Loop{t, aff, lo, hi - lo + 1, false};
}

__int128 determinant(const std::vector<std::vector<int64_t>>& m) {
  const size_t k = m.size();
  if (k == 1) return m[0][0];
  __int128 det = 0;
  for (size_t c = 0; c < k; ++c) {
    if (m[0][c] == 0) continue;
    std::vector<std::vector<int64_t>> minor;
    for (size_t r = 1; r < k; ++r) {
      minor.emplace_back();
      for (size_t j = 0; j < k; ++j)
        if (j != c) minor.back().push_back(m[r][j]);
    }
    det += (c % 2 ? -1 : 1) * static_cast<__int128>(m[0][c]) * determinant(minor);
  }
  return det;
}

// Square unimodular matrix: its integer inverse (the adjugate, since the determinant is +-1),
// as the recoveries of the source loops.
std::vector<std::pair<std::string, Expr>> invert(const TransformContext& ctx,
                                                 const std::vector<std::string>& src,
                                                 const std::vector<std::string>& dst,
                                                 const std::vector<std::vector<int64_t>>& m) {
  const size_t k = m.size();
  if (k > 8) ctx.fail("matrices larger than 8 x 8 are not supported", "stt-unimodular");
  const __int128 det = determinant(m);
  if (det == 0)
    ctx.fail(
        "the matrix is singular (determinant 0): it has no inverse, and no reverse mapping "
        "can recover the source loops",
        "stt-unimodular");
  if (det != 1 && det != -1)
    ctx.fail("the matrix is not unimodular (determinant " +
                 std::to_string(static_cast<int64_t>(det)) +
                 "), so its inverse is not integral; give a reverse mapping",
             "stt-unimodular");
  std::vector<std::pair<std::string, Expr>> recover;
  for (size_t c = 0; c < k; ++c) {
    if (std::find(dst.begin(), dst.end(), src[c]) != dst.end()) continue;
    // Row c of the inverse: cofactor(r, c) / det for every destination r.
    std::vector<int64_t> row;
    for (size_t r = 0; r < k; ++r) {
      std::vector<std::vector<int64_t>> minor;
      for (size_t i = 0; i < k; ++i) {
        if (i == r) continue;
        minor.emplace_back();
        for (size_t j = 0; j < k; ++j)
          if (j != c) minor.back().push_back(m[i][j]);
      }
      __int128 cofactor = ((r + c) % 2 ? -1 : 1) * (k == 1 ? 1 : determinant(minor));
      row.push_back(static_cast<int64_t>(cofactor * det));  // det is its own inverse
    }
    recover.emplace_back(src[c], linear(row, dst, 0));
  }
  return recover;
}

// space_time_transform({src...}, {dst...}, {{row}...}, {{var, expr}...}, check)
void apply_general(const TransformContext& ctx, const OriginalLoops& o, const Directive& d,
                   bool check, Nest& nest, NameSupply& name_supply) {
  const std::vector<Loop>& loops = nest.loops;
  const std::vector<std::string> src = names_of(d.args[0]);
  const std::vector<std::string> dst = names_of(d.args[1]);
  check_innermost(ctx, loops, src, "source loop");
  const size_t k = src.size();
  std::vector<std::vector<int64_t>> matrix;
  for (const DirectiveArg& row : d.args[2].items) {
    matrix.emplace_back();
    for (const DirectiveArg& c : row.items) matrix.back().push_back(int_of(c));
  }
  const size_t n = o.names.size();
  // The destination loops as functions of the original variables.
  std::vector<Aff> dst_aff;
  for (size_t r = 0; r < dst.size(); ++r) {
    Aff a = Aff::zero(n);
    for (size_t c = 0; c < k; ++c) a.add(loops[position(loops, src[c])].aff, matrix[r][c]);
    dst_aff.push_back(a);
  }
  // A destination loop may reuse a source loop's name only when it is that loop.
  for (size_t r = 0; r < dst.size(); ++r) {
    auto it = std::find(src.begin(), src.end(), dst[r]);
    if (it != src.end()) {
      size_t c = static_cast<size_t>(it - src.begin());
      for (size_t j = 0; j < k; ++j)
        if (matrix[r][j] != (j == c ? 1 : 0))
          ctx.fail("destination loop '" + dst[r] +
                       "' has the name of a source loop but another value; give it a new name",
                   "stt-dst-name");
    } else if (position(loops, dst[r]) != loops.size() ||
               std::find(o.names.begin(), o.names.end(), dst[r]) != o.names.end()) {
      ctx.fail("destination loop '" + dst[r] + "' is already a loop of the kernel", "stt-dst-name");
    } else {
      name_supply.take(dst[r]);
    }
  }
  // Loops outside the source loops stay sequential outer loops: two iterations that differ in
  // one of them are at different steps whatever the matrix does.
  // Nor do the lanes set aside (vectorized loops no transform names): they are lanes of a PE.
  std::vector<Aff> kept_aff = dst_aff;
  for (size_t i = k; i < loops.size(); ++i) kept_aff.push_back(loops[i].aff);
  for (const Loop& l : nest.lanes) kept_aff.push_back(l.aff);
  check_injective(ctx, o, dst, kept_aff);
  TransformStep step;
  if (!d.args[3].items.empty()) {
    step.recover = check_reverse_mapping(ctx, o, loops, src, dst, d.args[3], dst_aff);
  } else {
    if (dst.size() != k)
      ctx.fail("the matrix maps " + std::to_string(k) + " loops to " + std::to_string(dst.size()) +
                   " (a projection); give the reverse mapping that recovers the source loops",
               "stt-reverse");
    step.recover = invert(ctx, src, dst, matrix);
  }
  if (check)
    for (size_t r = 0; r < dst.size(); ++r) {
      std::vector<int64_t> row(matrix[r].begin(), matrix[r].end());
      step.check.emplace_back(dst[r], linear(row, src, 0));
    }
  nest.steps.push_back(step);
  // Replace the k source loops by the destination loops: all but the last are space loops.
  std::vector<Loop> next;
  for (size_t r = 0; r < dst.size(); ++r) {
    auto [lo, hi] = o.range_of(dst_aff[r]);
    next.push_back(Loop{dst[r], dst_aff[r], lo, hi - lo + 1, r + 1 < dst.size()});
  }
  for (size_t i = k; i < loops.size(); ++i) {
    next.push_back(loops[i]);
    next.back().space = false;
  }
  nest.loops = next;
}

// One directive applied to the nest (`ctx` at the directive).
Nest apply_directive(const TransformContext& ctx, const OriginalLoops& o, const Directive& d,
                     Nest nest, NameSupply& name_supply) {
  check_form(ctx, d);
  const bool check = d.args.back().text == "SpaceTimeTransform::CheckTime";
  nest.check_time = nest.check_time || check;
  if (d.args.size() == 3)
    apply_simple(ctx, o, names_of(d.args[0]), d.args[1], check, nest, name_supply);
  else if (d.args.size() == 5)
    apply_general(ctx, o, d, check, nest, name_supply);
  else
    throw InternalError("stt: malformed space_time_transform directive");
  return nest;
}

// A vectorized loop that no transform names is not part of the schedule (as in T2S): the
// transforms see the nest without it, and place_lanes puts it inside the PEs.
Nest set_aside_lanes(const TransformContext& ctx, const OriginalLoops& o) {
  Nest nest;
  nest.loops = o.loops;
  std::set<std::string> named;
  for (const Directive* d : ctx.directives)
    if (!d->args.empty())
      for (const DirectiveArg& a : d->args[0].items) named.insert(a.text);
  for (auto it = nest.loops.begin(); it != nest.loops.end();) {
    if (o.vectorized.count(it->name) && !named.count(it->name)) {
      nest.lanes.push_back(*it);
      it = nest.loops.erase(it);
    } else {
      ++it;
    }
  }
  if (nest.loops.empty())
    ctx.fail("every loop is vectorized; a transform needs a loop that is not", "stt-vectorize");
  return nest;
}

// The vectorized loops become the innermost loops of each PE (its lanes, in the order they had,
// innermost first): the set-aside ones innermost, then vectorized space loops. Dependences are
// then judged with the lanes of a PE running in order inside each time step, which is the order
// t2s-vec keeps (or serialises) when it turns the lanes into vector operations.
std::vector<Loop> place_lanes(const TransformContext& ctx, const OriginalLoops& o,
                              const Nest& nest) {
  std::vector<Loop> lanes = nest.lanes, others;
  for (const std::string& v : o.vectorized) {
    const size_t p = position(nest.loops, v);
    bool aside = false;
    for (const Loop& l : nest.lanes) aside |= l.name == v;
    if (aside) continue;
    if (p == nest.loops.size())
      ctx.fail("loop '" + v +
                   "' is vectorized, but the transform replaces it by its time and space loops; "
                   "vectorize a loop the transform keeps",
               "stt-vectorize");
    if (!nest.loops[p].space)
      ctx.fail("loop '" + v + "' is vectorized, but the transform makes it a time loop",
               "stt-vectorize");
  }
  for (const Loop& l : nest.loops) (o.vectorized.count(l.name) ? lanes : others).push_back(l);
  for (Loop& l : lanes) l.space = true;
  lanes.insert(lanes.end(), others.begin(), others.end());
  return lanes;
}

// The PE array and the flattened time over the final loops.
KernelSchedule finish_loops(const TransformContext& ctx, const OriginalLoops& o,
                            std::vector<Loop> loops) {
  KernelSchedule s;
  s.loops = std::move(loops);
  while (s.space < s.loops.size() && s.loops[s.space].space) ++s.space;
  for (size_t i = s.space; i < s.loops.size(); ++i) s.loops[i].space = false;
  // Flattened time T: the serial loops, innermost fastest; PE order: the space loops.
  const size_t n = o.names.size();
  s.time = Aff::zero(n);
  s.order = Aff::zero(n);
  int64_t stride = 1;
  for (size_t i = s.space; i < s.loops.size(); ++i) {
    Aff a = s.loops[i].aff;
    a.constant -= s.loops[i].min;
    s.time.add(a, stride);
    if (s.loops[i].extent > kMaxPositions / stride)
      ctx.fail("too many time steps", "loop-too-large");
    stride *= s.loops[i].extent;
  }
  s.steps_total = stride;
  int64_t pe_stride = 1;
  for (size_t i = 0; i < s.space; ++i) {
    Aff a = s.loops[i].aff;
    a.constant -= s.loops[i].min;
    s.order.add(a, pe_stride);
    s.shape.push_back(s.loops[i].extent);
    if (s.loops[i].extent > kMaxPositions / pe_stride) ctx.fail("too many PEs", "loop-too-large");
    pe_stride *= s.loops[i].extent;
  }
  if (pe_stride > kMaxPeArrayPes)
    ctx.fail("the space loops make " + std::to_string(pe_stride) + " PEs, more than the " +
                 std::to_string(kMaxPeArrayPes) + " (2^24) a PE array may have",
             "loop-too-large");
  s.pes = pe_stride;
  return s;
}

// A loop the merged kernel unrolls (unroll) must be a space loop of the transformed kernel,
// which unrolls it anyway: every other loop counts time steps, which run one after another.
void check_unrolled(const TransformContext& ctx, const OriginalLoops& o, const KernelSchedule& s) {
  for (const std::string& name : o.unrolled) {
    const size_t p = position(s.loops, name);
    if (p < s.space) continue;
    ctx.fail("loop '" + name + "' is unrolled (unroll), but " +
                 (p < s.loops.size() ? "the transform makes it a time loop"
                                     : "the transform replaces it by its time and space loops") +
                 "; only space loops, which the transform unrolls anyway, can be unrolled in a "
                 "transformed kernel",
             "stt-unroll");
  }
}

// Conditions over the final loops and the recovered variables.
poly::Set final_box(const std::vector<Loop>& loops) {
  poly::Set s;
  for (size_t i = 0; i < loops.size(); ++i) {
    s.add_dim("l" + std::to_string(i));
    s.where(poly::Cond::range(loops[i].min, poly::Aff::dim("l" + std::to_string(i)),
                              loops[i].min + loops[i].extent));
  }
  return s;
}

}  // namespace

KernelSchedule schedule_kernel(const TransformContext& ctx, const OriginalLoops& loops,
                               NameSupply& names) {
  Nest nest = set_aside_lanes(ctx, loops);
  for (const Directive* d : ctx.directives)
    nest = apply_directive(ctx.pointing_at(d->loc), loops, *d, std::move(nest), names);
  KernelSchedule s = finish_loops(ctx, loops, place_lanes(ctx, loops, nest));
  s.steps = std::move(nest.steps);
  s.schedule_vectors = std::move(nest.schedule_vectors);
  s.check_time = nest.check_time;
  check_unrolled(ctx, loops, s);
  return s;
}

Guard guard_pe_body(const TransformContext& ctx, const OriginalLoops& o, const KernelSchedule& s) {
  Guard g;
  const std::vector<Loop>& loops = s.loops;
  // Dims for the final loops and the recovered variables, in recovery order.
  poly::VarDims names;
  for (size_t i = 0; i < loops.size(); ++i) names[loops[i].name] = "l" + std::to_string(i);
  poly::Set box = final_box(loops);
  for (auto step = s.steps.rbegin(); step != s.steps.rend(); ++step)
    for (const auto& [var, e] : step->recover) {
      auto recovered = poly::Aff::from_expr(e, names);
      if (!recovered) throw InternalError("stt: recovery of '" + var + "' is not quasi-affine");
      const std::string r = "r" + std::to_string(box.dims().size());
      box.add_dim(r);
      box.where(poly::Aff::dim(r) == *recovered);
      names[var] = r;
      g.recover.emplace_back(var, e);
    }
  // The range of every original variable that is not a loop any more; dropped where isl
  // proves it holds on the whole time box.
  for (size_t v = 0; v < o.names.size(); ++v) {
    if (position(loops, o.names[v]) != loops.size()) continue;
    const std::string& x = names.at(o.names[v]);
    for (int side = 0; side < 2; ++side) {
      poly::Set outside = box;
      outside.where(side == 0 ? poly::Aff::dim(x) < o.mins[v]
                              : poly::Aff::dim(x) >= o.mins[v] + o.extents[v]);
      if (poly::is_empty(outside)) continue;
      g.range.push_back(side == 0 ? binop(BinaryOp::kLE, int_lit(o.mins[v]), loop_var(o.names[v]))
                                  : binop(BinaryOp::kLT, loop_var(o.names[v]),
                                          int_lit(o.mins[v] + o.extents[v])));
    }
  }
  // Where the box holds a step at which the recovered iteration is in the domain but not
  // scheduled there (a projection recovered with / or %), only the time check keeps the PE
  // from running that iteration twice.
  poly::Set twice = box;
  for (size_t v = 0; v < o.names.size(); ++v) {
    const std::string& x = names.at(o.names[v]);
    twice.where(poly::Cond::range(o.mins[v], poly::Aff::dim(x), o.mins[v] + o.extents[v]));
  }
  std::vector<std::string> xs;
  for (const std::string& v : o.names) xs.push_back(names.at(v));
  std::vector<poly::Cond> differs;
  // A loop that is an original loop variable itself (a simple form's loops) cannot differ
  // from its recovered value: it needs no disjunct, and with none isl need not be asked.
  for (size_t i = 0; i < loops.size(); ++i) {
    const std::string l = "l" + std::to_string(i);
    const Aff& a = loops[i].aff;
    size_t ones = 0, zeros = 0;
    bool itself = a.constant == 0;
    for (size_t v = 0; v < a.coeff.size(); ++v) {
      if (a.coeff[v] == 0) ++zeros;
      if (a.coeff[v] == 1) ++ones, itself = itself && xs[v] == l;
    }
    if (itself && ones == 1 && ones + zeros == a.coeff.size()) continue;
    differs.push_back(poly::Aff::dim(l) != poly::Aff::linear(a.coeff, xs, a.constant));
  }
  if (!differs.empty()) twice.where(poly::Cond::any_of(differs));
  if (!s.check_time && !differs.empty() && !poly::is_empty(twice))
    ctx.fail(
        "the reverse mapping gives some iterations at time steps that are not theirs, so "
        "PEs would run them twice; add SpaceTimeTransform::CheckTime",
        "stt-time-check");
  if (s.check_time)
    for (const TransformStep& step : s.steps)
      for (const auto& [var, forward] : step.check)
        g.checks.push_back(binop(BinaryOp::kEQ, loop_var(var), forward));
  return g;
}

}  // namespace t2s::stt_internal
