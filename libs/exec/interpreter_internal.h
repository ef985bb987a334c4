// What the pieces of the reference interpreter share (libs/exec/interpreter.h is its public
// interface): the value representation, the compiled form of kernels (Node, SNode), run-time
// storage and the executor. Not for use outside libs/exec.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "libs/exec/compare.h"
#include "libs/exec/interpreter.h"
#include "libs/exec/interpreter_channels.h"
#include "libs/ir/program.h"
#include "libs/ir/program_facts.h"

namespace t2s {
namespace interp {

// Dimensions of any Func, input or channel index the interpreter handles (indices live in
// fixed arrays on the stack so that evaluation never allocates).
constexpr size_t kMaxDims = 64;
// Largest storage (realize or buffer) in elements; each element costs 9 bytes.
constexpr int64_t kMaxStorageElements = int64_t{1} << 32;
// Largest number of FIFOs in one array of channels.
constexpr int64_t kMaxFifos = int64_t{1} << 24;
// Steps a thread takes from the shared budget at a time: keeps the atomic off the hot path.
constexpr uint64_t kStepChunk = 1024;
// Thread stacks: expressions thousands of levels deep are evaluated recursively.
constexpr size_t kStackBytes = size_t{256} << 20;

inline const SourceLoc kNoLoc;

// A scalar value. Integers and bools are kept in `i`/`u`, sign-extended (signed types) or
// zero-extended (unsigned types, bool as 0/1) from their width, so comparisons and conversions
// can use the 64-bit value directly; float32 in `f` (computed in float, as C++ float code
// computes), float64 in `d`.
union Value {
  int64_t i;
  uint64_t u;
  float f;
  double d;
};

inline int64_t wrap_s(uint64_t v, int shift) { return static_cast<int64_t>(v << shift) >> shift; }

// Float to integer conversion, the rule every backend must emit as well: truncate toward zero;
// NaN gives 0; values beyond the target type's range saturate to its min or max. (C leaves such
// conversions undefined and Halide's result depends on the target; this makes runs
// reproducible.)
int64_t float_to_int(double x, int bits, bool is_signed);

// The operations of compiled expressions, selected by operand type at compile time. Suffixes:
// S signed integer, U unsigned integer or bool, I any integer or bool, F32/F64 floats.
enum class Op : uint8_t {
  // Operations that evaluate their own operands (leaves, lazy ones, unary ones).
  kConst,
  kVar,
  kLoadFunc,
  kLoadImage,
  kReadChannel,
  kLoadRegister,
  kPop,
  kSelect,
  kAnd,
  kOr,
  kNot,
  kNegS,
  kNegU,
  kNegF32,
  kNegF64,
  kCastToS,
  kCastToU,
  kIntToBool,
  kSToF32,
  kUToF32,
  kSToF64,
  kUToF64,
  kF32ToF64,
  kF64ToF32,
  kF32ToBool,
  kF64ToBool,
  kF32ToInt,
  kF64ToInt,
  kAbsS,
  kAbsF32,
  kAbsF64,
  kSqrtF32,
  kSqrtF64,
  kExpF32,
  kExpF64,
  kLogF32,
  kLogF64,
  kFloorF32,
  kFloorF64,
  kCeilF32,
  kCeilF64,
  kRoundF32,
  kRoundF64,
  kExtract,  // slice(v, begin, 1) of a vector `a`: its lane `slot`
  // Binary operations: both operands are evaluated first, left to right.
  kFirstBinary,
  kAddS = kFirstBinary,
  kAddU,
  kSubS,
  kSubU,
  kMulS,
  kMulU,
  kDivS,
  kDivU,
  kModS,
  kModU,
  kAddF32,
  kSubF32,
  kMulF32,
  kDivF32,
  kModF32,
  kAddF64,
  kSubF64,
  kMulF64,
  kDivF64,
  kModF64,
  kEqI,
  kNeI,
  kLtS,
  kLeS,
  kGtS,
  kGeS,
  kLtU,
  kLeU,
  kGtU,
  kGeU,
  kEqF32,
  kNeF32,
  kLtF32,
  kLeF32,
  kGtF32,
  kGeF32,
  kEqF64,
  kNeF64,
  kLtF64,
  kLeF64,
  kGtF64,
  kGeF64,
  kMinS,
  kMinU,
  kMinF32,
  kMinF64,
  kMaxS,
  kMaxU,
  kMaxF32,
  kMaxF64,
  kPowF32,
  kPowF64,
  // Vector operations (Node::lanes > 1), evaluated by Exec::eval_vec into `lanes` values; never
  // by eval. Lane l of each is docs/ir.md's ("Vector values").
  kVVar,           // vars_[slot + l]
  kVBroadcast,     // a
  kVRamp,          // a + l * b (int32)
  kVSlice,         // lane slot + l of vector a
  kVConcat,        // the lanes of args[0], then args[1], ...
  kVSelect,        // select(a, args[0], args[1]) with a scalar condition: lazy
  kVMap,           // an elementwise operation: `lane` (a scalar node) with vars_[slot + k] set to
                   // lane l of args[k]
  kVLoadFunc,      // a gather: args as kLoadFunc, each a scalar or a vector of `lanes`
  kVLoadImage,     // a gather from an input
  kVReadChannel,   // one vector element of a channel (lanes values)
  kVLoadRegister,  // one vector element of a shift register
  kVPop,           // one vector element of a FIFO register
};

// A compiled expression: variables are slots, storage and inputs are indices, the operation is
// fixed by type; evaluating one does no lookups and no allocation.
struct Node {
  Op op = Op::kConst;
  int shift = 0;                 // signed integer results: 64 - bits
  uint64_t mask = ~uint64_t{0};  // unsigned integer results: the low `bits` bits
  int bits = 0;                  // kF32ToInt, kF64ToInt: the target width
  bool is_signed = false;        // kF32ToInt, kF64ToInt: the target's signedness
  Value imm{};                   // kConst
  const Node* a = nullptr;
  const Node* b = nullptr;
  const Node* c = nullptr;
  int slot = 0;   // kVar: variable; kLoadFunc: storage; kLoadImage: input; kReadChannel: channel;
                  // kLoadRegister, kPop: the kernel's register; kVSlice, kExtract: first lane;
                  // kVMap: the first of its lane variables
  int lanes = 1;  // the result's lanes: > 1 for the vector operations
  const Node* lane = nullptr;      // kVMap: the scalar operation on one lane
  std::vector<const Node*> args;   // loads and channel reads: the index; kLoadRegister: the PE
                                   // index, then the slot; kPop: the PE index
  const SourceLoc* loc = &kNoLoc;  // the enclosing statement, for diagnostics
};

// A compiled statement.
struct SNode {
  Stmt::Kind kind = Stmt::kProvide;
  int slot = 0;  // for, let: variable; realize, provide: storage; write_channel: channel;
                 // shift, push, provide to a register: the kernel's register
  bool to_register = false;  // provide: writes a slot of a shift register
  int lanes = 1;  // let: the value's lanes (> 1: slots slot .. slot + lanes - 1); provide: the
                  // lanes of a scatter (vector indices)
  const Node* a = nullptr;  // for: min; let, provide, write_channel, push: value; if: condition
  const Node* b = nullptr;  // for: extent
  std::vector<const Node*> args;     // provide, write_channel: index; realize: mins; shift,
                                     // push: the PE index (provide to a register: then the slot)
  std::vector<const Node*> extents;  // realize
  std::vector<const SNode*> body, else_body;
  const SourceLoc* loc = &kNoLoc;
};

// Storage of one Func: a global buffer or one realize statement's. Fortran order.
struct Storage {
  std::string name;
  Type type;
  std::vector<int64_t> mins, extents, strides;
  std::vector<Value> data;
  std::vector<uint8_t> written;  // one flag per element: reads of unwritten elements are errors

