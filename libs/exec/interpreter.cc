#include "libs/exec/interpreter.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <set>

#include "libs/exec/channels.h"
#include "libs/exec/compare.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the interpreter copies NdArray elements as little-endian host integers"
#endif

namespace t2s {

namespace {

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

const SourceLoc kNoLoc;

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
int64_t float_to_int(double x, int bits, bool is_signed) {
  if (std::isnan(x)) return 0;
  if (is_signed) {
    const double limit = std::ldexp(1.0, bits - 1);
    if (x >= limit) return static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1);
    if (x <= -limit) return -static_cast<int64_t>(uint64_t{1} << (bits - 1));
    return static_cast<int64_t>(x);
  }
  if (x >= std::ldexp(1.0, bits)) return static_cast<int64_t>(~uint64_t{0} >> (64 - bits));
  if (x <= -1.0) return 0;
  return static_cast<int64_t>(static_cast<uint64_t>(x));
}

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
  int slot = 0;  // kVar: variable; kLoadFunc: storage; kLoadImage: input; kReadChannel: channel;
                 // kLoadRegister, kPop: the kernel's register
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
  const Node* a = nullptr;   // for: min; let, provide, write_channel, push: value; if: condition
  const Node* b = nullptr;   // for: extent
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

  size_t dims() const { return mins.size(); }
  std::string bounds_text() const {
    std::string s;
    for (size_t d = 0; d < dims(); ++d) {
      if (d) s += " x ";
      s += "[" + std::to_string(mins[d]) + ", " + std::to_string(mins[d] + extents[d]) + ")";
    }
    return s;
  }
  // Sets the bounds and clears every written flag (keeping the allocation when it fits).
  void allocate(const SourceLoc& loc) {
    int64_t size = 1;
    for (size_t d = 0; d < dims(); ++d) {
      if (extents[d] < 0)
        throw InternalError("interpreter: storage of '" + name + "' has negative extent " +
                            std::to_string(extents[d]));
      strides[d] = size;
      if (extents[d] != 0 && size > kMaxStorageElements / extents[d]) size = -1;
      if (size < 0) break;
      size *= extents[d];
    }
    if (size < 0 || size > kMaxStorageElements)
      throw Diagnostic(loc,
                       "storage of '" + name + "' with bounds " + bounds_text() +
                           " is too large for the interpreter (more than 2^32 elements)",
                       "run-storage-size");
    try {
      data.resize(static_cast<size_t>(size));
      written.assign(static_cast<size_t>(size), 0);
    } catch (const std::bad_alloc&) {
      throw Diagnostic(loc,
                       "not enough memory for the storage of '" + name + "' (" +
                           std::to_string(size) + " elements)",
                       "run-storage-size");
    }
  }
};

// How input elements are decoded from NdArray bytes.
enum class Elem : uint8_t { kI8, kI16, kI32, kI64, kU8, kU16, kU32, kU64, kBool, kF32, kF64 };

Elem elem_of(Type t) {
  if (t.is_bool()) return Elem::kBool;
  if (t.is_float()) return t.bits == 32 ? Elem::kF32 : Elem::kF64;
  const bool s = t.is_int();
  switch (t.bits) {
    case 8:
      return s ? Elem::kI8 : Elem::kU8;
    case 16:
      return s ? Elem::kI16 : Elem::kU16;
    case 32:
      return s ? Elem::kI32 : Elem::kU32;
    default:
      return s ? Elem::kI64 : Elem::kU64;
  }
}

template <typename T>
T load_as(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

Value load_element(Elem e, const uint8_t* p) {
  Value v;
  switch (e) {
    case Elem::kI8:
      v.i = load_as<int8_t>(p);
      break;
    case Elem::kI16:
      v.i = load_as<int16_t>(p);
      break;
    case Elem::kI32:
      v.i = load_as<int32_t>(p);
      break;
    case Elem::kI64:
      v.i = load_as<int64_t>(p);
      break;
    case Elem::kU8:
      v.u = load_as<uint8_t>(p);
      break;
    case Elem::kU16:
      v.u = load_as<uint16_t>(p);
      break;
    case Elem::kU32:
      v.u = load_as<uint32_t>(p);
      break;
    case Elem::kU64:
      v.u = load_as<uint64_t>(p);
      break;
    case Elem::kBool:
      v.u = *p != 0;
      break;
    case Elem::kF32:
      v.d = 0;
      v.f = load_as<float>(p);
      break;
    case Elem::kF64:
      v.d = load_as<double>(p);
      break;
  }
  return v;
}

void store_element(Type t, Value v, uint8_t* p) {
  if (t.is_bool()) {
    *p = v.u != 0;
  } else if (t.is_float() && t.bits == 32) {
    std::memcpy(p, &v.f, sizeof v.f);
  } else if (t.is_float()) {
    std::memcpy(p, &v.d, sizeof v.d);
  } else {
    std::memcpy(p, &v.u, static_cast<size_t>(t.bits) / 8);  // little-endian: the low bytes
  }
}

// A program input as the kernels read it: the given array.
struct InputView {
  std::string name;
  Elem elem;
  size_t element_size = 0;
  std::vector<int64_t> shape, strides;
  const uint8_t* data = nullptr;
};

// Channels between kernels, and FIFO registers: libs/exec/channels.h.
using Fifo = channels::Fifo<Value>;
using ChannelState = channels::ChannelState<Value>;

// The index of PE `pe` (linear, Fortran order) of a PE array of shape `shape`.
std::vector<int64_t> pe_index(const std::vector<int64_t>& shape, int64_t pe) {
  std::vector<int64_t> index;
  for (int64_t d : shape) {
    index.push_back(pe % d);
    pe /= d;
  }
  return index;
}

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
  int64_t depth = 1;  // slots (shift) or capacity (fifo) per PE
  // Shift: the slots of PE p are data[p * depth, (p + 1) * depth), a ring whose slot 0 is at
  // head[p] (a shift moves the head instead of the values).
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
  void allocate(bool track) {
    const std::string& name = reg->name;
    try {
      if (reg->kind == Register::kShift) {
        if (depth > kMaxStorageElements / pes)
          throw Diagnostic(reg->loc,
                           "storage of shift register '" + name + "' (" + std::to_string(pes) +
                               " PEs x " + std::to_string(depth) +
                               " slots) is too large for the interpreter (more than 2^32 "
                               "elements)",
                           "run-storage-size");
        const size_t size = static_cast<size_t>(pes * depth);
        data.assign(size, Value{});
        written.assign(size, 0);
        head.assign(static_cast<size_t>(pes), 0);
        if (track) ids.assign(size, -1);
      } else {
        fifos.assign(static_cast<size_t>(pes), Fifo{});
        if (track) id_fifos.assign(static_cast<size_t>(pes), Fifo{});
      }
    } catch (const std::bad_alloc&) {
      throw Diagnostic(reg->loc, "not enough memory for the storage of register '" + name + "'",
                       "run-storage-size");
    }
    lives.clear();
  }

  // RunOptions::max_live for this register (see interpreter.h): a sweep over the write and last
  // read events of the values that are read, counting live values per PE.
  int64_t max_live() const {
    struct Event {
      uint64_t at;
      int64_t pe;
      int delta;
    };
    std::vector<Event> events;
    for (const ValueLife& v : lives) {
      if (v.last_read == 0) continue;
      events.push_back({v.write, v.pe, 1});
      events.push_back({v.last_read, v.pe, -1});
    }
    // Every event number is distinct, so the order is total.
    std::sort(events.begin(), events.end(),
              [](const Event& x, const Event& y) { return x.at < y.at; });
    std::vector<int64_t> live(static_cast<size_t>(pes), 0);
    int64_t best = 0;
    for (const Event& e : events) {
      int64_t& n = live[static_cast<size_t>(e.pe)];
      n += e.delta;
      best = std::max(best, n);
    }
    return best;
  }
};

