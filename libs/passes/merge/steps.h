// Internal to libs/passes/merge: the steps of merge_pass (merge.cc lists them in order) besides
// those plan.h declares, and the values they pass on, shared by the files of the pass (directives,
// loops, isolate, channels, lower, kernel_order). Not part of the library's interface; merge.h is.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "libs/ir/program.h"
#include "libs/ir/program_facts.h"
#include "libs/passes/merge/plan.h"

namespace t2s::merge_internal {

// What the steps after read_directives read and none changes: the spec as parsed, and the
// directives of the merge stage that are not in the plan.
struct MergeContext {
  const Program& parsed;
  // set_bounds, reorder, split, unroll and vectorize, in program order (apply_loop_directives).
  std::vector<const Directive*> loop_directives;
  std::vector<const Directive*> producer_chains;  // isolate_producer_chain, in program order
  std::map<std::string, SourceLoc> min_depth_at;  // Func -> its min_depth directive
};

// The loop directives of isolated Funcs (Func -> its directives, in program order), which wait
// until isolation has copied their loops.
using DeferredDirectives = std::map<std::string, std::vector<const Directive*>>;

// What isolate_producers decides about the values its producers send, for the lowering.
struct ProducerChains {
  std::map<std::string, Expr> condition;  // producer Func -> when it sends
  // reader -> (last producer -> the loop conditions of the read): reads under a Func condition,
  // taken into a let before the reader's value (make_kernels).
  std::map<std::string, std::map<std::string, Expr>> hoisted_reads;
};

// How values leave the kernel that computes them: over the merged program's channels, or
// through global buffers.
struct Transfers {
  std::map<std::string, std::string> channel_func;  // channel -> the Func it carries
  std::set<std::string> buffered;                   // Funcs stored in global buffers
};

// (reader, Func) -> why connect_device_reads made no channel, for merge-device-read.
using DeviceReadRefusals = std::map<std::pair<std::string, std::string>, std::string>;

// Every computed Func (a member of a group) -> its definition with the inlined calls replaced.
using InlinedValues = std::map<std::string, Inlined>;

// What the kernels read from memory, and so which kernels must run before which.
struct KernelDependences {
  std::map<std::string, std::set<std::string>> local_reads;  // kernel -> its own Funcs it reads
  std::map<std::string, std::set<std::string>> needs;        // kernel -> the kernels it needs
  // Why a kernel depends on another (for kernel-cycle): the Func that reads, and how.
  struct Reason {
    std::string reader, what;
  };
  std::map<std::pair<std::string, std::string>, Reason> reasons;  // (kernel, kernel it needs)
};

// Helpers of the steps.

// The name a directive argument gives (its text).
inline const std::string& arg_name(const DirectiveArg& a) { return a.text; }
// An integer argument; a Diagnostic (constant-expected) at `loc` when it is not one.
int64_t arg_int(const DirectiveArg& a, const SourceLoc& loc);
// Func `name` of `p`, which has it.
inline const Func& func(const Program& p, const std::string& name) { return *p.find_func(name); }
inline Func& func(Program& p, const std::string& name) { return *p.find_func(name); }
// `p` has Func `name` and it has a definition.
inline bool defined(const Program& p, const std::string& name) {
  const Func* f = p.find_func(name);
  return f && f->definition;
}
// The group that computes Func `f`, which has one.
inline Group& group(Plan& plan, const std::string& f) { return plan.groups[plan.group_of.at(f)]; }
inline const Group& group(const Plan& plan, const std::string& f) {
  return plan.groups[plan.group_of.at(f)];
}
// The kernel that computes Func `f`: its group's representative.
inline const std::string& kernel_of(const Plan& plan, const std::string& f) {
  return group(plan, f).rep;
}
// Some member of the group of `kernel` is on Place::Device.
inline bool on_device(const Program& p, const Plan& plan, const std::string& kernel) {
  for (const std::string& m : group(plan, kernel).members)
    if (func(p, m).place == Place::kDevice) return true;
  return false;
}
// A value 0 of `t`.
inline Expr zero_of(Type t) {
  return t.is_float() ? make_float(t, 0.0) : t.is_bool() ? make_bool(false) : make_int(t, 0);
}
// `f` gets its loops from the Func it is isolated from: the consumer of an isolation edge (so
// far) or a producer of an isolate_producer_chain.
bool is_isolation_target(const MergeContext& ctx, const Plan& plan, const std::string& f);
// The representatives of the groups that are isolation targets.
std::set<std::string> isolation_targets(const MergeContext& ctx, const Plan& plan);
// The channel carrying `from`'s values into the kernel of `to`, or null.
const Channel* channel_between(const Program& merged, const Plan& plan, const Transfers& transfers,
                               const std::string& from, const std::string& to);

// The steps, in the order merge_pass runs them (with those of plan.h). `merged` is the program
// being built: the parsed one until isolation defines Funcs and lowering adds channels.

// directives.cc. The merge_ures groups, the isolation edges of isolate_consumer(_chain) and the
// min_depths into `plan`; the rest of the merge stage's directives into the context. Refuses a
// directive of the merge stage it does not implement.
MergeContext read_directives(const Program& parsed, Plan& plan);
// A group for every Func that is not merged and has a loop nest of its own (realized,
// recursive, isolated, gathered or compute_root); the others are inlined. Refuses a call of a
// Func that is never defined.
void make_groups(const MergeContext& ctx, const Program& merged, Plan& plan);
// Funcs that depend on each other must share a loop nest (merge_ures).
void check_cycles(const Program& merged, const Plan& plan);
// The realized Func is the end of its consumer chain: a consumer isolated from it would get
// values nothing reads (its kernel would be dead; t2s-stt found it empty).
void check_realized_consumer(const MergeContext& ctx, const Plan& plan);

// loops.cc. Applies the loop directives of the groups with loops of their own; returns those of
// isolated Funcs, which have no loops until isolation copies them.
DeferredDirectives apply_loop_directives(const MergeContext& ctx, Plan& plan);
// The realize extents bound the loops of the realized Func, or of the Func its consumer chain
// starts from (whose loops it copies).
void bound_realized_loops(const MergeContext& ctx, const Program& merged, Plan& plan);
// Every loop of a group that copies no other has bounds (merge-bounds), before the isolated
// Funcs copy them.
void check_merge_bounds(const MergeContext& ctx, const Plan& plan);
// `g` (an isolated Func, its loops copied) gets its deferred loop directives, in program order
// (isolate.cc, for each Func it isolates).
void apply_deferred(const MergeContext& ctx, const DeferredDirectives& deferred, Plan& plan,
                    Group& g);
// Every loop of every group has bounds (merge-bounds), and no nest has more than
// kMaxIterations iterations (loop-too-large).
void check_loop_bounds(const Plan& plan);

// isolate.cc. Each isolated consumer becomes a copy of the Func it is isolated from, with its
// loops and schedule, then its own deferred loop directives.
void isolate_consumers(const MergeContext& ctx, const DeferredDirectives& deferred, Program& merged,
                       Plan& plan);
// Each isolate_producer_chain: its producers (new Funcs for the values of a list after the
// first, named by `names`) compute the isolated value with the reader's loops, and the reader
// reads the last of them; the isolation edges of the chain go into `plan`.
ProducerChains isolate_producers(const MergeContext& ctx, const DeferredDirectives& deferred,
                                 NameSupply& names, Program& merged, Plan& plan);

// channels.cc. A channel (named by `names`) for each isolation edge between device kernels,
// each checked to be visited in one order at both ends (an isolated consumer may take its
// producer's order: `plan`); the Funcs of the other edges go to global buffers.
void connect_isolations(const MergeContext& ctx, const ProducerChains& chains, NameSupply& names,
                        Program& merged, Plan& plan, Transfers& transfers);
// A device Func with a kernel of its own read by another device kernel sends its values over a
// channel, checked as those of isolations, when the read takes each value once in the order it
// is computed; returns why the other such reads cannot be channels.
DeviceReadRefusals connect_device_reads(const MergeContext& ctx, const ProducerChains& chains,
                                        NameSupply& names, Program& merged, Plan& plan,
                                        Transfers& transfers);
// Every min_depth is on a Func that sends over a channel (min-depth).
void check_min_depths(const MergeContext& ctx, const Program& merged, const Plan& plan,
                      const Transfers& transfers);

// lower.cc. Every computed Func's definition with the calls of inlined Funcs replaced.
InlinedValues inline_values(const Program& merged, const Plan& plan, const Transfers& transfers);
// Which Funcs each kernel reads from its own storage, and which from another kernel's memory
// (those go to global buffers, with the realized Func); then the kernels each depends on, through
// memory or channels. Refuses a device read of another device kernel that is not a channel
// (merge-device-read, saying why from `refusals`).
KernelDependences find_kernel_dependences(const MergeContext& ctx, const Program& merged,
                                          const Plan& plan, const InlinedValues& values,
                                          const DeviceReadRefusals& refusals, Transfers& transfers);
// The global buffers, in the order of the Funcs (storage over 2^31 elements: loop-too-large).
std::vector<Buffer> make_buffers(const MergeContext& ctx, const Program& merged, const Plan& plan,
                                 const Transfers& transfers);
// The kernels, in the order they run (order_kernels): each group's loop nest computing its
// members, channel reads and writes in place of the calls they carry, local storage around.
std::vector<Kernel> make_kernels(const Program& merged, const Plan& plan,
                                 const ProducerChains& chains, const Transfers& transfers,
                                 const InlinedValues& values, const KernelDependences& deps);

// remove.cc. `remove(v, ...)` on an isolated device producer: its kernel runs without the loops,
// and the consumer of one that sent at every v keeps the values (remove-target, remove-loop,
// remove-depends, remove-reuse); then `buffer(P, v)` double-buffers a consumer's storage
// (buffer-target, buffer-loop, buffer-read, buffer-reads). Both on kernels no transform reorders.
void remove_loops(const MergeContext& ctx, Program& merged);

// kernel_order.cc. The representatives of the groups, in the order their Funcs are declared.
std::vector<std::string> kernel_names(const Program& merged, const Plan& plan);
// Kernels that depend on each other in a cycle cannot be ordered (kernel-cycle).
void check_kernel_cycle(const MergeContext& ctx, const Program& merged, const Plan& plan,
                        const KernelDependences& deps);

}  // namespace t2s::merge_internal
