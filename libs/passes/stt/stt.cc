#include "libs/passes/stt/stt.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "libs/ir/expr_parser.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/linear.h"
#include "libs/ir/visitor.h"
#include "libs/poly/poly.h"

namespace t2s {

namespace {

constexpr int64_t kMaxWindowOffsets = 100000;
// Bound on (time steps) x (PEs) x (statement positions): execution-order positions must fit in
// 64 bits with room to spare.
constexpr int64_t kMaxPositions = int64_t{1} << 52;

// An affine function of the original loop variables: sum(coeff[v] * x_v) + constant.
struct Aff {
  std::vector<int64_t> coeff;
  int64_t constant = 0;

  static Aff var(size_t n, size_t v) {
    Aff a{std::vector<int64_t>(n, 0), 0};
    a.coeff[v] = 1;
    return a;
  }
  static Aff zero(size_t n) { return Aff{std::vector<int64_t>(n, 0), 0}; }
  void add(const Aff& o, int64_t scale) {
    for (size_t i = 0; i < coeff.size(); ++i) coeff[i] += scale * o.coeff[i];
    constant += scale * o.constant;
  }
  int64_t dot(const std::vector<int64_t>& d) const {
    int64_t s = 0;
    for (size_t i = 0; i < coeff.size(); ++i) s += coeff[i] * d[i];
    return s;
  }
};

// The t2s text of sum(c_i * names_i) + constant.
std::string linear_text(const std::vector<int64_t>& coeff, const std::vector<std::string>& names,
                        int64_t constant) {
  std::string s;
  for (size_t i = 0; i < coeff.size(); ++i) {
    if (coeff[i] == 0) continue;
    int64_t c = coeff[i];
    if (!s.empty()) {
      s += c < 0 ? " - " : " + ";
      c = c < 0 ? -c : c;
    } else if (c < 0) {
      s += "-";
      c = -c;
    }
    s += c == 1 ? names[i] : std::to_string(c) + " * " + names[i];
  }
  if (s.empty()) return std::to_string(constant);
  if (constant > 0) s += " + " + std::to_string(constant);
  if (constant < 0) s += " - " + std::to_string(-constant);
  return s;
}

// A loop of the transformed nest, as an affine function of the original loop variables.
struct Loop {
  std::string name;
  Aff aff;
  int64_t min = 0, extent = 0;
  bool space = false;
};

// What one transform adds: how to recover its source loops from its destination loops, and
// (CheckTime) the checks that the destination loops hold the schedule's values.
struct TransformStep {
  std::vector<std::pair<std::string, std::string>> recover;  // var, expression text
  std::vector<std::pair<std::string, std::string>> check;    // dst var, forward text over src
};

// One storage object: a Func read at one distance.
struct Storage {
  std::string func;
  std::vector<int64_t> distance;  // over the original loop variables
  size_t first_reader = 0;        // the first statement that reads it
  size_t last_reader = 0;         // the last statement that reads it
  int64_t time_distance = 0;
  int64_t delta = 0;  // execution-order distance from the write to the first (fifo) or last
                      // (shift) read
  bool none = false;  // never read inside the domain: no storage, reads give 0
  Register reg;
  std::string value_name;  // fifo: the let holding the popped value
  int64_t phase = 0;       // shift with period > 1: the written steps' T % period
};

std::string distance_text(const std::vector<int64_t>& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + ")";
}

class KernelTransformer {
 public:
  KernelTransformer(Program& out, Kernel& kernel, const std::vector<const Directive*>& directives,
                    std::set<std::string>& used_names)
      : out_(out), kernel_(kernel), directives_(directives), used_(used_names) {}

  void run() {
    at_ = directives_.back()->loc;
    peel();
    for (const Directive* d : directives_) {
      at_ = d->loc;
      apply(*d);
    }
    at_ = directives_.back()->loc;
    finish_loops();
    guard();
    collect_ures();
    check_channel_order();
    allocate();
    rebuild();
  }

 private:
  [[noreturn]] void fail(const std::string& message, const std::string& rule) {
    throw Diagnostic(at_, "space_time_transform of '" + kernel_.name + "': " + message, rule);
  }

  Expr typed(const std::string& text) {
    return resolve_in_program(parse_expr_text(text, {}), out_);
  }

  std::string fresh(const std::string& base) {
    std::string name = base;
    while (used_.count(name)) name += "_";
    used_.insert(name);
    return name;
  }

  // ---- the loop nest -------------------------------------------------------------------------

  // Kernel body = realize statements around one perfect loop nest.
  void peel() {
    const StmtList* body = &kernel_.body;
    while (body->size() == 1 && (*body)[0]->as<Realize>()) {
      realizes_.push_back((*body)[0]);
      body = &(*body)[0]->as<Realize>()->body;
    }
    std::vector<const For*> loops;
    while (body->size() == 1 && (*body)[0]->as<For>()) {
      loops.push_back((*body)[0]->as<For>());
      body = &loops.back()->body;
    }
    if (loops.empty())
      fail(
          "its kernel is not a single loop nest (t2s-stt transforms the loop nest of a merge "
          "group or of an isolated Func)",
          "stt-structure");
    body_ = *body;
    // Innermost first.
    std::reverse(loops.begin(), loops.end());
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
      used_.insert(l.var);
    }
  }