// The scheduler of a concurrent run, detecting deadlock: libs/exec/channels.h.
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
  std::set<int> buffers_read, buffers_written;
  std::set<int> channels_read, channels_written;
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
        for (int64_t d : r->shape) state.pes *= d;  // checked by check_registers
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
  void run_kernel() {
    for (RegisterState& r : regs_) r.allocate(track_);
    run(kernel_->body);
    for (const RegisterState& r : regs_) {
      for (size_t pe = 0; pe < r.fifos.size(); ++pe) {
        const size_t count = r.fifos[pe].count;
        if (count == 0) continue;
        throw Diagnostic(r.reg->loc,
                         "FIFO '" + r.reg->name + "' of PE " +
                             format_index(pe_index(r.reg->shape, static_cast<int64_t>(pe))) +
                             " still holds " + std::to_string(count) + " value" +
                             (count == 1 ? "" : "s") + " after kernel '" + kernel_->kernel->name +
                             "' finished",
                         "run-fifo-leftover");
      }
    }
    if (track_)
      for (const RegisterState& r : regs_) max_live_.emplace_back(r.reg->name, r.max_live());
  }

  // After run_kernel with tracking: max_live of each of the kernel's registers.
  const std::vector<std::pair<std::string, int64_t>>& max_live() const { return max_live_; }

  Value eval(const Node* n) {
    Value r;
    switch (n->op) {
      case Op::kConst:
        return n->imm;
      case Op::kVar:
        return vars_[n->slot];
      case Op::kLoadFunc: {
        Storage& s = *storage_[n->slot];
        int64_t i = element(s, n->args, false, n->loc);
        if (!s.written[i]) uncomputed(s, i, n->loc);
        return s.data[i];
      }
      case Op::kLoadImage:
        return load_image(n);
      case Op::kReadChannel:
        return read_channel(n);
      case Op::kLoadRegister:
        return load_register(n);
      case Op::kPop:
        return pop(n);
      case Op::kSelect:  // lazy: an untaken branch may read out of bounds
        return eval(n->a).u ? eval(n->b) : eval(n->c);
      case Op::kAnd:  // short-circuit, as C backends evaluate &&
        r.u = eval(n->a).u && eval(n->b).u;
        return r;
      case Op::kOr:
        r.u = eval(n->a).u || eval(n->b).u;
        return r;
      case Op::kNot:
        r.u = !eval(n->a).u;
        return r;
      case Op::kNegS:
        r.i = wrap_s(0 - eval(n->a).u, n->shift);
        return r;
      case Op::kNegU:
        r.u = (0 - eval(n->a).u) & n->mask;
        return r;
      case Op::kNegF32:
        r.f = -eval(n->a).f;
        return r;
      case Op::kNegF64:
        r.d = -eval(n->a).d;
        return r;
      case Op::kCastToS:
        r.i = wrap_s(eval(n->a).u, n->shift);
        return r;
      case Op::kCastToU:
        r.u = eval(n->a).u & n->mask;
        return r;
      case Op::kIntToBool:
        r.u = eval(n->a).u != 0;
        return r;
      case Op::kSToF32:
        r.f = static_cast<float>(eval(n->a).i);
        return r;
      case Op::kUToF32:
        r.f = static_cast<float>(eval(n->a).u);
        return r;
      case Op::kSToF64:
        r.d = static_cast<double>(eval(n->a).i);
        return r;
      case Op::kUToF64:
        r.d = static_cast<double>(eval(n->a).u);
        return r;
      case Op::kF32ToF64:
        r.d = eval(n->a).f;
        return r;
      case Op::kF64ToF32:
        r.f = static_cast<float>(eval(n->a).d);
        return r;
      case Op::kF32ToBool:
        r.u = eval(n->a).f != 0;
        return r;
      case Op::kF64ToBool:
        r.u = eval(n->a).d != 0;
        return r;
      case Op::kF32ToInt:
        r.i = float_to_int(eval(n->a).f, n->bits, n->is_signed);
        return r;
      case Op::kF64ToInt:
        r.i = float_to_int(eval(n->a).d, n->bits, n->is_signed);
        return r;
      case Op::kAbsS: {  // Halide: the result is unsigned, so abs(INT_MIN) is representable
        Value x = eval(n->a);
        r.u = (x.i < 0 ? 0 - x.u : x.u) & n->mask;
        return r;
      }
      case Op::kAbsF32:
        r.f = fabsf(eval(n->a).f);
        return r;
      case Op::kAbsF64:
        r.d = fabs(eval(n->a).d);
        return r;
      case Op::kSqrtF32:
        r.f = sqrtf(eval(n->a).f);
        return r;
      case Op::kSqrtF64:
        r.d = sqrt(eval(n->a).d);
        return r;
      case Op::kExpF32:
        r.f = expf(eval(n->a).f);
        return r;
      case Op::kExpF64:
        r.d = exp(eval(n->a).d);
        return r;
      case Op::kLogF32:
        r.f = logf(eval(n->a).f);
        return r;
      case Op::kLogF64:
        r.d = log(eval(n->a).d);
        return r;
      case Op::kFloorF32:
        r.f = floorf(eval(n->a).f);
        return r;
      case Op::kFloorF64:
        r.d = floor(eval(n->a).d);
        return r;
      case Op::kCeilF32:
        r.f = ceilf(eval(n->a).f);
        return r;
      case Op::kCeilF64:
        r.d = ceil(eval(n->a).d);
        return r;
      case Op::kRoundF32:  // Halide rounds half to even: the default rounding mode
        r.f = nearbyintf(eval(n->a).f);
        return r;
      case Op::kRoundF64:
        r.d = nearbyint(eval(n->a).d);
        return r;
      default:
        break;
    }
    const Value x = eval(n->a);
    const Value y = eval(n->b);
    switch (n->op) {
      case Op::kAddS:
        r.i = wrap_s(x.u + y.u, n->shift);
        break;
      case Op::kAddU:
        r.u = (x.u + y.u) & n->mask;
        break;
      case Op::kSubS:
        r.i = wrap_s(x.u - y.u, n->shift);
        break;
      case Op::kSubU:
        r.u = (x.u - y.u) & n->mask;
        break;
      case Op::kMulS:
        r.i = wrap_s(x.u * y.u, n->shift);
        break;
      case Op::kMulU:
        r.u = (x.u * y.u) & n->mask;
        break;
      case Op::kDivS:
        r.i = wrap_s(static_cast<uint64_t>(halide_div(x.i, y.i)), n->shift);
        break;
      case Op::kDivU:
        r.u = y.u == 0 ? 0 : x.u / y.u;
        break;
      case Op::kModS:
        r.i = halide_mod(x.i, y.i);
        break;
      case Op::kModU:
        r.u = y.u == 0 ? 0 : x.u % y.u;
        break;
      case Op::kAddF32:
        r.f = x.f + y.f;
        break;
      case Op::kSubF32:
        r.f = x.f - y.f;
        break;
      case Op::kMulF32:
        r.f = x.f * y.f;
        break;
      case Op::kDivF32:
        r.f = x.f / y.f;
        break;
      case Op::kModF32:  // Halide's float modulo, in the operand type
        r.f = x.f - y.f * floorf(x.f / y.f);
        break;
      case Op::kAddF64:
        r.d = x.d + y.d;
        break;
      case Op::kSubF64:
        r.d = x.d - y.d;
        break;
      case Op::kMulF64:
        r.d = x.d * y.d;
        break;
      case Op::kDivF64:
        r.d = x.d / y.d;
        break;
      case Op::kModF64:
        r.d = x.d - y.d * floor(x.d / y.d);
        break;
      case Op::kEqI:
        r.u = x.u == y.u;
        break;
      case Op::kNeI:
        r.u = x.u != y.u;
        break;
      case Op::kLtS:
        r.u = x.i < y.i;
        break;
      case Op::kLeS:
        r.u = x.i <= y.i;
        break;
      case Op::kGtS:
        r.u = x.i > y.i;
        break;
      case Op::kGeS:
        r.u = x.i >= y.i;
        break;
      case Op::kLtU:
        r.u = x.u < y.u;
        break;
      case Op::kLeU:
        r.u = x.u <= y.u;
        break;
      case Op::kGtU:
        r.u = x.u > y.u;
        break;
      case Op::kGeU:
        r.u = x.u >= y.u;
        break;
      case Op::kEqF32:
        r.u = x.f == y.f;
        break;
      case Op::kNeF32:
        r.u = x.f != y.f;
        break;
      case Op::kLtF32:
        r.u = x.f < y.f;
        break;
      case Op::kLeF32:
        r.u = x.f <= y.f;
        break;
      case Op::kGtF32:
        r.u = x.f > y.f;
        break;
      case Op::kGeF32:
        r.u = x.f >= y.f;
        break;
      case Op::kEqF64:
        r.u = x.d == y.d;
        break;
      case Op::kNeF64:
        r.u = x.d != y.d;
        break;
      case Op::kLtF64:
        r.u = x.d < y.d;
        break;
      case Op::kLeF64:
        r.u = x.d <= y.d;
        break;
      case Op::kGtF64:
        r.u = x.d > y.d;
        break;
      case Op::kGeF64:
        r.u = x.d >= y.d;
        break;
      // min(a, b) is a < b ? a : b and max(a, b) is a > b ? a : b, as Halide lowers them; for
      // floats this fixes which operand a NaN comparison yields (the second).
      case Op::kMinS:
        r = x.i < y.i ? x : y;
        break;
      case Op::kMinU:
        r = x.u < y.u ? x : y;
        break;
      case Op::kMinF32:
        r = x.f < y.f ? x : y;
        break;
      case Op::kMinF64:
        r = x.d < y.d ? x : y;
        break;
      case Op::kMaxS:
        r = x.i > y.i ? x : y;
        break;
      case Op::kMaxU:
        r = x.u > y.u ? x : y;
        break;
      case Op::kMaxF32:
        r = x.f > y.f ? x : y;
        break;
      case Op::kMaxF64:
        r = x.d > y.d ? x : y;
        break;
      case Op::kPowF32:
        r.f = powf(x.f, y.f);
        break;
      case Op::kPowF64:
        r.d = pow(x.d, y.d);
        break;
      default:
        throw InternalError("interpreter: bad operation code");
    }
    return r;
  }

 private:
  void exec(const SNode* s) {
    step(s);
    switch (s->kind) {
      case Stmt::kFor: {
        const int64_t min = eval(s->a).i;
        const int64_t end = min + eval(s->b).i;
        Value& var = vars_[s->slot];
        for (int64_t v = min; v < end; ++v) {
          step(s);
          var.i = wrap_s(static_cast<uint64_t>(v), 32);
          run(s->body);
        }
        break;
      }
      case Stmt::kLet:
        vars_[s->slot] = eval(s->a);
        run(s->body);
        break;
      case Stmt::kIf:
        run(eval(s->a).u ? s->body : s->else_body);
        break;
      case Stmt::kProvide: {
        if (s->to_register) {
          provide_register(s);
          break;
        }
        Storage& st = *storage_[s->slot];
        const int64_t i = element(st, s->args, true, s->loc);
        st.data[i] = eval(s->a);
        st.written[i] = 1;
        break;
      }
      case Stmt::kRealize: {
        Storage& st = *storage_[s->slot];
        for (size_t d = 0; d < st.dims(); ++d) {
          st.mins[d] = eval(s->args[d]).i;
          st.extents[d] = eval(s->extents[d]).i;
        }
        st.allocate(*s->loc);
        run(s->body);
        break;
      }
      case Stmt::kWriteChannel:
        write_channel(s);
        break;
      case Stmt::kShift:
        shift(s);
        break;
      case Stmt::kPush:
        push(s);
        break;
      case Stmt::kAlloc:
        throw InternalError("interpreter: alloc statements are not supported yet");
    }
  }

  void step(const SNode* s) {
    if (budget_ == 0) refill(s);
    --budget_;
  }

  void refill(const SNode* s) {
    if (group_ && group_->stop.load(std::memory_order_relaxed)) throw Stopped{};
    uint64_t left = run_.steps_left.load();
    uint64_t take;
    do {
      if (left == 0)
        throw Diagnostic(*s->loc,
                         "the run exceeded its limit of " + std::to_string(run_.max_steps) +
                             " steps (statement executions)",
                         "run-step-limit");
      take = std::min(left, kStepChunk);
    } while (!run_.steps_left.compare_exchange_weak(left, left - take));
    budget_ = take;
  }

  // The linear position of the element of `s` at the index `args` evaluate to.
  int64_t element(Storage& s, const std::vector<const Node*>& args, bool write,
                  const SourceLoc* loc) {
    int64_t index[kMaxDims];
    const size_t n = args.size();
    for (size_t d = 0; d < n; ++d) index[d] = eval(args[d]).i;
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

  [[noreturn]] void uncomputed(const Storage& s, int64_t linear, const SourceLoc* loc) {
    std::vector<int64_t> index(s.dims());
    for (size_t d = 0; d < s.dims(); ++d) {
      index[d] = s.mins[d] + linear % s.extents[d];
      linear /= s.extents[d];
    }
    throw Diagnostic(
        *loc, "read of '" + s.name + "' at " + format_index(index) + " before it was computed",
        "run-uncomputed");
  }

  Value load_image(const Node* n) {
    const InputView& in = run_.inputs[n->slot];
    int64_t index[kMaxDims];
    const size_t dims = n->args.size();
    for (size_t d = 0; d < dims; ++d) index[d] = eval(n->args[d]).i;
    int64_t linear = 0;
    for (size_t d = 0; d < dims; ++d) {
      if (index[d] < 0 || index[d] >= in.shape[d])
        throw Diagnostic(*n->loc,
                         "read of input '" + in.name + "' at " +
                             format_index(std::vector<int64_t>(index, index + dims)) +
                             " is outside its extents " + format_index(in.shape),
                         "run-input-bounds");
      linear += index[d] * in.strides[d];
    }
    return load_element(in.elem, in.data + static_cast<size_t>(linear) * in.element_size);
  }

  int64_t fifo_index(const ChannelState& c, const std::vector<const Node*>& args, size_t first) {
    int64_t index[kMaxDims];
    const size_t dims = c.channel->dims.size();
    for (size_t d = 0; d < dims; ++d) index[d] = eval(args[first + d]).i;
    int64_t linear = 0, stride = 1;
    for (size_t d = 0; d < dims; ++d) {
      if (index[d] < 0 || index[d] >= c.channel->dims[d])
        throw InternalError("interpreter: index " +
                            format_index(std::vector<int64_t>(index, index + dims)) +
                            " of channel '" + c.channel->name + "' is outside its dimensions " +
                            format_index(c.channel->dims));
      linear += index[d] * stride;
      stride *= c.channel->dims[d];
    }
    return linear;
  }

  Value read_channel(const Node* n) {
    ChannelState& c = run_.channels[n->slot];
    const int64_t fi = fifo_index(c, n->args, 1);
    Fifo& f = c.fifos[fi];
    std::unique_lock<std::mutex> lock(group_->mutex);
    while (f.count == 0) group_->wait(lock, member_, c, fi, false, n->loc);
    Value v = f.pop();
    if (f.waiting_writer >= 0) {
      group_->wake(f.waiting_writer);
      f.waiting_writer = -1;
    }
    return v;
  }

  void write_channel(const SNode* s) {
    ChannelState& c = run_.channels[s->slot];
    const int64_t fi = fifo_index(c, s->args, 0);
    const Value v = eval(s->a);
    Fifo& f = c.fifos[fi];
    std::unique_lock<std::mutex> lock(group_->mutex);
    while (f.count >= c.capacity) group_->wait(lock, member_, c, fi, true, s->loc);
    f.push(v);
    if (f.waiting_reader >= 0) {
      group_->wake(f.waiting_reader);
      f.waiting_reader = -1;
    }
  }

  // Evaluates the PE index in `args` (then the slot into `*slot`, unless `slot` is null) of
  // register `r` and returns the PE's linear number; `run-register-bounds` when outside.
  int64_t register_pe(const RegisterState& r, const std::vector<const Node*>& args, int64_t* slot,
                      const char* what, const SourceLoc* loc) {
    int64_t index[kMaxDims];
    const size_t n = args.size();
    for (size_t d = 0; d < n; ++d) index[d] = eval(args[d]).i;
    const std::vector<int64_t>& shape = r.reg->shape;
    bool inside = true;
    int64_t pe = 0, stride = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (index[d] < 0 || index[d] >= shape[d]) inside = false;
      pe += index[d] * stride;
      stride *= shape[d];
    }
    if (slot) {
      *slot = index[shape.size()];
      if (*slot < 0 || *slot >= r.depth) inside = false;
    }
    if (!inside)
      throw Diagnostic(*loc,
                       std::string(what) + " '" + r.reg->name + "' at " +
                           format_index(std::vector<int64_t>(index, index + n)) +
                           " is outside its PE array " + format_index(shape) +
                           (slot ? " x " + std::to_string(r.depth) + " slots" : ""),
                       "run-register-bounds");
    return pe;
  }

  // Tracking: a new value written to PE `pe` of `r`; returns its id.
  int64_t new_value(RegisterState& r, int64_t pe) {
    ValueLife v;
    v.pe = pe;
    v.write = ++events_;
    r.lives.push_back(v);
    return static_cast<int64_t>(r.lives.size()) - 1;
  }

  void read_value(RegisterState& r, int64_t id) {
    r.lives[static_cast<size_t>(id)].last_read = ++events_;
  }

  Value load_register(const Node* n) {
    RegisterState& r = regs_[n->slot];
    int64_t slot = 0;
    const int64_t pe = register_pe(r, n->args, &slot, "read of shift register", n->loc);
    const int64_t at = r.position(pe, slot);
    if (!r.written[at])
      throw Diagnostic(*n->loc,
                       "read of slot " + std::to_string(slot) + " of shift register '" +
                           r.reg->name + "' of PE " + format_index(pe_index(r.reg->shape, pe)) +
                           " before any value reached it",
                       "run-register-unwritten");
    if (track_) read_value(r, r.ids[at]);
    return r.data[at];
  }

  void provide_register(const SNode* s) {
    RegisterState& r = regs_[s->slot];
    int64_t slot = 0;
    const int64_t pe = register_pe(r, s->args, &slot, "write of shift register", s->loc);
    const Value v = eval(s->a);
    const int64_t at = r.position(pe, slot);
    r.data[at] = v;
    r.written[at] = 1;
    if (track_) r.ids[at] = new_value(r, pe);
  }

  void shift(const SNode* s) {
    RegisterState& r = regs_[s->slot];
    const int64_t pe = register_pe(r, s->args, nullptr, "shift of shift register", s->loc);
    if (r.depth == 1) return;
    // Slot m takes slot m - 1: the ring's head moves back one place, onto the old deepest slot
    // (whose value is dropped), which then takes slot 0's value (slot 0 keeps it).
    int64_t& head = r.head[static_cast<size_t>(pe)];
    const int64_t from = r.position(pe, 0);
    head = head == 0 ? r.depth - 1 : head - 1;
    const int64_t to = r.position(pe, 0);
    r.data[to] = r.data[from];
    r.written[to] = r.written[from];
    if (track_) r.ids[to] = r.ids[from];
  }

  void push(const SNode* s) {
    RegisterState& r = regs_[s->slot];
    const int64_t pe = register_pe(r, s->args, nullptr, "push to FIFO", s->loc);
    const Value v = eval(s->a);
    Fifo& f = r.fifos[static_cast<size_t>(pe)];
    if (static_cast<int64_t>(f.count) >= r.depth)
      throw Diagnostic(*s->loc,
                       "FIFO '" + r.reg->name + "' of PE " +
                           format_index(pe_index(r.reg->shape, pe)) +
                           " overflows: it already holds its depth of " + std::to_string(r.depth) +
                           " value" + (r.depth == 1 ? "" : "s"),
                       "run-fifo-overflow");
    f.push(v);
    if (track_) {
      Value id;
      id.i = new_value(r, pe);
      r.id_fifos[static_cast<size_t>(pe)].push(id);
    }
  }

  Value pop(const Node* n) {
    RegisterState& r = regs_[n->slot];
    const int64_t pe = register_pe(r, n->args, nullptr, "pop from FIFO", n->loc);
    Fifo& f = r.fifos[static_cast<size_t>(pe)];
    if (f.count == 0)
      throw Diagnostic(*n->loc,
                       "pop from FIFO '" + r.reg->name + "' of PE " +
                           format_index(pe_index(r.reg->shape, pe)) + ", which is empty",
                       "run-fifo-empty");
    if (track_) read_value(r, r.id_fifos[static_cast<size_t>(pe)].pop().i);
    return f.pop();
  }

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

