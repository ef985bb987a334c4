#include "libs/ir/verify.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "libs/ir/program_facts.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/strings.h"
#include "libs/ir/verify_internal.h"

namespace t2s {

namespace {

class Verifier {
 public:
  Verifier(const Program& p, const std::string& display_name) : p_(p), file_(display_name) {}

  void run() {
    names();
    stage();
    output();
    definition_types();
    for (size_t i = 0; i < p_.directives.size(); ++i) {
      const Directive& d = p_.directives[i];
      if (!p_.find_func(d.func))
        fail("directives[" + std::to_string(i) + "]",
             d.name + " names Func '" + d.func + "', which the program does not have",
             "ir-unknown-func", d.loc);
      verify_internal::directive_shape(p_, i, file_);
      verify_internal::directive_funcs(p_, i, file_);
    }
    verify_internal::isolations(p_, file_);
    for (size_t i = 0; i < p_.buffers.size(); ++i) buffer(i);
    for (size_t i = 0; i < p_.channels.size(); ++i) channel(i);
    for (size_t i = 0; i < p_.registers.size(); ++i) reg(i);
    if (p_.stage == Stage::kStt) register_shapes();
    for (size_t i = 0; i < p_.kernels.size(); ++i) {
      kernel_ = &p_.kernels[i];
      loc_ = kernel_->loc;
      pending_order(i);
      inherited_transforms(i);
      stmts(kernel_->body, "kernels[" + std::to_string(i) + "].body");
    }
    kernel_cycles();
    concurrent_buffers();
  }

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& message,
                         const std::string& rule, const SourceLoc& entity) const {
    verify_internal::fail(file_, where, message, rule, entity);
  }

  // ---- program-level entities ----------------------------------------------------------------

  template <typename T>
  void unique(const std::vector<T>& items, const char* field, const char* what) {
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < items.size(); ++i) {
      auto [it, fresh] = seen.emplace(items[i].name, i);
      if (!fresh)
        fail(std::string(field) + "[" + std::to_string(i) + "]",
             std::string("a second ") + what + " named '" + items[i].name + "' (the first is " +
                 field + "[" + std::to_string(it->second) + "])",
             "ir-duplicate", items[i].loc);
    }
  }

  void names() {
    unique(p_.funcs, "funcs", "Func");
    unique(p_.inputs, "inputs", "input");
    unique(p_.buffers, "buffers", "buffer");
    unique(p_.kernels, "kernels", "kernel");
    unique(p_.channels, "channels", "channel");
    unique(p_.registers, "registers", "register");
    for (size_t i = 0; i < p_.inputs.size(); ++i) {
      if (p_.find_func(p_.inputs[i].name))
        fail("inputs[" + std::to_string(i) + "]",
             "input '" + p_.inputs[i].name + "' has the name of a Func", "ir-duplicate",
             p_.inputs[i].loc);
    }
  }

  void stage() {
    if (p_.stage == Stage::kParsed) {
      const char* lowered = !p_.kernels.empty()     ? "kernels"
                            : !p_.buffers.empty()   ? "buffers"
                            : !p_.channels.empty()  ? "channels"
                            : !p_.registers.empty() ? "registers"
                                                    : nullptr;
      if (lowered)
        fail(lowered,
             std::string("a parsed-stage program has no ") + lowered + " (t2s-merge makes them)",
             "ir-stage", {});
    }
    if (p_.stage < Stage::kStt && !p_.registers.empty())
      fail("registers",
           std::string("a ") + stage_name(p_.stage) +
               "-stage program has no registers (t2s-stt makes them)",
           "ir-stage", {});
  }

