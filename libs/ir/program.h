// The IR data model: one Program per stage document (docs/ir.md describes every field).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "libs/ir/diagnostic.h"
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
  // in the parsed stage.
  std::vector<std::string> extents;
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
// value such as SpaceTimeTransform::CheckTime.
struct DirectiveArg {
  enum Kind { kExpr, kList, kEnum };
  Kind kind = kExpr;
  std::string text;                 // canonical expression text, or the enum's full name
  std::vector<DirectiveArg> items;  // kList

  static DirectiveArg expr(std::string t) { return {kExpr, std::move(t), {}}; }
  static DirectiveArg enumerator(std::string t) { return {kEnum, std::move(t), {}}; }
  static DirectiveArg list(std::vector<DirectiveArg> items) {
    return {kList, "", std::move(items)};
  }
  bool operator==(const DirectiveArg& o) const {
    return kind == o.kind && text == o.text && items == o.items;
  }
};

struct Directive {
  std::string func;
  std::string name;
  std::vector<DirectiveArg> args;
  SourceLoc loc;
};

struct Output {
  std::string func;
  std::vector<std::string> extents;  // canonical expressions
  SourceLoc loc;
};

// Statements of lowered stages (merged and later).
struct Stmt;
using StmtPtr = std::shared_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

enum class LoopKind { kSerial, kUnrolled, kVectorized };
const char* loop_kind_name(LoopKind k);
bool loop_kind_from_name(const std::string& name, LoopKind* out);

struct Stmt {
  enum Kind { kFor, kLet, kIf, kProvide, kAlloc, kWriteChannel, kRealize, kShift, kPush };
  Kind kind = kProvide;
  std::string name;  // for: loop var; let: var; provide: func or register; alloc: register;
                     // write_channel: channel; realize: func; shift: shift register;
                     // push: FIFO
  Expr min, extent;  // for
  LoopKind loop_kind = LoopKind::kSerial;
  Expr value;                 // let, provide, write_channel, push; if: the condition
  std::vector<Expr> args;     // provide: the left-hand side arguments (a register: the PE
                              // index, then the slot); write_channel: index; alloc: the shape;
                              // realize: the min of each dimension; shift, push: the PE index
  std::vector<Expr> extents;  // realize: the extent of each dimension
  Type type;                  // alloc, realize: element type
  StmtList body;              // for, let, if (then), realize
  StmtList else_body;         // if
  SourceLoc loc;
};

struct Kernel {
  std::string name;
  Place place = Place::kDevice;
  StmtList body;
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

// A FIFO between two device kernels. `dims` is the shape of an array of channels (one per PE
// from the stt stage on; empty for a single channel).
struct Channel {
  std::string name;
  Type type;
  std::vector<int64_t> dims;
  int64_t depth = 0;
  std::string producer, consumer;  // kernel names
  SourceLoc loc;
};

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
  int64_t time_distance = 0;      // flattened time steps from the write to the read
  int64_t period = 1;             // shift: a PE writes one value every `period` steps
  int64_t naive = 1;              // per PE: the seed's shift register, time_distance + 1
  SourceLoc loc;                  // the definition of the Func
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

}  // namespace t2s