// ---------------------------------------------------------------------------------------------
// Compilation

bool supported_scalar(Type t) {
  if (!t.known() || t.lanes != 1) return false;
  if (t.is_bool()) return true;
  if (t.is_float()) return t.bits == 32 || t.bits == 64;
  return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
}

class Compiler {
 public:
  // `buffers`: name, type and dims of every buffer (what compiling a use needs to know).
  Compiler(const Program& program, const std::vector<Storage>& buffers, CompiledKernel& out,
           const std::string& context, bool allow_channels)
      : program_(program),
        buffers_(buffers),
        out_(out),
        context_(context),
        allow_channels_(allow_channels) {}

  void set_loc(const SourceLoc* loc) { loc_ = loc; }

  std::vector<const SNode*> stmts(const StmtList& list) {
    std::vector<const SNode*> out;
    for (const StmtPtr& s : list) out.push_back(stmt(*s));
    return out;
  }

  const Node* expr(const Expr& e) {
    if (!e) fail("a missing expression");
    check_type(e->type);
    Node& n = node();
    const Type t = e->type;
    set_int_result(n, t);
    switch (e->kind) {
      case ExprKind::kIntImm:
        n.op = Op::kConst;
        if (t.is_float()) fail("an integer literal of type " + t.name());
        n.imm.i = t.is_bool()  ? e->int_value != 0
                  : t.is_int() ? wrap_to_type(e->int_value, t)
                               : static_cast<int64_t>(static_cast<uint64_t>(e->int_value) & n.mask);
        break;
      case ExprKind::kFloatImm:
        n.op = Op::kConst;
        if (!t.is_float()) fail("a float literal of type " + t.name());
        n.imm.d = 0;
        if (t.bits == 32)
          n.imm.f = static_cast<float>(e->float_value);
        else
          n.imm.d = e->float_value;
        break;
      case ExprKind::kVar: {
        n.op = Op::kVar;
        const Binding& b = lookup_var(e->name);
        n.slot = b.slot;
        if (t != b.type)
          fail("variable '" + e->name + "' of type " + t.name() + "; it is bound to " +
               b.type.name());
        break;
      }
      case ExprKind::kCall:
        call(n, e);
        break;
      case ExprKind::kBinary:
        binary(n, e);
        break;
      case ExprKind::kUnary:
        n.a = expr(e->operands.at(0));
        if (e->unary_op == UnaryOp::kNot) {
          expect_type(e->operands[0], Type::Bool());
          n.op = Op::kNot;
        } else {
          expect_type(e->operands[0], t);
          n.op = t.is_float() ? (t.bits == 32 ? Op::kNegF32 : Op::kNegF64)
                 : t.is_int() ? Op::kNegS
                              : Op::kNegU;
        }
        break;
      case ExprKind::kSelect:
        if (e->operands.size() != 3)
          fail("a select without a false value (t2s-merge turns those into if statements)");
        expect_type(e->operands[0], Type::Bool());
        expect_type(e->operands[1], t);
        expect_type(e->operands[2], t);
        n.op = Op::kSelect;
        n.a = expr(e->operands[0]);
        n.b = expr(e->operands[1]);
        n.c = expr(e->operands[2]);
        break;
      case ExprKind::kCast:
        return cast(n, e);
    }
    return &n;
  }

