// The channels between device kernels: one per isolation edge between device kernels, and one
// per read of a device Func's kernel by another device kernel that can take it as a stream; each
// visited in one order at both ends.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "libs/ir/expr_printer.h"
#include "libs/ir/strings.h"
#include "libs/ir/visitor.h"
#include "libs/passes/merge/steps.h"

namespace t2s::merge_internal {

namespace {

// An isolated consumer that copies its producer's loops and orders them itself in no way (no
// reorder or split of its own, no pending order) may visit the values in the order the
// producer sends them: each of its loops takes the place in the producer's nest of the loop
// the sent condition ties it to (T2SP's LU sends O(i, bb, j, b) under `j == k`, so j runs at
// k's place, outside bb), else its own place. A consumer with a transform of its own keeps its
// order for t2s-stt as a pending order. True when the loops were reordered (the caller checks
// the new order again).
bool follow_producer_order(const MergeContext& ctx, const Plan& plan, const Group& producer,
                           Group& consumer, const std::vector<std::string>& args,
                           const Expr& sent) {
  if (consumer.copies.empty() || consumer.reorder >= 0 || !consumer.pending_order.empty() ||
      has_directive(ctx.parsed, consumer.rep, {DirectiveKind::kSplit, DirectiveKind::kReorder}))
    return false;
  if (auto n = plan.nests.find(consumer.rep); n != plan.nests.end() && !n->second.splits.empty())
    return false;
  auto place = [&](const std::string& v) -> size_t {
    return static_cast<size_t>(std::find(producer.loop_vars.begin(), producer.loop_vars.end(), v) -
                               producer.loop_vars.begin());
  };
  std::map<std::string, size_t> key;
  for (const std::string& v : consumer.loop_vars) key[v] = place(v);
  if (sent)
    for_each_expr(sent, [&](const Expr& e) {
      if (e->kind != ExprKind::kBinary || e->binary_op != BinaryOp::kEQ) return;
      const Expr &a = e->operands[0], &b = e->operands[1];
      if (a->kind != ExprKind::kVar || b->kind != ExprKind::kVar) return;
      for (const auto& [arg, loop] : {std::pair(a->name, b->name), std::pair(b->name, a->name)})
        if (key.count(arg) && contains(args, arg) && !contains(args, loop) &&
            place(loop) < producer.loop_vars.size())
          key[arg] = place(loop);
    });
  std::vector<std::string> order = consumer.loop_vars;
  std::stable_sort(order.begin(), order.end(),
                   [&](const std::string& x, const std::string& y) { return key[x] < key[y]; });
  if (order == consumer.loop_vars) return false;
  const bool transformed =
      has_directive(ctx.parsed, consumer.rep, {DirectiveKind::kSpaceTimeTransform}) ||
      plan.inherited.count(consumer.rep);
  if (transformed) consumer.pending_order = consumer.loop_vars;
  consumer.loop_vars = order;
  return true;
}

// Both ends of channel `c`, which carries the values of edge `iso`, visit its values in one
// order (a FIFO pairs them in order); a reorder of an isolated Func must keep it. The consumer
// may follow its producer's order (follow_producer_order, which changes its group in `plan`).
void check_channel_order(const MergeContext& ctx, const ProducerChains& chains,
                         const Program& merged, Plan& plan, const Isolation& iso,
                         const Channel& c) {
  const Func& from = func(merged, iso.from);
  Expr sent;
  if (auto it = chains.condition.find(iso.from); it != chains.condition.end())
    sent = it->second;
  else if (from.definition && is_write_when(from.definition))
    sent = from.definition->operands[0];
  const Group& producer = group(plan, iso.from);
  Group& consumer = group(plan, iso.to);
  auto swap = channel_order_swap(plan, producer, consumer, from.args, sent);
  if (swap && follow_producer_order(ctx, plan, producer, consumer, from.args, sent))
    swap = channel_order_swap(plan, producer, consumer, from.args, sent);
  if (!swap) return;
  auto value = [&](const std::vector<int64_t>& at) {
    std::string s = from.name + "(";
    for (size_t i = 0; i < at.size(); ++i) s += (i ? ", " : "") + std::to_string(at[i]);
    return s + ")";
  };
  SourceLoc loc = iso.loc;  // at the reorder of the isolated end, if any
  std::string what = "the loop orders of '" + producer.rep + "' and '" + consumer.rep + "'";
  for (const Group* g : {static_cast<const Group*>(&consumer), &producer})
    if (is_isolation_target(ctx, plan, g->rep) && g->reorder >= 0) {
      loc = ctx.parsed.directives[g->reorder].loc;
      what = "reorder of '" + g->rep + "'";
    }
  throw Diagnostic(loc,
                   what + " makes the two ends of channel '" + c.name +
                       "' visit its values in different orders: '" + producer.rep + "' sends " +
                       value(swap->first) + " before " + value(swap->second) + ", but '" +
                       consumer.rep +
                       "' reads them in the other order (a channel keeps the order values are "
                       "written in; both ends must visit them in one order)",
                   "isolate-order");
}

// Why the read of `c` by `m` cannot be a channel ("" when it can).
std::string device_channel_refusal(const MergeContext& ctx, const Program& merged, const Plan& plan,
                                   const std::string& c, const std::string& m) {
  if (c == ctx.parsed.output.func) return "'" + c + "' is the realized output";
  // Every call of c outside its own definition, and where it sits.
  int calls = 0;
  bool conditional = false;
  Expr call;
  for (const Func& f : merged.funcs) {
    if (f.name == c || !f.definition) continue;
    std::function<void(const Expr&, bool)> walk = [&](const Expr& e, bool under) {
      if (e->kind == ExprKind::kCall && e->call_kind == CallKind::kFunc && e->name == c) {
        ++calls;
        if (f.name == m) {
          call = e;
          conditional = conditional || under;
        }
      }
      if (e->kind == ExprKind::kSelect) {
        walk(e->operands[0], under);
        for (size_t i = 1; i < e->operands.size(); ++i) walk(e->operands[i], true);
        return;
      }
      if (e->kind == ExprKind::kBinary &&
          (e->binary_op == BinaryOp::kAnd || e->binary_op == BinaryOp::kOr)) {
        walk(e->operands[0], under);
        walk(e->operands[1], true);
        return;
      }
      for (const Expr& o : e->operands) walk(o, under);
    };
    walk(f.definition, false);
  }
  if (calls != 1)
    return "'" + c + "' is read " + std::to_string(calls) +
           " times in the program (a channel has one reader, which takes each value once)";
  if (conditional) return "the read of '" + c + "' is under a condition";
  const Func& cf = func(merged, c);
  if (call->operands.size() != cf.args.size()) return "the read of '" + c + "' is malformed";
  for (size_t a = 0; a < cf.args.size(); ++a)
    if (call->operands[a]->kind != ExprKind::kVar || call->operands[a]->name != cf.args[a])
      return "the read " + print_expr(call) + " is not at " + c + "'s own arguments (" +
             join(cf.args, ", ") + ")";
  const Group &producer = group(plan, c), &consumer = group(plan, m);
  std::set<std::string> args(cf.args.begin(), cf.args.end());
  for (const std::string& v : consumer.loop_vars)
    if (!args.count(v))
      return "'" + consumer.rep + "' has the loop '" + v + "', which '" + c +
             "' lacks: it would read each value more than once";
  for (const std::string& a : cf.args) {
    auto p = producer.bounds.find(a), q = consumer.bounds.find(a);
    if (p == producer.bounds.end() || q == consumer.bounds.end() ||
        p->second.min != q->second.min || p->second.extent != q->second.extent)
      return "the loops '" + a + "' of '" + producer.rep + "' and '" + consumer.rep +
             "' have different bounds";
  }
  return "";
}

}  // namespace

const Channel* channel_between(const Program& merged, const Plan& plan, const Transfers& transfers,
                               const std::string& from, const std::string& to) {
  for (const Channel& c : merged.channels)
    if (c.producer == kernel_of(plan, from) && c.consumer == kernel_of(plan, to) &&
        transfers.channel_func.at(c.name) == from)
      return &c;
  return nullptr;
}

namespace {

// The depth of a channel carrying the values of Func `from` out of kernel `producer`: T2SP's
// `F.min_depth(n)` deepens the channels out of F (`aLoader.min_depth(256)` the one from the
// loader to its feeder), where F is the Func whose values travel or the kernel that sends them;
// 0 (the default) when neither has one.
int64_t min_depth_of(const Plan& plan, const std::string& from, const std::string& producer) {
  if (plan.min_depth.count(from)) return plan.min_depth.at(from);
  if (plan.min_depth.count(producer)) return plan.min_depth.at(producer);
  return 0;
}

}  // namespace

void connect_isolations(const MergeContext& ctx, const ProducerChains& chains, NameSupply& names,
                        Program& merged, Plan& plan, Transfers& transfers) {
  for (const Isolation& iso : plan.isolations) {
    bool channel = on_device(merged, plan, kernel_of(plan, iso.from)) &&
                   on_device(merged, plan, kernel_of(plan, iso.to));
    if (!channel) {
      transfers.buffered.insert(iso.from);
      continue;
    }
    Channel c;
    c.name = names.fresh(iso.from + "_to_" + iso.to);
    c.type = func(merged, iso.from).type;
    c.producer = kernel_of(plan, iso.from);
    c.depth = min_depth_of(plan, iso.from, c.producer);
    c.consumer = kernel_of(plan, iso.to);
    c.loc = iso.loc;
    transfers.channel_func[c.name] = iso.from;
    merged.channels.push_back(c);
    check_channel_order(ctx, chains, merged, plan, iso, c);
  }
}

// As in T2S, device kernels talk over channels (seed 002 1.1 matches the lanes when both ends
// vectorize). The read must take each value once, in the order it is computed: one call in the
// whole program, unconditional, at the reader's own loop variables named as the Func's
// arguments, over the same bounds, the reader having no other loop. Otherwise merge-device-read
// says which of these fails.
DeviceReadRefusals connect_device_reads(const MergeContext& ctx, const ProducerChains& chains,
                                        NameSupply& names, Program& merged, Plan& plan,
                                        Transfers& transfers) {
  DeviceReadRefusals refusals;
  for (const Group& g : plan.groups) {
    if (!on_device(merged, plan, g.rep)) continue;
    for (const std::string& m : g.members) {
      if (!func(merged, m).definition) continue;
      for (const std::string& c : called_funcs(func(merged, m).definition)) {
        if (!plan.group_of.count(c) || kernel_of(plan, c) == g.rep ||
            channel_between(merged, plan, transfers, c, m) ||
            !on_device(merged, plan, kernel_of(plan, c)))
          continue;
        std::string why = device_channel_refusal(ctx, merged, plan, c, m);
        if (!why.empty()) {
          refusals[{m, c}] = why;
          continue;
        }
        Channel ch;
        ch.name = names.fresh(c + "_to_" + m);
        ch.type = func(merged, c).type;
        ch.producer = kernel_of(plan, c);
        ch.depth = min_depth_of(plan, c, ch.producer);
        ch.consumer = kernel_of(plan, m);
        ch.loc = func(merged, m).loc;
        transfers.channel_func[ch.name] = c;
        merged.channels.push_back(ch);
        check_channel_order(ctx, chains, merged, plan, Isolation{c, m, func(merged, m).loc},
                            merged.channels.back());
      }
    }
  }
  return refusals;
}

void check_min_depths(const MergeContext& ctx, const Program& merged, const Plan& plan,
                      const Transfers& transfers) {
  for (const auto& [f, depth] : plan.min_depth) {
    bool found = false;
    for (const Channel& c : merged.channels)
      found |= c.producer == f || transfers.channel_func.at(c.name) == f;
    if (!found)
      throw Diagnostic(ctx.min_depth_at.at(f),
                       "min_depth on '" + f +
                           "', which sends over no channel (min_depth sets the depth of the "
                           "channels out of a Func, to its consumers on the device)",
                       "min-depth");
  }
}

}  // namespace t2s::merge_internal