  // Storage of `dims` dimensions whose bounds are not set yet (a template, not allocated).
  static Storage unallocated(const std::string& name, Type type, size_t dims);

  size_t dims() const { return mins.size(); }
  std::string bounds_text() const;
  // Sets the bounds and clears every written flag (keeping the allocation when it fits).
  void allocate(const SourceLoc& loc);
};

// How input elements are decoded from NdArray bytes.
enum class Elem : uint8_t { kI8, kI16, kI32, kI64, kU8, kU16, kU32, kU64, kBool, kF32, kF64 };

Elem elem_of(Type t);
Value load_element(Elem e, const uint8_t* p);
void store_element(Type t, Value v, uint8_t* p);

// A program input as the kernels read it: the given array.
struct InputView {
  std::string name;
  Elem elem;
  size_t element_size = 0;
  std::vector<int64_t> shape, strides;
  const uint8_t* data = nullptr;
};

// Channels between kernels, and FIFO registers: libs/exec/interpreter_channels.h.
using Fifo = channels::Fifo<Value>;
using ChannelState = channels::ChannelState<Value>;

// The index of PE `pe` (linear, Fortran order) of a PE array of shape `shape`.
std::vector<int64_t> pe_index(const std::vector<int64_t>& shape, int64_t pe);

// Register instrumentation (RunOptions::track_registers): one record per value written.
struct ValueLife {
  int64_t pe = 0;
  uint64_t write = 0;      // the event that wrote it
  uint64_t last_read = 0;  // the last event that read it; 0: never read (events count from 1)
};

// The storage of one register during its kernel's run.
struct RegisterState {
  const Register* reg = nullptr;
  int64_t pes = 1;    // product(shape)
  int64_t lanes = 1;  // values per element (a vector register: its type's lanes)
  int64_t depth = 1;  // slots (shift) or capacity (fifo) per PE
  // Shift: the slots of PE p are data[p * depth, (p + 1) * depth), a ring whose slot 0 is at
  // head[p] (a shift moves the head instead of the values); a vector register holds the lanes
  // of position x at data[x * lanes, (x + 1) * lanes). A FIFO holds `lanes` values per element.
  std::vector<Value> data;
  std::vector<uint8_t> written;
  std::vector<int64_t> head;
  std::vector<Fifo> fifos;  // fifo: one per PE
  // Tracking only: the value in each slot (parallel to `data`; -1 for none), the values in each
  // FIFO (parallel to `fifos`, in Value::i), and every value written (by value id).
  std::vector<int64_t> ids;
  std::vector<Fifo> id_fifos;
  std::vector<ValueLife> lives;

