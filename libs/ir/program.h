// The IR data model: one Program per stage document (docs/ir.md describes every field).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "libs/ir/diagnostic.h"
#include "libs/ir/directive_decl.h"
#include "libs/ir/expr.h"
#include "libs/ir/type.h"

namespace t2s {

// Current IR format version; a tool refuses documents with a newer one.
constexpr int kIrVersion = 1;

// The stages in pipeline order (DESIGN.md section 2).
enum class Stage { kParsed, kMerged, kStt, kVectorized, kGathered };
const char* stage_name(Stage s);

bool stage_from_name(const std::string& name, Stage* out);

enum class Place { kHost, kDevice };

struct Input {  // ImageParam
  std::string name;
  Type type;
  int dims = 0;
  // From the merged stage on: the extent of each dimension that the program reads, index 0 up
  // to the largest index read (inferred by t2s-merge); the shape of generated input data. Empty
  // in the parsed stage. The IR spells each as a decimal string.
  std::vector<int64_t> extents;
  SourceLoc loc;
};

struct Func {
  std::string name;
  Type type;                      // unknown for an undeclared Func not defined yet
  std::vector<std::string> args;  // empty for an undeclared Func not defined yet
  Place place = Place::kHost;
  bool declared = false;  // declared with type and args: may be used before definition
  std::string wraps;      // the ImageParam of `Func f(a)`, else empty
  Expr definition;        // null when not defined
  SourceLoc loc;          // the definition (or the declaration when not defined)
  SourceLoc decl_loc;     // the declaration
};

// A directive argument: an expression (a name is an expression too), a brace list, or an enum
// value such as SpaceTimeTransform::CheckTime. An expression argument is decoded once, when it
// is built or read (`value`); the stages that apply a directive use `value` (resolving its
// names against the program) and never parse `text` again.
struct DirectiveArg {
  enum Kind { kExpr, kList, kEnum };
  Kind kind = kExpr;
  std::string text;                 // canonical expression text, or the enum's full name
  std::vector<DirectiveArg> items;  // kList
  // kExpr: the expression `text` spells (names unresolved); null when the text is an integer
  // no expression spells, one beyond int32 without its 'l' (an integer argument such as a depth
  // decodes it with integer(), and its stage says it is out of range).
  Expr value;

  // An expression argument from its text (a name, "4", "i + 1"), parsed here; throws
  // InternalError when code builds one from text that does not parse and is no integer.
  static DirectiveArg expr(std::string t);
  // An expression argument from its expression, spelled by the canonical printer.
  static DirectiveArg expr(Expr e);
  // An expression argument read from a document: its text as written and the expression the
  // reader parsed from it (with the document's location for errors).
  static DirectiveArg decoded(std::string t, Expr e) {
    return {kExpr, std::move(t), {}, std::move(e)};
  }
  static DirectiveArg enumerator(std::string t) { return {kEnum, std::move(t), {}, nullptr}; }
  static DirectiveArg list(std::vector<DirectiveArg> items) {
    return {kList, "", std::move(items), nullptr};
  }
  bool operator==(const DirectiveArg& o) const {
    return kind == o.kind && text == o.text && items == o.items;
  }
  // The integer an expression argument's canonical text spells ("-3"), decoded here and nowhere
  // else; nullopt for anything else (a name, a list, an out-of-range number).
  std::optional<int64_t> integer() const;
};

// A directive: its name is the text of the spec and of the IR; code asks its kind(), decoded from
// the name by its declaration (libs/ir/directive_decl.h), and builds one with make().
struct Directive {
  std::string func;
  std::string name;
  std::vector<DirectiveArg> args;
  SourceLoc loc;

  static Directive make(std::string func, DirectiveKind kind, std::vector<DirectiveArg> args,
                        SourceLoc loc) {
    return {std::move(func), directive_name(kind), std::move(args), loc};
  }
  DirectiveKind kind() const { return directive_kind(name); }
  bool is(DirectiveKind k) const { return kind() == k; }
  // The declaration of this directive's kind; nullptr for a name no declaration has.
  const DirectiveDecl* decl() const { return find_directive_decl(name); }