  void output() {
    const Output& o = p_.output;
    if (o.func.empty())
      fail("output", "the output names no Func (every program realizes one)", "ir-output", o.loc);
    const Func* f = p_.find_func(o.func);
    if (!f)
      fail("output", "the output names Func '" + o.func + "', which the program does not have",
           "ir-unknown-func", o.loc);
    // (Parsed stage: t2s-merge builds the output's kernel from it. Later stages compute it in
    // kernels, and hand-written lowered IR need not carry the spec's definitions.)
    if (p_.stage == Stage::kParsed && !f->definition &&
        !verify_internal::defined_by_isolation(p_, o.func))
      fail("output",
           "the output Func '" + o.func +
               "' is never defined (it has no definition and no isolation directive defines it)",
           "ir-output", o.loc);
    if (f->definition && f->args.size() != o.extents.size())
      fail("output",
           "the output has " + std::to_string(o.extents.size()) + " extents, but Func '" + o.func +
               "' has " + std::to_string(f->args.size()) + " arguments",
           "ir-output", o.loc);
    // An isolated consumer has the dimensions of the Func it consumes.
    for (const Directive& d : p_.directives) {
      if (f->definition ||
          (!d.is(DirectiveKind::kIsolateConsumer) && !d.is(DirectiveKind::kIsolateConsumerChain)))
        continue;
      const std::vector<std::string> defined = d.defined_funcs();
      const Func* source = p_.find_func(d.func);
      if (std::find(defined.begin(), defined.end(), o.func) != defined.end() && source &&
          source->definition && source->args.size() != o.extents.size())
        fail("output",
             "the output has " + std::to_string(o.extents.size()) + " extents, but Func '" +
                 o.func + "' consumes Func '" + source->name + "', which has " +
                 std::to_string(source->args.size()) + " arguments",
             "ir-output", o.loc);
    }
    if (p_.stage == Stage::kParsed) return;
    const Buffer* b = p_.find_buffer(o.func);
    if (!b) fail("output", "the output Func '" + o.func + "' has no buffer", "ir-output", o.loc);
    // The output's buffer is its realize region, [0, extent) in every dimension.
    bool region = b->mins.size() == o.extents.size() && b->extents.size() == o.extents.size();
    for (size_t d = 0; region && d < o.extents.size(); ++d)
      region = b->mins[d]->kind == ExprKind::kIntImm && b->mins[d]->int_value == 0 &&
               b->extents[d]->kind == ExprKind::kIntImm && b->extents[d]->int_value == o.extents[d];
    if (!region)
      fail("output",
           "the buffer of the output Func '" + o.func +
               "' is not its realize region ([0, extent) in every dimension)",
           "ir-output", o.loc);
  }

  // Parsed stage: each definition has its Func's declared type (the front end makes it so;
  // the passes rely on it).
  void definition_types() {
    for (size_t i = 0; i < p_.funcs.size(); ++i) {
      const Func& f = p_.funcs[i];
      if (!f.definition || !f.type.known() || !f.definition->type.known()) continue;
      if (f.definition->type != f.type)
        fail("funcs[" + std::to_string(i) + "]",
             "the definition of '" + f.name + "' has type " + f.definition->type.name() +
                 ", but the Func is declared " + f.type.name(),
             "ir-type", f.loc);
    }
  }

  void buffer(size_t i) {
    const Buffer& b = p_.buffers[i];
    const std::string where = "buffers[" + std::to_string(i) + "]";
    if (!p_.find_func(b.name))
      fail(where, "buffer of Func '" + b.name + "', which the program does not have",
           "ir-unknown-func", b.loc);
    scalar_storage(b.type, where, "buffer of '" + b.name + "'", b.loc);
    for (const Expr& e : b.mins) integer(e, where, "a bound of buffer '" + b.name + "'");
    for (const Expr& e : b.extents) {
      integer(e, where, "a bound of buffer '" + b.name + "'");
      if (e->kind == ExprKind::kIntImm && e->int_value < 0)
        fail(where,
             "buffer '" + b.name + "' has the negative extent " + std::to_string(e->int_value),
             "ir-storage", b.loc);
    }
  }

  // Func storage (buffers, realizes) holds scalars: vectors live in lets, registers and
  // channels (the interpreter and the emulation store scalars only).
  void scalar_storage(Type type, const std::string& where, const std::string& what,
                      const SourceLoc& loc) {
    if (type.lanes != 1)
      fail(where,
           "the " + what + " has the vector type " + type.name() +
               "; Func storage holds scalars (vectors live in lets, registers and channels)",
           "ir-type", loc);
  }

  // A pending order (merged stage only) permutes the loops of the kernel's single loop nest.
  void pending_order(size_t i) {
    const Kernel& k = p_.kernels[i];
    if (k.pending_order.empty()) return;
    const std::string where = "kernels[" + std::to_string(i) + "].pending_order";
    if (p_.stage != Stage::kMerged)
      fail(where,
           std::string("a pending loop order in a ") + stage_name(p_.stage) +
               "-stage program (only the merged stage has one; t2s-stt applies it)",
           "ir-stage", k.loc);
    // The nest's loops, innermost first (the order of pending_order).
    const LoopNest nest = loop_nest(k.body);
    std::vector<std::string> loops;
    for (auto it = nest.loops.rbegin(); it != nest.loops.rend(); ++it) loops.push_back((*it)->var);
    std::vector<std::string> sorted_loops = loops, sorted_order = k.pending_order;
    std::sort(sorted_loops.begin(), sorted_loops.end());
    std::sort(sorted_order.begin(), sorted_order.end());
    if (sorted_loops != sorted_order)
      fail(where,
           "the pending loop order (" + join(k.pending_order, ", ") +
               ") is not an order of the kernel's loop nest (" + join(loops, ", ") + ")",
           "ir-pending-order", k.loc);
  }

