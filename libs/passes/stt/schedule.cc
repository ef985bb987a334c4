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
void KernelTransformer::peel() {
  LoopNest nest = loop_nest(kernel_.body);
  realizes_ = std::move(nest.realizes);
  std::vector<const For*> loops = std::move(nest.loops);
  if (loops.empty())
    fail(
        "its kernel is not a single loop nest (t2s-stt transforms the loop nest of a merge "
        "group or of an isolated Func)",
        "stt-structure");
  body_ = *nest.body;
  if (body_.empty()) fail("its loop nest has no statements (hand-edited IR)", "stt-structure");
  // Innermost first.
  std::reverse(loops.begin(), loops.end());
  // A reorder the merged stage left to this pass (it is legal only in the transformed order):
  // the bounds are constants (checked below), so the loops of the box may be permuted.
  const std::vector<const For*> input_loops = loops;
  if (!kernel_.pending_order.empty()) {
    std::vector<const For*> reordered;
    for (const std::string& v : kernel_.pending_order)
      for (const For* l : loops)
        if (l->var == v) reordered.push_back(l);
    if (reordered.size() != loops.size())
      throw InternalError("stt: the pending order of '" + kernel_.name +
                          "' is not an order of its loops");
    loops = reordered;
    kernel_.pending_order.clear();
  }
  const size_t n = loops.size();
  for (size_t v = 0; v < n; ++v) {
    const For& l = *loops[v];
    if (l.min->kind != ExprKind::kIntImm || l.extent->kind != ExprKind::kIntImm)
      fail("loop '" + l.var + "' has bounds that are not constants (" + print_expr(l.min) + ", " +
               print_expr(l.extent) + "); PEs need constant extents",
           "stt-bounds");
    if (l.extent->int_value < 1) fail("loop '" + l.var + "' is empty", "stt-bounds");
    names_.push_back(l.var);
    isl_.push_back("x" + std::to_string(v));
    mins_.push_back(l.min->int_value);
    extents_.push_back(l.extent->int_value);
    loops_.push_back(Loop{l.var, Aff::var(n, v), l.min->int_value, l.extent->int_value, false});
    name_supply_.take(l.var);
    if (l.loop_kind == LoopKind::kUnrolled) unrolled_.insert(l.var);
    if (l.loop_kind == LoopKind::kVectorized) vectorized_.insert(l.var);
  }
  for (const For* l : input_loops)
    input_order_.push_back(
        static_cast<size_t>(std::find(names_.begin(), names_.end(), l->var) - names_.begin()));
}

// The iteration domain over the dims isl_ (x0, x1, ...: the original loops).
poly::Set KernelTransformer::domain() const {
  poly::Set s(isl_);
  for (size_t v = 0; v < names_.size(); ++v)
    s.where(poly::Cond::range(mins_[v], poly::Aff::dim(isl_[v]), mins_[v] + extents_[v]));
  return s;
}

// Pairs of iterations (x, y), x before y in the original loop order (outermost first); `ys`
// receives the dim names of y.
poly::Set KernelTransformer::ordered_pairs(std::vector<std::string>* ys,
                                           const std::vector<size_t>* order) const {
  poly::Set pairs = domain();
  for (size_t v = 0; v < isl_.size(); ++v) {
    ys->push_back("y" + std::to_string(v));
    pairs.add_dim(ys->back());
    pairs.where(poly::Cond::range(mins_[v], poly::Aff::dim(ys->back()), mins_[v] + extents_[v]));
  }
  std::optional<poly::Cond> before;
  for (size_t p = 0; p < isl_.size(); ++p) {
    const size_t v = order ? (*order)[p] : p;
    const poly::Aff x = poly::Aff::dim(isl_[v]), y = poly::Aff::dim((*ys)[v]);
    before = before ? x < y || (x == y && *before) : x < y;
  }
  pairs.where(before.value_or(poly::Cond::always(false)));
  return pairs;
}

// The original loops, outermost first: "k, j, i".
std::string KernelTransformer::loop_order() const {
  std::string s;
  for (size_t v = names_.size(); v-- > 0;) s += names_[v] + (v ? ", " : "");
  return s;
}

// `a` over the dims isl_, for isl's questions.
poly::Aff KernelTransformer::poly_of(const Aff& a) const {
  return poly::Aff::linear(a.coeff, isl_, a.constant);
}

