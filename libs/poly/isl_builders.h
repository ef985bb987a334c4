// Internal to libs/poly (included by poly.cc only): Affs, Conds and Sets as isl objects
// (Builder, through isl's API: what the questions use) and as isl text (Renderer: messages and
// poly_test's comparisons).
#pragma once

#include <isl/constraint.h>
#include <isl/cpp.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "libs/ir/diagnostic.h"
#include "libs/poly/poly_internal.h"

namespace t2s::poly {

namespace isl_text_internal {

// Parenthesises compound texts; names and non-negative numbers stay bare.
std::string paren(const std::string& s) {
  bool simple = !s.empty();
  for (char c : s) simple = simple && (isalnum(static_cast<unsigned char>(c)) || c == '_');
  return simple ? s : "(" + s + ")";
}

}  // namespace isl_text_internal

// isl text of Affs, Conds and Sets; the only place that writes isl syntax. Dims get neutral isl
// names by position (v0, v1, ...), so a dim may have any name.
class Renderer {
 public:
  explicit Renderer(const std::vector<std::string>& dims) {
    for (size_t i = 0; i < dims.size(); ++i) {
      if (!isl_.emplace(dims[i], "v" + std::to_string(i)).second)
        throw InternalError("poly: dim '" + dims[i] + "' appears twice in a set");
      list_ += (i ? ", " : "") + isl_[dims[i]];
    }
  }

  std::string aff(const Aff& a) const {
    using N = Aff::Node;
    const N& n = *a.node_;
    switch (n.kind) {
      case N::kConst:
        return std::to_string(n.value);
      case N::kDim:
        return dim(n.name);
      case N::kLinear:
        return linear(n);
      case N::kNeg:
        return "-" + isl_text_internal::paren(aff(n.ops[0]));
      case N::kAdd:
        return isl_text_internal::paren(aff(n.ops[0])) + " + " +
               isl_text_internal::paren(aff(n.ops[1]));
      case N::kSub:
        return isl_text_internal::paren(aff(n.ops[0])) + " - " +
               isl_text_internal::paren(aff(n.ops[1]));
      case N::kMul: {
        // isl's parser takes a literal factor ("-1 * (x)"), not a parenthesized one ("(-1) * x").
        const N& l = *n.ops[0].node_;
        const N& r = *n.ops[1].node_;
        if (l.kind == N::kConst)
          return std::to_string(l.value) + " * " + isl_text_internal::paren(aff(n.ops[1]));
        if (r.kind == N::kConst)
          return std::to_string(r.value) + " * " + isl_text_internal::paren(aff(n.ops[0]));
        return isl_text_internal::paren(aff(n.ops[0])) + " * " +
               isl_text_internal::paren(aff(n.ops[1]));
      }
      case N::kFloorDiv:
        return "floor(" + isl_text_internal::paren(aff(n.ops[0])) + " / " +
               std::to_string(n.value) + ")";
      case N::kMod:
        return isl_text_internal::paren(aff(n.ops[0])) + " mod " + std::to_string(n.value);
    }
    throw InternalError("poly: unknown affine expression");
  }

  std::string cond(const Cond& c) const {
    using N = Cond::Node;
    const N& n = *c.node_;
    switch (n.kind) {
      case N::kBool:
        return n.value ? "1 = 1" : "1 = 0";
      case N::kEQ:
        return aff(n.affs[0]) + " = " + aff(n.affs[1]);
      case N::kNE:
        return aff(n.affs[0]) + " != " + aff(n.affs[1]);
      case N::kLT:
        return aff(n.affs[0]) + " < " + aff(n.affs[1]);
      case N::kLE:
        return aff(n.affs[0]) + " <= " + aff(n.affs[1]);
      case N::kGT:
        return aff(n.affs[0]) + " > " + aff(n.affs[1]);
      case N::kGE:
        return aff(n.affs[0]) + " >= " + aff(n.affs[1]);
      case N::kRange:
        return aff(n.affs[0]) + " <= " + aff(n.affs[1]) + " < " + aff(n.affs[2]);
      case N::kNot:
        return "not " + isl_text_internal::paren(cond(n.ops[0]));
      case N::kAnd:
        return isl_text_internal::paren(cond(n.ops[0])) + " and " +
               isl_text_internal::paren(cond(n.ops[1]));
      case N::kOr:
        return isl_text_internal::paren(cond(n.ops[0])) + " or " +
               isl_text_internal::paren(cond(n.ops[1]));
    }
    throw InternalError("poly: unknown condition");
  }