  // Inherited transforms (merged stage only) are space_time_transform directives of a Func.
  void inherited_transforms(size_t i) {
    const Kernel& k = p_.kernels[i];
    for (size_t t = 0; t < k.inherited_transforms.size(); ++t) {
      const Directive& d = k.inherited_transforms[t];
      const std::string where =
          "kernels[" + std::to_string(i) + "].inherited_transforms[" + std::to_string(t) + "]";
      if (p_.stage != Stage::kMerged)
        fail(where,
             std::string("an inherited transform in a ") + stage_name(p_.stage) +
                 "-stage program (only the merged stage has them; t2s-stt applies them)",
             "ir-stage", d.loc);
      if (!p_.find_func(d.func))
        fail(where, d.name + " names Func '" + d.func + "', which the program does not have",
             "ir-unknown-func", d.loc);
    }
  }

  bool has_kernel(const std::string& name) const {
    for (const Kernel& k : p_.kernels)
      if (k.name == name) return true;
    return false;
  }

  // A channel's or register's depth: an OpenCL int (an attribute, an array size).
  static constexpr int64_t kMaxDepth = INT32_MAX;

  void channel(size_t i) {
    const Channel& c = p_.channels[i];
    const std::string where = "channels[" + std::to_string(i) + "]";
    for (const std::string* end : {&c.producer, &c.consumer}) {
      if (!has_kernel(*end))
        fail(where,
             "channel '" + c.name + "' has " + (end == &c.producer ? "producer" : "consumer") +
                 " '" + *end + "', which is not a kernel",
             "ir-unknown-kernel", c.loc);
    }
    // The channel array's limits (docs/limits.md), as for a register's PE array.
    constexpr int64_t kMaxChannelFifos = int64_t{1} << 24;
    if (c.dims.size() > 32)
      fail(where,
           "channel '" + c.name + "' has " + std::to_string(c.dims.size()) +
               " dimensions (at most 32)",
           "ir-channel", c.loc);
    int64_t fifos = 1;
    for (int64_t e : c.dims) {
      if (e < 1)
        fail(where, "channel '" + c.name + "' has a dimension below 1", "ir-channel", c.loc);
      if (e > kMaxChannelFifos / fifos)
        fail(where, "channel '" + c.name + "' is an array of more than 2^24 channels", "ir-channel",
             c.loc);
      fifos *= e;
    }
    // Its depth: an int in OpenCL's depth attribute, a capacity in the emulations.
    if (c.depth < 0 || c.depth > kMaxDepth)
      fail(where,
           "channel '" + c.name + "' has depth " + std::to_string(c.depth) + " (0 to 2^31 - 1)",
           "ir-channel", c.loc);
  }

  // The kernels and the channels between them form a DAG (a T2S design); only a kernel's own
  // FIFOs, between its PEs, lead back into it. A cycle could deadlock the emulation and the
  // device, and the passes assume an order of the kernels. Reported at the channel closing the
  // first cycle found, searching from the kernels in order and their channels in order.
  void kernel_cycles() {
    std::map<std::string, std::vector<size_t>> out;  // kernel -> channels it writes to another
    for (size_t i = 0; i < p_.channels.size(); ++i)
      if (p_.channels[i].producer != p_.channels[i].consumer)
        out[p_.channels[i].producer].push_back(i);
    enum Color { kWhite, kOnPath, kDone };
    std::map<std::string, Color> color;
    std::vector<std::string> path;  // the kernels from the search's root to the current one
    std::function<void(const std::string&)> visit = [&](const std::string& kernel) {
      color[kernel] = kOnPath;
      path.push_back(kernel);
      for (size_t i : out[kernel]) {
        const Channel& c = p_.channels[i];
        if (color[c.consumer] == kOnPath) {
          std::string cycle;
          for (auto k = std::find(path.begin(), path.end(), c.consumer); k != path.end(); ++k)
            cycle += *k + " -> ";
          fail("channels[" + std::to_string(i) + "]",
               "channel '" + c.name + "' from kernel '" + c.producer + "' to kernel '" +
                   c.consumer + "' closes a cycle of kernels: " + cycle + c.consumer +
                   " (kernels form a DAG; only a kernel's own FIFOs lead back into it)",
               "ir-kernel-cycle", c.loc);
        }
        if (color[c.consumer] == kWhite) visit(c.consumer);
      }
      path.pop_back();
      color[kernel] = kDone;
    };
    for (const Kernel& k : p_.kernels)
      if (color[k.name] == kWhite) visit(k.name);
  }

  // At the stt stage every register of a kernel spans the kernel's PE array (t2s-vec takes the
  // lane dimensions from it; it made ill-formed IR of a register whose shape was edited).
  void register_shapes() {
    std::map<std::string, size_t> first;  // kernel -> its first register
    for (size_t i = 0; i < p_.registers.size(); ++i) {
      const Register& r = p_.registers[i];
      auto [it, fresh] = first.emplace(r.kernel, i);
      if (fresh || p_.registers[it->second].shape == r.shape) continue;
      const auto text = [](const std::vector<int64_t>& shape) {
        std::string t;
        for (int64_t e : shape) t += (t.empty() ? "" : " x ") + std::to_string(e);
        return "(" + t + ")";
      };
      fail("registers[" + std::to_string(i) + "]",
           "register '" + r.name + "' has PE shape " + text(r.shape) + ", register '" +
               p_.registers[it->second].name + "' of the same kernel " +
               text(p_.registers[it->second].shape) + " (one PE array per kernel)",
           "ir-register", r.loc);
    }
  }

