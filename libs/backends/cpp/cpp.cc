#include "libs/backends/cpp/cpp.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "libs/backends/c/c_codegen.h"
#include "libs/backends/cpp/emu_proofs.h"
#include "libs/backends/cpp/profile.h"
#include "libs/ir/program_facts.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"
#include "libs/runtime/runtime_source.h"

namespace t2s {

namespace {

// Names of the generated program's own entities are "t2s_" + IR name + "_" + a two-letter kind.
// They cannot collide with each other (the kinds differ in their last letters), nor with IR
// variables (c_identifier gives every IR name that starts with "t2s_" a trailing underscore),
// nor with CCodegen's helpers (t2s_<op>_<type>).
std::string own(const std::string& name, const char* kind) { return "t2s_" + name + "_" + kind; }
std::string input_name(const std::string& n) { return own(n, "in"); }
std::string buffer_name(const std::string& n) { return own(n, "bf"); }
std::string storage_name(const std::string& n) { return own(n, "st"); }
std::string channel_name(const std::string& n) { return own(n, "ch"); }
std::string register_name(const std::string& n) { return own(n, "rg"); }
std::string kernel_function(const std::string& n) { return own(n, "kn"); }
// A carry (emu_proofs.h) of a kernel: "t2s_" + storage + "_cr" + its number (the digits after
// the last "_cr" tell it from the two-letter kinds and from other storages' carries).
std::string carry_name(const EmuProofs& proofs, size_t carry) {
  return own(proofs.carries[carry].storage, "cr") + std::to_string(carry);
}

bool is_c_identifier(const std::string& name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

void check_name(const std::string& name, const char* what, const SourceLoc& loc) {
  if (!is_c_identifier(name))
    throw Diagnostic(
        loc,
        std::string("the cpp target needs C identifiers: ") + what + " '" + name + "' is not one",
        "emit-unsupported");
}

// A C++ string literal of `text` (IR names are identifiers; escaping keeps any text safe).
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[(static_cast<unsigned char>(c) >> 4) & 0xF];
      out += kHex[static_cast<unsigned char>(c) & 0xF];
      out += "\"\"";  // ends the hex escape
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Text for a // comment: printable ASCII only.
std::string comment_text(const std::string& text) {
  std::string out;
  for (char c : text) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) ? ' ' : c;
  return out;
}

// What a kernel touches, by index into the program's lists.
struct KernelUse : KernelAccesses {
  std::vector<const Register*> registers;  // those whose `kernel` names it, in program order
};

// Func storage and inputs hold scalars (docs/ir.md, "Vector values"), as the interpreter has
// them.
[[noreturn]] void unsupported_vector_storage(const std::string& what, Type t,
                                             const SourceLoc& loc) {
  throw Diagnostic(loc,
                   what + " of vector type " + t.name() +
                       " is not supported by the cpp target (Func storage and inputs hold "
                       "scalars)",
                   "emit-unsupported");
}

bool supported_element(Type t) {
  if (!t.known()) return false;
  if (t.is_bool()) return true;
  if (t.is_float()) return t.bits == 32 || t.bits == 64;
  return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
}

bool supported_scalar(Type t) { return t.known() && t.lanes == 1 && supported_element(t); }

// A scalar or a vector (of at most kMaxLanes lanes: verified IR) of a supported element type.
bool supported_value(Type t) {
  return t.known() && t.lanes >= 1 && t.lanes <= kMaxLanes && supported_element(t);
}

std::string type_text(Type t) { return t.known() ? t.name() : "<unknown>"; }

// Walks one kernel of a verified program (libs/ir/verify checks names, scopes, arities and
// types when a tool reads IR) before code generation: refuses what the target cannot emulate
// and notes whether an index needs 64-bit unsigned arithmetic.
class KernelScan {
 public:
  KernelScan(const Kernel& kernel, bool* wide_index) : kernel_(kernel), wide_index_(wide_index) {}

  void run() {
    loc_ = &kernel_.loc;
    stmts(kernel_.body);
  }

 private:
  void check_type(Type t) const {
    if (!supported_value(t))
      throw InternalError("emit: kernel '" + kernel_.name + "': unsupported type " + type_text(t));
  }