  const std::string& context() const { return context_; }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw InternalError("interpreter: " + context_ + ": " + what);
  }

  void check_type(Type t) {
    if (t.known() && t.lanes != 1)
      fail("vector type " + t.name() + " is not supported yet (only scalar code)");
    if (!supported_scalar(t)) fail("unsupported type " + (t.known() ? t.name() : "<unknown>"));
  }

  void expect_type(const Expr& e, Type t) {
    if (!e || e->type != t)
      fail("an operand of type " + (e ? e->type.name() : "<none>") + " where " + t.name() +
           " is expected");
  }

  Node& node() {
    out_.nodes.emplace_back();
    Node& n = out_.nodes.back();
    n.loc = loc_;
    return n;
  }

  static void set_int_result(Node& n, Type t) {
    if (t.is_float()) return;
    n.shift = 64 - t.bits;
    n.mask = t.bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << t.bits) - 1;
  }

  // A variable in scope: a loop variable (int32) or a let-bound value (the value's type).
  struct Binding {
    std::string name;
    int slot;
    Type type;
  };

  const Binding& lookup_var(const std::string& name) {
    for (size_t i = vars_.size(); i-- > 0;)
      if (vars_[i].name == name) return vars_[i];
    fail("variable '" + name + "' is used outside any loop or let binding it");
  }

  // The kernel's register `name` (its index in CompiledKernel::registers), which must be of
  // kind `kind` for `use`.
  int register_slot(const std::string& name, Register::Kind kind, const std::string& use) {
    const Register* r = program_.find_register(name);
    if (!r) fail(use + " of unknown register '" + name + "'");
    if (r->kind != kind)
      fail(use + " of '" + name + "', which is a " +
           (r->kind == Register::kShift ? "shift register" : "FIFO"));
    for (size_t i = 0; i < out_.registers.size(); ++i)
      if (out_.registers[i] == r) return static_cast<int>(i);
    fail(use + " of register '" + name + "', which belongs to kernel '" + r->kernel + "'");
  }

  // The PE index (then the slot when `slot`) of a register access: args[first...].
  std::vector<const Node*> register_args(const Register& r, const std::vector<Expr>& args,
                                         size_t first, bool slot, const std::string& use) {
    const size_t expected = r.shape.size() + (slot ? 1 : 0);
    if (args.size() - first != expected)
      fail(use + " of '" + r.name + "' with " + std::to_string(args.size() - first) +
           " indices; it takes " + std::to_string(expected) +
           (slot ? " (the PE index, then the slot)" : " (the PE index)"));
    return index_args(args, first, "register '" + r.name + "'");
  }

  // The storage a Func name refers to here: the innermost enclosing realize, else its buffer.
  int lookup_storage(const std::string& name, bool write) {
    for (size_t i = realizes_.size(); i-- > 0;)
      if (realizes_[i].first == name) return realizes_[i].second;
    for (size_t i = 0; i < program_.buffers.size(); ++i) {
      if (program_.buffers[i].name != name) continue;
      (write ? out_.buffers_written : out_.buffers_read).insert(static_cast<int>(i));
      return static_cast<int>(i);
    }
    fail("Func '" + name + "' has neither an enclosing realize nor a buffer");
  }

  const Storage& storage_template(int slot) {
    const int buffers = static_cast<int>(program_.buffers.size());
    if (slot < buffers) return buffers_.at(slot);
    return out_.locals.at(static_cast<size_t>(slot - buffers));
  }

  std::vector<const Node*> index_args(const std::vector<Expr>& args, size_t first,
                                      const std::string& what) {
    if (args.size() - first > kMaxDims) fail(what + " has more than 64 dimensions");
    std::vector<const Node*> out;
    for (size_t i = first; i < args.size(); ++i) {
      if (!args[i] || !args[i]->type.is_integer()) fail("a non-integer index of " + what);
      out.push_back(expr(args[i]));
    }
    return out;
  }

  void call(Node& n, const Expr& e) {
    const Type t = e->type;
    switch (e->call_kind) {
      case CallKind::kFunc: {
        n.op = Op::kLoadFunc;
        n.slot = lookup_storage(e->name, false);
        const Storage& s = storage_template(n.slot);
        if (s.dims() != e->operands.size())
          fail("call of '" + e->name + "' with " + std::to_string(e->operands.size()) +
               " arguments; its storage has " + std::to_string(s.dims()) + " dimensions");
        if (s.type != t)
          fail("call of '" + e->name + "' as " + t.name() + "; its storage holds " + s.type.name());
        n.args = index_args(e->operands, 0, "Func '" + e->name + "'");
        return;
      }
      case CallKind::kImage: {
        n.op = Op::kLoadImage;
        const Input* in = nullptr;
        for (size_t i = 0; i < program_.inputs.size(); ++i)
          if (program_.inputs[i].name == e->name) {
            in = &program_.inputs[i];
            n.slot = static_cast<int>(i);
          }
        if (!in) fail("call of unknown input '" + e->name + "'");
        if (static_cast<size_t>(in->dims) != e->operands.size())
          fail("input '" + e->name + "' called with " + std::to_string(e->operands.size()) +
               " arguments");
        if (in->type != t) fail("input '" + e->name + "' read as " + t.name());
        n.args = index_args(e->operands, 0, "input '" + e->name + "'");
        return;
      }
      case CallKind::kChannel: {
        if (!allow_channels_) fail("read_channel outside a kernel");
        if (e->operands.empty() || e->operands[0]->kind != ExprKind::kVar)
          fail("read_channel without a channel name");
        const std::string& name = e->operands[0]->name;
        n.op = Op::kReadChannel;
        n.slot = channel_slot(name, false);
        const Channel& c = program_.channels[n.slot];
        if (c.type != t) fail("read_channel of '" + name + "' as " + t.name());
        if (c.dims.size() != e->operands.size() - 1)
          fail("read_channel of '" + name + "' with " + std::to_string(e->operands.size() - 1) +
               " indices; it has " + std::to_string(c.dims.size()) + " dimensions");
        n.args.push_back(nullptr);  // operands[0], the channel name: keeps indices aligned
        for (const Node* a : index_args(e->operands, 1, "channel '" + name + "'"))
          n.args.push_back(a);
        return;
      }
      case CallKind::kRegister: {
        n.op = Op::kLoadRegister;
        n.slot = register_slot(e->name, Register::kShift, "read");
        const Register& r = *out_.registers[n.slot];
        if (r.type != t) fail("read of register '" + e->name + "' as " + t.name());
        n.args = register_args(r, e->operands, 0, true, "read");
        return;
      }
      case CallKind::kFifo: {
        if (e->operands.empty() || e->operands[0]->kind != ExprKind::kVar)
          fail("pop without a FIFO name");
        const std::string& name = e->operands[0]->name;
        n.op = Op::kPop;
        n.slot = register_slot(name, Register::kFifo, "pop");
        const Register& r = *out_.registers[n.slot];
        if (r.type != t) fail("pop of FIFO '" + name + "' as " + t.name());
        n.args = register_args(r, e->operands, 1, false, "pop");
        return;
      }
      case CallKind::kIntrinsic:
        intrinsic(n, e);
        return;
      case CallKind::kUnresolved:
        break;
    }
    fail("unresolved call of '" + e->name + "'");
  }

  void intrinsic(Node& n, const Expr& e) {
    const std::string& name = e->name;
    const size_t arity = static_cast<size_t>(intrinsic_arity(name));
    if (arity == 0 || e->operands.size() != arity) fail("bad call of intrinsic '" + name + "'");
    const Type at = e->operands[0]->type;
    for (const Expr& o : e->operands) expect_type(o, at);
    n.a = expr(e->operands[0]);
    if (arity == 2) n.b = expr(e->operands[1]);
    const bool f32 = at.is_float() && at.bits == 32;
    const bool f64 = at.is_float() && at.bits == 64;
    if (name == "min" || name == "max") {
      expect_type(e, at);
      const bool mn = name == "min";
      n.op = f32           ? (mn ? Op::kMinF32 : Op::kMaxF32)
             : f64         ? (mn ? Op::kMinF64 : Op::kMaxF64)
             : at.is_int() ? (mn ? Op::kMinS : Op::kMaxS)
                           : (mn ? Op::kMinU : Op::kMaxU);
      return;
    }
    if (name == "abs") {
      if (at.is_int()) {
        if (e->type != Type::UInt(at.bits)) fail("abs of " + at.name() + " as " + e->type.name());
        n.op = Op::kAbsS;
        return;
      }
      expect_type(e, at);
      if (at.is_float()) {
        n.op = f32 ? Op::kAbsF32 : Op::kAbsF64;
      } else {  // unsigned: abs is the identity
        n.op = Op::kCastToU;
      }
      return;
    }
    if (!at.is_float()) fail("'" + name + "' of " + at.name());
    expect_type(e, at);
    struct Entry {
      const char* name;
      Op f32, f64;
    };
    static const Entry kFloatOps[] = {
        {"sqrt", Op::kSqrtF32, Op::kSqrtF64},    {"exp", Op::kExpF32, Op::kExpF64},
        {"log", Op::kLogF32, Op::kLogF64},       {"pow", Op::kPowF32, Op::kPowF64},
        {"floor", Op::kFloorF32, Op::kFloorF64}, {"ceil", Op::kCeilF32, Op::kCeilF64},
        {"round", Op::kRoundF32, Op::kRoundF64}};
    for (const Entry& entry : kFloatOps) {
      if (name == entry.name) {
        n.op = f32 ? entry.f32 : entry.f64;
        return;
      }
    }
    fail("unknown intrinsic '" + name + "'");
  }

  void binary(Node& n, const Expr& e) {
    const Expr& x = e->operands.at(0);
    const Expr& y = e->operands.at(1);
    const BinaryOp op = e->binary_op;
    n.a = expr(x);
    n.b = expr(y);
    if (op == BinaryOp::kAnd || op == BinaryOp::kOr) {
      expect_type(x, Type::Bool());
      expect_type(y, Type::Bool());
      n.op = op == BinaryOp::kAnd ? Op::kAnd : Op::kOr;
      return;
    }
    const Type t = x->type;
    expect_type(y, t);
    expect_type(e, is_comparison(op) ? Type::Bool() : t);
    if (!is_comparison(op)) set_int_result(n, t);
    const int kind = t.is_float() ? (t.bits == 32 ? 2 : 3) : t.is_int() ? 0 : 1;
    // Per operator: signed, unsigned, float32, float64.
    auto pick = [&](Op s, Op u, Op f32, Op f64) {
      const Op ops[] = {s, u, f32, f64};
      n.op = ops[kind];
    };
    switch (op) {
      case BinaryOp::kAdd:
        return pick(Op::kAddS, Op::kAddU, Op::kAddF32, Op::kAddF64);
      case BinaryOp::kSub:
        return pick(Op::kSubS, Op::kSubU, Op::kSubF32, Op::kSubF64);
      case BinaryOp::kMul:
        return pick(Op::kMulS, Op::kMulU, Op::kMulF32, Op::kMulF64);
      case BinaryOp::kDiv:
        return pick(Op::kDivS, Op::kDivU, Op::kDivF32, Op::kDivF64);
      case BinaryOp::kMod:
        return pick(Op::kModS, Op::kModU, Op::kModF32, Op::kModF64);
      case BinaryOp::kEQ:
        return pick(Op::kEqI, Op::kEqI, Op::kEqF32, Op::kEqF64);
      case BinaryOp::kNE:
        return pick(Op::kNeI, Op::kNeI, Op::kNeF32, Op::kNeF64);
      case BinaryOp::kLT:
        return pick(Op::kLtS, Op::kLtU, Op::kLtF32, Op::kLtF64);
      case BinaryOp::kLE:
        return pick(Op::kLeS, Op::kLeU, Op::kLeF32, Op::kLeF64);
      case BinaryOp::kGT:
        return pick(Op::kGtS, Op::kGtU, Op::kGtF32, Op::kGtF64);
      case BinaryOp::kGE:
        return pick(Op::kGeS, Op::kGeU, Op::kGeF32, Op::kGeF64);
      case BinaryOp::kAnd:
      case BinaryOp::kOr:
        break;
    }
    fail("bad binary operator");
  }

  const Node* cast(Node& n, const Expr& e) {
    const Type to = e->type;
    const Type from = e->operands.at(0)->type;
    n.a = expr(e->operands[0]);
    if (from == to) {
      n.op = to.is_float() ? (to.bits == 32 ? Op::kAddF32 : Op::kAddF64) : Op::kCastToU;
      return n.a;  // the node stays unused: a redundant cast is its operand
    }
    if (to.is_bool()) {
      n.op = from.is_float() ? (from.bits == 32 ? Op::kF32ToBool : Op::kF64ToBool) : Op::kIntToBool;
    } else if (to.is_float()) {
      if (from.is_float())
        n.op = to.bits == 32 ? Op::kF64ToF32 : Op::kF32ToF64;
      else if (from.is_int())
        n.op = to.bits == 32 ? Op::kSToF32 : Op::kSToF64;
      else
        n.op = to.bits == 32 ? Op::kUToF32 : Op::kUToF64;
    } else if (from.is_float()) {
      n.op = from.bits == 32 ? Op::kF32ToInt : Op::kF64ToInt;
      n.bits = to.bits;
      n.is_signed = to.is_int();
    } else {  // integer to integer wraps
      n.op = to.is_int() ? Op::kCastToS : Op::kCastToU;
    }
    return &n;
  }

  int channel_slot(const std::string& name, bool write) {
    for (size_t i = 0; i < program_.channels.size(); ++i) {
      if (program_.channels[i].name == name) {
        (write ? out_.channels_written : out_.channels_read).insert(static_cast<int>(i));
        return static_cast<int>(i);
      }
    }
    fail("unknown channel '" + name + "'");
  }

  const SNode* stmt(const Stmt& s) {
    // Diagnostics point at the statement, or at the nearest enclosing one (or kernel) with a
    // location when it has none.
    const SourceLoc* saved = loc_;
    if (s.loc.valid()) loc_ = &s.loc;
    out_.stmts.emplace_back();
    SNode& n = out_.stmts.back();
    n.kind = s.kind();
    n.loc = loc_;
    if (const For* loop = s.as<For>()) {
      if (!loop->min->type.is_integer() || !loop->extent->type.is_integer())
        fail("loop '" + loop->var + "' without integer bounds");
      n.a = expr(loop->min);
      n.b = expr(loop->extent);
      n.slot = bind(loop->var, Type::Int(32));
      n.body = stmts(loop->body);
      vars_.pop_back();
    } else if (const LetStmt* let = s.as<LetStmt>()) {
      n.a = expr(let->value);  // checks that its type is a supported scalar
      n.slot = bind(let->var, let->value->type);
      n.body = stmts(let->body);
      vars_.pop_back();
    } else if (const IfThenElse* branch = s.as<IfThenElse>()) {
      expect_type(branch->condition, Type::Bool());
      n.a = expr(branch->condition);
      n.body = stmts(branch->then_body);
      n.else_body = stmts(branch->else_body);
    } else if (const Provide* provide = s.as<Provide>()) {
      compile_provide(*provide, n);
    } else if (const Realize* realize = s.as<Realize>()) {
      compile_realize(*realize, n);
    } else if (const WriteChannel* write = s.as<WriteChannel>()) {
      if (!allow_channels_) fail("write_channel outside a kernel");
      n.slot = channel_slot(write->channel, true);
      const Channel& c = program_.channels[n.slot];
      if (c.dims.size() != write->index.size())
        fail("write_channel of '" + write->channel + "' with " +
             std::to_string(write->index.size()) + " indices; it has " +
             std::to_string(c.dims.size()) + " dimensions");
      expect_type(write->value, c.type);
      n.args = index_args(write->index, 0, "channel '" + write->channel + "'");
      n.a = expr(write->value);
    } else if (const Shift* shift = s.as<Shift>()) {
      n.slot = register_slot(shift->reg, Register::kShift, "shift");
      n.args = register_args(*out_.registers[n.slot], shift->pe, 0, false, "shift");
    } else if (const Push* push = s.as<Push>()) {
      n.slot = register_slot(push->fifo, Register::kFifo, "push");
      const Register& r = *out_.registers[n.slot];
      expect_type(push->value, r.type);
      n.args = register_args(r, push->pe, 0, false, "push");
      n.a = expr(push->value);
    } else {
      throw InternalError("interpreter: alloc statements are not supported yet");
    }
    loc_ = saved;
    return &n;
  }

  void compile_provide(const Provide& s, SNode& n) {
    if (program_.find_register(s.func)) {
      n.to_register = true;
      n.slot = register_slot(s.func, Register::kShift, "write");
      const Register& r = *out_.registers[n.slot];
      expect_type(s.value, r.type);
      n.args = register_args(r, s.args, 0, true, "write");
      n.a = expr(s.value);
      return;
    }
    n.slot = lookup_storage(s.func, true);
    const Storage& st = storage_template(n.slot);
    if (st.dims() != s.args.size())
      fail("provide of '" + s.func + "' with " + std::to_string(s.args.size()) +
           " arguments; its storage has " + std::to_string(st.dims()) + " dimensions");
    expect_type(s.value, st.type);
    n.args = index_args(s.args, 0, "Func '" + s.func + "'");
    n.a = expr(s.value);
  }

  void compile_realize(const Realize& s, SNode& n) {
    check_type(s.type);
    if (s.mins.size() > kMaxDims) fail("realize of '" + s.func + "' with bad bounds");
    for (size_t d = 0; d < s.mins.size(); ++d) {
      if (!s.mins[d]->type.is_integer() || !s.extents[d]->type.is_integer())
        fail("realize of '" + s.func + "' with non-integer bounds");
      n.args.push_back(expr(s.mins[d]));
      n.extents.push_back(expr(s.extents[d]));
    }
    Storage st;
    st.name = s.func;
    st.type = s.type;
    st.mins.assign(s.mins.size(), 0);
    st.extents.assign(s.mins.size(), 0);
    st.strides.assign(s.mins.size(), 0);
    out_.locals.push_back(std::move(st));
    n.slot = static_cast<int>(program_.buffers.size() + out_.locals.size() - 1);
    realizes_.emplace_back(s.func, n.slot);
    n.body = stmts(s.body);
    realizes_.pop_back();
  }

  int bind(const std::string& name, Type type) {
    const int slot = out_.num_vars++;
    vars_.push_back({name, slot, type});
    return slot;
  }

  const Program& program_;
  const std::vector<Storage>& buffers_;
  CompiledKernel& out_;
  std::string context_;
  bool allow_channels_;
  const SourceLoc* loc_ = &kNoLoc;
  std::vector<Binding> vars_;                          // scope
  std::vector<std::pair<std::string, int>> realizes_;  // scope: Func name, storage slot
};