  // The arguments that name Funcs, as [first, last) indices into args: the merged UREs, the
  // isolated consumers or producers, the gathered (scattered, buffered) Func; empty otherwise.
  std::pair<size_t, size_t> func_args() const;
  // The Funcs this directive defines (isolate_consumer(_chain), isolate_producer_chain).
  std::vector<std::string> defined_funcs() const;
};

struct Output {
  std::string func;
  std::vector<int64_t> extents;  // constant (the IR spells each as a decimal string)
  SourceLoc loc;
};

// Statements of lowered stages (merged and later): one node struct per kind, each with the
// fields of that kind only (docs/ir.md, "Statements"), held in a Stmt with the source location.
// Build them with the checked `make` functions below; libs/ir/verify checks what a pass or a
// reader produced against the rest of the program. A statement is immutable once built
// (StmtPtr points to const), so lists and programs share unchanged subtrees safely: a pass
// rewrites with StmtMutator or `with_node`, which build new statements.
struct Stmt;
using StmtPtr = std::shared_ptr<const Stmt>;
using StmtList = std::vector<StmtPtr>;

enum class LoopKind { kSerial, kUnrolled, kVectorized };
const char* loop_kind_name(LoopKind k);
bool loop_kind_from_name(const std::string& name, LoopKind* out);

// for (var = min; var < min + extent; ++var) body
struct For {
  std::string var;
  Expr min, extent;
  LoopKind loop_kind = LoopKind::kSerial;
  StmtList body;
};
// let var = value in body
struct LetStmt {
  std::string var;
  Expr value;
  StmtList body;
};
struct IfThenElse {
  Expr condition;
  StmtList then_body, else_body;
};
// func(args) = value, where func is a Func with storage (a buffer or a realize) or, from the
// stt stage on, a shift register: args are then the PE index followed by the slot.
struct Provide {
  std::string func;
  std::vector<Expr> args;
  Expr value;
};
// Storage for register `reg` (kept for IR written by hand; no pass makes one).
struct Alloc {
  std::string reg;
  Type type;
  std::vector<Expr> shape;
};
struct WriteChannel {
  std::string channel;
  std::vector<Expr> index;
  Expr value;
};
// What makes a realize the double buffer of `buffer(producer, loop)` (LANGUAGE.md section 7,
// libs/passes/common/double_buffer.h): its last dimension, of extent 2, picks the half that one
// period fills from the producer's channel while the consumer reads the other. `reads` is the
// number of cycles of a period (the consumer's serial loops inside `loop`), `writes` the values
// the producer sends in one (the buffer's other dimensions); reads >= writes.
struct DoubleBuffer {
  std::string producer, loop;
  int64_t reads = 0, writes = 0;
};
// Storage of Func `func` over [mins, mins + extents) for the duration of body.
struct Realize {
  std::string func;
  Type type;
  std::vector<Expr> mins, extents;
  StmtList body;
  std::optional<DoubleBuffer> double_buffer;  // set on the storage of a buffer directive
};
// Shifts shift register `reg` of the PE at index `pe` by one slot.
struct Shift {
  std::string reg;
  std::vector<Expr> pe;
};
// Appends `value` to FIFO register `fifo` of the PE at index `pe`.
struct Push {
  std::string fifo;
  std::vector<Expr> pe;
  Expr value;
};

struct Stmt {
  // In the order of the alternatives of Node.
  enum Kind { kFor, kLet, kIf, kProvide, kAlloc, kWriteChannel, kRealize, kShift, kPush };
  using Node =
      std::variant<For, LetStmt, IfThenElse, Provide, Alloc, WriteChannel, Realize, Shift, Push>;
  Node node;
  SourceLoc loc;