  void stmts(const StmtList& list) {
    for (const StmtPtr& s : list) stmt(*s);
  }

  // Index lists are list-initialized int64_t: uint64 values would be narrowing conversions.
  void indices(const std::vector<Expr>& index, size_t first = 0) {
    for (size_t i = first; i < index.size(); ++i)
      if (index[i]->type.is_uint() && index[i]->type.bits == 64) *wide_index_ = true;
  }

  void expr(const Expr& e) {
    for_each_expr(e, [&](const Expr& n) {
      check_type(n->type);
      if (n->kind != ExprKind::kCall) return;
      switch (n->call_kind) {
        case CallKind::kFunc:
          indices(n->operands);
          return;
        case CallKind::kChannel:
          indices(n->operands, 1);
          return;
        case CallKind::kFifo:
          indices(n->operands, 1);
          return;
        case CallKind::kImage:
        case CallKind::kRegister:
          indices(n->operands);
          return;
        default:
          return;
      }
    });
  }

  void stmt(const Stmt& s) {
    const SourceLoc* saved = loc_;
    if (s.loc.valid()) loc_ = &s.loc;
    for (const Expr* e : s.exprs()) expr(*e);
    match_stmt(
        s, [&](const For& loop) { check_name(loop.var, "loop variable", *loc_); },
        [&](const LetStmt& let) { check_name(let.var, "let variable", *loc_); },
        [&](const IfThenElse&) {}, [&](const Provide& provide) { indices(provide.args); },
        [&](const Alloc&) {
          throw Diagnostic(*loc_, "alloc statements are not supported by the cpp target yet",
                           "emit-unsupported");
        },
        [&](const WriteChannel& write) { indices(write.index); },
        [&](const Realize& realize) {
          check_name(realize.func, "Func", *loc_);
          check_type(realize.type);
          if (realize.type.lanes != 1)
            unsupported_vector_storage("the storage of '" + realize.func + "'", realize.type,
                                       *loc_);
          indices(realize.mins);
          indices(realize.extents);
        },
        [&](const Shift& shift) { indices(shift.pe); },
        [&](const Push& push) { indices(push.pe); });
    for (const StmtList* child : s.children()) stmts(*child);
    loc_ = saved;
  }

  const Kernel& kernel_;
  bool* wide_index_;
  const SourceLoc* loc_ = nullptr;
};

// Whether `text` (a printed C expression) needs no parentheses as an operand of `*` or `+`:
// no space outside parentheses, brackets and braces (an identifier, a literal, a call).
bool atom(const std::string& text) {
  int depth = 0;
  for (char c : text) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (depth == 0 && (c == ' ' || c == '?' || c == ':')) return false;
  }
  return !text.empty();
}

// How the emulation stores what kernels touch: the runtime's checked containers, and plain
// positions in them where the kernel's proofs (emu_proofs.h) show an access inside its storage
// (unless `checked`: every access checked).
class EmuStorage : public CStorage {
 public:
  EmuStorage(bool wide_index, bool checked) : wide_index_(wide_index), checked_(checked) {}

  // The proofs of the kernel being printed (null: none).
  void set_proofs(const EmuProofs* proofs) { proofs_ = proofs; }