std::vector<Storage> buffer_templates(const Program& program) {
  std::vector<Storage> out;
  for (const Buffer& b : program.buffers) {
    Storage s;
    s.name = b.name;
    s.type = b.type;
    s.mins.assign(b.mins.size(), 0);
    s.extents.assign(b.mins.size(), 0);
    s.strides.assign(b.mins.size(), 0);
    out.push_back(std::move(s));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Threads

// A joinable thread with a large stack (pthreads: std::thread cannot set the stack size).
class Thread {
 public:
  explicit Thread(std::function<void()> body) : body_(std::move(body)) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    int rc = EAGAIN;
    // Fall back to smaller stacks where address space or overcommit is scarce.
    for (size_t bytes : {kStackBytes, kStackBytes / 8, size_t{8} << 20}) {
      pthread_attr_setstacksize(&attr, bytes);
      rc = pthread_create(&id_, &attr, &Thread::entry, this);
      if (rc == 0) break;
    }
    pthread_attr_destroy(&attr);
    if (rc != 0)
      throw std::runtime_error(std::string("interpreter: cannot start a thread: ") +
                               std::strerror(rc));
  }
  Thread(const Thread&) = delete;
  Thread& operator=(const Thread&) = delete;
  void join() { pthread_join(id_, nullptr); }

 private:
  static void* entry(void* self) {
    static_cast<Thread*>(self)->body_();
    return nullptr;
  }
  std::function<void()> body_;
  pthread_t id_;
};

// Runs `body` on a thread with a large stack and rethrows what it throws.
void run_with_large_stack(const std::function<void()>& body) {
  std::exception_ptr error;
  Thread t([&] {
    try {
      body();
    } catch (...) {
      error = std::current_exception();
    }
  });
  t.join();
  if (error) std::rethrow_exception(error);
}

// Runs the kernels `first` .. `last - 1` (one concurrent run) to completion.
void run_group(RunState& run, const Program& program, const std::vector<CompiledKernel>& compiled,
               size_t first, size_t last, std::map<std::string, int64_t>* max_live) {
  Group group;
  const int n = static_cast<int>(last - first);
  for (size_t k = first; k < last; ++k) {
    group.members.emplace_back();
    group.members.back().name = compiled[k].kernel->name;
  }
  group.active = n;

  // Two kernels running at once must not share a buffer that one of them writes: that would
  // be a data race (and a lowering bug, since such values travel over channels).
  for (size_t x = first; x < last; ++x)
    for (size_t y = first; y < last; ++y)
      for (int b : compiled[x].buffers_written)
        if (x != y && (compiled[y].buffers_read.count(b) || compiled[y].buffers_written.count(b)))
          throw InternalError("interpreter: kernels '" + compiled[x].kernel->name + "' and '" +
                              compiled[y].kernel->name + "' run concurrently and share buffer '" +
                              program.buffers[b].name + "', which '" + compiled[x].kernel->name +
                              "' writes");

  // A FIFO has one reader and one writer kernel: a blocked kernel is woken by the other one.
  for (size_t x = first; x < last; ++x)
    for (size_t y = x + 1; y < last; ++y)
      for (int c = 0; c < static_cast<int>(program.channels.size()); ++c)
        if ((compiled[x].channels_read.count(c) && compiled[y].channels_read.count(c)) ||
            (compiled[x].channels_written.count(c) && compiled[y].channels_written.count(c)))
          throw InternalError("interpreter: kernels '" + compiled[x].kernel->name + "' and '" +
                              compiled[y].kernel->name + "' both " +
                              (compiled[x].channels_read.count(c) ? "read" : "write") +
                              " channel '" + program.channels[c].name + "'");

  std::vector<std::unique_ptr<Exec>> execs;
  for (int m = 0; m < n; ++m)
    execs.push_back(std::make_unique<Exec>(run, &compiled[first + m], &group, m));
  std::vector<std::unique_ptr<Thread>> threads;
  try {
    for (int m = 0; m < n; ++m) {
      threads.push_back(std::make_unique<Thread>([&, m] {
        std::exception_ptr error;
        try {
          execs[m]->run_kernel();
        } catch (const Stopped&) {
        } catch (...) {
          error = std::current_exception();
        }
        group.finish(m, error);
      }));
    }
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(group.mutex);
      group.active -= n - static_cast<int>(threads.size());
      group.stop_all();
    }
    for (auto& t : threads) t->join();
    throw;
  }
  for (auto& t : threads) t->join();
  if (max_live)
    for (const auto& exec : execs)
      for (const auto& [name, live] : exec->max_live()) (*max_live)[name] = live;
  execs.clear();  // returns unused steps

  for (const Group::Member& m : group.members)
    if (m.error) std::rethrow_exception(m.error);
  if (group.deadlock) throw *group.deadlock;

  std::set<int> used;
  for (size_t k = first; k < last; ++k) {
    used.insert(compiled[k].channels_read.begin(), compiled[k].channels_read.end());
    used.insert(compiled[k].channels_written.begin(), compiled[k].channels_written.end());
  }
  channels::check_drained(run.channels, used);  // program.channels order
}