  // Consecutive device kernels run at once (t2s-run, the emulations, the device): none may
  // write a buffer another of them reads or writes (a data race; such values travel over
  // channels). The interpreter and the emitters trust this rule (libs/ir/program_facts.h).
  void concurrent_buffers() {
    const std::vector<Kernel>& ks = p_.kernels;
    std::vector<KernelAccesses> uses;
    for (const Kernel& k : ks) uses.push_back(kernel_accesses(p_, k));
    for (const KernelRun& run : kernel_runs(p_))
      for (size_t x = run.first; x < run.last; ++x)
        for (size_t buffer : uses[x].buffers_written)
          for (size_t y = run.first; y < run.last; ++y)
            if (y != x &&
                (uses[y].buffers_read.count(buffer) || uses[y].buffers_written.count(buffer)))
              fail("kernels[" + std::to_string(y) + "]",
                   "kernels '" + ks[x].name + "' and '" + ks[y].name +
                       "' run concurrently and share buffer '" + p_.buffers[buffer].name +
                       "', which '" + ks[x].name + "' writes",
                   "ir-storage", ks[y].loc);
  }

  void reg(size_t i) {
    const Register& r = p_.registers[i];
    const std::string where = "registers[" + std::to_string(i) + "]";
    if (!p_.find_func(r.func))
      fail(where,
           "register '" + r.name + "' carries Func '" + r.func +
               "', which the program does not have",
           "ir-unknown-func", r.loc);
    if (!has_kernel(r.kernel))
      fail(where,
           "register '" + r.name + "' belongs to kernel '" + r.kernel + "', which does not exist",
           "ir-unknown-kernel", r.loc);
    bool positive = r.depth >= 1;
    for (int64_t e : r.shape) positive = positive && e >= 1;
    if (!positive)
      fail(where, "register '" + r.name + "' has a depth or PE extent below 1", "ir-register",
           r.loc);
    if (r.depth > kMaxDepth)
      fail(where,
           "register '" + r.name + "' has depth " + std::to_string(r.depth) + " (at most 2^31 - 1)",
           "ir-register", r.loc);
    // The PE array's limits (docs/limits.md): every backend and the interpreter index it.
    if (r.shape.size() > 32)
      fail(where,
           "register '" + r.name + "' has " + std::to_string(r.shape.size()) +
               " PE dimensions (at most 32)",
           "ir-register", r.loc);
    int64_t pes = 1;
    for (int64_t e : r.shape) {
      if (e > kMaxPeArrayPes / pes)
        fail(where, "register '" + r.name + "' has more than 2^24 PEs", "ir-register", r.loc);
      pes *= e;
    }
    if (r.pe_offset.size() != r.shape.size())
      fail(where,
           "register '" + r.name + "' has " + std::to_string(r.pe_offset.size()) +
               " PE offsets for " + std::to_string(r.shape.size()) + " PE dimensions",
           "ir-register", r.loc);
    // A value crosses at most extent - 1 PEs of a dimension: a farther writer is outside the
    // array.
    for (size_t q = 0; q < r.shape.size(); ++q)
      if (r.pe_offset[q] <= -r.shape[q] || r.pe_offset[q] >= r.shape[q])
        fail(where,
             "register '" + r.name + "' has PE offset " + std::to_string(r.pe_offset[q]) +
                 " in a PE dimension of extent " + std::to_string(r.shape[q]),
             "ir-register", r.loc);
  }

  // ---- statements -----------------------------------------------------------------------------

  void stmts(const StmtList& list, const std::string& where) {
    for (size_t i = 0; i < list.size(); ++i) stmt(*list[i], where + "[" + std::to_string(i) + "]");
  }

  // A loop or let binds a name no enclosing loop or let binds: the passes take a variable for
  // one loop of the nest (t2s-stt made ill-formed IR of a nest repeated inside itself).
  void unbound_name(const std::string& var, const char* what, const std::string& where) {
    for (const auto& [name, type] : vars_)
      if (name == var)
        fail(where,
             std::string(what) + " '" + var + "' binds a name that an enclosing loop or let binds",
             "ir-rebound", loc_);
  }