  std::string read_input(const Input& input, const std::vector<std::string>& index) override {
    // Its own shape's strides: a larger array than the extents is accepted (input_array).
    if (proved()) return call(input_name(input.name), "get", index);
    return call(input_name(input.name), "read", index);
  }
  std::string read_func(const std::string& func, const std::vector<std::string>& index,
                        const SourceLoc&) override {
    const std::string st = storage_name(func);
    if (const std::string carry = carried(); !carry.empty()) return carry;
    if (proved())
      return st + (proved_written() ? ".get(" : ".read_at(") + func_position(st, index) + ")";
    return call(st, "read", index);
  }
  std::vector<std::string> write_func(const std::string& func,
                                      const std::vector<std::string>& index,
                                      const std::string& value, const SourceLoc&) override {
    size_t kernel = 0;
    bool step = false;
    if (profile_marker(func, &kernel, &step)) {
      const std::string counters = "t2s_profile[" + std::to_string(kernel) + "]";
      return {step ? counters + ".step();" : counters + ".work(" + index.at(0) + ");"};
    }
    const std::string st = storage_name(func);
    // A proved index is affine (no effects): its order against the value's does not matter.
    if (proved()) {
      const Realize* realize = realize_of_access();
      const bool flagged = !realize || !proofs_->unflagged.count(realize);
      return {st + (flagged ? ".store(" : ".put(") + func_position(st, index) + ", " +
              carrying(value) + ");"};
    }
    return {"{ const int64_t t2s_at = " + call(st, "locate_write", index) + "; " + st +
            ".store(t2s_at, " + value + "); }"};
  }
  std::vector<std::string> declare_realize(const Realize& realize, const SourceLoc& loc,
                                           const std::vector<std::string>& mins,
                                           const std::vector<std::string>& extents) override {
    std::string folded;
    if (!checked_ && proofs_) {
      auto it = proofs_->folds.find(&realize);
      if (it != proofs_->folds.end()) {
        std::vector<std::string> folds;
        for (int64_t f : it->second) folds.push_back(std::to_string(f));
        folded = ", " + brace_list(folds);
      }
    }
    return {"t2s_rt::FuncStorage<" + c_type_name(realize.type, CDialect::kCpp, loc) + "> " +
            storage_name(realize.func) + "(" + quoted(realize.func) + ", " + list(mins) + ", " +
            list(extents) + folded + ");"};
  }
  std::string read_channel(const Channel& channel, const std::vector<std::string>& index,
                           const SourceLoc&) override {
    return fifo(channel, index) + ".read()";
  }
  std::vector<std::string> write_channel(const Channel& channel,
                                         const std::vector<std::string>& index,
                                         const std::string& value, const SourceLoc&) override {
    // C++17 sequences the object expression (with the FIFO's index) before the argument.
    return {fifo(channel, index) + ".write(" + value + ");"};
  }
  std::string read_register(const Register& reg, const std::vector<std::string>& pe,
                            const std::string& slot, const SourceLoc&) override {
    const std::string r = register_name(reg.name);
    if (const std::string carry = carried(); !carry.empty()) return carry;
    if (proved())
      return r + (proved_written() ? ".get(" : ".read_at(") + slot_position(reg, pe, slot) + ")";
    std::vector<std::string> index = pe;
    index.push_back(slot);
    return call(r, "read", index);
  }
  std::vector<std::string> write_register(const Register& reg, const std::vector<std::string>& pe,
                                          const std::string& slot, const std::string& value,
                                          const SourceLoc&) override {
    const std::string r = register_name(reg.name);
    if (proved()) {
      const bool flagged = !proofs_->unflagged_registers.count(reg.name);
      return {r + (flagged ? ".store(" : ".put(") + slot_position(reg, pe, slot) + ", " +
              carrying(value) + ");"};
    }
    std::vector<std::string> index = pe;
    index.push_back(slot);
    return {"{ const int64_t t2s_at = " + call(r, "locate_write", index) + "; " + r +
            ".store(t2s_at, " + value + "); }"};
  }
  std::vector<std::string> shift_register(const Register& reg, const std::vector<std::string>& pe,
                                          const SourceLoc&) override {
    const std::string r = register_name(reg.name);
    if (proved()) return {r + ".shift_pe(" + linear(pe, reg.shape) + ");"};
    return {call(r, "shift", pe) + ";"};
  }
  std::vector<std::string> push_fifo(const Register& reg, const std::vector<std::string>& pe,
                                     const std::string& value, const SourceLoc&) override {
    const std::string r = register_name(reg.name);
    if (proved()) return {r + ".push(" + linear(pe, reg.shape) + ", " + value + ");"};
    return {"{ const int64_t t2s_at = " + call(r, "locate_push", pe) + "; " + r + ".push(t2s_at, " +
            value + "); }"};
  }
  std::string pop_fifo(const Register& reg, const std::vector<std::string>& pe,
                       const SourceLoc&) override {
    const std::string r = register_name(reg.name);
    if (proved()) return r + ".pop_at(" + linear(pe, reg.shape) + ")";
    return call(r, "pop", pe);
  }

