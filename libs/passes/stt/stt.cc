#include "libs/passes/stt/stt.h"

#include <map>

#include "libs/ir/expr_parser.h"
#include "libs/ir/ir_json.h"
#include "libs/passes/stt/stt_internal.h"

namespace t2s {

namespace stt_internal {

void KernelTransformer::run() {
  at_ = directives_.back()->loc;
  peel();
  set_aside_lanes();
  for (const Directive* d : directives_) {
    at_ = d->loc;
    apply(*d);
  }
  at_ = directives_.back()->loc;
  place_lanes();
  finish_loops();
  check_unrolled();
  guard();
  collect_ures();
  check_storage_order();
  allocate();
  rebuild();
}

void KernelTransformer::fail(const std::string& message, const std::string& rule) {
  throw Diagnostic(at_, what() + ": " + message, rule);
}

// "space_time_transform of 'drainer' (inherited from 'A')" for a transform an isolated consumer
// inherited (its directives name the Func they were written for).
std::string KernelTransformer::what() const {
  std::string s = "space_time_transform of '" + kernel_.name + "'";
  if (directives_.front()->func != kernel_.name)
    s += " (inherited from '" + directives_.front()->func + "')";
  return s;
}

KernelView KernelTransformer::view() const {
  KernelView v;
  v.kernel = kernel_.name;
  v.transformed = true;
  v.names = names_;
  v.mins = mins_;
  v.extents = extents_;
  v.input_order = input_order_;
  // time steps, then PEs in unrolled order (finish_loops): T * PEs + PE
  v.position = time_;
  for (int64_t& c : v.position.coeff) c = checked_mul(c, pes_);
  v.position.constant = checked_mul(v.position.constant, pes_);
  v.position.add(order_, 1);
  for (size_t i = 0; i < space_; ++i)
    if (!vectorized_.count(loops_[i].name))
      v.space.push_back({loops_[i].name, loops_[i].aff, loops_[i].min, loops_[i].extent});
  v.body = body_;
  v.at = directives_.back()->loc;
  v.what = what();
  return v;
}

Expr KernelTransformer::directive_expr(const DirectiveArg& arg) {
  if (arg.kind != DirectiveArg::kExpr || !arg.value)
    throw Diagnostic({}, "expected an expression, not a list", "stt-reverse");
  return resolve_in_program(arg.value, out_);
}

// t2s-stt spells a taken name with underscores appended (t1_, t1__), where NameSupply::fresh
// numbers it: the names the stt stage has always written.
std::string KernelTransformer::fresh(const std::string& base) {
  std::string name = base;
  while (name_supply_.taken(name)) name += "_";
  name_supply_.take(name);
  return name;
}

}  // namespace stt_internal

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
  NameSupply names(out);
  // The transforms of each Func, in program order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Directive*>> transforms;
  for (const Directive& d : merged.directives) {
    if (!d.is(DirectiveKind::kSpaceTimeTransform)) continue;
    if (!transforms.count(d.func)) order.push_back(d.func);
    transforms[d.func].push_back(&d);
  }
  for (const std::string& f : order) {
    bool found = false;
    for (Kernel& k : out.kernels) found |= k.name == f;
    if (!found)
      throw Diagnostic(transforms[f].front()->loc,
                       "space_time_transform of '" + f +
                           "': it has no kernel of its own (t2s-stt transforms the loop nest of "
                           "a merge group's representative or of an isolated Func)",
                       "stt-func");
  }
  // An isolated consumer without a transform of its own applies the one it inherited (after
  // the own transforms, in kernel order).
  for (const Kernel& k : merged.kernels)
    if (!transforms.count(k.name) && !k.inherited_transforms.empty()) {
      order.push_back(k.name);
      for (const Directive& d : k.inherited_transforms) transforms[k.name].push_back(&d);
    }
  std::map<std::string, stt_internal::KernelView> views;
  // The kernel whose positions are being computed, for a PositionOverflow.
  const Kernel* current = nullptr;
  try {
    for (const std::string& f : order)
      for (Kernel& k : out.kernels)
        if (k.name == f) {
          current = &k;
          stt_internal::KernelTransformer transformer(out, k, transforms[f], names);
          transformer.run();
          views[k.name] = transformer.view();
        }
    for (Kernel& k : out.kernels) {
      current = &k;
      k.inherited_transforms.clear();
      if (!views.count(k.name))
        if (auto v = stt_internal::untransformed_view(k)) views[k.name] = *v;
    }
    current = nullptr;
    stt_internal::arrange_channels(out, views);
  } catch (const stt_internal::PositionOverflow&) {
    const std::string what = current ? "kernel '" + current->name + "'" : "a channel";
    throw Diagnostic(current ? current->loc : SourceLoc{},
                     what +
                         ": the execution-order positions of its iterations overflow 64 bits "
                         "(loop bounds or dependence distances too large; docs/limits.md)",
                     "loop-too-large");
  }
  for (const Kernel& k : out.kernels)
    if (!k.pending_order.empty())
      throw Diagnostic(k.loc,
                       "kernel '" + k.name +
                           "' has a pending loop order but no space_time_transform to apply "
                           "it with (the merged stage gives one only to a transformed kernel)",
                       "stt-func");
  return out;
}

}  // namespace t2s