// Registers must be well formed: a unique name, a kernel of the program, a scalar type, a PE
// array of positive extents and a positive depth.
void check_registers(const Program& program) {
  std::set<std::string> names;
  for (const Register& r : program.registers) {
    const std::string what = "interpreter: register '" + r.name + "'";
    if (!names.insert(r.name).second) throw InternalError(what + " is declared twice");
    bool found = false;
    for (const Kernel& k : program.kernels) found = found || k.name == r.kernel;
    if (!found)
      throw InternalError(what + " belongs to kernel '" + r.kernel +
                          "', which is not in the program");
    if (r.type.known() && r.type.lanes != 1)
      throw InternalError(what + " has vector type " + r.type.name() +
                          ", which is not supported yet (only scalar code)");
    if (!supported_scalar(r.type))
      throw InternalError(what + " has unsupported type " +
                          (r.type.known() ? r.type.name() : "<unknown>"));
    if (r.depth < 1) throw InternalError(what + " has depth " + std::to_string(r.depth));
    if (r.shape.size() + 1 > kMaxDims) throw InternalError(what + " has too many dimensions");
    int64_t pes = 1;
    for (int64_t d : r.shape) {
      if (d < 1 || pes > kMaxFifos / d)
        throw InternalError(what + " has bad shape " + format_index(r.shape));
      pes *= d;
    }
  }
}