  // The iteration domain over the dims isl_ (x0, x1, ...: the original loops).
  poly::Set domain() const {
    poly::Set s(isl_);
    for (size_t v = 0; v < names_.size(); ++v)
      s.where(poly::Cond::range(mins_[v], poly::Aff::dim(isl_[v]), mins_[v] + extents_[v]));
    return s;
  }

  // Pairs of iterations (x, y), x before y in the original loop order (outermost first); `ys`
  // receives the dim names of y.
  poly::Set ordered_pairs(std::vector<std::string>* ys) const {
    poly::Set pairs = domain();
    for (size_t v = 0; v < isl_.size(); ++v) {
      ys->push_back("y" + std::to_string(v));
      pairs.add_dim(ys->back());
      pairs.where(poly::Cond::range(mins_[v], poly::Aff::dim(ys->back()), mins_[v] + extents_[v]));
    }
    std::optional<poly::Cond> before;
    for (size_t v = 0; v < isl_.size(); ++v) {
      const poly::Aff x = poly::Aff::dim(isl_[v]), y = poly::Aff::dim((*ys)[v]);
      before = before ? x < y || (x == y && *before) : x < y;
    }
    pairs.where(before.value_or(poly::Cond::always(false)));
    return pairs;
  }

  // The original loops, outermost first: "k, j, i".
  std::string loop_order() const {
    std::string s;
    for (size_t v = names_.size(); v-- > 0;) s += names_[v] + (v ? ", " : "");
    return s;
  }

  // `a` over the dims isl_, for isl's questions.
  // `a` over the dims isl_, for isl's questions.
  poly::Aff poly_of(const Aff& a) const { return poly::Aff::linear(a.coeff, isl_, a.constant); }
  std::string text_of(const Aff& a) const { return linear_text(a.coeff, names_, a.constant); }

  // [min, max] of `a` over the iteration domain (isl).
  std::pair<int64_t, int64_t> range_of(const Aff& a) {
    auto r = poly::value_ranges(domain(), {poly_of(a)});
    if (!r || !(*r)[0]) throw InternalError("stt: empty or unbounded loop domain");
    return {(*r)[0]->min, (*r)[0]->max};
  }

  size_t position(const std::string& name) const {
    for (size_t i = 0; i < loops_.size(); ++i)
      if (loops_[i].name == name) return i;
    return loops_.size();
  }

  // The innermost `vars.size()` loops must be exactly `vars` (in any order).
  void check_innermost(const std::vector<std::string>& vars, const std::string& what) {
    std::string order;
    for (const Loop& l : loops_) order += (order.empty() ? "" : ", ") + l.name;
    for (const std::string& v : vars) {
      size_t p = position(v);
      if (p == loops_.size())
        fail(what + " '" + v +
                 "' is not a loop of the kernel (its loops, innermost first: " + order + ")",
             "stt-space-loops");
      if (p >= vars.size())
        fail((vars.size() == 1 ? what + " must be the innermost loop"
                               : what + "s must be the " + std::to_string(vars.size()) +
                                     " innermost loops, adjacent") +
                 ", but '" + v + "' is loop " + std::to_string(p + 1) +
                 " from the inside (loops, innermost first: " + order +
                 "); reorder the loops first",
             "stt-space-loops");
    }
  }

  static std::vector<std::string> names_of(const DirectiveArg& list) {
    std::vector<std::string> out;
    for (const DirectiveArg& a : list.items) out.push_back(a.text);
    return out;
  }

  static int64_t int_of(const DirectiveArg& a) { return std::stoll(a.text); }

  void apply(const Directive& d) {
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
  void apply_simple(const std::vector<std::string>& space, const DirectiveArg& vector, bool check) {
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
    std::string forward = next.name;
    std::string recover = t;
    for (size_t i = 0; i < m; ++i) {
      if (v[i] == 0) continue;
      const Loop& s = loops_[position(space[i])];
      aff.add(s.aff, v[i]);
      forward = linear_text({v[i]}, {space[i]}, 0) + " + " + forward;
      recover += (v[i] > 0 ? " - " : " + ") + linear_text({v[i] > 0 ? v[i] : -v[i]}, {space[i]}, 0);
    }
    TransformStep step;
    step.recover.emplace_back(next.name, recover);
    if (check) step.check.emplace_back(t, forward);
    steps_.push_back(step);
    auto [lo, hi] = range_of(aff);
    next = Loop{t, aff, lo, hi - lo + 1, false};
  }

  // space_time_transform({src...}, {dst...}, {{row}...}, {{var, expr}...}, check)
  void apply_general(const Directive& d, bool check) {
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
        used_.insert(dst[r]);
      }
    }
    injective(dst, dst_aff);
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
        step.check.emplace_back(dst[r], linear_text(row, src, 0));
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

  // Two iterations on the same PE at the same step: refused with an example (isl).
  void injective(const std::vector<std::string>& dst, const std::vector<Aff>& dst_aff) {
    std::vector<std::string> other;
    poly::Set pairs = ordered_pairs(&other);
    for (const Aff& a : dst_aff)
      pairs.where(poly_of(a) == poly::Aff::linear(a.coeff, other, a.constant));
    auto witness = poly::sample(pairs);
    if (!witness) return;
    auto point = [&](size_t offset) {
      std::string s = "(";
      for (size_t v = names_.size(); v-- > 0;)
        s += names_[v] + " = " + std::to_string((*witness)[offset + v]) + (v ? ", " : ")");
      return s;
    };
    std::string where;
    for (size_t r = 0; r < dst.size(); ++r)
      where += (r ? ", " : "") + dst[r] + " = " + std::to_string(evaluate(dst_aff[r], *witness));
    fail("the mapping puts iterations " + point(0) + " and " + point(names_.size()) +
             " on the same PE at the same time step (" + where + ")",
         "stt-injective");
  }

