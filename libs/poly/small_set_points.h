// Internal to libs/poly (included by poly.cc only): the enumeration of small sets.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "libs/ir/diagnostic.h"
#include "libs/poly/poly_internal.h"

namespace t2s::poly {

// The points of a small box-shaped set, one by one, without isl: for the questions whose isl
// answer (a parametric lexmin, a relation's deltas) costs far more than looking at a few
// thousand points. Exact: every constraint is evaluated at every point of the bounding box, with
// Halide's (floor) division and modulo, in checked 64-bit arithmetic (a value that leaves int64
// leaves the question to isl).
class SmallSetPoints {
 public:
  explicit SmallSetPoints(const Set& set) {
    const size_t n = set.dims().size();
    for (size_t i = 0; i < n; ++i) pos_[set.dims()[i]] = i;
    lo_.assign(n, 0);
    hi_.assign(n, -1);
    std::vector<bool> bounded(n, false);
    ok_ = true;
    for (const Cond& c : set.constraints())
      if (!is_bound(c, &bounded)) conds_.push_back(compile(c));
    // A range whose bounds depend on dims with constant ranges (a triangle: t < i + 1) bounds
    // its dim by their extremes; the range itself stays a condition of the enumeration.
    for (bool more = true; more && ok_;) {
      more = false;
      for (const Cond& c : set.constraints()) {
        const Cond::Node& node = *c.node_;
        if (node.kind != Cond::Node::kRange || node.affs[1].node_->kind != Aff::Node::kDim)
          continue;
        const size_t d = position(node.affs[1].node_->name);
        if (bounded[d]) continue;
        const std::optional<std::pair<int64_t, int64_t>> lo = extremes(node.affs[0], bounded);
        const std::optional<std::pair<int64_t, int64_t>> hi = extremes(node.affs[2], bounded);
        if (!lo || !hi || hi->second == std::numeric_limits<int64_t>::min()) continue;
        lo_[d] = lo->first;
        hi_[d] = hi->second - 1;
        bounded[d] = more = true;
      }
    }
    // A dim without a range that an equality defines from dims with one (a witness one step
    // earlier: `e == k - 1`) is computed at each point instead of enumerated.
    defined_.resize(n);
    for (const Cond& c : set.constraints()) {
      const Cond::Node& node = *c.node_;
      if (node.kind != Cond::Node::kEQ) continue;
      for (int side = 0; side < 2; ++side) {
        const Aff::Node& x = *node.affs[side].node_;
        if (x.kind != Aff::Node::kDim) continue;
        const size_t d = position(x.name);
        if (bounded[d] || defined_[d]) continue;
        Compiled value = compile(node.affs[1 - side]);
        bool from_ranges = value.linear;
        for (size_t e = 0; from_ranges && e < n; ++e)
          from_ranges = value.coeff[e] == 0 || bounded[e];
        if (from_ranges) defined_[d] = std::move(value);
      }
    }
    for (size_t d = 0; d < n; ++d) lexicographic_ = lexicographic_ && !defined_[d];
    for (size_t d = 0; d < n; ++d) ok_ = ok_ && (bounded[d] || defined_[d]);
    int64_t volume = 1;
    for (size_t d = 0; ok_ && d < n && volume > 0; ++d) {
      if (defined_[d]) continue;
      const int64_t extent = hi_[d] < lo_[d] ? 0 : hi_[d] - lo_[d] + 1;
      if (extent > enumeration_limit() || volume * extent > enumeration_limit()) ok_ = false;
      volume *= extent;
    }
  }

  // Whether the set is small enough (and its constraints simple enough) to be enumerated.
  bool ok() const { return ok_; }
  // Whether for_each visits the points in lexicographic order (no dim is computed from others).
  bool lexicographic() const { return lexicographic_; }

  // A compiled expression of the set's dims: a linear form, or an operation on compiled ones.
  struct Compiled {
    bool linear = true;
    std::vector<int64_t> coeff;  // by dim position (linear)
    int64_t constant = 0;        // linear
    Aff::Node::Kind kind = Aff::Node::kConst;
    int64_t divisor = 0;
    std::vector<Compiled> ops;
  };