  void stmt(const Stmt& s, const std::string& where) {
    const SourceLoc saved = loc_;
    if (s.loc.valid()) loc_ = s.loc;
    where_ = where;
    match_stmt(
        s,
        [&](const For& loop) {
          integer(loop.min, where, "the min of loop '" + loop.var + "'");
          integer(loop.extent, where, "the extent of loop '" + loop.var + "'");
          unbound_name(loop.var, "loop", where);
          vars_.emplace_back(loop.var, Type::Int(32));
          stmts(loop.body, where + ".body");
          vars_.pop_back();
        },
        [&](const LetStmt& let) {
          expr(let.value);
          unbound_name(let.var, "let", where);
          vars_.emplace_back(let.var, let.value->type);
          stmts(let.body, where + ".body");
          vars_.pop_back();
        },
        [&](const IfThenElse& branch) {
          expr(branch.condition);
          if (branch.condition->type != Type::Bool())
            fail(where, "an if condition of type " + type_text(branch.condition->type), "ir-type",
                 loc_);
          stmts(branch.then_body, where + ".then");
          stmts(branch.else_body, where + ".else");
        },
        [&](const Provide& provide) {
          expr(provide.value);
          if (const Register* r = p_.find_register(provide.func)) {
            register_use(*r, Register::kShift, "write", provide.args, true);
            same_type(provide.value, r->type, "the value written to register '" + r->name + "'");
          } else {
            auto [type, dims] = storage(provide.func, "provide");
            arity(provide.args.size(), dims, "provide of '" + provide.func + "'", "ir-storage");
            const Type index = gather_indices(provide.args, "Func '" + provide.func + "'", type);
            const int lanes = index.lanes;
            same_type(provide.value, gathered(type, index),
                      lanes == 1 ? "the value provided to '" + provide.func + "'"
                                 : "the value scattered to '" + provide.func + "' (" +
                                       std::to_string(lanes) + "-lane indices)");
          }
        },
        [&](const Alloc& alloc) { indices(alloc.shape, "the shape of '" + alloc.reg + "'"); },
        [&](const WriteChannel& write) {
          const Channel& c = channel_named(write.channel, "write_channel");
          channel_end(c, c.producer, "write_channel", "producer");
          arity(write.index.size(), c.dims.size(), "write_channel of '" + c.name + "'",
                "ir-channel");
          indices(write.index, "channel '" + c.name + "'");
          expr(write.value);
          same_type(write.value, c.type, "the value written to channel '" + c.name + "'");
        },
        [&](const Realize& realize) {
          if (!p_.find_func(realize.func))
            fail(where, "realize of Func '" + realize.func + "', which the program does not have",
                 "ir-unknown-func", loc_);
          scalar_storage(realize.type, where, "realize of '" + realize.func + "'", loc_);
          indices(realize.mins, "the bounds of the realize of '" + realize.func + "'");
          indices(realize.extents, "the bounds of the realize of '" + realize.func + "'");
          for (const Expr& e : realize.extents)
            if (e->kind == ExprKind::kIntImm && e->int_value < 0)
              fail(where,
                   "the realize of '" + realize.func + "' has the negative extent " +
                       std::to_string(e->int_value),
                   "ir-storage", loc_);
          if (const std::optional<DoubleBuffer>& b = realize.double_buffer) {
            // Two halves, the last dimension; a period reads at least what it writes.
            const bool halves = !realize.extents.empty() &&
                                realize.extents.back()->kind == ExprKind::kIntImm &&
                                realize.extents.back()->int_value == 2;
            if (!halves || b->writes < 1 || b->reads < b->writes)
              fail(where,
                   "the double buffer of '" + realize.func +
                       "' needs a last dimension of extent 2 and 1 <= writes <= reads (it has " +
                       std::to_string(b->writes) + " writes, " + std::to_string(b->reads) +
                       " reads)",
                   "ir-storage", loc_);
          }
          realizes_.push_back({realize.func, {realize.type, realize.mins.size()}});
          stmts(realize.body, where + ".body");
          realizes_.pop_back();
        },
        [&](const Shift& shift) {
          const Register* r = p_.find_register(shift.reg);
          if (!r) fail(where, "shift of unknown register '" + shift.reg + "'", "ir-register", loc_);
          register_use(*r, Register::kShift, "shift", shift.pe, false);
        },
        [&](const Push& push) {
          const Register* r = p_.find_register(push.fifo);
          if (!r) fail(where, "push to unknown register '" + push.fifo + "'", "ir-register", loc_);
          register_use(*r, Register::kFifo, "push", push.pe, false);
          expr(push.value);
          same_type(push.value, r->type, "the value pushed to '" + r->name + "'");
        });
    loc_ = saved;
    where_ = where;
  }

  // ---- what statements and expressions refer to ------------------------------------------------