  static int64_t evaluate(const Aff& a, const std::vector<int64_t>& x) {
    int64_t s = a.constant;
    for (size_t i = 0; i < a.coeff.size(); ++i) s += a.coeff[i] * x[i];
    return s;
  }

  // The user's reverse mapping must recover every source loop from the destination loops on
  // the whole domain (isl proves it).
  void reverse_mapping(const std::vector<std::string>& src, const std::vector<std::string>& dst,
                       const DirectiveArg& reverse, const std::vector<Aff>& dst_aff,
                       TransformStep* step) {
    std::set<std::string> recovered;
    poly::VarDims names;
    for (size_t r = 0; r < dst.size(); ++r) names[dst[r]] = "d" + std::to_string(r);
    poly::Set wrong = domain();
    for (size_t r = 0; r < dst.size(); ++r) {
      wrong.add_dim("d" + std::to_string(r));
      wrong.where(poly::Aff::dim("d" + std::to_string(r)) == poly_of(dst_aff[r]));
    }
    std::vector<poly::Cond> mismatch;
    for (const DirectiveArg& pair : reverse.items) {
      const std::string var = pair.items[0].text;
      if (std::find(src.begin(), src.end(), var) == src.end())
        fail("the reverse mapping recovers '" + var + "', which is not a source loop",
             "stt-reverse");
      if (!recovered.insert(var).second)
        fail("the reverse mapping recovers '" + var + "' twice", "stt-reverse");
      Expr e;
      try {
        e = typed(pair.items[1].text);
      } catch (const Diagnostic& diag) {
        fail("the reverse expression for '" + var + "': " + diag.message(), "stt-reverse");
      }
      auto inverse = poly::Aff::from_expr(e, names);
      if (!inverse)
        fail("the reverse expression for '" + var + "' (" + pair.items[1].text +
                 ") must be quasi-affine in the destination loops and the source loops "
                 "recovered before it",
             "stt-reverse");
      const std::string r = "r" + std::to_string(recovered.size() - 1);
      names[var] = r;
      wrong.add_dim(r);
      wrong.where(poly::Aff::dim(r) == *inverse);
      mismatch.push_back(poly::Aff::dim(r) != poly_of(loops_[position(var)].aff));
      // A destination loop with a source loop's name holds that value already.
      if (std::find(dst.begin(), dst.end(), var) == dst.end())
        step->recover.emplace_back(var, print_expr(e));
    }
    for (const std::string& v : src)
      if (!recovered.count(v) && std::find(dst.begin(), dst.end(), v) == dst.end())
        fail("the reverse mapping does not recover source loop '" + v + "'", "stt-reverse");
    if (mismatch.empty()) return;
    wrong.where(poly::Cond::any_of(mismatch));
    if (auto w = poly::sample(wrong)) {
      std::string at = "(";
      for (size_t v = names_.size(); v-- > 0;)
        at += names_[v] + " = " + std::to_string((*w)[v]) + (v ? ", " : ")");
      fail("the reverse mapping does not invert the matrix on the iteration domain: at " + at +
               " it does not give the iteration back",
           "stt-reverse");
    }
  }

  static __int128 determinant(const std::vector<std::vector<int64_t>>& m) {
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
  void invert(const std::vector<std::string>& src, const std::vector<std::string>& dst,
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
      fail("the matrix is not unimodular (determinant " +
               std::to_string(static_cast<int64_t>(det)) +
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
      step->recover.emplace_back(src[c], linear_text(row, dst, 0));
    }
  }

  // ---- after the transforms ------------------------------------------------------------------

  void finish_loops() {
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
      time_text_ +=
          std::string(time_text_.empty() ? "" : " + ") +
          (stride == 1 ? "" : std::to_string(stride) + " * ") +
          (loops_[i].min == 0 ? loops_[i].name
                              : "(" + loops_[i].name + " - " + std::to_string(loops_[i].min) + ")");
      if (loops_[i].extent > kMaxPositions / stride) fail("too many time steps", "loop-too-large");
      stride *= loops_[i].extent;
    }
    steps_total_ = stride;
    if (time_text_.empty()) time_text_ = "0";
    int64_t pe_stride = 1;
    for (size_t i = 0; i < space_; ++i) {
      Aff a = loops_[i].aff;
      a.constant -= loops_[i].min;
      order_.add(a, pe_stride);
      shape_.push_back(loops_[i].extent);
      if (loops_[i].extent > kMaxPositions / pe_stride) fail("too many PEs", "loop-too-large");
      pe_stride *= loops_[i].extent;
    }
    pes_ = pe_stride;
  }

  // Conditions over the final loops and the recovered variables.
  poly::Set final_box() const {
    poly::Set s;
    for (size_t i = 0; i < loops_.size(); ++i) {
      s.add_dim("l" + std::to_string(i));
      s.where(poly::Cond::range(loops_[i].min, poly::Aff::dim("l" + std::to_string(i)),
                                loops_[i].min + loops_[i].extent));
    }
    return s;
  }