  Compiled compile(const Aff& a) {
    using N = Aff::Node;
    const N& n = *a.node_;
    Compiled out;
    out.coeff.assign(lo_.size(), 0);
    switch (n.kind) {
      case N::kConst:
        out.constant = n.value;
        return out;
      case N::kDim:
        out.coeff[position(n.name)] = 1;
        return out;
      case N::kLinear:
        out.constant = n.value;
        for (size_t i = 0; i < n.coeff.size(); ++i)
          out.coeff[position(n.dims[i])] = add(out.coeff[position(n.dims[i])], n.coeff[i]);
        return out;
      default:
        break;
    }
    for (const Aff& o : n.ops) out.ops.push_back(compile(o));
    const bool all_linear =
        std::all_of(out.ops.begin(), out.ops.end(), [](const Compiled& c) { return c.linear; });
    const auto combine = [&](int64_t fa, int64_t fb) {
      out.constant =
          add(mul(fa, out.ops[0].constant), out.ops.size() > 1 ? mul(fb, out.ops[1].constant) : 0);
      for (size_t d = 0; d < out.coeff.size(); ++d)
        out.coeff[d] = add(mul(fa, out.ops[0].coeff[d]),
                           out.ops.size() > 1 ? mul(fb, out.ops[1].coeff[d]) : 0);
      out.ops.clear();
    };
    if (all_linear && n.kind == N::kNeg) {
      combine(-1, 0);
    } else if (all_linear && (n.kind == N::kAdd || n.kind == N::kSub)) {
      combine(1, n.kind == N::kAdd ? 1 : -1);
    } else if (all_linear && n.kind == N::kMul && n.ops[1].node_->kind == N::kConst) {
      combine(n.ops[1].node_->value, 0);
    } else if (all_linear && n.kind == N::kMul && n.ops[0].node_->kind == N::kConst) {
      std::swap(out.ops[0], out.ops[1]);
      combine(n.ops[0].node_->value, 0);
    } else {
      out.linear = false;
      out.kind = n.kind;
      out.divisor = n.value;
    }
    return out;
  }

  // `c` at point x; nullopt when a value leaves int64.
  std::optional<int64_t> eval(const Compiled& c, const std::vector<int64_t>& x) const {
    if (c.linear) {
      int64_t v = c.constant;
      for (size_t d = 0; d < x.size(); ++d) {
        int64_t term;
        if (c.coeff[d] != 0 && (__builtin_mul_overflow(c.coeff[d], x[d], &term) ||
                                __builtin_add_overflow(v, term, &v)))
          return std::nullopt;
      }
      return v;
    }
    std::vector<int64_t> v;
    for (const Compiled& o : c.ops) {
      std::optional<int64_t> e = eval(o, x);
      if (!e) return std::nullopt;
      v.push_back(*e);
    }
    int64_t r = 0;
    switch (c.kind) {
      case Aff::Node::kNeg:
        if (__builtin_sub_overflow(int64_t{0}, v[0], &r)) return std::nullopt;
        return r;
      case Aff::Node::kAdd:
        if (__builtin_add_overflow(v[0], v[1], &r)) return std::nullopt;
        return r;
      case Aff::Node::kSub:
        if (__builtin_sub_overflow(v[0], v[1], &r)) return std::nullopt;
        return r;
      case Aff::Node::kMul:
        if (__builtin_mul_overflow(v[0], v[1], &r)) return std::nullopt;
        return r;
      case Aff::Node::kFloorDiv:  // divisor > 0
        r = v[0] / c.divisor;
        return v[0] % c.divisor != 0 && v[0] < 0 ? r - 1 : r;
      case Aff::Node::kMod:
        r = v[0] % c.divisor;
        return r < 0 ? r + c.divisor : r;
      default:
        throw InternalError("poly: unknown affine expression");
    }
  }

  // Calls f(point) for each point of the set in lexicographic order (dims in order) until f
  // returns true (a function returning void runs on every point); false when a value leaves
  // int64.
  template <typename F>
  bool for_each(F&& f) const {
    const size_t n = lo_.size();
    for (size_t d = 0; d < n; ++d)
      if (!defined_[d] && hi_[d] < lo_[d]) return true;
    std::vector<int64_t> x(lo_);
    while (true) {
      for (size_t d = 0; d < n; ++d) {
        if (!defined_[d]) continue;
        const std::optional<int64_t> v = eval(*defined_[d], x);
        if (!v) return false;
        x[d] = *v;
      }
      bool in = true;
      for (const CompiledCond& c : conds_) {
        std::optional<bool> holds = eval(c, x);
        if (!holds) return false;
        if (!*holds) {
          in = false;
          break;
        }
      }
      if (in) {
        if constexpr (std::is_same_v<decltype(f(x)), bool>) {
          if (f(x)) return true;
        } else {
          f(x);
        }
      }
      size_t d = n;
      while (d > 0 && (defined_[d - 1] || x[d - 1] == hi_[d - 1])) {
        if (!defined_[d - 1]) x[d - 1] = lo_[d - 1];
        --d;
      }
      if (d == 0) return true;
      ++x[d - 1];
    }
  }

 private:
  struct CompiledCond {
    Cond::Node::Kind kind = Cond::Node::kBool;
    bool value = false;
    std::vector<Compiled> affs;
    std::vector<CompiledCond> ops;
  };