  // The storage a Func name refers to: the innermost enclosing realize, else its buffer. Returns
  // its element type and dimensions.
  std::pair<Type, size_t> storage(const std::string& func, const char* use) {
    for (size_t i = realizes_.size(); i-- > 0;)
      if (realizes_[i].first == func) return realizes_[i].second;
    if (const Buffer* b = p_.find_buffer(func)) {
      return {b->type, b->mins.size()};
    }
    fail(where_,
         std::string(use) + " of Func '" + func + "', which has neither an enclosing realize " +
             "nor a buffer",
         "ir-storage", loc_);
  }

  const Channel& channel_named(const std::string& name, const char* use) {
    const Channel* c = p_.find_channel(name);
    if (!c)
      fail(where_, std::string(use) + " of unknown channel '" + name + "'", "ir-channel", loc_);
    return *c;
  }

  // A channel is written in its producer kernel and read in its consumer kernel only: the
  // passes and backends connect kernels by these fields (a swapped pair made t2s-stt fail).
  void channel_end(const Channel& c, const std::string& end, const char* use, const char* role) {
    if (kernel_ && end != kernel_->name)
      fail(where_,
           std::string(use) + " of '" + c.name + "' in kernel '" + kernel_->name + "'; its " +
               role + " is '" + end + "'",
           "ir-channel", loc_);
  }

  void register_use(const Register& r, Register::Kind kind, const char* use,
                    const std::vector<Expr>& index, bool slot) {
    if (r.kind != kind)
      fail(where_,
           std::string(use) + " of '" + r.name + "', which is a " +
               (r.kind == Register::kShift ? "shift register" : "FIFO"),
           "ir-register", loc_);
    if (r.kernel != kernel_->name)
      fail(where_,
           std::string(use) + " of register '" + r.name + "' in kernel '" + kernel_->name +
               "'; it belongs to kernel '" + r.kernel + "'",
           "ir-register", loc_);
    arity(index.size(), r.shape.size() + (slot ? 1 : 0),
          std::string(use) + " of '" + r.name + "'" +
              (slot ? " (the PE index, then the slot)" : " (the PE index)"),
          "ir-register");
    indices(index, "register '" + r.name + "'");
  }

  void arity(size_t given, size_t expected, const std::string& what, const char* rule) {
    if (given != expected)
      fail(where_,
           what + " with " + std::to_string(given) + " indices; it takes " +
               std::to_string(expected),
           rule, loc_);
  }

  static std::string type_text(Type t) { return t.known() ? t.name() : "<unknown>"; }

  void same_type(const Expr& e, Type t, const std::string& what) {
    if (e->type != t)
      fail(where_, what + " has type " + type_text(e->type) + ", not " + type_text(t), "ir-type",
           loc_);
  }

  void integer(const Expr& e, const std::string& where, const std::string& what) {
    where_ = where;
    expr(e);
    if (!e->type.is_integer() || e->type.lanes != 1)
      fail(where, what + " has type " + type_text(e->type) + ", not a scalar integer type",
           "ir-type", loc_);
  }

  // The index of a Func or input access: integers, each a scalar or an int32 vector of one lane
  // count N, or of one tensor shape (a gather or scatter of N lanes); returns that int32 type
  // (int32 when every index is scalar). Storage of a vector type is not gathered from.
  Type gather_indices(const std::vector<Expr>& index, const std::string& what, Type element) {
    int lanes = 1;
    Type shape = Type::Int(32);
    for (const Expr& e : index) {
      expr(e);
      const Type t = e->type;
      if (!t.is_integer() || (t.lanes != 1 && t.element_of() != Type::Int(32)))
        fail(where_,
             "an index of " + what + " has type " + type_text(t) +
                 ", not an integer type or an int32 vector",
             "ir-type", loc_);
      if (t.lanes == 1) continue;
      if (lanes != 1 && lanes != t.lanes)
        fail(where_,
             "the indices of " + what + " have different lane counts (" + std::to_string(lanes) +
                 " and " + std::to_string(t.lanes) + ")",
             "ir-type", loc_);
      if (lanes != 1 && !shape.same_shape(t))
        fail(where_,
             "the indices of " + what + " have different shapes (" + type_text(shape) + " and " +
                 type_text(t) + ")",
             "ir-type", loc_);
      lanes = t.lanes;
      shape = t;
    }
    if (lanes != 1 && element.lanes != 1)
      fail(where_,
           "a gather or scatter (vector indices) of " + what + " of vector type " +
               type_text(element),
           "ir-type", loc_);
    return shape;
  }

  // The type of a gather of `element` with indices of type `index`.
  static Type gathered(Type element, Type index) {
    return index.lanes == 1 ? element : index.with_element(element);
  }

  void indices(const std::vector<Expr>& index, const std::string& what) {
    for (const Expr& e : index) integer(e, where_, "an index of " + what);
  }

