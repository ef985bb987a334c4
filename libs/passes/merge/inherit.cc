// The schedule an isolated consumer inherits, and an isolated device producer of an array whose
// transform schedules time (inherit_array_schedule) (LANGUAGE.md section 5: isolate_consumer copies
// P's "arguments, bounds, loop order, loop kinds and space-time transform"). copy_nest (split.cc)
// already copies the loops, bounds and splits; this file copies the rest, adapted to the loops
// the consumer has (the arguments of the Func it consumes):
//
//   - the space_time_transform directives that apply to the producer's kernel (its own, or those
//     it inherited), recorded in Plan::inherited for Kernel::inherited_transforms (t2s-stt applies
//     them); replaced by the consumer's own space_time_transform, if it has one;
//   - the pending loop order that goes with those transforms (Kernel::pending_order);
//   - the vectorized loops (replaced by the consumer's own vectorize directives) and the
//     unrolled loops (dropped when the consumer has its own transform), on loops it has.
//
// Adapting a transform to the consumer's loops (docs/ir.md, "Isolation"): a simple form keeps
// the space loops the consumer has, with their coefficients; a space loop it lacks (a lane of
// the producer's PEs, or a loop the producer writes the values at one value of, such as the
// reduction's last PE) is dropped, and a step with no space loop left ends the copy (with the
// steps after it); its scheduling vector is dropped when no loop of the consumer is left for
// time (every PE then runs once: c(i, j) of a GEMM transformed with ({i, j}, {1, 1})) or the
// consumer lacks the loop the vector skews in the source (its first loop out of the space
// loops). A
// general form is copied as it is when the consumer has all of its source
// loops, else it ends the copy. Loops outside the space loops need nothing: the consumer's next
// loop out becomes time, and the loops it lacks (the reduction kk) are not there.
#include <algorithm>
#include <optional>
#include <set>

#include "libs/passes/merge/plan.h"