  // { [dims] : constraints }
  std::string set(const Set& s) const { return "{ [" + list_ + "]" + where(s) + " }"; }

  // { [dims] -> [outs] : constraints }: the values of `outs` at the points of `s`.
  std::string values(const Set& s, const std::vector<Aff>& outs) const {
    std::string text = "{ [" + list_ + "] -> [";
    for (size_t i = 0; i < outs.size(); ++i) text += (i ? ", " : "") + aff(outs[i]);
    return text + "]" + where(s) + " }";
  }

 private:
  std::string dim(const std::string& name) const {
    auto it = isl_.find(name);
    if (it == isl_.end()) throw InternalError("poly: '" + name + "' is not a dim of the set");
    return it->second;
  }

  std::string linear(const Aff::Node& n) const {
    std::string s;
    for (size_t i = 0; i < n.coeff.size(); ++i) {
      if (n.coeff[i] == 0) continue;
      int64_t c = n.coeff[i];
      if (!s.empty()) {
        s += c < 0 ? " - " : " + ";
        c = c < 0 ? -c : c;
      } else if (c < 0) {
        s += "-";
        c = -c;
      }
      s += c == 1 ? dim(n.dims[i]) : std::to_string(c) + " * " + dim(n.dims[i]);
    }
    if (s.empty()) return std::to_string(n.value);
    if (n.value > 0) s += " + " + std::to_string(n.value);
    if (n.value < 0) s += " - " + std::to_string(-n.value);
    return s;
  }

  std::string where(const Set& s) const {
    std::string text;
    for (size_t i = 0; i < s.constraints().size(); ++i)
      text += (i ? " and (" : " : (") + cond(s.constraints()[i]) + ")";
    return text;
  }

  std::map<std::string, std::string> isl_;
  std::string list_;
};

// isl objects of Affs, Conds and Sets, built through isl's API. This is what the questions
// below use: isl's text parser costs about ten times as much (it builds and intersects a set for
// every parenthesised term), which was most of t2s-stt's time. Renderer's text is for messages
// and tests. Dims are positions in a set space without names, as in the text.
class Builder {
 public:
  Builder(isl::ctx ctx, const std::vector<std::string>& dims)
      : ctx_(ctx), space_(isl::manage(isl_space_set_alloc(ctx.get(), 0, dims.size()))) {
    for (size_t i = 0; i < dims.size(); ++i)
      if (!pos_.emplace(dims[i], static_cast<int>(i)).second)
        throw InternalError("poly: dim '" + dims[i] + "' appears twice in a set");
  }

  isl::pw_aff aff(const Aff& a) const {
    using N = Aff::Node;
    const N& n = *a.node_;
    switch (n.kind) {
      case N::kConst:
        return constant(n.value);
      case N::kDim:
        return var(n.name);
      case N::kLinear: {
        isl::pw_aff out = constant(n.value);
        for (size_t i = 0; i < n.coeff.size(); ++i)
          if (n.coeff[i] != 0) out = out.add(var(n.dims[i]).scale(isl::val(ctx_, n.coeff[i])));
        return out;
      }
      case N::kNeg:
        return aff(n.ops[0]).neg();
      case N::kAdd:
        return aff(n.ops[0]).add(aff(n.ops[1]));
      case N::kSub:
        return aff(n.ops[0]).sub(aff(n.ops[1]));
      case N::kMul: {
        const N& l = *n.ops[0].node_;
        const N& r = *n.ops[1].node_;
        if (l.kind == N::kConst) return aff(n.ops[1]).scale(isl::val(ctx_, l.value));
        if (r.kind == N::kConst) return aff(n.ops[0]).scale(isl::val(ctx_, r.value));
        return aff(n.ops[0]).mul(aff(n.ops[1]));
      }
      case N::kFloorDiv:
        return aff(n.ops[0]).scale_down(isl::val(ctx_, n.value)).floor();
      case N::kMod:
        return aff(n.ops[0]).mod(isl::val(ctx_, n.value));
    }
    throw InternalError("poly: unknown affine expression");
  }

