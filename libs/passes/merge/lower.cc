// Lowering the groups to kernels: the inlined values, what each kernel reads from memory, the
// global buffers, and each kernel's loop nest with its statements, channel reads and writes and
// local storage.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "libs/passes/merge/rewrite.h"
#include "libs/passes/merge/steps.h"

namespace t2s::merge_internal {

namespace {

constexpr int64_t kMaxStorageElements = int64_t{1} << 31;
constexpr int64_t kMaxLocalStorageElements = int64_t{1} << 52;

void storage_bounds(const Program& merged, const Plan& plan, const std::string& f,
                    std::vector<Expr>* mins, std::vector<Expr>* extents) {
  const Group& g = group(plan, f);
  for (const std::string& a : func(merged, f).args) {
    const LoopBound& b = g.bounds.at(a);
    mins->push_back(make_int(Type::Int(32), b.min));
    extents->push_back(make_int(Type::Int(32), b.extent));
  }
}

void check_storage(const std::string& f, const std::vector<Expr>& extents, const SourceLoc& loc,
                   int64_t limit = kMaxStorageElements, const char* limit_text = "2^31") {
  int64_t n = 1;
  for (const Expr& e : extents) {
    n *= std::max<int64_t>(e->int_value, 1);
    if (n > limit)
      throw Diagnostic(
          loc, "storage of '" + f + "' would exceed " + std::string(limit_text) + " elements",
          "loop-too-large");
  }
}

// The statements computing one value of Func `m` per iteration (`local_reads`: the Funcs its
// kernel reads from its own storage).
StmtList compute(const Program& merged, const Plan& plan, const ProducerChains& chains,
                 const Transfers& transfers, const std::string& m, const Inlined& inlined,
                 const std::set<std::string>& local_reads) {
  const Func& f = func(merged, m);
  Expr value = inlined.value;
  Expr condition;
  if (is_write_when(value)) {
    condition = value->operands[0];
    value = value->operands[1];
  }
  auto it = chains.condition.find(m);
  if (it != chains.condition.end()) condition = it->second;
  // Values arriving over a channel. A read the producer sends whatever a Func condition of
  // the reader says (isolate_value) is taken before the value is computed, into a let.
  std::vector<std::pair<std::string, Expr>> hoisted;  // let name -> the read
  const auto hoist = chains.hoisted_reads.find(m);
  CallInliner to_channel([&](const Expr& call) -> Expr {
    if (call->call_kind != CallKind::kFunc) return nullptr;
    const Channel* c = channel_between(merged, plan, transfers, call->name, m);
    if (!c) return nullptr;
    Expr read = make_call("read_channel", CallKind::kChannel, c->type, {make_var(c->name)});
    if (hoist == chains.hoisted_reads.end() || !hoist->second.count(call->name)) return read;
    const std::string name = c->name + "_value";
    for (const auto& [n, e] : hoisted)
      if (n == name) return make_var(name, c->type, call->loc);
    const Expr& when = hoist->second.at(call->name);
    hoisted.emplace_back(
        name, when ? make_select(when, read, zero_of(c->type), c->type, call->loc) : read);
    return make_var(name, c->type, call->loc);
  });
  value = to_channel.mutate(value);
  // An isolated consumer of a write-when Func copies its condition when that condition only
  // involves the consumer's own loops (otherwise the producer writes once per point).
  const Group& g = group(plan, m);
  if (!g.copies.empty()) {
    const Func& from = func(merged, g.copies);
    if (is_write_when(from.definition)) {
      bool own = true;
      for (const std::string& v : used_vars(from.definition->operands[0]))
        own &= std::count(f.args.begin(), f.args.end(), v) > 0;
      if (own) condition = from.definition->operands[0];
    }
  }
  StmtList stmts;
  bool stored = local_reads.count(m) || transfers.buffered.count(m);
  std::vector<Expr> args = var_exprs(f.args);
  if (stored) {
    stmts.push_back(make_provide(m, args, value, f.loc));
  }
  for (const Channel& c : merged.channels) {
    if (transfers.channel_func.at(c.name) != m) continue;
    stmts.push_back(make_write_channel(
        c.name, {}, stored ? make_call(m, CallKind::kFunc, f.type, args) : value, c.loc));
  }
  const size_t hoisted_by_value = hoisted.size();
  for (auto it = hoisted.rbegin(); it != hoisted.rend(); ++it)
    stmts = {make_let(it->first, it->second, stmts, f.loc)};
  if (condition) stmts = {make_if(condition, stmts, {}, f.loc)};
  // Inlined values used more than once, bound before they are used (outermost first).
  for (auto it = inlined.lets.rbegin(); it != inlined.lets.rend(); ++it) {
    stmts = {make_let(it->first, to_channel.mutate(it->second), stmts, f.loc)};
    // The isolated read is in the reader's own definition, never in an inlined Func's.
    if (hoisted.size() != hoisted_by_value)
      throw InternalError("merge: the hoisted read of '" + m + "' is inside the let '" + it->first +
                          "'");
  }
  return stmts;
}

// The kernel of group `g` (`local_reads`: the Funcs it reads from its own storage).
Kernel make_kernel(const Program& merged, const Plan& plan, const ProducerChains& chains,
                   const Transfers& transfers, const InlinedValues& values, const Group& g,
                   const std::set<std::string>& local_reads) {
  Kernel k;
  k.name = g.rep;
  k.place = on_device(merged, plan, g.rep) ? Place::kDevice : Place::kHost;
  k.loc = func(merged, g.rep).loc;
  k.pending_order = g.pending_order;
  if (auto it = plan.inherited.find(g.rep); it != plan.inherited.end())
    k.inherited_transforms = it->second;
  StmtList inner;
  for (const std::string& m : g.members) {
    for (const StmtPtr& s : compute(merged, plan, chains, transfers, m, values.at(m), local_reads))
      inner.push_back(s);
  }
  // Loops, innermost first in loop_vars.
  StmtList body = inner;
  for (const std::string& v : g.loop_vars) {
    if (plan.nests.count(g.rep)) break;  // split or unrolled loops: nest_loops (split.cc)
    body = {make_for(v, make_int(Type::Int(32), g.bounds.at(v).min),
                     make_int(Type::Int(32), g.bounds.at(v).extent), LoopKind::kSerial, body)};
  }
  if (plan.nests.count(g.rep)) body = nest_loops(plan, g, inner);
  if (auto v = plan.vectorized.find(g.rep); v != plan.vectorized.end())
    mark_vectorized(g.rep, v->second, &body);
  // Local storage for Funcs read inside this kernel only.
  for (auto it = g.members.rbegin(); it != g.members.rend(); ++it) {
    if (!local_reads.count(*it) || transfers.buffered.count(*it)) continue;
    std::vector<Expr> mins, extents;
    storage_bounds(merged, plan, *it, &mins, &extents);
    // The merged stage keeps a URE read in its own kernel over its whole loop nest, storage no
    // design holds (t2s-stt makes it registers): limited only as the loop nest is; t2s-run
    // refuses to allocate past --max-memory.
    check_storage(*it, extents, func(merged, *it).loc, kMaxLocalStorageElements, "2^52");
    body = {make_realize(*it, func(merged, *it).type, mins, extents, body, func(merged, *it).loc)};
  }
  k.body = body;
  return k;
}

}  // namespace

InlinedValues inline_values(const Program& merged, const Plan& plan, const Transfers& transfers) {
  InlinedValues values;
  for (const Group& g : plan.groups)
    for (const std::string& m : g.members)
      values[m] = inline_calls(merged, plan, func(merged, m).definition, [&](const std::string& f) {
        return channel_between(merged, plan, transfers, f, m) != nullptr;
      });
  return values;
}

KernelDependences find_kernel_dependences(const MergeContext& ctx, const Program& merged,
                                          const Plan& plan, const InlinedValues& values,
                                          const DeviceReadRefusals& refusals,
                                          Transfers& transfers) {
  KernelDependences deps;
  for (const Group& g : plan.groups) {
    for (const std::string& m : g.members) {
      const Inlined& value = values.at(m);
      std::vector<std::string> called = called_funcs(value.value);
      for (const auto& [name, v] : value.lets)
        for (const std::string& c : called_funcs(v))
          if (std::find(called.begin(), called.end(), c) == called.end()) called.push_back(c);
      for (const std::string& c : called) {
        if (kernel_of(plan, c) == g.rep) {
          deps.local_reads[g.rep].insert(c);
          continue;
        }
        if (channel_between(merged, plan, transfers, c, m)) continue;
        if (on_device(merged, plan, g.rep) && on_device(merged, plan, kernel_of(plan, c))) {
          auto why = refusals.find({m, c});
          throw Diagnostic(func(merged, m).loc,
                           "device Func '" + m + "' reads '" + c +
                               "', which another device kernel computes, and the read cannot "
                               "be a channel" +
                               (why == refusals.end() ? "" : ": " + why->second) +
                               "; connect them with isolate_consumer or isolate_producer_chain",
                           "merge-device-read");
        }
        transfers.buffered.insert(c);
        deps.needs[g.rep].insert(kernel_of(plan, c));
        deps.reasons.emplace(
            std::make_pair(g.rep, kernel_of(plan, c)),
            KernelDependences::Reason{m, "'" + m + "' reads '" + c + "' from memory"});
      }
    }
  }
  transfers.buffered.insert(ctx.parsed.output.func);
  // After the reads from memory: a kernel that also reads a channel of the same kernel keeps
  // the memory read as the reason (emplace keeps the first).
  for (const Channel& c : merged.channels) {
    deps.needs[c.consumer].insert(c.producer);
    deps.reasons.emplace(
        std::make_pair(c.consumer, c.producer),
        KernelDependences::Reason{c.consumer, "'" + c.consumer + "' reads channel '" + c.name +
                                                  "' that '" + c.producer + "' writes"});
  }
  return deps;
}

std::vector<Buffer> make_buffers(const MergeContext& ctx, const Program& merged, const Plan& plan,
                                 const Transfers& transfers) {
  const Output& realized = ctx.parsed.output;
  std::vector<Buffer> buffers;
  for (const Func& f : merged.funcs) {
    if (!transfers.buffered.count(f.name)) continue;
    Buffer b;
    b.name = f.name;
    b.type = f.type;
    b.loc = f.loc;
    if (f.name == realized.func) {
      for (int64_t e : realized.extents) {
        b.mins.push_back(make_int(Type::Int(32), 0));
        b.extents.push_back(make_int(Type::Int(32), e));
      }
    } else {
      storage_bounds(merged, plan, f.name, &b.mins, &b.extents);
    }
    check_storage(f.name, b.extents, f.loc);
    buffers.push_back(b);
  }
  return buffers;
}

std::vector<Kernel> make_kernels(const Program& merged, const Plan& plan,
                                 const ProducerChains& chains, const Transfers& transfers,
                                 const InlinedValues& values, const KernelDependences& deps) {
  const std::vector<std::string> names = kernel_names(merged, plan);
  std::set<std::string> device;
  for (const std::string& k : names)
    if (on_device(merged, plan, k)) device.insert(k);
  const std::set<std::string> none;
  std::vector<Kernel> kernels;
  for (const std::string& k : order_kernels(names, merged.channels, deps.needs, device)) {
    auto local = deps.local_reads.find(k);
    kernels.push_back(make_kernel(merged, plan, chains, transfers, values, group(plan, k),
                                  local == deps.local_reads.end() ? none : local->second));
  }
  return kernels;
}

}  // namespace t2s::merge_internal