namespace t2s::merge_internal {

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool has_directive(const Program& p, const std::string& func,
                   std::initializer_list<DirectiveKind> kinds) {
  for (const Directive& d : p.directives)
    if (d.func == func)
      for (DirectiveKind k : kinds)
        if (d.is(k)) return true;
  return false;
}

namespace {

// The loops the kernel of `g` runs, innermost first (its split loops too).
std::vector<std::string> nest_loops_of(const Plan& plan, const Group& g) {
  auto it = plan.nests.find(g.rep);
  return it == plan.nests.end() || it->second.splits.empty() ? g.loop_vars : it->second.loops;
}

// The loops of `rep`'s kernel its vectorize directives (own or inherited) made lanes.
std::set<std::string> lanes_of(const Plan& plan, const std::string& rep) {
  std::set<std::string> out;
  if (auto v = plan.vectorized.find(rep); v != plan.vectorized.end())
    for (const auto& [loop, at] : v->second) out.insert(loop);
  return out;
}

// The lanes of a copy `rep`: those it has now and those its own vectorize directives, applied
// after the copy, will make.
std::set<std::string> copy_lanes(const Program& p, const Plan& plan, const std::string& rep) {
  std::set<std::string> lanes = lanes_of(plan, rep);
  for (const Directive& d : p.directives)
    if (d.func == rep && d.is(DirectiveKind::kVectorize) && !d.args.empty())
      lanes.insert(d.args[0].text);
  return lanes;
}

std::vector<std::string> names(const DirectiveArg& list) {
  std::vector<std::string> out;
  for (const DirectiveArg& a : list.items) out.push_back(a.text);
  return out;
}

// `transforms` adapted to a kernel whose loops are `loops` and whose vectorized loops are
// `lanes` (see the comment at the top).
std::vector<Directive> adapt(const std::vector<Directive>& transforms,
                             const std::vector<std::string>& from_loops,
                             const std::set<std::string>& from_lanes,
                             const std::vector<std::string>& loops,
                             const std::set<std::string>& lanes, const SourceLoc& loc) {
  std::vector<Directive> out;
  std::vector<std::string> previous;  // the space loops of the last step copied
  for (const Directive& d : transforms) {
    Directive c = d;
    c.loc = loc;
    const bool simple = d.args.size() == 3 && d.args[0].kind == DirectiveArg::kList &&
                        d.args[1].kind == DirectiveArg::kList;
    const bool general = d.args.size() == 5 && d.args[0].kind == DirectiveArg::kList &&
                         d.args[1].kind == DirectiveArg::kList;
    std::vector<std::string> space;
    if (simple) {
      const std::vector<std::string> all = names(d.args[0]);
      const bool coefficients = d.args[1].items.size() == all.size();
      std::vector<DirectiveArg> kept, vector;
      for (size_t i = 0; i < all.size(); ++i) {
        if (!contains(loops, all[i])) continue;
        kept.push_back(d.args[0].items[i]);
        if (coefficients) vector.push_back(d.args[1].items[i]);
        space.push_back(all[i]);
      }
      if (space.empty()) break;
      // A chain's space loops shrink at every step; a step the drop made equal to the one
      // before adds nothing the consumer can use.
      if (!previous.empty()) {
        bool proper = space.size() < previous.size();
        for (const std::string& s : space) proper &= contains(previous, s);
        if (!proper) break;
      }
      // A scheduling vector needs a loop left for time (the lanes are not): without one, every
      // PE runs once and the vector has nothing to skew. And it skews the loop it was written
      // for, the first loop out of the space loops in the source's nest: a copy that lacks
      // that loop (a drainer without the reduction loop k) would skew another one, an outer
      // loop the source runs its whole time range inside of, and read the PEs' values in
      // another order than they are written.
      bool time_left = false;
      for (const std::string& l : loops) time_left |= !contains(space, l) && !lanes.count(l);
      if (out.empty())
        for (const std::string& l : from_loops)
          if (!contains(all, l) && !from_lanes.count(l)) {
            time_left &= contains(loops, l);
            break;
          }
      c.args[0] = DirectiveArg::list(kept);
      c.args[1] =
          DirectiveArg::list(coefficients && time_left ? vector : std::vector<DirectiveArg>{});
    } else if (general) {
      bool all = true;
      for (const std::string& s : names(d.args[0])) all &= contains(loops, s);
      if (!all) break;
      const std::vector<std::string> dst = names(d.args[1]);
      space.assign(dst.begin(), dst.end() - (dst.empty() ? 0 : 1));
    } else {
      // Not in the normal form: t2s-stt reports it on the copy.
      out.push_back(c);
      break;
    }
    out.push_back(c);
    previous = space;
  }
  return out;
}

}  // namespace

std::vector<Directive> transforms_of(const Program& p, const Plan& plan, const std::string& rep) {
  std::vector<Directive> own;
  for (const Directive& d : p.directives)
    if (d.func == rep && d.is(DirectiveKind::kSpaceTimeTransform)) own.push_back(d);
  if (!own.empty()) return own;
  auto it = plan.inherited.find(rep);
  return it == plan.inherited.end() ? std::vector<Directive>{} : it->second;
}

void inherit_schedule(const Program& p, Plan& plan, Group& to, const Group& from,
                      const SourceLoc& loc) {
  const std::vector<std::string> loops = nest_loops_of(plan, to);
  const bool own_transform = has_directive(p, to.rep, {DirectiveKind::kSpaceTimeTransform});
  if (!has_directive(p, to.rep, {DirectiveKind::kVectorize}))
    if (auto v = plan.vectorized.find(from.rep); v != plan.vectorized.end())
      for (const auto& [loop, at] : v->second)
        if (contains(loops, loop)) plan.vectorized[to.rep].emplace(loop, loc);
  if (!own_transform) {
    std::vector<Directive> copied =
        adapt(transforms_of(p, plan, from.rep), nest_loops_of(plan, from), lanes_of(plan, from.rep),
              loops, copy_lanes(p, plan, to.rep), loc);
    if (!copied.empty()) {
      plan.inherited[to.rep] = copied;
      // The loop order the transforms were written for, when the merged stage left it to
      // t2s-stt; the consumer's own reorder or split replaces it.
      if (!from.pending_order.empty() &&
          !has_directive(p, to.rep, {DirectiveKind::kReorder, DirectiveKind::kSplit}))
        for (const std::string& l : from.pending_order)
          if (contains(loops, l)) to.pending_order.push_back(l);
      if (to.pending_order.size() != loops.size()) to.pending_order.clear();
    }
  }
  if (!own_transform)
    if (auto n = plan.nests.find(from.rep); n != plan.nests.end())
      for (const auto& [loop, at] : n->second.unrolled)
        if (contains(loops, loop)) {
          Directive unroll =
              Directive::make(to.rep, DirectiveKind::kUnroll, {DirectiveArg::expr(loop)}, loc);
          apply_loop_directive(plan, to, unroll);
        }
}

bool inherit_array_schedule(const Program& p, Plan& plan, Group& producer, const Group& reader,
                            const SourceLoc& loc) {
  if (has_directive(p, producer.rep, {DirectiveKind::kSpaceTimeTransform})) return false;
  const std::vector<Directive> transforms = transforms_of(p, plan, reader.rep);
  bool scheduled = false;
  for (const Directive& d : transforms) {
    if (d.args.size() == 5) scheduled = true;  // the general form: its last row is the schedule
    if (d.args.size() == 3 && d.args[1].kind == DirectiveArg::kList)
      for (const DirectiveArg& c : d.args[1].items) scheduled |= c.text != "0";
  }
  // The producer, copied without the array's splits, takes them when it has no loop directives
  // of its own: lanes on a split loop (`vectorize(k, 4)`) are then loops it has too. Undone
  // below when nothing is inherited.
  const auto nest_before = plan.nests.find(producer.rep) == plan.nests.end()
                               ? std::optional<LoopNest>()
                               : std::optional<LoopNest>(plan.nests.at(producer.rep));
  const bool copies_nest = !has_directive(p, producer.rep,
                                          {DirectiveKind::kSplit, DirectiveKind::kReorder,
                                           DirectiveKind::kVectorize, DirectiveKind::kUnroll});
  if (copies_nest) copy_nest(plan, producer, reader, producer.loop_vars);
  // The array's lanes inside its space loops come too (a consumer's do): the transform names
  // its space loops as the innermost but for lanes.
  const std::vector<std::string> loops = nest_loops_of(plan, producer);
  // A projection (no time scheduled) is inherited too when the array has lanes the producer
  // has and does not vectorize itself: the array reads each PE's lanes in one step, which a
  // producer running its loops in their own order (the lane loop outermost) cannot send in.
  // So is one that vectorizes only lanes of the array (T2SP's Stensor feeders vectorize the
  // bank width the array vectorizes): its lanes are the array's.
  if (!scheduled)
    if (auto v = plan.vectorized.find(reader.rep); v != plan.vectorized.end()) {
      bool own_lanes_are_arrays = true;
      for (const Directive& d : p.directives)
        if (d.func == producer.rep && d.is(DirectiveKind::kVectorize) && !d.args.empty())
          own_lanes_are_arrays &= v->second.count(d.args[0].text) > 0;
      if (own_lanes_are_arrays)
        for (const auto& [loop, at] : v->second) scheduled |= contains(loops, loop);
    }
  if (!scheduled) {
    if (copies_nest) {
      if (nest_before)
        plan.nests[producer.rep] = *nest_before;
      else
        plan.nests.erase(producer.rep);
    }
    return false;
  }
  if (!has_directive(p, producer.rep, {DirectiveKind::kVectorize}))
    if (auto v = plan.vectorized.find(reader.rep); v != plan.vectorized.end())
      for (const auto& [loop, at] : v->second)
        if (contains(loops, loop)) plan.vectorized[producer.rep].emplace(loop, loc);
  std::vector<Directive> copied =
      adapt(transforms, nest_loops_of(plan, reader), lanes_of(plan, reader.rep),
            nest_loops_of(plan, producer), copy_lanes(p, plan, producer.rep), loc);
  if (copied.empty()) return false;
  plan.inherited[producer.rep] = copied;
  if (!reader.pending_order.empty() &&
      !has_directive(p, producer.rep, {DirectiveKind::kReorder, DirectiveKind::kSplit}) &&
      reader.pending_order.size() == producer.loop_vars.size())
    producer.pending_order = reader.pending_order;
  return true;
}

}  // namespace t2s::merge_internal