  isl::set cond(const Cond& c) const {
    using N = Cond::Node;
    const N& n = *c.node_;
    switch (n.kind) {
      case N::kBool:
        return n.value ? universe() : isl::set::empty(space_);
      case N::kEQ:
        return aff(n.affs[0]).eq_set(aff(n.affs[1]));
      case N::kNE:
        return aff(n.affs[0]).ne_set(aff(n.affs[1]));
      case N::kLT:
        return aff(n.affs[0]).lt_set(aff(n.affs[1]));
      case N::kLE:
        return aff(n.affs[0]).le_set(aff(n.affs[1]));
      case N::kGT:
        return aff(n.affs[0]).gt_set(aff(n.affs[1]));
      case N::kGE:
        return aff(n.affs[0]).ge_set(aff(n.affs[1]));
      case N::kRange: {
        const isl::pw_aff x = aff(n.affs[1]);
        return aff(n.affs[0]).le_set(x).intersect(x.lt_set(aff(n.affs[2])));
      }
      case N::kNot:
        return universe().subtract(cond(n.ops[0]));
      case N::kAnd:
        return cond(n.ops[0]).intersect(cond(n.ops[1]));
      case N::kOr:
        return cond(n.ops[0]).unite(cond(n.ops[1]));
    }
    throw InternalError("poly: unknown condition");
  }

  // Comparisons of affine expressions without floor or mod (a loop's range, mostly) become
  // constraints of one basic set; only the other conditions are sets to intersect, which costs
  // isl a simplification each.
  isl::set set(const Set& s) const {
    isl_basic_set* plain = isl_basic_set_universe(space_.copy());
    isl::set rest = universe();
    for (const Cond& c : s.constraints()) {
      if (is_plain(c))
        plain = add_plain(plain, c);
      else
        rest = rest.intersect(cond(c));
    }
    return isl::manage(isl_set_from_basic_set(plain)).intersect(rest);
  }

  // The values of `outs` at the points of `s`: { [dims] -> [outs] }.
  isl::map values(const Set& s, const std::vector<Aff>& outs) const {
    isl::pw_aff_list list(ctx_, static_cast<int>(outs.size()));
    for (const Aff& o : outs) list = list.add(aff(o));
    isl::space map_space = isl::manage(isl_space_map_from_domain_and_range(
        space_.copy(), isl_space_set_alloc(ctx_.get(), 0, outs.size())));
    isl::multi_pw_aff f =
        isl::manage(isl_multi_pw_aff_from_pw_aff_list(map_space.release(), list.release()));
    return isl::manage(isl_map_from_multi_pw_aff(f.release())).intersect_domain(set(s));
  }

 private:
  static bool is_plain(const Aff& a) {
    using N = Aff::Node;
    const N& n = *a.node_;
    switch (n.kind) {
      case N::kConst:
      case N::kDim:
      case N::kLinear:
        return true;
      case N::kNeg:
        return is_plain(n.ops[0]);
      case N::kAdd:
      case N::kSub:
        return is_plain(n.ops[0]) && is_plain(n.ops[1]);
      case N::kMul:
        return (n.ops[0].node_->kind == N::kConst || n.ops[1].node_->kind == N::kConst) &&
               is_plain(n.ops[0]) && is_plain(n.ops[1]);
      case N::kFloorDiv:
      case N::kMod:
        return false;
    }
    return false;
  }

  static bool is_plain(const Cond& c) {
    using N = Cond::Node;
    const N& n = *c.node_;
    switch (n.kind) {
      case N::kBool:
        return n.value;
      case N::kEQ:
      case N::kLT:
      case N::kLE:
      case N::kGT:
      case N::kGE:
      case N::kRange:
        return std::all_of(n.affs.begin(), n.affs.end(), [](const Aff& a) { return is_plain(a); });
      case N::kAnd:
        return is_plain(n.ops[0]) && is_plain(n.ops[1]);
      case N::kNE:
      case N::kNot:
      case N::kOr:
        return false;
    }
    return false;
  }