  void expr(const Expr& e) {
    for_each_operand(e);
    const Type t = e->type;
    switch (e->kind) {
      case ExprKind::kVar:
        for (size_t i = vars_.size(); i-- > 0;) {
          if (vars_[i].first != e->name) continue;
          if (vars_[i].second != t)
            fail(where_,
                 "variable '" + e->name + "' used as " + type_text(t) + "; it is bound to " +
                     type_text(vars_[i].second),
                 "ir-type", loc_);
          return;
        }
        fail(where_, "variable '" + e->name + "' is used outside any loop or let that binds it",
             "ir-unbound", loc_);
      case ExprKind::kCall:
        call(e);
        return;
      case ExprKind::kBinary:
        if (e->binary_op == BinaryOp::kAnd || e->binary_op == BinaryOp::kOr) {
          bool_operand(e->operands[0], e);
          bool_operand(e->operands[1], e);
        } else if (e->operands[0]->type != e->operands[1]->type ||
                   t != (is_comparison(e->binary_op)
                             ? e->operands[0]->type.with_element(Type::Bool())
                             : e->operands[0]->type)) {
          fail(where_,
               std::string("operator ") + binary_op_spelling(e->binary_op) + " on " +
                   type_text(e->operands[0]->type) + " and " + type_text(e->operands[1]->type) +
                   " giving " + type_text(t),
               "ir-type", loc_);
        }
        return;
      case ExprKind::kSelect:
        if (e->operands.size() != 3)
          fail(where_, "a select without a false value in a kernel (t2s-merge makes it an if)",
               "ir-type", loc_);
        bool_operand(e->operands[0], e);
        if (e->operands[0]->type.lanes != 1 && !e->operands[0]->type.same_shape(t))
          fail(where_,
               "a select whose condition has type " + type_text(e->operands[0]->type) +
                   " and whose values have type " + type_text(t) +
                   (e->operands[0]->type.lanes != t.lanes ? " (lane counts differ)"
                                                          : " (shapes differ)"),
               "ir-type", loc_);
        same_type(e->operands[1], t, "the true value of a select");
        same_type(e->operands[2], t, "the false value of a select");
        return;
      case ExprKind::kUnary:
        same_type(
            e->operands[0], e->unary_op == UnaryOp::kNot ? t.with_element(Type::Bool()) : t,
            std::string("the operand of '") + (e->unary_op == UnaryOp::kNot ? "!" : "-") + "'");
        return;
      case ExprKind::kCast:
        if (e->operands[0]->type.lanes != 1 && !e->operands[0]->type.same_shape(t))
          fail(where_,
               "a cast of " + type_text(e->operands[0]->type) + " to " + type_text(t) +
                   (e->operands[0]->type.lanes != t.lanes ? " (lane counts differ)"
                                                          : " (shapes differ)"),
               "ir-type", loc_);
        return;
      default:
        return;
    }
  }

  void for_each_operand(const Expr& e) {
    // The name operand of read_channel and pop is not a variable.
    const bool named = e->kind == ExprKind::kCall &&
                       (e->call_kind == CallKind::kChannel || e->call_kind == CallKind::kFifo);
    for (size_t i = named ? 1 : 0; i < e->operands.size(); ++i) expr(e->operands[i]);
  }

  void bool_operand(const Expr& operand, const Expr& e) {
    if (!operand->type.is_bool())
      fail(where_,
           "an operand of type " + type_text(operand->type) + " where " +
               (e->kind == ExprKind::kSelect ? "a select condition" : "a bool") + " is expected",
           "ir-type", loc_);
  }

  // The name operand of read_channel(ch, ...) and pop(R, ...).
  const std::string& name_operand(const Expr& e, const char* what) {
    if (e->operands.empty() || e->operands[0]->kind != ExprKind::kVar)
      fail(where_, std::string(what) + " without a name", "ir-type", loc_);
    return e->operands[0]->name;
  }