  // The position in `data` of slot `slot` of PE `pe`.
  int64_t position(int64_t pe, int64_t slot) const {
    int64_t p = head[static_cast<size_t>(pe)] + slot;
    if (p >= depth) p -= depth;
    return pe * depth + p;
  }

  // Fresh storage: every slot without a value, every FIFO empty.
  void allocate(bool track);

  // RunOptions::max_live for this register (see interpreter.h): a sweep over the write and last
  // read events of the values that are read, counting live values per PE.
  int64_t max_live() const;
};

// The scheduler of a concurrent run, detecting deadlock: libs/exec/interpreter_channels.h.
using channels::Stopped;
using Group = channels::Group<Value>;

// A kernel compiled for execution.
struct CompiledKernel {
  const Kernel* kernel = nullptr;
  std::deque<Node> nodes;  // deques: nodes point to each other
  std::deque<SNode> stmts;
  std::vector<const SNode*> body;
  int num_vars = 0;
  std::vector<Storage> locals;  // one per realize statement: name, type, dims (a template)
  KernelAccesses accesses;      // the buffers and channels it reads and writes (program_facts.h)
  std::vector<const Register*> registers;  // those whose `kernel` names it, in program order
};

// State shared by every kernel of a run.
struct RunState {
  std::vector<std::unique_ptr<Storage>> buffers;  // program.buffers order
  std::vector<InputView> inputs;                  // program.inputs order
  std::vector<ChannelState> channels;             // program.channels order
  std::atomic<uint64_t> steps_left{0};
  uint64_t max_steps = 0;
  bool track_registers = false;
};

// Executes compiled code for one kernel (or evaluates constant expressions, with no group).
class Exec {
 public:
  Exec(RunState& run, const CompiledKernel* kernel, Group* group, int member)
      : run_(run), kernel_(kernel), group_(group), member_(member), track_(run.track_registers) {
    for (auto& b : run.buffers) storage_.push_back(b.get());
    if (kernel) {
      vars_.resize(static_cast<size_t>(kernel->num_vars));
      locals_ = kernel->locals;
      for (Storage& s : locals_) storage_.push_back(&s);
      for (const Register* r : kernel->registers) {
        RegisterState state;
        state.reg = r;
        state.depth = r->depth;
        state.lanes = r->type.lanes;
        for (int64_t d : r->shape) state.pes *= d;  // bounded by check_registers
        regs_.push_back(std::move(state));
      }
    }
  }

  ~Exec() { run_.steps_left.fetch_add(budget_); }  // return unused steps for later kernels

  void run(const std::vector<const SNode*>& body) {
    for (const SNode* s : body) exec(s);
  }

  // Runs the whole kernel: fresh registers, the body, then the check that its FIFOs are empty
  // and (when tracking) the registers' max_live.
  void run_kernel();

  // After run_kernel with tracking: max_live of each of the kernel's registers.
  const std::vector<std::pair<std::string, int64_t>>& max_live() const { return max_live_; }

  // Halide's arithmetic on values (values.cc).
  Value eval(const Node* n);
  // kExtract: one lane of a vector (vector.cc).
  Value extract(const Node* n);
  // A vector expression (n->lanes > 1) into out[0 .. n->lanes) (vector.cc).
  void eval_vec(const Node* n, Value* out);

 private:
  void exec(const SNode* s);

  void step(const SNode* s) {
    if (budget_ == 0) refill(s);
    --budget_;
  }
  void refill(const SNode* s);