// [min, max] of `a` over the iteration domain (isl).
std::pair<int64_t, int64_t> KernelTransformer::range_of(const Aff& a) {
  auto r = poly::value_ranges(domain(), {poly_of(a)});
  if (!r || !(*r)[0]) throw InternalError("stt: empty or unbounded loop domain");
  return {(*r)[0]->min, (*r)[0]->max};
}

size_t KernelTransformer::position(const std::string& name) const {
  for (size_t i = 0; i < loops_.size(); ++i)
    if (loops_[i].name == name) return i;
  return loops_.size();
}

// The innermost `vars.size()` loops must be exactly `vars` (in any order).
void KernelTransformer::check_innermost(const std::vector<std::string>& vars,
                                        const std::string& what) {
  std::string order;
  for (const Loop& l : loops_) order += (order.empty() ? "" : ", ") + l.name;
  for (const std::string& v : vars) {
    size_t p = position(v);
    if (p == loops_.size())
      fail(what + " '" + v + "' is not a loop of the kernel (its loops, innermost first: " + order +
               ")",
           "stt-space-loops");
    if (p >= vars.size())
      fail((vars.size() == 1 ? what + " must be the innermost loop"
                             : what + "s must be the " + std::to_string(vars.size()) +
                                   " innermost loops, adjacent") +
               ", but '" + v + "' is loop " + std::to_string(p + 1) +
               " from the inside (loops, innermost first: " + order + "); reorder the loops first",
           "stt-space-loops");
  }
}

std::vector<std::string> KernelTransformer::names_of(const DirectiveArg& list) {
  std::vector<std::string> out;
  for (const DirectiveArg& a : list.items) out.push_back(a.text);
  return out;
}

// (check_form has found every integer argument an integer.)
int64_t KernelTransformer::int_of(const DirectiveArg& a) { return a.integer().value(); }