  Kind kind() const { return static_cast<Kind>(node.index()); }
  // The node when it is of kind T, else null (Halide's Stmt::as<T>()).
  template <typename T>
  const T* as() const {
    return std::get_if<T>(&node);
  }
  // The non-const accessors below are for a copy under construction, not yet held by a
  // StmtPtr (StmtMutator::mutate_children fills one).
  template <typename T>
  T* as() {
    return std::get_if<T>(&node);
  }
  // The statement lists nested in this one (a for, let or realize body; an if's two branches).
  std::vector<const StmtList*> children() const;
  std::vector<StmtList*> children();
  // Every expression operand of this statement (not of nested statements), in field order.
  std::vector<const Expr*> exprs() const;
  std::vector<Expr*> exprs();
};

// Checked constructors (Halide's Node::make): each throws InternalError when a required
// operand is null, a name is empty or a nested list holds a null statement, so a pass cannot
// build a malformed node. Expression types are the verifier's concern (they may still be
// unresolved while a reader builds the tree).
StmtPtr make_for(std::string var, Expr min, Expr extent, LoopKind loop_kind, StmtList body,
                 SourceLoc loc = {});
StmtPtr make_let(std::string var, Expr value, StmtList body, SourceLoc loc = {});
StmtPtr make_if(Expr condition, StmtList then_body, StmtList else_body, SourceLoc loc = {});
StmtPtr make_provide(std::string func, std::vector<Expr> args, Expr value, SourceLoc loc = {});
StmtPtr make_alloc(std::string reg, Type type, std::vector<Expr> shape, SourceLoc loc = {});
StmtPtr make_write_channel(std::string channel, std::vector<Expr> index, Expr value,
                           SourceLoc loc = {});
StmtPtr make_realize(std::string func, Type type, std::vector<Expr> mins, std::vector<Expr> extents,
                     StmtList body, SourceLoc loc = {},
                     std::optional<DoubleBuffer> double_buffer = std::nullopt);
StmtPtr make_shift(std::string reg, std::vector<Expr> pe, SourceLoc loc = {});
StmtPtr make_push(std::string fifo, std::vector<Expr> pe, Expr value, SourceLoc loc = {});
// A copy of `s` (same kind and location) with `node` in place of its node.
StmtPtr with_node(const Stmt& s, Stmt::Node node);

struct Kernel {
  std::string name;
  Place place = Place::kDevice;
  StmtList body;
  // Merged stage only: the loop order (innermost first) t2s-stt gives the nest before its
  // space_time_transform, when a reorder is legal only in the transformed order; `body` runs
  // the loops in an order that respects every dependence. Empty otherwise.
  std::vector<std::string> pending_order;
  // Merged stage only: the space_time_transform directives (in the normal form of `directives`)
  // that t2s-stt applies to this kernel because it is an isolated consumer that inherits the
  // schedule of the Func it consumes (docs/ir.md, "Isolation"). `func` names the Func whose
  // transform was copied, `loc` the isolation directive. Empty otherwise.
  std::vector<Directive> inherited_transforms;
  SourceLoc loc;
};

// Storage of a Func that lives beyond one kernel: the realized output, or a Func computed by
// one kernel and read by another without a channel.
struct Buffer {
  std::string name;  // the Func
  Type type;
  std::vector<Expr> mins, extents;
  SourceLoc loc;
};

// A FIFO between two device kernels, or (t2s-gather) between the PEs of one kernel: then
// `producer` and `consumer` name the same kernel. `dims` is the shape of an array of channels
// (one per PE from the stt stage on; empty for a single channel).
struct Channel {
  std::string name;
  Type type;
  std::vector<int64_t> dims;
  int64_t depth = 0;
  std::string producer, consumer;  // kernel names
  SourceLoc loc;
  // Why `depth` is what it is, when a pass chose it (t2s-gather's FIFOs); empty otherwise, and
  // then absent from the document (where it follows `depth`).
  std::string depth_reason;
};

// The most PEs a register's PE array (and so a transformed kernel) may have: the verifier's
// limit (ir-register), t2s-stt's (loop-too-large) and the runtime's.
constexpr int64_t kMaxPeArrayPes = int64_t{1} << 24;

// Storage that t2s-stt allocates for one dependence (a Func read at one distance) in a
// space-time transformed kernel: one register file or FIFO per PE (docs/ir.md, "The stt stage").
struct Register {
  enum Kind { kShift, kFifo };
  std::string name;
  std::string func;    // the Func whose values it carries
  std::string kernel;  // the kernel that writes and reads it
  Type type;
  Kind kind = kShift;
  std::vector<int64_t> shape;     // the PE array: extent of each space loop, innermost first
  int64_t depth = 1;              // values per PE
  std::vector<int64_t> distance;  // the dependence distance, one entry per Func argument
  // The reading PE minus the writing PE, one entry per entry of `shape` (innermost space loop
  // first): the space part of `distance` through the space-time transform, decided by t2s-stt.
  std::vector<int64_t> pe_offset;
  int64_t time_distance = 0;  // flattened time steps from the write to the read
  int64_t period = 1;         // shift: a PE writes one value every `period` steps
  int64_t naive = 1;          // per PE: the seed's shift register, time_distance + 1
  SourceLoc loc;              // the definition of the Func
};
const char* register_kind_name(Register::Kind k);

struct Program {
  int version = kIrVersion;
  Stage stage = Stage::kParsed;
  std::vector<std::string> vars;  // declared Vars in declaration order
  std::vector<Input> inputs;
  std::vector<Func> funcs;            // in declaration order
  std::vector<Directive> directives;  // in program order
  Output output;
  std::vector<Buffer> buffers;
  std::vector<Kernel> kernels;
  std::vector<Channel> channels;
  std::vector<Register> registers;

  const Func* find_func(const std::string& name) const;
  Func* find_func(const std::string& name);
  const Input* find_input(const std::string& name) const;
  const Channel* find_channel(const std::string& name) const;
  const Buffer* find_buffer(const std::string& name) const;
  const Register* find_register(const std::string& name) const;
};

// For a backend, `who` ("the dot target"): throws Diagnostic (rule emit-stage) for a program of
// the parsed stage, which has no kernels yet.
void require_kernel_stage(const Program& program, const std::string& who);

// For a backend of the device (`who`: "the opencl target"): throws Diagnostic (rule
// emit-no-device), at the realized Func's declaration, for a program whose kernels all run on
// the host, which has nothing for the device to run.
void require_device_kernel(const Program& program, const std::string& who);

}  // namespace t2s