  // Storage (storage.cc). The linear position of the element of `s` at the index `args`
  // evaluate to; inline, as it is on the path of every load and provide.
  int64_t element(Storage& s, const std::vector<const Node*>& args, bool write,
                  const SourceLoc* loc) {
    int64_t index[kMaxDims];
    const size_t n = args.size();
    for (size_t d = 0; d < n; ++d) index[d] = eval(args[d]).i;
    return element_at(s, index, write, loc);
  }
  // The linear position of the element at `index` (s.dims() values) of `s`; run-func-bounds
  // when outside. Shared by scalar accesses and the lanes of gathers and scatters.
  int64_t element_at(Storage& s, const int64_t* index, bool write, const SourceLoc* loc) {
    const size_t n = s.dims();
    int64_t linear = 0;
    for (size_t d = 0; d < n; ++d) {
      const int64_t offset = index[d] - s.mins[d];
      if (offset < 0 || offset >= s.extents[d])
        throw Diagnostic(*loc,
                         std::string(write ? "write" : "read") + " of '" + s.name + "' at " +
                             format_index(std::vector<int64_t>(index, index + n)) +
                             " is outside its bounds " + s.bounds_text(),
                         "run-func-bounds");
      linear += offset * s.strides[d];
    }
    return linear;
  }
  [[noreturn]] void uncomputed(const Storage& s, int64_t linear, const SourceLoc* loc);
  Value load_image(const Node* n);
  // Vector statements (vector.cc): a scatter, and a vector let.
  void scatter(const SNode* s);
  // Evaluates the index `args` of a gather or scatter of `lanes` lanes into index[l][d].
  void gather_index(const std::vector<const Node*>& args, int lanes, int64_t (*index)[kMaxDims]);
  Value load_image_at(const InputView& in, const int64_t* index, size_t dims, const SourceLoc* loc);

  // Vector elements of channels and registers (vector.cc): `lanes` values each.
  void write_channel_vec(const SNode* s);
  void read_channel_vec(const Node* n, Value* out);
  void load_register_vec(const Node* n, Value* out);
  void provide_register_vec(const SNode* s);
  void push_vec(const SNode* s);
  void pop_vec(const Node* n, Value* out);

  // Channels (execution.cc).
  int64_t fifo_index(const ChannelState& c, const std::vector<const Node*>& args, size_t first);
  Value read_channel(const Node* n);
  void write_channel(const SNode* s);

  // Registers (storage.cc).
  // Evaluates the PE index in `args` (then the slot into `*slot`, unless `slot` is null) of
  // register `r` and returns the PE's linear number; `run-register-bounds` when outside.
  int64_t register_pe(const RegisterState& r, const std::vector<const Node*>& args, int64_t* slot,
                      const char* what, const SourceLoc* loc);
  // Tracking: a new value written to PE `pe` of `r`; returns its id.
  int64_t new_value(RegisterState& r, int64_t pe);
  void read_value(RegisterState& r, int64_t id);
  int64_t register_read_at(const Node* n, RegisterState& r);
  void register_written(RegisterState& r, int64_t at, int64_t pe);
  void check_room(const SNode* s, const RegisterState& r, const Fifo& f, int64_t pe);
  void pushed(RegisterState& r, int64_t pe);
  Fifo& fifo_to_pop(const Node* n, RegisterState& r);
  Value load_register(const Node* n);
  void provide_register(const SNode* s);
  void shift(const SNode* s);
  void push(const SNode* s);
  Value pop(const Node* n);

  RunState& run_;
  const CompiledKernel* kernel_;
  Group* group_;
  int member_;
  const bool track_;
  std::vector<Value> vars_;
  std::vector<Storage> locals_;
  std::vector<Storage*> storage_;    // buffers, then this kernel's realizes
  std::vector<RegisterState> regs_;  // the kernel's registers (CompiledKernel::registers)
  uint64_t events_ = 0;              // register events of this kernel run (tracking only)
  std::vector<std::pair<std::string, int64_t>> max_live_;
  uint64_t budget_ = 0;
};

// Compilation (compile.cc): IR to the compiled form.

// A scalar type the interpreter computes with.
bool supported_scalar(Type t);

// Name, type and dims of every buffer (storage templates, bounds still unset).
std::vector<Storage> buffer_templates(const Program& program);

// The registers (of a verified program) are ones the interpreter runs: a scalar type, and a PE
// array and index it can hold.
void check_registers(const Program& program);

// Compiles expression `e` (a buffer bound: no channels, no variables) into `out`; `context`
// names it in errors, `loc` locates diagnostics.
const Node* compile_constant(const Program& program, CompiledKernel& out,
                             const std::string& context, const SourceLoc* loc, const Expr& e);

// Compiles `out.kernel`'s body into `out` (whose `registers` are set).
void compile_kernel(const Program& program, CompiledKernel& out);

// Execution (execution.cc).

// Runs `body` on a thread with a large stack and rethrows what it throws.
void run_with_large_stack(const std::function<void()>& body);

// Runs the kernels `first` .. `last - 1` (one concurrent run) to completion.
void run_group(RunState& run, const Program& program, const std::vector<CompiledKernel>& compiled,
               size_t first, size_t last, std::map<std::string, int64_t>* max_live);

}  // namespace interp
}  // namespace t2s