// The normal forms of docs/ir.md, checked before they are trusted (IR may be written by hand):
//   simple:  [{space vars}, {one integer per space var} or {}, check]
//   general: [{src vars}, {dst vars}, {{one integer per src var} per dst var},
//             {{var, expr}...}, check]
void KernelTransformer::check_form(const Directive& d) {
  auto is_identifier = [](const std::string& t) {
    if (t.empty() || !(std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_')) return false;
    for (char c : t)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
  };
  auto bad = [&](const std::string& what) {
    fail("the directive is not in its normal form (docs/ir.md): " + what, "directive-args");
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

void KernelTransformer::apply(const Directive& d) {
  check_form(d);
  const bool check = d.args.back().text == "SpaceTimeTransform::CheckTime";
  check_time_ = check_time_ || check;
  if (d.args.size() == 3)
    apply_simple(names_of(d.args[0]), d.args[1], check);
  else if (d.args.size() == 5)
    apply_general(d, check);
  else
    throw InternalError("stt: malformed space_time_transform directive");
}

// space_time_transform({space...}, {vector} or {}, check)
void KernelTransformer::apply_simple(const std::vector<std::string>& space,
                                     const DirectiveArg& vector, bool check) {
  check_innermost(space, "space loop");
  const size_t m = space.size();
  for (size_t i = 0; i < m; ++i) loops_[i].space = true;
  for (size_t i = m; i < loops_.size(); ++i) loops_[i].space = false;
  std::vector<int64_t> v;
  for (const DirectiveArg& c : vector.items) v.push_back(int_of(c));
  bool all_zero = std::all_of(v.begin(), v.end(), [](int64_t c) { return c == 0; });
  if (m == loops_.size()) {
    if (!all_zero)
      fail(
          "every loop is a space loop, so no loop is left to become time for the scheduling "
          "vector",
          "stt-no-time-loop");
    return;
  }
  if (all_zero) return;  // The next loop out is the time loop, as it is (seed: (0, ..., 0, 1)).
  Loop& next = loops_[m];
  const std::string t = fresh("t" + std::to_string(++time_vars_));
  Aff aff = next.aff;
  // forward: v[m-1] * s[m-1] + ... + v[0] * s[0] + next; recover: t - v[0] * s[0] - ...
  std::vector<Expr> forward;
  Expr recover = loop_var(t);
  for (size_t i = 0; i < m; ++i) {
    if (v[i] == 0) continue;
    const Loop& s = loops_[position(space[i])];
    aff.add(s.aff, v[i]);
    forward.insert(forward.begin(), linear_term(v[i], space[i]));
    recover = binop(v[i] > 0 ? BinaryOp::kSub : BinaryOp::kAdd, recover,
                    linear_term(v[i] > 0 ? v[i] : -v[i], space[i]));
  }
  forward.push_back(loop_var(next.name));
  TransformStep step;
  step.recover.emplace_back(next.name, recover);
  if (check) step.check.emplace_back(t, sum_of(forward));
  steps_.push_back(step);
  ScheduleVector sv{at_, space, {}, v, next.name, aff, {}};
  for (size_t i = 0; i < m; ++i) sv.space_aff.push_back(loops_[position(space[i])].aff);
  for (size_t i = m + 1; i < loops_.size(); ++i) sv.outer_aff.push_back(loops_[i].aff);
  schedule_vectors_.push_back(sv);
  auto [lo, hi] = range_of(aff);
  next = Loop{t, aff, lo, hi - lo + 1, false};
}

// space_time_transform({src...}, {dst...}, {{row}...}, {{var, expr}...}, check)
void KernelTransformer::apply_general(const Directive& d, bool check) {
  const std::vector<std::string> src = names_of(d.args[0]);
  const std::vector<std::string> dst = names_of(d.args[1]);
  check_innermost(src, "source loop");
  const size_t k = src.size();
  std::vector<std::vector<int64_t>> matrix;
  for (const DirectiveArg& row : d.args[2].items) {
    matrix.emplace_back();
    for (const DirectiveArg& c : row.items) matrix.back().push_back(int_of(c));
  }
  const size_t n = names_.size();
  // The destination loops as functions of the original variables.
  std::vector<Aff> dst_aff;
  for (size_t r = 0; r < dst.size(); ++r) {
    Aff a = Aff::zero(n);
    for (size_t c = 0; c < k; ++c) a.add(loops_[position(src[c])].aff, matrix[r][c]);
    dst_aff.push_back(a);
  }
  // A destination loop may reuse a source loop's name only when it is that loop.
  for (size_t r = 0; r < dst.size(); ++r) {
    auto it = std::find(src.begin(), src.end(), dst[r]);
    if (it != src.end()) {
      size_t c = static_cast<size_t>(it - src.begin());
      for (size_t j = 0; j < k; ++j)
        if (matrix[r][j] != (j == c ? 1 : 0))
          fail("destination loop '" + dst[r] +
                   "' has the name of a source loop but another value; give it a new name",
               "stt-dst-name");
    } else if (position(dst[r]) != loops_.size() ||
               std::find(names_.begin(), names_.end(), dst[r]) != names_.end()) {
      fail("destination loop '" + dst[r] + "' is already a loop of the kernel", "stt-dst-name");
    } else {
      name_supply_.take(dst[r]);
    }
  }
  // Loops outside the source loops stay sequential outer loops: two iterations that differ in
  // one of them are at different steps whatever the matrix does.
  // Nor do the lanes set aside (vectorized loops no transform names): they are lanes of a PE.
  std::vector<Aff> kept_aff = dst_aff;
  for (size_t i = k; i < loops_.size(); ++i) kept_aff.push_back(loops_[i].aff);
  for (const Loop& l : lanes_) kept_aff.push_back(l.aff);
  injective(dst, kept_aff);
  TransformStep step;
  if (!d.args[3].items.empty()) {
    reverse_mapping(src, dst, d.args[3], dst_aff, &step);
  } else {
    if (dst.size() != k)
      fail("the matrix maps " + std::to_string(k) + " loops to " + std::to_string(dst.size()) +
               " (a projection); give the reverse mapping that recovers the source loops",
           "stt-reverse");
    invert(src, dst, matrix, &step);
  }
  if (check)
    for (size_t r = 0; r < dst.size(); ++r) {
      std::vector<int64_t> row(matrix[r].begin(), matrix[r].end());
      step.check.emplace_back(dst[r], linear(row, src, 0));
    }
  steps_.push_back(step);
  // Replace the k source loops by the destination loops: all but the last are space loops.
  std::vector<Loop> next;
  for (size_t r = 0; r < dst.size(); ++r) {
    auto [lo, hi] = range_of(dst_aff[r]);
    next.push_back(Loop{dst[r], dst_aff[r], lo, hi - lo + 1, r + 1 < dst.size()});
  }
  for (size_t i = k; i < loops_.size(); ++i) {
    next.push_back(loops_[i]);
    next.back().space = false;
  }
  loops_ = next;
}

__int128 KernelTransformer::determinant(const std::vector<std::vector<int64_t>>& m) {
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

// Square unimodular matrix: its integer inverse (the adjugate, since the determinant is +-1).
void KernelTransformer::invert(const std::vector<std::string>& src,
                               const std::vector<std::string>& dst,
                               const std::vector<std::vector<int64_t>>& m, TransformStep* step) {
  const size_t k = m.size();
  if (k > 8) fail("matrices larger than 8 x 8 are not supported", "stt-unimodular");
  const __int128 det = determinant(m);
  if (det == 0)
    fail(
        "the matrix is singular (determinant 0): it has no inverse, and no reverse mapping "
        "can recover the source loops",
        "stt-unimodular");
  if (det != 1 && det != -1)
    fail("the matrix is not unimodular (determinant " + std::to_string(static_cast<int64_t>(det)) +
             "), so its inverse is not integral; give a reverse mapping",
         "stt-unimodular");
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
    step->recover.emplace_back(src[c], linear(row, dst, 0));
  }
}

// A vectorized loop that no transform names is not part of the schedule (as in T2S): the
// transforms see the nest without it, and place_lanes puts it inside the PEs.
void KernelTransformer::set_aside_lanes() {
  std::set<std::string> named;
  for (const Directive* d : directives_)
    if (!d->args.empty())
      for (const DirectiveArg& a : d->args[0].items) named.insert(a.text);
  for (auto it = loops_.begin(); it != loops_.end();) {
    if (vectorized_.count(it->name) && !named.count(it->name)) {
      lanes_.push_back(*it);
      it = loops_.erase(it);
    } else {
      ++it;
    }
  }
  if (loops_.empty())
    fail("every loop is vectorized; a transform needs a loop that is not", "stt-vectorize");
}

// The vectorized loops become the innermost loops of each PE (its lanes, in the order they had,
// innermost first): the set-aside ones innermost, then vectorized space loops. Dependences are
// then judged with the lanes of a PE running in order inside each time step, which is the order
// t2s-vec keeps (or serialises) when it turns the lanes into vector operations.
void KernelTransformer::place_lanes() {
  std::vector<Loop> lanes = lanes_, others;
  for (const std::string& v : vectorized_) {
    const size_t p = position(v);
    bool aside = false;
    for (const Loop& l : lanes_) aside |= l.name == v;
    if (aside) continue;
    if (p == loops_.size())
      fail("loop '" + v +
               "' is vectorized, but the transform replaces it by its time and space loops; "
               "vectorize a loop the transform keeps",
           "stt-vectorize");
    if (!loops_[p].space)
      fail("loop '" + v + "' is vectorized, but the transform makes it a time loop",
           "stt-vectorize");
  }
  for (const Loop& l : loops_) (vectorized_.count(l.name) ? lanes : others).push_back(l);
  for (Loop& l : lanes) l.space = true;
  lanes.insert(lanes.end(), others.begin(), others.end());
  loops_ = lanes;
}

void KernelTransformer::finish_loops() {
  space_ = 0;
  while (space_ < loops_.size() && loops_[space_].space) ++space_;
  for (size_t i = space_; i < loops_.size(); ++i) loops_[i].space = false;
  // Flattened time T: the serial loops, innermost fastest; PE order: the space loops.
  const size_t n = names_.size();
  time_ = Aff::zero(n);
  order_ = Aff::zero(n);
  int64_t stride = 1;
  for (size_t i = space_; i < loops_.size(); ++i) {
    Aff a = loops_[i].aff;
    a.constant -= loops_[i].min;
    time_.add(a, stride);
    if (loops_[i].extent > kMaxPositions / stride) fail("too many time steps", "loop-too-large");
    stride *= loops_[i].extent;
  }
  steps_total_ = stride;
  int64_t pe_stride = 1;
  for (size_t i = 0; i < space_; ++i) {
    Aff a = loops_[i].aff;
    a.constant -= loops_[i].min;
    order_.add(a, pe_stride);
    shape_.push_back(loops_[i].extent);
    if (loops_[i].extent > kMaxPositions / pe_stride) fail("too many PEs", "loop-too-large");
    pe_stride *= loops_[i].extent;
  }
  if (pe_stride > kMaxPeArrayPes)
    fail("the space loops make " + std::to_string(pe_stride) + " PEs, more than the " +
             std::to_string(kMaxPeArrayPes) + " (2^24) a PE array may have",
         "loop-too-large");
  pes_ = pe_stride;
}

// A loop the merged kernel unrolls (unroll) must be a space loop of the transformed kernel,
// which unrolls it anyway: every other loop counts time steps, which run one after another.
void KernelTransformer::check_unrolled() {
  for (const std::string& name : unrolled_) {
    const size_t p = position(name);
    if (p < space_) continue;
    fail("loop '" + name + "' is unrolled (unroll), but " +
             (p < loops_.size() ? "the transform makes it a time loop"
                                : "the transform replaces it by its time and space loops") +
             "; only space loops, which the transform unrolls anyway, can be unrolled in a "
             "transformed kernel",
         "stt-unroll");
  }
}

// Conditions over the final loops and the recovered variables.
poly::Set KernelTransformer::final_box() const {
  poly::Set s;
  for (size_t i = 0; i < loops_.size(); ++i) {
    s.add_dim("l" + std::to_string(i));
    s.where(poly::Cond::range(loops_[i].min, poly::Aff::dim("l" + std::to_string(i)),
                              loops_[i].min + loops_[i].extent));
  }
  return s;
}

void KernelTransformer::guard() {
  // Dims for the final loops and the recovered variables, in recovery order.
  poly::VarDims names;
  for (size_t i = 0; i < loops_.size(); ++i) names[loops_[i].name] = "l" + std::to_string(i);
  poly::Set box = final_box();
  for (auto step = steps_.rbegin(); step != steps_.rend(); ++step)
    for (const auto& [var, e] : step->recover) {
      auto recovered = poly::Aff::from_expr(e, names);
      if (!recovered) throw InternalError("stt: recovery of '" + var + "' is not quasi-affine");
      const std::string r = "r" + std::to_string(box.dims().size());
      box.add_dim(r);
      box.where(poly::Aff::dim(r) == *recovered);
      names[var] = r;
      recover_.emplace_back(var, e);
    }
  // The range of every original variable that is not a loop any more; dropped where isl
  // proves it holds on the whole time box.
  for (size_t v = 0; v < names_.size(); ++v) {
    if (position(names_[v]) != loops_.size()) continue;
    const std::string& x = names.at(names_[v]);
    for (int side = 0; side < 2; ++side) {
      poly::Set outside = box;
      outside.where(side == 0 ? poly::Aff::dim(x) < mins_[v]
                              : poly::Aff::dim(x) >= mins_[v] + extents_[v]);
      if (poly::is_empty(outside)) continue;
      range_.push_back(
          side == 0 ? binop(BinaryOp::kLE, int_lit(mins_[v]), loop_var(names_[v]))
                    : binop(BinaryOp::kLT, loop_var(names_[v]), int_lit(mins_[v] + extents_[v])));
    }
  }
  // Where the box holds a step at which the recovered iteration is in the domain but not
  // scheduled there (a projection recovered with / or %), only the time check keeps the PE
  // from running that iteration twice.
  poly::Set twice = box;
  for (size_t v = 0; v < names_.size(); ++v) {
    const std::string& x = names.at(names_[v]);
    twice.where(poly::Cond::range(mins_[v], poly::Aff::dim(x), mins_[v] + extents_[v]));
  }
  std::vector<std::string> xs;
  for (const std::string& v : names_) xs.push_back(names.at(v));
  std::vector<poly::Cond> differs;
  // A loop that is an original loop variable itself (a simple form's loops) cannot differ
  // from its recovered value: it needs no disjunct, and with none isl need not be asked.
  for (size_t i = 0; i < loops_.size(); ++i) {
    const std::string l = "l" + std::to_string(i);
    const Aff& a = loops_[i].aff;
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
  if (!check_time_ && !differs.empty() && !poly::is_empty(twice))
    fail(
        "the reverse mapping gives some iterations at time steps that are not theirs, so "
        "PEs would run them twice; add SpaceTimeTransform::CheckTime",
        "stt-time-check");
  if (check_time_)
    for (const TransformStep& step : steps_)
      for (const auto& [var, forward] : step.check)
        checks_.push_back(binop(BinaryOp::kEQ, loop_var(var), forward));
}

}  // namespace t2s::stt_internal
