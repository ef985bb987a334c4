// Facts about a program that the verifier, the interpreter and the emitters all need, computed
// in one place: which kernels run together, and which buffers and channels each kernel reads
// and writes. The rules these facts serve (no buffer written by one kernel of a run and used by
// another; a channel read only in its consumer and written only in its producer) are the
// verifier's (libs/ir/verify, rules ir-storage and ir-channel): code below it trusts verified
// IR and does not check them again.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {

// The kernels `first` .. `last - 1` of a program, which run at once: each maximal run of
// consecutive device kernels, and each host kernel alone (docs/ir.md, "Execution model").
struct KernelRun {
  size_t first = 0, last = 0;
};
std::vector<KernelRun> kernel_runs(const Program& program);

// What one kernel touches outside itself, as indices into program.inputs, program.buffers and
// program.channels. A Func accessed inside a realize of the same name is the realize's own
// storage, not a buffer.
struct KernelAccesses {
  std::set<size_t> inputs_read;
  std::set<size_t> buffers_read, buffers_written;
  std::set<size_t> channels_read, channels_written;
};
KernelAccesses kernel_accesses(const Program& program, const Kernel& kernel);

// A statement list seen as t2s-stt's input form: realizes, each alone in its list, around one
// perfect loop nest (each loop alone in the body of the one around it). `body` is the list
// inside the innermost loop, or inside the realizes when there is no loop.
struct LoopNest {
  std::vector<StmtPtr> realizes;  // outermost first
  std::vector<const For*> loops;  // outermost first
  const StmtList* body = nullptr;
};
LoopNest loop_nest(const StmtList& list);

// The storage a statement stores into: the Func (a buffer, a realize or, from the stt stage on,
// a shift register) of a Provide, the register of a Shift, the FIFO of a Push; null for the
// other kinds (a WriteChannel sends, it does not store).
const std::string* stored_name(const Stmt& s);

// The first directive of `program` that `stage` applies but whose pass does not implement yet
// (`DirectiveDecl::implemented`), or null: each pass refuses it (rule unsupported-directive)
// rather than ignore it.
const Directive* first_unimplemented_directive(const Program& program, DirectiveStage stage);

// Every name a program holds (its Vars, Funcs, inputs, buffers, kernels, channels, registers,
// and the loop, let and realize names of its kernels' bodies), and fresh names none of them is,
// for what a pass adds: the one supply of new names of the passes (t2s-stt, t2s-vec,
// t2s-gather).
class NameSupply {
 public:
  explicit NameSupply(const Program& program);
  // How `fresh` spells a taken base: base_1, base_2, ... (every pass but stt), or base_,
  // base__, ... (the registers, values and time loops of t2s-stt, the names its stage has
  // always written).
  enum class Suffix { kNumbered, kUnderscores };
  // `base` when it is free, else the first free spelling of `suffix`. Taken from then on.
  std::string fresh(const std::string& base, Suffix suffix = Suffix::kNumbered);
  // Marks a name the caller chose itself (a loop a directive names) as taken.
  void take(const std::string& name) { taken_.insert(name); }
  bool taken(const std::string& name) const { return taken_.count(name) != 0; }
  // The names taken so far, those of the program and those given out.
  const std::set<std::string>& names() const { return taken_; }

 private:
  std::set<std::string> taken_;
};

}  // namespace t2s