  // A plain Aff as an isl_aff.
  isl_aff* plain_aff(const Aff& a) const {
    using N = Aff::Node;
    const N& n = *a.node_;
    isl_local_space* ls = isl_local_space_from_space(space_.copy());
    switch (n.kind) {
      case N::kConst:
        return isl_aff_val_on_domain(ls, isl_val_int_from_si(ctx_.get(), n.value));
      case N::kDim:
        return isl_aff_var_on_domain(ls, isl_dim_set, position(n.name));
      case N::kLinear: {
        isl_aff* out = isl_aff_val_on_domain(ls, isl_val_int_from_si(ctx_.get(), n.value));
        for (size_t i = 0; i < n.coeff.size(); ++i) {
          if (n.coeff[i] == 0) continue;
          isl_aff* v = isl_aff_var_on_domain(isl_local_space_from_space(space_.copy()), isl_dim_set,
                                             position(n.dims[i]));
          out = isl_aff_add(out, isl_aff_scale_val(v, isl_val_int_from_si(ctx_.get(), n.coeff[i])));
        }
        return out;
      }
      default:
        break;
    }
    isl_local_space_free(ls);
    switch (n.kind) {
      case N::kNeg:
        return isl_aff_neg(plain_aff(n.ops[0]));
      case N::kAdd:
        return isl_aff_add(plain_aff(n.ops[0]), plain_aff(n.ops[1]));
      case N::kSub:
        return isl_aff_sub(plain_aff(n.ops[0]), plain_aff(n.ops[1]));
      case N::kMul: {
        const bool left = n.ops[0].node_->kind == N::kConst;
        const int64_t factor = left ? n.ops[0].node_->value : n.ops[1].node_->value;
        return isl_aff_scale_val(plain_aff(n.ops[left ? 1 : 0]),
                                 isl_val_int_from_si(ctx_.get(), factor));
      }
      default:
        throw InternalError("poly: not a plain affine expression");
    }
  }

  // `plain` with the constraints of plain condition c: hi - lo >= 0 (or - 1 when strict), or
  // an equality.
  isl_basic_set* add_plain(isl_basic_set* plain, const Cond& c) const {
    using N = Cond::Node;
    const N& n = *c.node_;
    auto difference = [&](const Aff& lo, const Aff& hi, int64_t minus) {
      isl_aff* d = isl_aff_sub(plain_aff(hi), plain_aff(lo));
      return minus ? isl_aff_add_constant_val(d, isl_val_int_from_si(ctx_.get(), -minus)) : d;
    };
    auto at_least = [&](isl_basic_set* b, const Aff& lo, const Aff& hi, int64_t minus) {
      return isl_basic_set_add_constraint(b, isl_inequality_from_aff(difference(lo, hi, minus)));
    };
    switch (n.kind) {
      case N::kBool:
        return plain;
      case N::kEQ:
        return isl_basic_set_add_constraint(
            plain, isl_equality_from_aff(difference(n.affs[0], n.affs[1], 0)));
      case N::kLT:
        return at_least(plain, n.affs[0], n.affs[1], 1);
      case N::kLE:
        return at_least(plain, n.affs[0], n.affs[1], 0);
      case N::kGT:
        return at_least(plain, n.affs[1], n.affs[0], 1);
      case N::kGE:
        return at_least(plain, n.affs[1], n.affs[0], 0);
      case N::kRange:
        return at_least(at_least(plain, n.affs[0], n.affs[1], 0), n.affs[1], n.affs[2], 1);
      case N::kAnd:
        return add_plain(add_plain(plain, n.ops[0]), n.ops[1]);
      default:
        throw InternalError("poly: not a plain condition");
    }
  }

  unsigned position(const std::string& name) const {
    auto it = pos_.find(name);
    if (it == pos_.end()) throw InternalError("poly: '" + name + "' is not a dim of the set");
    return static_cast<unsigned>(it->second);
  }

  isl::set universe() const { return isl::set::universe(space_); }
  isl::pw_aff constant(int64_t v) const {
    return isl::manage(isl_pw_aff_from_aff(isl_aff_val_on_domain(
        isl_local_space_from_space(space_.copy()), isl_val_int_from_si(ctx_.get(), v))));
  }
  isl::pw_aff var(const std::string& name) const {
    auto it = pos_.find(name);
    if (it == pos_.end()) throw InternalError("poly: '" + name + "' is not a dim of the set");
    return isl::manage(
        isl_pw_aff_from_aff(isl_aff_var_on_domain(isl_local_space_from_space(space_.copy()),
                                                  isl_dim_set, static_cast<unsigned>(it->second))));
  }

  mutable isl::ctx ctx_;  // isl::ctx::get() is not const
  isl::space space_;
  std::map<std::string, int> pos_;
};

}  // namespace t2s::poly