const Input* find_input(const Program& program, const std::string& name) {
  for (const Input& in : program.inputs)
    if (in.name == name) return &in;
  return nullptr;
}

NdArray run_program_on_this_thread(const Program& program,
                                   const std::map<std::string, NdArray>& inputs,
                                   const RunOptions& options) {
  if (program.stage == Stage::kParsed)
    throw Diagnostic({},
                     "the interpreter runs programs from the merged stage on; this one is at "
                     "stage 'parsed'",
                     "run-stage");
  RunState run;
  run.max_steps = options.max_steps;
  run.steps_left = options.max_steps;
  run.track_registers = options.track_registers;
  if (options.track_registers && !options.max_live)
    throw InternalError("interpreter: RunOptions::track_registers needs RunOptions::max_live");

  // The inputs.
  for (const auto& [name, array] : inputs)
    if (!find_input(program, name))
      throw Diagnostic({}, "an array is given for '" + name + "', which is not an input",
                       "run-input-unknown");
  for (const Input& in : program.inputs) {
    auto it = inputs.find(in.name);
    if (it == inputs.end())
      throw Diagnostic(in.loc, "no array is given for input '" + in.name + "'",
                       "run-input-missing");
    const NdArray& a = it->second;
    if (a.type != in.type)
      throw Diagnostic(in.loc,
                       "input '" + in.name + "' has type " + in.type.name() +
                           ", but the array given for it holds " + a.type.name(),
                       "run-input-type");
    if (a.shape.size() != static_cast<size_t>(in.dims))
      throw Diagnostic(in.loc,
                       "input '" + in.name + "' has " + std::to_string(in.dims) +
                           " dimensions, but the array given for it has " +
                           std::to_string(a.shape.size()),
                       "run-input-shape");
    if (!supported_scalar(a.type) || static_cast<int64_t>(a.data.size()) !=
                                         a.num_elements() * static_cast<int64_t>(a.element_size()))
      throw InternalError("interpreter: the array for input '" + in.name + "' is inconsistent");
    InputView view;
    view.name = in.name;
    view.elem = elem_of(a.type);
    view.element_size = a.element_size();
    view.shape = a.shape;
    int64_t stride = 1;
    for (int64_t extent : a.shape) {
      view.strides.push_back(stride);
      stride *= extent;
    }
    view.data = a.data.data();
    run.inputs.push_back(std::move(view));
  }

  // The channels.
  for (const Channel& c : program.channels) {
    ChannelState state;
    state.channel = &c;
    state.capacity = static_cast<size_t>(std::max<int64_t>(c.depth, 1));
    int64_t fifos = 1;
    for (int64_t d : c.dims) {
      if (d < 1 || fifos > kMaxFifos / d)
        throw InternalError("interpreter: channel '" + c.name + "' has bad dims " +
                            format_index(c.dims));
      fifos *= d;
    }
    state.fifos.resize(static_cast<size_t>(fifos));
    run.channels.push_back(std::move(state));
  }

  // The buffers: their bounds are constant expressions.
  const std::vector<Storage> templates = buffer_templates(program);
  for (size_t i = 0; i < program.buffers.size(); ++i) {
    const Buffer& b = program.buffers[i];
    CompiledKernel constants;
    Compiler compiler(program, templates, constants, "buffer '" + b.name + "'", false);
    compiler.set_loc(&b.loc);
    if (b.mins.size() != b.extents.size() || b.mins.size() > kMaxDims)
      throw InternalError("interpreter: buffer '" + b.name + "' has bad bounds");
    auto storage = std::make_unique<Storage>(templates[i]);
    Exec exec(run, nullptr, nullptr, 0);
    for (size_t d = 0; d < b.mins.size(); ++d) {
      storage->mins[d] = exec.eval(compiler.expr(b.mins[d])).i;
      storage->extents[d] = exec.eval(compiler.expr(b.extents[d])).i;
    }
    storage->allocate(b.loc);
    run.buffers.push_back(std::move(storage));
  }

  // The output's buffer, checked before anything runs.
  int out = -1;
  for (size_t i = 0; i < program.buffers.size(); ++i)
    if (program.buffers[i].name == program.output.func) out = static_cast<int>(i);
  if (out < 0)
    throw InternalError("interpreter: the output Func '" + program.output.func + "' has no buffer");
  const Storage& s = *run.buffers[out];
  for (int64_t m : s.mins)
    if (m != 0)
      throw InternalError("interpreter: the output buffer '" + s.name +
                          "' does not start at 0 in every dimension");
  if (!is_npy_element_type(s.type))
    throw InternalError("interpreter: the output has unsupported type " + s.type.name());

  // The kernels and their registers.
  check_registers(program);
  std::vector<CompiledKernel> compiled(program.kernels.size());
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const Kernel& kernel = program.kernels[k];
    compiled[k].kernel = &kernel;
    for (const Register& r : program.registers)
      if (r.kernel == kernel.name) compiled[k].registers.push_back(&r);
    Compiler compiler(program, templates, compiled[k], "kernel '" + kernel.name + "'", true);
    compiler.set_loc(&kernel.loc);
    compiled[k].body = compiler.stmts(kernel.body);
  }
  for (size_t k = 0; k < program.kernels.size();) {
    size_t end = k + 1;
    if (program.kernels[k].place == Place::kDevice)
      while (end < program.kernels.size() && program.kernels[end].place == Place::kDevice) ++end;
    run_group(run, program, compiled, k, end, options.max_live);
    k = end;
  }

  // The output, every element of which must have been computed.
  int64_t unwritten = 0, first = -1;
  for (size_t i = 0; i < s.written.size(); ++i) {
    if (s.written[i]) continue;
    if (first < 0) first = static_cast<int64_t>(i);
    ++unwritten;
  }
  if (unwritten > 0) {
    std::vector<int64_t> index;
    for (int64_t extent : s.extents) {
      index.push_back(first % extent);
      first /= extent;
    }
    throw Diagnostic(program.output.loc,
                     std::to_string(unwritten) + " of the " + std::to_string(s.written.size()) +
                         " elements of output '" + s.name +
                         "' were never computed; the first is at " + format_index(index),
                     "run-output-unwritten");
  }
  NdArray result;
  result.type = s.type;
  result.shape = s.extents;
  result.data.resize(s.data.size() * result.element_size());
  for (size_t i = 0; i < s.data.size(); ++i)
    store_element(s.type, s.data[i], &result.data[i * result.element_size()]);
  return result;
}

}  // namespace

NdArray run_program(const Program& program, const std::map<std::string, NdArray>& inputs,
                    const RunOptions& options) {
  // Compilation recurses as deep as expressions nest, like evaluation: both get a large stack.
  NdArray result;
  run_with_large_stack([&] { result = run_program_on_this_thread(program, inputs, options); });
  return result;
}

std::map<std::string, NdArray> complete_inputs(const Program& program,
                                               std::map<std::string, NdArray> given, FillKind fill,
                                               uint64_t seed) {
  for (const Input& in : program.inputs) {
    if (given.count(in.name)) continue;
    if (in.extents.size() != static_cast<size_t>(in.dims))
      throw Diagnostic(in.loc,
                       "input '" + in.name +
                           "' has no extents to generate data from (a parsed-stage program?); "
                           "give an array for it",
                       "run-input-extents");
    // Extents are non-negative integers: the IR reader checks them.
    std::vector<int64_t> shape = in.extents;
    try {
      given[in.name] = fill_array(in.type, shape, fill, seed, in.name);
    } catch (const NpyError& e) {
      throw Diagnostic(in.loc, e.what(), "run-input-extents");
    }
  }
  return given;
}

}  // namespace t2s