 private:
  bool proved() const { return !checked_ && proofs_ && access && proofs_->in_bounds.count(access); }
  bool proved_written() const { return proved() && proofs_->written.count(access); }
  // The carry a proved read takes its value from ("": none; emu_proofs.h, `carries`).
  std::string carried() const {
    if (!proved()) return "";
    auto it = proofs_->carried_reads.find(access);
    return it == proofs_->carried_reads.end() ? "" : carry_name(*proofs_, it->second);
  }
  // The value a proved write stores, assigned to its carry on the way when it has one.
  std::string carrying(const std::string& value) const {
    auto it = proofs_->carrying_writes.find(access);
    if (it == proofs_->carrying_writes.end()) return value;
    return carry_name(*proofs_, it->second) + " = " + value;
  }

  // "{a, b}": an int64_t list, evaluated left to right (list-initialization).
  std::string list(const std::vector<std::string>& items) const {
    std::vector<std::string> out;
    for (const std::string& s : items)
      out.push_back(wide_index_ ? "static_cast<int64_t>(" + s + ")" : s);
    return brace_list(out);
  }
  std::string call(const std::string& object, const char* method,
                   const std::vector<std::string>& index) const {
    return object + "." + method + "(" + (index.empty() ? "" : list(index)) + ")";
  }
  // The Fortran-order position of a proved `index` in an array of `shape`: `i + 4 * j`. Proved
  // indices are signed and inside the shape, so the arithmetic stays below the element count
  // (in int64_t when that exceeds int).
  static std::string linear(const std::vector<std::string>& index,
                            const std::vector<int64_t>& shape) {
    int64_t count = 1;
    for (int64_t extent : shape)
      count = count > INT64_MAX / std::max<int64_t>(extent, 1) ? INT64_MAX : count * extent;
    const bool wide = count > INT32_MAX;
    std::string out;
    int64_t stride = 1;
    for (size_t d = 0; d < index.size() && d < shape.size(); ++d) {
      std::string term = wide             ? "static_cast<int64_t>(" + index[d] + ")"
                         : atom(index[d]) ? index[d]
                                          : "(" + index[d] + ")";
      if (stride != 1) term = std::to_string(stride) + " * " + term;
      out += (out.empty() ? "" : " + ") + term;
      stride *= shape[d];
    }
    return out.empty() ? "0" : out;
  }
  // The realize a proved Func access refers to (null: a buffer's).
  const Realize* realize_of_access() const {
    auto it = proofs_->realize_of.find(access);
    return it == proofs_->realize_of.end() ? nullptr : it->second;
  }
  // The position of a proved Func access: with constant bounds, printed with its constants
  // (`i + 1024 * j + 1048576 * (k & 1)` on storage folded along k), which the C++ compiler
  // keeps in registers; else the storage's offset().
  std::string func_position(const std::string& st, const std::vector<std::string>& index) const {
    const Realize* realize = realize_of_access();
    if (!realize || realize->mins.size() != index.size()) return call(st, "offset", index);
    std::vector<int64_t> folds(index.size(), 0);
    auto it = proofs_->folds.find(realize);
    if (it != proofs_->folds.end()) folds = it->second;
    std::vector<std::string> terms;
    std::vector<int64_t> stored;
    for (size_t d = 0; d < index.size(); ++d) {
      const Expr& min = realize->mins[d];
      const Expr& extent = realize->extents[d];
      if (min->kind != ExprKind::kIntImm || extent->kind != ExprKind::kIntImm)
        return call(st, "offset", index);
      std::string term = index[d];
      if (min->int_value != 0) term = "(" + term + ") - " + std::to_string(min->int_value);
      const bool folded = folds[d] > 0 && folds[d] < extent->int_value;
      if (folded)
        term = "(" + (atom(term) ? term : "(" + term + ")") + " & " + std::to_string(folds[d] - 1) +
               ")";
      terms.push_back(folded && folds[d] == 1 ? "" : term);  // "": always 0
      stored.push_back(folded ? folds[d] : extent->int_value);
    }
    int64_t count = 1;
    for (int64_t extent : stored)
      count = count > INT64_MAX / std::max<int64_t>(extent, 1) ? INT64_MAX : count * extent;
    const bool wide = wide_index_ || count > INT32_MAX;
    std::string out;
    int64_t stride = 1;
    for (size_t d = 0; d < terms.size(); ++d, stride *= stored[d - 1]) {
      if (terms[d].empty()) continue;
      std::string term = wide             ? "static_cast<int64_t>(" + terms[d] + ")"
                         : atom(terms[d]) ? terms[d]
                                          : "(" + terms[d] + ")";
      if (stride != 1) term = std::to_string(stride) + " * " + term;
      out += (out.empty() ? "" : " + ") + term;
    }
    return out.empty() ? "0" : out;
  }
  // The position of a slot of a register: the PE's number at depth 1 (the slot is proved 0).
  std::string slot_position(const Register& reg, const std::vector<std::string>& pe,
                            const std::string& slot) const {
    const std::string number = linear(pe, reg.shape);
    if (reg.depth == 1) return number;
    return register_name(reg.name) + ".at(" + number + ", " + slot + ")";
  }
  std::string fifo(const Channel& channel, const std::vector<std::string>& index) const {
    const std::string name = channel_name(channel.name);
    if (channel.dims.empty()) return name;
    if (proved()) return name + ".at_linear(" + linear(index, channel.dims) + ")";
    return name + ".at(" + list(index) + ")";
  }