  // Checked arithmetic while compiling: an overflow leaves the set to isl.
  int64_t add(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) ok_ = false;
    return r;
  }
  int64_t mul(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) ok_ = false;
    return r;
  }

  size_t position(const std::string& name) const {
    auto it = pos_.find(name);
    if (it == pos_.end()) throw InternalError("poly: '" + name + "' is not a dim of the set");
    return it->second;
  }

  CompiledCond compile(const Cond& c) {
    const Cond::Node& n = *c.node_;
    CompiledCond out;
    out.kind = n.kind;
    out.value = n.value;
    for (const Aff& a : n.affs) out.affs.push_back(compile(a));
    for (const Cond& o : n.ops) out.ops.push_back(compile(o));
    return out;
  }

  // The least and greatest value of `a` over the dims bounded so far, when it is linear in them.
  std::optional<std::pair<int64_t, int64_t>> extremes(const Aff& a,
                                                      const std::vector<bool>& bounded) {
    const Compiled c = compile(a);
    if (!c.linear) return std::nullopt;
    __int128 least = c.constant, greatest = c.constant;
    for (size_t d = 0; d < c.coeff.size(); ++d) {
      if (c.coeff[d] == 0) continue;
      if (!bounded[d] || hi_[d] < lo_[d]) return std::nullopt;
      const __int128 at_lo = static_cast<__int128>(c.coeff[d]) * lo_[d];
      const __int128 at_hi = static_cast<__int128>(c.coeff[d]) * hi_[d];
      least += std::min(at_lo, at_hi);
      greatest += std::max(at_lo, at_hi);
    }
    const __int128 min64 = std::numeric_limits<int64_t>::min();
    const __int128 max64 = std::numeric_limits<int64_t>::max();
    if (least < min64 || greatest > max64) return std::nullopt;
    return std::make_pair(static_cast<int64_t>(least), static_cast<int64_t>(greatest));
  }

  // Whether c is a constant range of one dim (lo <= dim < hi), which the enumeration's bounds
  // take (the intersection of every such range).
  bool is_bound(const Cond& c, std::vector<bool>* bounded) {
    using N = Cond::Node;
    const N& n = *c.node_;
    if (n.kind != N::kRange) return false;
    const Aff::Node& x = *n.affs[1].node_;
    if (x.kind != Aff::Node::kDim) return false;
    auto it = pos_.find(x.name);
    if (it == pos_.end()) return false;
    // The bounds: expressions without dims (a loop's `min + extent`).
    const Compiled lo = compile(n.affs[0]), hi = compile(n.affs[2]);
    auto no_dims = [](const Compiled& c) {
      return c.linear && std::all_of(c.coeff.begin(), c.coeff.end(), [](int64_t v) { return !v; });
    };
    if (!ok_ || !no_dims(lo) || !no_dims(hi)) return false;
    if (hi.constant == std::numeric_limits<int64_t>::min()) return false;
    const size_t d = it->second;
    if (!(*bounded)[d]) {
      lo_[d] = lo.constant;
      hi_[d] = hi.constant - 1;
      (*bounded)[d] = true;
    } else {
      lo_[d] = std::max(lo_[d], lo.constant);
      hi_[d] = std::min(hi_[d], hi.constant - 1);
    }
    return true;
  }

  std::optional<bool> eval(const CompiledCond& c, const std::vector<int64_t>& x) const {
    using N = Cond::Node;
    switch (c.kind) {
      case N::kBool:
        return c.value;
      case N::kNot: {
        auto a = eval(c.ops[0], x);
        if (!a) return std::nullopt;
        return !*a;
      }
      case N::kAnd:
      case N::kOr: {
        auto a = eval(c.ops[0], x);
        if (!a) return std::nullopt;
        if (*a == (c.kind == N::kOr)) return *a;
        return eval(c.ops[1], x);
      }
      default:
        break;
    }
    int64_t v[3] = {0, 0, 0};
    for (size_t i = 0; i < c.affs.size() && i < 3; ++i) {
      auto e = eval(c.affs[i], x);
      if (!e) return std::nullopt;
      v[i] = *e;
    }
    switch (c.kind) {
      case N::kEQ:
        return v[0] == v[1];
      case N::kNE:
        return v[0] != v[1];
      case N::kLT:
        return v[0] < v[1];
      case N::kLE:
        return v[0] <= v[1];
      case N::kGT:
        return v[0] > v[1];
      case N::kGE:
        return v[0] >= v[1];
      case N::kRange:
        return v[0] <= v[1] && v[1] < v[2];
      default:
        throw InternalError("poly: unknown condition");
    }
  }

  std::map<std::string, size_t> pos_;
  std::vector<int64_t> lo_, hi_;
  std::vector<CompiledCond> conds_;
  std::vector<std::optional<Compiled>> defined_;  // dims computed from the enumerated ones
  bool ok_ = false;
  bool lexicographic_ = true;
};

}  // namespace t2s::poly