  void call(const Expr& e) {
    const std::vector<Expr> args = e->operands;
    switch (e->call_kind) {
      case CallKind::kFunc: {
        auto [type, dims] = storage(e->name, "read");
        arity(args.size(), dims, "read of '" + e->name + "'", "ir-storage");
        const Type index = gather_indices(args, "Func '" + e->name + "'", type);
        same_type(e, gathered(type, index), "the read of '" + e->name + "'");
        return;
      }
      case CallKind::kImage: {
        const Input* in = p_.find_input(e->name);
        if (!in) fail(where_, "read of unknown input '" + e->name + "'", "ir-input", loc_);
        arity(args.size(), static_cast<size_t>(in->dims), "read of input '" + e->name + "'",
              "ir-input");
        const Type index = gather_indices(args, "input '" + e->name + "'", in->type);
        same_type(e, gathered(in->type, index), "the read of input '" + e->name + "'");
        return;
      }
      case CallKind::kChannel: {
        const Channel& c = channel_named(name_operand(e, "read_channel"), "read_channel");
        channel_end(c, c.consumer, "read_channel", "consumer");
        std::vector<Expr> index(args.begin() + 1, args.end());
        arity(index.size(), c.dims.size(), "read_channel of '" + c.name + "'", "ir-channel");
        indices(index, "channel '" + c.name + "'");
        same_type(e, c.type, "the read of channel '" + c.name + "'");
        return;
      }
      case CallKind::kRegister:
      case CallKind::kFifo: {
        const bool fifo = e->call_kind == CallKind::kFifo;
        const std::string& name = fifo ? name_operand(e, "pop") : e->name;
        const Register* r = p_.find_register(name);
        if (!r) fail(where_, "read of unknown register '" + name + "'", "ir-register", loc_);
        std::vector<Expr> index(args.begin() + (fifo ? 1 : 0), args.end());
        register_use(*r, fifo ? Register::kFifo : Register::kShift, fifo ? "pop" : "read", index,
                     !fifo);
        same_type(e, r->type, "the read of register '" + r->name + "'");
        return;
      }
      case CallKind::kIntrinsic:
        if (is_vector_op(e->name)) return vector_op(e);
        if (static_cast<size_t>(intrinsic_arity(e->name)) != args.size())
          fail(where_,
               "intrinsic '" + e->name + "' with " + std::to_string(args.size()) + " operands",
               "ir-type", loc_);
        return;
      case CallKind::kUnresolved:
        fail(where_, "an unresolved call of '" + e->name + "'", "ir-type", loc_);
    }
  }

  // ramp, broadcast, slice and concat (docs/ir.md, "Vector values").
  void vector_op(const Expr& e) {
    const std::vector<Expr>& args = e->operands;
    const std::string& name = e->name;
    const Type t = e->type;
    auto bad = [&](const std::string& why) {
      fail(where_, "'" + name + "' of type " + type_text(t) + ": " + why, "ir-type", loc_);
    };
    auto literal = [&](size_t i, const char* what) {
      if (args[i]->kind != ExprKind::kIntImm || args[i]->type != Type::Int(32))
        bad(std::string("its ") + what + " is not an int32 literal");
      return args[i]->int_value;
    };
    const size_t arity = name == "broadcast"                     ? 2
                         : name == "concat" || name == "reshape" ? args.size()
                                                                 : 3;
    if (args.size() != arity || args.size() < 2)
      bad("it has " + std::to_string(args.size()) + " operands");
    if (name == "ramp") {
      if (args[0]->type.element_of() != Type::Int(32) || args[1]->type != args[0]->type)
        bad("its base and stride must be int32 scalars, or int32 vectors of one type");
      const Type base = args[0]->type;
      if (t != base.with_outer(static_cast<int>(literal(2, "lane count"))) || !t.valid() ||
          t.lanes < 2 * base.lanes)
        bad(base.lanes == 1 ? "the type must be int32 with its lane count (at least 2)"
                            : "the type must be its base's with an outer dimension of its lane "
                              "count (at least 2)");
    } else if (name == "broadcast") {
      const Type base = args[0]->type;
      if (t != base.with_outer(static_cast<int>(literal(1, "lane count"))) || !t.valid() ||
          t.lanes < 2 * base.lanes)
        bad("the type must be its value's with an outer dimension of its lane count (at least "
            "2)");
    } else if (name == "reshape") {
      std::vector<int> shape;
      for (size_t i = 1; i < args.size(); ++i)
        shape.push_back(static_cast<int>(literal(i, "dimension")));
      if (t != args[0]->type.with_shape(shape) || t.lanes != args[0]->type.lanes)
        bad("the type must be its operand's element type with the shape given, of as many lanes");
    } else if (name == "slice") {
      const Type v = args[0]->type;
      const int64_t begin = literal(1, "first lane"), lanes = literal(2, "lane count");
      if (begin < 0 || lanes < 1 || begin + lanes > v.lanes)
        bad("lanes [" + std::to_string(begin) + ", " + std::to_string(begin + lanes) +
            ") are outside its operand's " + std::to_string(v.lanes));
      if (t != v.with_lanes(static_cast<int>(lanes)))
        bad("the type must be the operand's element type with its lane count");
    } else {
      int lanes = 0;
      for (const Expr& a : args) {
        if (a->type.element_of() != t.element_of())
          bad("an operand of type " + type_text(a->type) + " (another element type)");
        lanes += a->type.lanes;
      }
      if (lanes != t.lanes) bad("its operands have " + std::to_string(lanes) + " lanes in all");
    }
  }

  const Program& p_;
  std::string file_;
  const Kernel* kernel_ = nullptr;
  SourceLoc loc_;
  std::string where_;
  std::vector<std::pair<std::string, Type>> vars_;  // scope, innermost last
  std::vector<std::pair<std::string, std::pair<Type, size_t>>> realizes_;
};

}  // namespace

void verify_program(const Program& program, const std::string& display_name) {
  Verifier(program, display_name).run();
}

}  // namespace t2s