  bool wide_index_;
  bool checked_;
  const EmuProofs* proofs_ = nullptr;
};

std::string type_list(const std::vector<int64_t>& shape) {
  std::string out;
  for (size_t d = 0; d < shape.size(); ++d) out += (d ? " x " : "") + std::to_string(shape[d]);
  return out.empty() ? "scalar" : out;
}

}  // namespace

std::string emit_cpp(const Program& program) { return emit_cpp(program, CppOptions{}); }

std::map<const Realize*, std::vector<int64_t>> emulation_folded_extents(const Program& program) {
  std::map<const Realize*, std::vector<int64_t>> out;
  for (const Kernel& kernel : program.kernels) {
    const EmuProofs proofs = prove_kernel_accesses(program, kernel);
    for (const auto& [realize, folds] : proofs.folds) {
      std::vector<int64_t> extents;
      for (size_t d = 0; d < realize->extents.size() && d < folds.size(); ++d) {
        const Expr& e = realize->extents[d];
        if (e->kind != ExprKind::kIntImm) break;
        extents.push_back(folds[d] > 0 ? std::min(folds[d], e->int_value) : e->int_value);
      }
      if (extents.size() == realize->extents.size()) out[realize] = extents;
    }
  }
  return out;
}

std::string emit_cpp(const Program& program, const CppOptions& options) {
  if (program.stage == Stage::kParsed)
    throw Diagnostic({},
                     "the cpp target emulates programs from the merged stage on; this one is at "
                     "stage 'parsed'",
                     "emit-stage");

  // Inputs: their data is generated from constant extents (or read with --input).
  std::vector<std::vector<int64_t>> input_shapes;
  for (const Input& in : program.inputs) {
    check_name(in.name, "input", in.loc);
    if (in.type.known() && in.type.lanes != 1)
      unsupported_vector_storage("input '" + in.name + "'", in.type, in.loc);
    if (!supported_scalar(in.type))
      throw InternalError("emit: input '" + in.name + "' has unsupported type " +
                          type_text(in.type));
    if (in.extents.size() != static_cast<size_t>(in.dims))
      throw Diagnostic(in.loc,
                       "input '" + in.name +
                           "' has no extents (a parsed-stage program?); the "
                           "cpp target needs them to know the shape of its data",
                       "emit-extent");
    input_shapes.push_back(in.extents);
  }

  // Buffers (scalar), channels and registers (scalar or vector), with what the emulation can
  // lay out.
  for (const Buffer& b : program.buffers) {
    check_name(b.name, "buffer", b.loc);
    if (b.type.known() && b.type.lanes != 1)
      unsupported_vector_storage("buffer '" + b.name + "'", b.type, b.loc);
    if (!supported_scalar(b.type))
      throw InternalError("emit: buffer '" + b.name + "' has unsupported type " +
                          type_text(b.type));
    if (b.mins.size() > 64) throw InternalError("emit: buffer '" + b.name + "' has bad bounds");
    for (size_t d = 0; d < b.mins.size(); ++d) {
      for (const Expr& e : {b.mins[d], b.extents[d]}) {
        for_each_expr(e, [&](const Expr& x) {
          if (x->kind == ExprKind::kVar || x->kind == ExprKind::kCall)
            throw InternalError("emit: buffer '" + b.name + "' has bounds that are not constant");
        });
      }
    }
  }
  // Verified IR: the output has a buffer.
  const Buffer* output = program.find_buffer(program.output.func);
  for (const Expr& m : output->mins)
    if (m->kind == ExprKind::kIntImm && m->int_value != 0)
      throw InternalError("emit: the output buffer '" + output->name +
                          "' does not start at 0 in every dimension");
  for (const Channel& c : program.channels) {
    check_name(c.name, "channel", c.loc);
    if (!supported_value(c.type))
      throw InternalError("emit: channel '" + c.name + "' has unsupported type " +
                          type_text(c.type));
    int64_t fifos = 1;
    for (int64_t d : c.dims) {
      if (d < 1 || fifos > (int64_t{1} << 24) / d)
        throw InternalError("emit: channel '" + c.name + "' has bad dims");
      fifos *= d;
    }
  }
  for (const Register& r : program.registers) {
    const std::string what = "emit: register '" + r.name + "'";
    check_name(r.name, "register", r.loc);
    if (!supported_value(r.type))
      throw InternalError(what + " has unsupported type " + type_text(r.type));
    if (r.shape.size() + 1 > 64) throw InternalError(what + " has too many dimensions");
    int64_t pes = 1;
    for (int64_t d : r.shape) {
      if (d < 1 || pes > (int64_t{1} << 24) / d) throw InternalError(what + " has bad shape");
      pes *= d;
    }
  }

  // Kernels: what each touches.
  std::vector<KernelUse> uses(program.kernels.size());
  bool wide_index = false;
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const Kernel& kernel = program.kernels[k];
    check_name(kernel.name, "kernel", kernel.loc);
    for (const Register& r : program.registers)
      if (r.kernel == kernel.name) uses[k].registers.push_back(&r);
    static_cast<KernelAccesses&>(uses[k]) = kernel_accesses(program, kernel);
    KernelScan(kernel, &wide_index).run();
  }

  // The rules of concurrent kernels (no shared written buffer, one reader and one writer per
  // channel) hold in verified IR (libs/ir/program_facts.h).
  const std::vector<KernelRun> groups = kernel_runs(program);

  EmuStorage storage(wide_index, options.checked);
  CCodegen codegen(program, CDialect::kCpp, storage);
  auto type_of = [](Type t, const SourceLoc& loc) {
    return c_value_type_name(t, CDialect::kCpp, loc);
  };

  // Program state.
  std::string state;
  state += "// Inputs, buffers (Func storage that outlives one kernel) and channels.\n";
  for (const Input& in : program.inputs)
    state += "t2s_rt::InputArray<" + type_of(in.type, in.loc) + "> " + input_name(in.name) + ";\n";
  for (const Buffer& b : program.buffers)
    state += "t2s_rt::FuncStorage<" + type_of(b.type, b.loc) + "> " + buffer_name(b.name) + ";\n";
  for (const Channel& c : program.channels) {
    const std::string capacity = std::to_string(std::max<int64_t>(c.depth, 1));
    const std::string type = type_of(c.type, c.loc);
    if (c.dims.empty()) {
      state += "t2s_rt::Fifo<" + type + "> " + channel_name(c.name) + "(" + quoted(c.name) + ", " +
               capacity + ");\n";
    } else {
      state += "t2s_rt::FifoArray<" + type + "> " + channel_name(c.name) + "(" + quoted(c.name) +
               ", " + brace_list(c.dims) + ", " + capacity + ");\n";
    }
  }

  // --profile: the kernels' bodies with counting markers, and their counters.
  std::vector<ProfileKernel> profiled;
  if (options.profile) {
    std::vector<std::string> counters;
    for (size_t k = 0; k < program.kernels.size(); ++k) {
      profiled.push_back(profile_kernel(program.kernels[k], k));
      counters.push_back("{" + quoted(program.kernels[k].name) + ", " +
                         std::to_string(profiled.back().pes) + "}");
    }
    state += "\n// --profile: steps and useful PE-steps of each kernel (docs/report.md).\n";
    state += R"(struct T2sProfile {
  T2sProfile(const char* kernel, int64_t pes) : kernel(kernel), last(pes, 0) {}
  void step() { ++steps; }
  void work(int64_t pe) {
    if (last[pe] != steps) last[pe] = steps, ++useful;
  }
  const char* kernel;
  uint64_t steps = 0, useful = 0;
  std::vector<uint64_t> last;  // the step at which each PE last did useful work
};
)";
    state += "T2sProfile t2s_profile[] = " + brace_list(counters) + ";\n";
  }

  // One function per kernel.
  std::string kernels;
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const Kernel& kernel = program.kernels[k];
    const KernelUse& use = uses[k];
    kernels += "\n// Kernel '" + kernel.name + "' (" +
               (kernel.place == Place::kDevice ? "device" : "host") +
               (kernel.loc.valid() ? ", spec " + comment_text(kernel.loc.str()) : "") + ").\n";
    kernels += "void " + kernel_function(kernel.name) + "() {\n";
    std::set<size_t> buffers = use.buffers_read;
    buffers.insert(use.buffers_written.begin(), use.buffers_written.end());
    for (size_t b : buffers) {
      const std::string& name = program.buffers[b].name;
      kernels += "  auto& " + storage_name(name) + " = " + buffer_name(name) + ";\n";
    }
    for (const Register* r : use.registers) {
      kernels += "  t2s_rt::" +
                 std::string(r->kind == Register::kShift ? "ShiftRegister" : "FifoRegister") + "<" +
                 type_of(r->type, r->loc) + "> " + register_name(r->name) + "(" + quoted(r->name) +
                 ", " + brace_list(r->shape) + ", " + std::to_string(r->depth) + ");\n";
    }
    // With --profile the body emitted is the copy with the counters' markers: the proofs are
    // asked of that body, so that they name its statements.
    Kernel emitted = kernel;
    if (options.profile) emitted.body = profiled[k].body;
    // --checked emits every check: nothing to prove.
    const EmuProofs proofs =
        options.checked ? EmuProofs{} : prove_kernel_accesses(program, emitted);
    for (size_t c = 0; c < proofs.carries.size(); ++c) {
      const EmuProofs::Carry& carry = proofs.carries[c];
      const Register* reg = carry.realize ? nullptr : program.find_register(carry.storage);
      const Type type = carry.realize ? carry.realize->type : reg->type;
      const SourceLoc& loc = carry.realize ? kernel.loc : reg->loc;
      kernels += "  " + type_of(type, loc) + " " + carry_name(proofs, c) +
                 "{};  // forwarded along the innermost loop\n";
    }
    storage.set_proofs(&proofs);
    codegen.stmts(emitted.body, 1, &kernels);
    storage.set_proofs(nullptr);
    for (const Register* r : use.registers)
      if (r->kind == Register::kFifo)
        kernels += "  " + register_name(r->name) + ".check_empty(" + quoted(kernel.name) + ");\n";
    kernels += "}\n";
  }

  // main: options, inputs, buffers, the kernels group by group, the output.
  std::string main_text;
  std::string description = "Emulation of a t2s design (stage " +
                            std::string(stage_name(program.stage)) + ") that realizes '" +
                            program.output.func + "'";
  main_text += "\nint main(int argc, char** argv) {\n";
  main_text +=
      "  const t2s_rt::Options options = t2s_rt::parse_options(\n      argc, argv,\n      " +
      quoted(description +
             ": its kernels run as threads connected by bounded FIFOs, with the "
             "reference interpreter's arithmetic and checks. It takes t2s-run's data "
             "options and writes the output t2s-run writes.") +
      ",\n      {});\n";
  std::vector<std::string> names;
  for (const Input& in : program.inputs) names.push_back(quoted(in.name));
  main_text += "  t2s_rt::check_input_names(options, " + brace_list(names) + ");\n";
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    const Input& in = program.inputs[i];
    main_text += "  " + input_name(in.name) + ".init(" + quoted(in.name) +
                 ", t2s_rt::input_array(options, " + quoted(in.name) + ", " +
                 quoted(in.type.name()) + ", " + brace_list(input_shapes[i]) + "));\n";
  }
  for (const Buffer& b : program.buffers) {
    // Bounds are constant integer expressions; uint64 ones are cast (list-initialization of
    // int64_t refuses narrowing).
    auto list = [&](const std::vector<Expr>& v) {
      std::vector<std::string> out;
      for (const Expr& e : v) {
        const std::string text = codegen.expr(e);
        out.push_back(e->type.is_uint() && e->type.bits == 64 ? "static_cast<int64_t>(" + text + ")"
                                                              : text);
      }
      return brace_list(out);
    };
    main_text += "  " + buffer_name(b.name) + ".allocate(" + quoted(b.name) + ", " + list(b.mins) +
                 ", " + list(b.extents) + ");\n";
  }
  for (const auto& [first, last] : groups) {
    std::string run = "  t2s_rt::Threads()";
    for (size_t k = first; k < last; ++k)
      run += "\n      .add(" + quoted(program.kernels[k].name) + ", " +
             kernel_function(program.kernels[k].name) + ")";
    main_text += run + "\n      .run();\n";
    std::set<size_t> channels;
    for (size_t k = first; k < last; ++k) {
      channels.insert(uses[k].channels_read.begin(), uses[k].channels_read.end());
      channels.insert(uses[k].channels_written.begin(), uses[k].channels_written.end());
    }
    for (size_t c : channels)
      main_text += "  t2s_rt::check_drained(" + channel_name(program.channels[c].name) + ");\n";
  }
  if (options.profile) {
    main_text += R"(  for (const T2sProfile& p : t2s_profile) {
    const uint64_t all = p.last.size() * p.steps;
    std::fprintf(stderr, "profile: kernel %s: %llu useful PE-steps of %zu PE%s x %llu step%s",
                 p.kernel, (unsigned long long)p.useful, p.last.size(),
                 p.last.size() == 1 ? "" : "s", (unsigned long long)p.steps,
                 p.steps == 1 ? "" : "s");
    if (all) std::fprintf(stderr, " = %.2f%%", 100.0 * p.useful / all);
    std::fprintf(stderr, "\n");
  }
)";
  }
  main_text += "  t2s_rt::write_output(options, " + quoted(program.output.func) + ", " +
               buffer_name(output->name) + ".to_output());\n";
  main_text += "  return 0;\n}\n";

  // The file.
  const std::string name = program.output.func;
  std::string out;
  out += "// " + name +
         "_emu.cpp: a C++17 emulation of a t2s design, generated by t2s-emit "
         "--target cpp\n";
  out += "// from IR of stage '" + std::string(stage_name(program.stage)) + "' (realizes '" +
         comment_text(program.output.func) + "'";
  if (program.output.loc.valid()) out += ", spec " + comment_text(program.output.loc.str());
  out += "). Do not edit: regenerate it.\n";
  out += "//\n";
  out += "// Build and run (only a C++17 compiler is needed: the runtime is included below):\n";
  out += "//   g++ -std=c++17 -O2 -pthread -ffp-contract=off " + name + "_emu.cpp -o " + name +
         "_emu\n";
  out += "//   ./" + name +
         "_emu [--input NAME=FILE.npy]... [--fill sequential|random] [--seed N] "
         "[-o OUT.npy] [--print]\n";
  out +=
      "// It writes the output `t2s-run STAGE.json` writes with the same options, byte for "
      "byte.\n";
  out += "//\n";
  out += "// Kernels:";
  for (const Kernel& k : program.kernels)
    out += " " + k.name + (k.place == Place::kDevice ? " (device)" : " (host)");
  out += "\n// Inputs:";
  if (program.inputs.empty()) out += " none";
  for (size_t i = 0; i < program.inputs.size(); ++i)
    out += std::string(i ? "," : "") + " " + program.inputs[i].name + " (" +
           program.inputs[i].type.name() + ", " + type_list(input_shapes[i]) + ")";
  out += "\n\n";
  out += t2s_runtime_block();
  out += "\n// ---- Halide arithmetic ----\n";
  out += codegen.helper_definitions();
  out += "\nnamespace {\n\n";
  out += state;
  out += kernels;
  out += "\n}  // namespace\n";
  out += main_text;
  return out;
}

}  // namespace t2s