  void guard() {
    // Dims for the final loops and the recovered variables, in recovery order.
    poly::VarDims names;
    for (size_t i = 0; i < loops_.size(); ++i) names[loops_[i].name] = "l" + std::to_string(i);
    poly::Set box = final_box();
    for (auto step = steps_.rbegin(); step != steps_.rend(); ++step)
      for (const auto& [var, text] : step->recover) {
        Expr e = typed(text);
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
      const std::string lo = std::to_string(mins_[v]);
      const std::string hi = std::to_string(mins_[v] + extents_[v]);
      for (int side = 0; side < 2; ++side) {
        poly::Set outside = box;
        outside.where(side == 0 ? poly::Aff::dim(x) < mins_[v]
                                : poly::Aff::dim(x) >= mins_[v] + extents_[v]);
        if (poly::is_empty(outside)) continue;
        range_.push_back(side == 0 ? lo + " <= " + names_[v] : names_[v] + " < " + hi);
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
    for (size_t i = 0; i < loops_.size(); ++i)
      differs.push_back(poly::Aff::dim("l" + std::to_string(i)) !=
                        poly::Aff::linear(loops_[i].aff.coeff, xs, loops_[i].aff.constant));
    twice.where(poly::Cond::any_of(differs));
    if (!check_time_ && !poly::is_empty(twice))
      fail(
          "the reverse mapping gives some iterations at time steps that are not theirs, so "
          "PEs would run them twice; add SpaceTimeTransform::CheckTime",
          "stt-time-check");
    if (check_time_)
      for (const TransformStep& step : steps_)
        for (const auto& [var, forward] : step.check) checks_.push_back(var + " == " + forward);
  }

  // ---- UREs and their reads ------------------------------------------------------------------

  struct Ure {
    std::string func;
    size_t stmt = 0;
    Type type;
    std::vector<size_t> arg_var;  // Func argument -> original loop variable
    bool allocatable = false;
    std::string value_name;
    SourceLoc loc;
  };

  struct Read {
    std::string func;
    size_t stmt = 0;
    std::vector<int64_t> distance;  // over the original loop variables
  };

  // The distance of a read of `u` with arguments `args`, or nullopt when an argument is not
  // `v + c` for the Func's own variable.
  std::optional<std::vector<int64_t>> distance_of(const Ure& u,
                                                  const std::vector<Expr>& args) const {
    if (args.size() != u.arg_var.size()) return std::nullopt;
    std::vector<int64_t> d(names_.size(), 0);
    for (size_t p = 0; p < args.size(); ++p) {
      std::string var;
      int64_t offset = 0;
      if (!simple_arg(args[p], &var, &offset) || var != names_[u.arg_var[p]]) return std::nullopt;
      d[u.arg_var[p]] = -offset;
    }
    return d;
  }

  void collect_ures() {
    std::set<std::string> realized;
    for (const StmtPtr& r : realizes_) realized.insert(r->as<Realize>()->func);
    for (size_t i = 0; i < body_.size(); ++i) {
      const Provide* s = body_[i]->as<Provide>();
      if (!s || !out_.find_func(s->func)) continue;
      Ure u;
      u.func = s->func;
      u.stmt = i;
      u.type = s->value->type;
      u.loc = body_[i]->loc;
      bool simple = s->args.size() == names_.size();
      std::set<size_t> seen;
      for (const Expr& a : s->args) {
        auto it = a->kind == ExprKind::kVar ? std::find(names_.begin(), names_.end(), a->name)
                                            : names_.end();
        if (it == names_.end()) {
          simple = false;
          break;
        }
        u.arg_var.push_back(static_cast<size_t>(it - names_.begin()));
        seen.insert(u.arg_var.back());
      }
      simple = simple && seen.size() == names_.size();
      if (!simple) continue;
      u.allocatable =
          realized.count(u.func) && u.func != out_.output.func && !out_.find_buffer(u.func);
      if (ures_.count(u.func)) {  // provided twice: keep its storage
        ures_[u.func].allocatable = false;
        continue;
      }
      ures_[u.func] = u;
    }
    // Every read of a URE of the nest.
    for (size_t i = 0; i < body_.size(); ++i) {
      std::vector<Expr> exprs;
      std::function<void(const Stmt&)> gather = [&](const Stmt& s) {
        for (const Expr* e : s.exprs()) exprs.push_back(*e);
        for (const StmtList* list : s.children())
          for (const StmtPtr& b : *list) gather(*b);
      };
      gather(*body_[i]);
      for (const Expr& root : exprs)
        for_each_expr(root, [&](const Expr& e) {
          if (e->kind != ExprKind::kCall || e->call_kind != CallKind::kFunc) return;
          auto it = ures_.find(e->name);
          if (it == ures_.end()) return;
          auto d = distance_of(it->second, e->operands);
          if (!d) {
            it->second.allocatable = false;
            return;
          }
          reads_.push_back(Read{e->name, i, *d});
        });
    }
    // Every dependence must go forward in the new execution order.
    stmts_ = static_cast<int64_t>(body_.size());
    if (steps_total_ > kMaxPositions / pes_ / (2 * stmts_))
      fail("too many time steps x PEs to order", "loop-too-large");
    quantum_ = pes_ * stmts_ * 2;
    for (const Read& r : reads_) {
      const Ure& u = ures_.at(r.func);
      const int64_t dt = time_.dot(r.distance);
      const int64_t delta = quantum_ * dt + 2 * stmts_ * order_.dot(r.distance) +
                            2 * (static_cast<int64_t>(r.stmt) - static_cast<int64_t>(u.stmt)) - 1;
      if (delta > 0) continue;
      std::string reader;
      for (size_t p = 0; p < u.arg_var.size(); ++p) {
        const std::string& v = names_[u.arg_var[p]];
        const int64_t c = -r.distance[u.arg_var[p]];
        reader += (p ? ", " : "") + v + (c > 0 ? " + " + std::to_string(c) : "") +
                  (c < 0 ? " - " + std::to_string(-c) : "");
      }
      fail("the schedule computes " + r.func + "(" + reader +
               ") after the iteration that reads it (" +
               (dt < -1    ? std::to_string(-dt) + " time steps later"
                : dt == -1 ? "1 time step later"
                : dt == 0  ? "at the same time step, on a PE that runs later"
                           : "later") +
               "), breaking the dependence at distance " +
               distance_text(std::vector<int64_t>(r.distance.rbegin(), r.distance.rend())) +
               " in loop order (" + loop_order() + ")",
           "stt-dependence");
    }
  }

  // A kernel that reads or writes a channel must keep the order of its iterations, since the
  // kernel at the other end runs in the original order.
  void check_channel_order() {
    std::string channel;
    for (const StmtPtr& s : body_) {
      std::function<void(const Stmt&)> find = [&](const Stmt& st) {
        if (const WriteChannel* w = st.as<WriteChannel>(); w && channel.empty())
          channel = w->channel;
        for (const Expr* e : st.exprs())
          for_each_expr(*e, [&](const Expr& x) {
            if (x->kind == ExprKind::kCall && x->call_kind == CallKind::kChannel && channel.empty())
              channel = x->operands[0]->name;
          });
        for (const StmtList* list : st.children())
          for (const StmtPtr& b : *list) find(*b);
      };
      find(*s);
    }
    if (channel.empty()) return;
    std::vector<std::string> ys;
    poly::Set swapped = ordered_pairs(&ys);
    Aff g = time_;
    for (int64_t& c : g.coeff) c *= pes_;
    g.add(order_, 1);
    swapped.where(poly::Aff::linear(g.coeff, ys) <= poly::Aff::linear(g.coeff, isl_));
    if (!poly::is_empty(swapped))
      fail("the schedule changes the order of the iterations, but the kernel uses channel '" +
               channel +
               "', whose other end runs in the original order; transforming both ends of a "
               "channel is not supported yet",
           "stt-channel-order");
  }

  // ---- storage -------------------------------------------------------------------------------

  // Execution-order distance from the write of x - d (statement `writer`) to its read at x
  // (statement `reader`): time steps, then PEs, then statements, a read before a write.
  int64_t delta(const std::vector<int64_t>& d, size_t reader, size_t writer) const {
    return quantum_ * time_.dot(d) + 2 * stmts_ * order_.dot(d) +
           2 * (static_cast<int64_t>(reader) - static_cast<int64_t>(writer)) - 1;
  }

  void allocate() {
    std::vector<poly::Aff> keys;
    for (size_t i = 0; i < space_; ++i) keys.push_back(poly_of(loops_[i].aff));
    const poly::Aff time = poly_of(time_);
    for (const Read& r : reads_) {
      Ure& u = ures_.at(r.func);
      if (!u.allocatable) continue;
      if (u.value_name.empty()) u.value_name = fresh(u.func + "_val");
      if (std::all_of(r.distance.begin(), r.distance.end(), [](int64_t c) { return c == 0; }))
        continue;
      auto key = std::make_pair(r.func, r.distance);
      if (storage_index_.count(key)) {
        Storage& s = storage_[storage_index_[key]];
        s.first_reader = std::min(s.first_reader, r.stmt);
        s.last_reader = std::max(s.last_reader, r.stmt);
        continue;
      }
      Storage s;
      s.func = r.func;
      s.distance = r.distance;
      s.first_reader = r.stmt;
      s.last_reader = r.stmt;
      storage_index_[key] = storage_.size();
      storage_.push_back(s);
    }
    std::map<std::string, int> count;
    for (Storage& s : storage_) {
      const Ure& u = ures_.at(s.func);
      s.time_distance = time_.dot(s.distance);
      // The values that are read: produced at x with x + d in the domain.
      poly::Set read = domain();
      for (size_t v = 0; v < isl_.size(); ++v)
        if (s.distance[v] != 0)
          read.where(poly::Cond::range(mins_[v], poly::Aff::dim(isl_[v]) + s.distance[v],
                                       mins_[v] + extents_[v]));
      // Values live from their write to the pop (fifo: the first reader) or to the last read
      // (shift register); a window of `span` steps holds them.
      auto live_until = [&](size_t reader) {
        const int64_t delta = this->delta(s.distance, reader, u.stmt);
        const int64_t span = (delta + quantum_ - 1) / quantum_ - 1;
        int64_t live = poly::max_points_within(read, keys, time, span, kMaxWindowOffsets);
        if (live > kMaxWindowOffsets)
          fail("the storage for " + s.func + " at distance " + distance_text(s.distance) +
                   " holds more than " + std::to_string(kMaxWindowOffsets) + " values per PE",
               "stt-storage");
        return std::make_pair(delta, live);
      };
      auto [fifo_delta, fifo_live] = live_until(s.first_reader);
      if (fifo_live == 0) {
        s.none = true;
        continue;
      }
      Register& reg = s.reg;
      reg.func = s.func;
      reg.kernel = kernel_.name;
      reg.type = u.type;
      reg.shape = shape_;
      for (size_t p = 0; p < u.arg_var.size(); ++p)
        reg.distance.push_back(s.distance[u.arg_var[p]]);
      reg.time_distance = s.time_distance;
      reg.naive = s.time_distance + 1;
      reg.loc = u.loc;
      // A shift register when every PE writes one value every `period` steps at one phase and
      // a shift register is exactly as large as the live values.
      poly::Set all = domain();
      std::optional<int64_t> period = poly::uniform_step(all, keys, time);
      // Shifting every step (period 1) is always correct: the PE shifts where it does not run,
      // so a slot number counts steps. When every PE writes one value every `period` steps at
      // one phase, shifting only at those steps needs fewer slots.
      int64_t step = 1, phase = 0;
      if (period && *period > 1)
        if (auto p = poly::single_value(all, time.mod(*period))) {
          step = *period;
          phase = *p;
        }
      auto [last_delta, last_live] = live_until(s.last_reader);
      const int64_t shift_depth = period && *period == 0 ? 1 : last_delta / (step * quantum_) + 1;
      const bool shift = shift_depth == last_live;
      if (shift) {
        reg.period = step;
        s.phase = phase;
        s.delta = last_delta;
      }
      if (!shift) s.delta = fifo_delta;
      reg.kind = shift ? Register::kShift : Register::kFifo;
      reg.depth = shift ? shift_depth : fifo_live;
      if (!shift) reg.period = 1;
      const int n = ++count[s.func];
      reg.name =
          fresh(s.func + (shift ? "_shreg" : "_fifo") + (n > 1 ? "_" + std::to_string(n) : ""));
      if (!shift) s.value_name = fresh(reg.name + "_val");
      out_.registers.push_back(reg);
    }
  }

  // ---- the new loop nest ---------------------------------------------------------------------

  // PE index of the PE at `distance` back from this one, as text (0-based).
  std::string pe_index(size_t i, const std::vector<int64_t>& distance) const {
    const Loop& l = loops_[i];
    const int64_t off = l.min + l.aff.dot(distance);
    if (off == 0) return l.name;
    return l.name + (off > 0 ? " - " + std::to_string(off) : " + " + std::to_string(-off));
  }

  std::string pe_args(const std::vector<int64_t>& distance) const {
    std::string s;
    for (size_t i = 0; i < space_; ++i) s += (i ? ", " : "") + pe_index(i, distance);
    return s;
  }

  // x - d in the domain (sign = -1) or x + d in the domain (sign = +1), for x in the domain.
  std::string shifted_in_domain(const std::vector<int64_t>& d, int sign) const {
    std::string c;
    for (size_t v = 0; v < names_.size(); ++v) {
      const int64_t off = sign * d[v];
      if (off == 0) continue;
      std::string one = off < 0 ? std::to_string(mins_[v] - off) + " <= " + names_[v]
                                : names_[v] + " < " + std::to_string(mins_[v] + extents_[v] - off);
      c += (c.empty() ? "" : " && ") + one;
    }
    return c;
  }

  class ReadRewriter : public ExprMutator {
   public:
    explicit ReadRewriter(KernelTransformer& t) : t_(t) {}

   protected:
    Expr mutate_call(const Expr& e) override {
      Expr m = mutate_operands(e);
      if (e->call_kind != CallKind::kFunc) return m;
      auto it = t_.ures_.find(e->name);
      if (it == t_.ures_.end() || !it->second.allocatable) return m;
      auto d = t_.distance_of(it->second, e->operands);
      if (!d) throw InternalError("stt: read of allocated Func with complex arguments");
      const Ure& u = it->second;
      if (std::all_of(d->begin(), d->end(), [](int64_t c) { return c == 0; }))
        return make_var(u.value_name, u.type, e->loc);
      const Storage& s = t_.storage_[t_.storage_index_.at({u.func, *d})];
      if (s.none) return t_.typed_zero(u.type);
      if (s.reg.kind == Register::kFifo) return make_var(s.value_name, u.type, e->loc);
      const int64_t slot = t_.delta(*d, t_.current_stmt_, u.stmt) / (s.reg.period * t_.quantum_);
      std::string args = t_.pe_args(*d);
      args += std::string(args.empty() ? "" : ", ") + std::to_string(slot);
      return t_.typed(s.reg.name + "(" + args + ")");
    }

   private:
    KernelTransformer& t_;
  };

  Expr typed_zero(Type t) {
    return t.is_float() ? make_float(t, 0.0) : t.is_bool() ? make_bool(false) : make_int(t, 0);
  }

  StmtPtr rewrite(const StmtPtr& s, size_t stmt) {
    current_stmt_ = stmt;
    class Rewriter : public StmtMutator {
     public:
      explicit Rewriter(KernelTransformer& t) : reads_(t) {}
      Expr mutate(const Expr& e) override { return e ? reads_.mutate(e) : e; }

     private:
      ReadRewriter reads_;
    } rewriter(*this);
    return rewriter.mutate_stmt(s);
  }

  StmtPtr let(const std::string& name, const Expr& value, StmtList body) {
    return make_let(name, value, std::move(body));
  }

  StmtPtr maybe_if(const std::string& cond, StmtList then_body) {
    if (cond.empty()) return then_body.size() == 1 ? then_body[0] : nullptr;
    return make_if(typed(cond), std::move(then_body), {});
  }

  StmtPtr shift_stmt(const Storage& s) { return make_shift(s.reg.name, own_pe(), s.reg.loc); }

  // This PE's index, one 0-based expression per space loop.
  std::vector<Expr> own_pe() {
    std::vector<Expr> index;
    const std::vector<int64_t> here(names_.size(), 0);
    for (size_t i = 0; i < space_; ++i) index.push_back(typed(pe_index(i, here)));
    return index;
  }

  // Statements i.. of the PE body, with lets wrapping what follows them.
  StmtList build(size_t i) {
    if (i == body_.size()) return {};
    const Stmt& original = *body_[i];
    StmtList tail;
    const Ure* u = nullptr;
    if (const Provide* provide = original.as<Provide>()) {
      auto it = ures_.find(provide->func);
      if (it != ures_.end() && it->second.allocatable && it->second.stmt == i) u = &it->second;
    }
    if (u) {
      Expr value = rewrite(body_[i], i)->as<Provide>()->value;
      StmtList inner;
      for (const Storage& s : storage_) {
        if (s.func != u->func || s.none) continue;
        if (s.reg.kind == Register::kShift) {
          if (s.reg.depth > 1) inner.push_back(shift_stmt(s));
          std::vector<Expr> slot = own_pe();
          slot.push_back(make_int(Type::Int(32), 0));
          inner.push_back(
              make_provide(s.reg.name, slot, make_var(u->value_name, u->type, {}), u->loc));
        } else {
          StmtPtr push =
              make_push(s.reg.name, own_pe(), make_var(u->value_name, u->type, {}), u->loc);
          inner.push_back(maybe_if(shifted_in_domain(s.distance, +1), {push}));
        }
      }
      for (const StmtPtr& s : build(i + 1)) inner.push_back(s);
      tail.push_back(let(u->value_name, value, inner));
    } else {
      tail.push_back(rewrite(body_[i], i));
      for (const StmtPtr& s : build(i + 1)) tail.push_back(s);
    }
    // FIFO values read first by statement i are popped just before it.
    for (auto it = storage_.rbegin(); it != storage_.rend(); ++it) {
      const Storage& s = *it;
      if (s.none || s.reg.kind != Register::kFifo || s.first_reader != i) continue;
      const std::string cond = shifted_in_domain(s.distance, -1);
      const std::string pop =
          "pop(" + s.reg.name + (space_ ? ", " + pe_args(s.distance) : "") + ")";
      Expr value = cond.empty() ? typed(pop) : typed("select(" + cond + ", " + pop + ", 0)");
      tail = {let(s.value_name, value, tail)};
    }
    return tail;
  }

  void rebuild() {
    StmtList then_body = build(0);
    std::string cond;
    for (const std::string& c : range_) cond += (cond.empty() ? "" : " && ") + c;
    for (const std::string& c : checks_) cond += (cond.empty() ? "" : " && ") + c;
    StmtList pe_body;
    if (cond.empty()) {
      pe_body = then_body;
    } else {
      // Shift registers keep counting time where the PE does not run.
      StmtList else_body;
      for (const Storage& s : storage_) {
        if (s.none || s.reg.kind != Register::kShift || s.reg.depth == 1) continue;
        StmtPtr sh = shift_stmt(s);
        if (s.reg.period > 1)
          sh = maybe_if("(" + time_text_ + ") % " + std::to_string(s.reg.period) +
                            " == " + std::to_string(s.phase),
                        {sh});
        else_body.push_back(sh);
      }
      pe_body = {make_if(typed(cond), then_body, else_body)};
    }
    // Recovered variables, the last transform's first.
    for (auto it = recover_.rbegin(); it != recover_.rend(); ++it)
      pe_body = {let(it->first, it->second, pe_body)};
    // Loops, innermost first.
    for (const Loop& l : loops_) {
      pe_body = {make_for(l.name, make_int(Type::Int(32), l.min), make_int(Type::Int(32), l.extent),
                          l.space ? LoopKind::kUnrolled : LoopKind::kSerial, pe_body)};
    }
    // Realizes of the Funcs that keep their storage.
    for (auto it = realizes_.rbegin(); it != realizes_.rend(); ++it) {
      Realize realize = *(*it)->as<Realize>();
      auto u = ures_.find(realize.func);
      bool allocated = u != ures_.end() && u->second.allocatable;
      if (allocated) continue;
      realize.body = pe_body;
      pe_body = {with_node(**it, realize)};
    }
    kernel_.body = pe_body;
  }

  Program& out_;
  Kernel& kernel_;
  std::vector<const Directive*> directives_;
  std::set<std::string>& used_;
  SourceLoc at_;

  std::vector<StmtPtr> realizes_;
  StmtList body_;
  std::vector<std::string> names_, isl_;  // original loop variables, innermost first
  std::vector<int64_t> mins_, extents_;
  std::vector<Loop> loops_;  // the current loops, innermost first
  std::vector<TransformStep> steps_;
  int time_vars_ = 0;
  bool check_time_ = false;

  size_t space_ = 0;
  Aff time_, order_;
  std::string time_text_;
  int64_t steps_total_ = 1, pes_ = 1, stmts_ = 1, quantum_ = 2;
  std::vector<int64_t> shape_;
  std::vector<std::pair<std::string, Expr>> recover_;
  std::vector<std::string> range_, checks_;

  size_t current_stmt_ = 0;  // the statement whose reads are being rewritten
  std::map<std::string, Ure> ures_;
  std::vector<Read> reads_;
  std::vector<Storage> storage_;
  std::map<std::pair<std::string, std::vector<int64_t>>, size_t> storage_index_;
};

}  // namespace

Program stt_pass(const Program& merged) {
  if (merged.stage != Stage::kMerged)
    throw Diagnostic(
        {},
        std::string("t2s-stt takes the merged stage (or parsed IR or a spec, merged first), "
                    "not ") +
            stage_name(merged.stage),
        "stage");
  Program out = merged;
  out.stage = Stage::kStt;
  out.registers.clear();
  std::set<std::string> used(out.vars.begin(), out.vars.end());
  for (const Func& f : out.funcs) used.insert(f.name);
  for (const Input& i : out.inputs) used.insert(i.name);
  for (const Channel& c : out.channels) used.insert(c.name);
  for (const Buffer& b : out.buffers) used.insert(b.name);
  // The transforms of each Func, in program order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Directive*>> transforms;
  for (const Directive& d : merged.directives) {
    if (d.name != "space_time_transform") continue;
    if (!transforms.count(d.func)) order.push_back(d.func);
    transforms[d.func].push_back(&d);
  }
  for (const std::string& f : order) {
    Kernel* kernel = nullptr;
    for (Kernel& k : out.kernels)
      if (k.name == f) kernel = &k;
    if (!kernel)
      throw Diagnostic(transforms[f].front()->loc,
                       "space_time_transform of '" + f +
                           "': it has no kernel of its own (t2s-stt transforms the loop nest of "
                           "a merge group's representative or of an isolated Func)",
                       "stt-func");
    KernelTransformer(out, *kernel, transforms[f], used).run();
  }
  return out;
}

std::string stt_report(const Program& p) {
  std::ostringstream out;
  for (const Kernel& k : p.kernels) {
    std::vector<const Register*> regs;
    for (const Register& r : p.registers)
      if (r.kernel == k.name) regs.push_back(&r);
    // The loop nest: unrolled loops are the PE array, serial loops the time steps.
    std::string pes, steps;
    int64_t npes = 1, nsteps = 1;
    const StmtList* body = &k.body;
    bool transformed = false;
    while (body->size() == 1) {
      const Stmt& s = *(*body)[0];
      if (const For* loop = s.as<For>(); loop && loop->extent->kind == ExprKind::kIntImm) {
        const int64_t e = loop->extent->int_value;
        const bool unrolled = loop->loop_kind == LoopKind::kUnrolled;
        std::string& list = unrolled ? pes : steps;
        list += std::string(list.empty() ? "" : " x ") + loop->var + " " + std::to_string(e);
        (unrolled ? npes : nsteps) *= e;
        transformed = transformed || unrolled;
        body = &loop->body;
      } else if (const Realize* r = s.as<Realize>()) {
        body = &r->body;
      } else {
        break;
      }
    }
    if (!transformed && regs.empty()) continue;
    out << "kernel " << k.name << ": PE array " << (pes.empty() ? "1" : pes) << " (" << npes
        << " PEs), " << nsteps << " time steps (" << (steps.empty() ? "none" : steps) << ")\n";
    if (regs.empty()) {
      out << "  no registers\n";
      continue;
    }
    // Columns as wide as their widest cell.
    std::vector<std::vector<std::string>> rows = {{"register", "func", "kind", "distance",
                                                   "time distance", "naive/PE", "allocated/PE",
                                                   "naive total", "allocated total"}};
    int64_t naive_total = 0, allocated_total = 0;
    for (const Register* r : regs) {
      int64_t pe_count = 1;
      for (int64_t e : r->shape) pe_count *= e;
      std::string d = "(";
      for (size_t i = 0; i < r->distance.size(); ++i)
        d += (i ? ", " : "") + std::to_string(r->distance[i]);
      d += ")";
      rows.push_back({r->name, r->func, register_kind_name(r->kind), d,
                      std::to_string(r->time_distance), std::to_string(r->naive),
                      std::to_string(r->depth), std::to_string(r->naive * pe_count),
                      std::to_string(r->depth * pe_count)});
      naive_total += r->naive * pe_count;
      allocated_total += r->depth * pe_count;
    }
    std::vector<size_t> width(rows[0].size(), 0);
    for (const auto& row : rows)
      for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    for (const auto& row : rows) {
      std::string line = " ";
      for (size_t c = 0; c < row.size(); ++c) {
        const std::string pad(width[c] - row[c].size(), ' ');
        // Text columns left-aligned, numbers right-aligned.
        line += " " + (c < 4 ? row[c] + pad : pad + row[c]);
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << "\n";
    }
    out << "  total: " << naive_total << " values naive, " << allocated_total << " allocated\n";
  }
  return out.str();
}

}  // namespace t2s
