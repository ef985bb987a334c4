// The device code of the opencl target: one single work-item kernel per device kernel, its
// channels and registers (opencl.h describes the output).
#include <cctype>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "libs/backends/c/c_codegen.h"
#include "libs/backends/opencl/opencl.h"
#include "libs/backends/opencl/opencl_internal.h"
#include "libs/ir/buffer_banks.h"
#include "libs/ir/strings.h"
#include "libs/ir/visitor.h"

namespace t2s {
namespace opencl_internal {
namespace {

// An identifier or a number: needs no parentheses as an operand.
bool is_simple(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// Whether `s` is one parenthesized expression: "(...)" whose first parenthesis closes last.
bool is_wrapped(const std::string& s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return false;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth == 0) return i + 1 == s.size();
  }
  return false;
}

std::string paren(const std::string& s) {
  return is_simple(s) || is_wrapped(s) ? s : "(" + s + ")";
}

// Whether `s` can be an operand of `+` or `-` without parentheses: it contains no operator of
// lower precedence than the additive ones (conservatively: none of these characters anywhere).
bool additive_safe(const std::string& s) {
  return s.find_first_of("?:<>=&|^,") == std::string::npos;
}

std::string additive_operand(const std::string& s) { return additive_safe(s) ? s : "(" + s + ")"; }

// `x - min`, an operand of `+`.
std::string offset(const std::string& x, const std::string& min) {
  if (min == "0") return additive_operand(x);
  int64_t m = 0;
  if (parse_int64(min, &m) && m < 0) return additive_operand(x) + " + " + min.substr(1);
  return additive_operand(x) + " - " + paren(min);
}

// The Fortran-order position of `index` in storage with these mins and extents:
// (x0 - m0) + E0 * ((x1 - m1) + E1 * (...)).
std::string fortran_index(const std::vector<std::string>& index,
                          const std::vector<std::string>& mins,
                          const std::vector<int64_t>& extents) {
  const size_t n = index.size();
  if (n == 0) return "0";
  if (n == 1 && mins[0] == "0") return index[0];
  std::string acc = offset(index[n - 1], mins[n - 1]);
  for (size_t d = n - 1; d-- > 0;) {
    acc = offset(index[d], mins[d]) + " + " + std::to_string(extents[d]) + " * " + paren(acc);
  }
  return acc;
}

// "dimensions 4, 3, 1, 2, 5 fastest first, 4 x 2 x 2 x 3 x 2" for a bank layout (the
// extents padded to powers of two along the lanes and the PEs).
std::string layout_text(const BufferBanks& b) {
  std::string order, sizes;
  for (size_t d : b.layout) {
    order += (order.empty() ? "" : ", ") + std::to_string(d + 1);
    sizes += (sizes.empty() ? "" : " x ") + std::to_string(b.extents[d]);
  }
  return "dimensions " + order + " fastest first, " + sizes;
}

// `[a][b][c]` for the PE index `pe` (innermost space loop first), outermost first, then `slot`.
std::string pe_subscript(const std::vector<std::string>& pe, const std::string& slot) {
  std::string out;
  for (size_t i = pe.size(); i-- > 0;) out += "[" + pe[i] + "]";
  if (pe.empty()) out += "[0]";
  if (!slot.empty()) out += "[" + slot + "]";
  return out;
}

// The declared dimensions of a register's per-PE arrays: `[S1][S0]` (or `[1]` for no PEs).
std::string pe_dims(const Register& reg) {
  std::string out;
  for (size_t i = reg.shape.size(); i-- > 0;) out += "[" + std::to_string(reg.shape[i]) + "]";
  if (reg.shape.empty()) out += "[1]";
  return out;
}

std::string kind_word(const Register& reg) {
  return reg.kind == Register::kFifo ? "FIFO" : "shift register";
}

// A realize statement's private storage, while its body is printed: its dimensions in memory
// order (fastest first; a double buffer's banks, buffer_banks.h) and their extents.
struct LocalStorage {
  std::vector<std::string> mins;
  std::vector<int64_t> extents;
  std::vector<size_t> layout;  // empty: the realize's own order

  // The Fortran-order position of `index` (in the realize's order) in this layout.
  std::string position(const std::vector<std::string>& index) const {
    if (layout.empty()) return fortran_index(index, mins, extents);
    std::vector<std::string> i, m;
    std::vector<int64_t> e;
    for (size_t d : layout) {
      i.push_back(index[d]);
      m.push_back(mins[d]);
      e.push_back(extents[d]);
    }
    return fortran_index(i, m, e);
  }
};

class DeviceStorage : public CStorage {
 public:
  explicit DeviceStorage(const Program& program) : program_(program) {}

  void begin_kernel() { realized_.clear(); }
  bool uses_fifo_pop() const { return uses_fifo_pop_; }

  std::string read_input(const Input& input, const std::vector<std::string>& index) override {
    const std::vector<std::string> mins(index.size(), "0");
    const std::string access =
        c_identifier(input.name) + "[" + fortran_index(index, mins, input_extents(input)) + "]";
    return input.type.is_bool() ? "(" + access + " != 0)" : access;
  }

  std::string read_func(const std::string& func, const std::vector<std::string>& index,
                        const SourceLoc& loc) override {
    bool global = false;
    const std::string access = func_access(func, index, &global);
    return global && is_bool_buffer(func) ? "(" + access + " != 0)" : access;
  }

  std::vector<std::string> write_func(const std::string& func,
                                      const std::vector<std::string>& index,
                                      const std::string& value, const SourceLoc& loc) override {
    bool global = false;
    const std::string access = func_access(func, index, &global);
    if (global && is_bool_buffer(func)) return {access + " = (uchar)(" + value + ");"};
    return {access + " = " + value + ";"};
  }

  std::vector<std::string> declare_realize(const Realize& realize, const SourceLoc& loc,
                                           const std::vector<std::string>& mins,
                                           const std::vector<std::string>& extents) override {
    LocalStorage local;
    local.mins = mins;
    local.extents = storage_extents("the storage of '" + realize.func + "'", realize.extents, loc);
    std::string comment = realize.func + " " + bounds_text(mins, local.extents);
    std::string order = ", Fortran order";
    // A double buffer is on-chip RAM. T2SP's memory system for it (Intel's memory attributes):
    // one bank per PE, words of the vector lanes, one write and one read port a bank, which
    // serves a cycle when it writes one word and each PE reads a word of its own bank
    // (buffer_banks.h). Any other access pattern is left to the compiler's banking.
    std::string memory;
    if (const std::optional<DoubleBuffer>& b = realize.double_buffer) {
      const BufferBanks banks = buffer_banks(realize);
      if (banks.banked) {
        local.layout = banks.layout;
        local.extents = banks.extents;
        const int64_t word_bytes = banks.word_lanes * std::max(1, realize.type.bits / 8);
        memory = " __attribute__((memory, numbanks(" + std::to_string(banks.banks) +
                 "), bankwidth(" + std::to_string(word_bytes) +
                 "), singlepump, numwriteports(1), numreadports(1)))";
        order = "; in memory " + layout_text(banks) +
                " (Fortran order): " + std::to_string(banks.banks) +
                (banks.banks == 1 ? " bank" : " banks, one per PE,") + " of " +
                std::to_string(banks.word_lanes) +
                (banks.word_lanes == 1 ? "-element words" : "-lane words");
      } else {
        memory = " __attribute__((memory))";
        order += "; banks left to the compiler: " + banks.why_not;
      }
      order += "; double buffer of " + b->producer + " at " + b->loop + ": " +
               std::to_string(b->reads) + " reads, " + std::to_string(b->writes) +
               " writes a period";
    }
    comment += order;
    int64_t total = 1;
    for (int64_t e : local.extents) total *= e;
    realized_[realize.func] = local;
    return {opencl_vector_type_name(realize.type, loc) + memory + " " + c_identifier(realize.func) +
            "[" + std::to_string(total) + "];  // " + comment};
  }

  std::string read_channel(const Channel& channel, const std::vector<std::string>& index,
                           const SourceLoc& loc) override {
    return "read_channel_intel(" + channel_ref(channel, index) + ")";
  }

  std::vector<std::string> write_channel(const Channel& channel,
                                         const std::vector<std::string>& index,
                                         const std::string& value, const SourceLoc& loc) override {
    return {"write_channel_intel(" + channel_ref(channel, index) + ", " + value + ");"};
  }

  std::string read_register(const Register& reg, const std::vector<std::string>& pe,
                            const std::string& slot, const SourceLoc& loc) override {
    return c_identifier(reg.name) + pe_subscript(pe, slot);
  }

  std::vector<std::string> write_register(const Register& reg, const std::vector<std::string>& pe,
                                          const std::string& slot, const std::string& value,
                                          const SourceLoc& loc) override {
    return {c_identifier(reg.name) + pe_subscript(pe, slot) + " = " + value + ";"};
  }

  std::vector<std::string> shift_register(const Register& reg, const std::vector<std::string>& pe,
                                          const SourceLoc& loc) override {
    const std::string name = c_identifier(reg.name);
    if (reg.depth <= 1) return {"// shift " + name + ": one slot, nothing moves"};
    return {"#pragma unroll",
            "for (int t2s_s = " + std::to_string(reg.depth - 1) + "; t2s_s > 0; t2s_s--) {",
            "  " + name + pe_subscript(pe, "t2s_s") + " = " + name + pe_subscript(pe, "t2s_s - 1") +
                ";",
            "}"};
  }

  std::vector<std::string> push_fifo(const Register& reg, const std::vector<std::string>& pe,
                                     const std::string& value, const SourceLoc& loc) override {
    const std::string name = c_identifier(reg.name);
    const std::string at = pe_subscript(pe, "");
    const std::string depth = std::to_string(reg.depth);
    return {"{",
            "  const int t2s_tail = " + name + "_head" + at + " + " + name + "_count" + at + ";",
            "  " + name + at + "[t2s_tail < " + depth + " ? t2s_tail : t2s_tail - " + depth +
                "] = " + value + ";",
            "  " + name + "_count" + at + " += 1;", "}"};
  }

  std::string pop_fifo(const Register& reg, const std::vector<std::string>& pe,
                       const SourceLoc& loc) override {
    uses_fifo_pop_ = true;
    const std::string name = c_identifier(reg.name);
    const std::string at = pe_subscript(pe, "");
    return name + at + "[t2s_fifo_pop(&" + name + "_head" + at + ", &" + name + "_count" + at +
           ", " + std::to_string(reg.depth) + ")]";
  }

  std::vector<std::string> before_unrolled_loop() override { return {"#pragma unroll"}; }

  // Contiguous vectors of global memory: vloadN / vstoreN at the first lane's element (bool
  // data is uchar in global memory and char 0 or 1 in a vector: element by element).
  std::string read_input_contiguous(const Input& input, const std::vector<std::string>& first,
                                    Type type) override {
    if (!vector_memory(type)) return "";
    const std::vector<std::string> mins(first.size(), "0");
    return "vload" + std::to_string(type.lanes) + "(0, " +
           pointer_to(c_identifier(input.name), fortran_index(first, mins, input_extents(input))) +
           ")";
  }

  std::string read_func_contiguous(const std::string& func, const std::vector<std::string>& first,
                                   Type type, const SourceLoc& loc) override {
    if (!vector_memory(type) || realized_.count(func)) return "";
    return "vload" + std::to_string(type.lanes) + "(0, " + buffer_pointer(func, first) + ")";
  }

  std::vector<std::string> write_func_contiguous(const std::string& func,
                                                 const std::vector<std::string>& first,
                                                 const std::string& value, Type type,
                                                 const SourceLoc& loc) override {
    if (!vector_memory(type) || realized_.count(func)) return {};
    return {"vstore" + std::to_string(type.lanes) + "(" + value + ", 0, " +
            buffer_pointer(func, first) + ");"};
  }

 private:
  static bool vector_memory(Type type) {
    return !type.is_bool() && opencl_native_lanes(type.lanes);
  }

  static std::string pointer_to(const std::string& array, const std::string& index) {
    return index == "0" ? array : array + " + " + additive_operand(index);
  }

  // The address of an element of a program buffer.
  std::string buffer_pointer(const std::string& func, const std::vector<std::string>& index) {
    // Verified IR: a Func without an enclosing realize has a buffer.
    const Buffer* buffer = program_.find_buffer(func);
    return pointer_to(c_identifier(func),
                      fortran_index(index, buffer_mins(*buffer), buffer_extents(*buffer)));
  }

  bool is_bool_buffer(const std::string& func) const {
    const Buffer* b = program_.find_buffer(func);
    return b && b->type.is_bool();
  }

  std::string func_access(const std::string& func, const std::vector<std::string>& index,
                          bool* global) {
    auto local = realized_.find(func);
    if (local != realized_.end()) {
      *global = false;
      return c_identifier(func) + "[" + local->second.position(index) + "]";
    }
    // Verified IR: a Func without an enclosing realize has a buffer.
    const Buffer* buffer = program_.find_buffer(func);
    *global = true;
    return c_identifier(func) + "[" +
           fortran_index(index, buffer_mins(*buffer), buffer_extents(*buffer)) + "]";
  }

  static std::string channel_ref(const Channel& channel, const std::vector<std::string>& index) {
    std::string out = c_identifier(channel.name);
    for (const std::string& i : index) out += "[" + i + "]";
    return out;
  }

  const Program& program_;
  std::map<std::string, LocalStorage> realized_;
  bool uses_fifo_pop_ = false;
};

// The element type of an input or buffer in global memory (bool as uchar).
std::string global_type(Type t, const SourceLoc& loc) {
  return t.is_bool() ? "uchar" : opencl_vector_type_name(t, loc);
}

class DeviceEmitter {
 public:
  explicit DeviceEmitter(const Program& program)
      : program_(program), storage_(program), codegen_(program, CDialect::kOpenCl, storage_) {}

  std::string run() {
    require_kernel_stage(program_, "the opencl target");
    require_device_kernel(program_, "the opencl target");
    std::vector<const Kernel*> device;
    for (const Kernel& k : program_.kernels) {
      if (!is_device(k)) continue;
      device.push_back(&k);
      uses_[k.name] = collect_uses(program_, k);
      autorun_[k.name] = is_autorun(k, uses_[k.name]);
    }

    std::string kernels;
    for (const Kernel* k : device) kernels += "\n" + kernel(*k);

    std::string out = "#pragma OPENCL EXTENSION cl_intel_channels : enable\n\n";
    out += header_comment(device);
    const std::string typedefs = vector_typedefs(device);
    if (!typedefs.empty()) out += "\n" + typedefs;
    std::string helpers = codegen_.helper_definitions();
    if (storage_.uses_fifo_pop()) {
      helpers +=
          "// Removes the oldest value of a FIFO register's ring buffer: returns its slot and "
          "advances the head.\n"
          "static inline int t2s_fifo_pop(int* head, int* count, int depth) {\n"
          "  const int slot = *head;\n"
          "  *head = slot + 1 == depth ? 0 : slot + 1;\n"
          "  *count -= 1;\n"
          "  return slot;\n"
          "}\n";
    }
    if (!helpers.empty()) out += "\n" + helpers;
    const std::string channels = channel_declarations(device);
    if (!channels.empty()) out += "\n" + channels;
    out += kernels;
    return out;
  }

 private:
  std::string header_comment(const std::vector<const Kernel*>& device) const {
    std::string out =
        "// Intel FPGA OpenCL device code generated by t2s-emit (target opencl) from "
        "the " +
        std::string(stage_name(program_.stage)) + " stage.\n";
    out +=
        "// Single work-item kernels connected by channels; the host program runs them in this "
        "order:\n";
    for (const std::vector<const Kernel*>& run : execution_runs(program_)) {
      if (is_device(*run[0])) {
        out += "//   device: " + run_description(run, autorun_) +
               (run.size() > 1 ? " (concurrently)" : "") + "\n";
      } else {
        out += "//   host: " + run[0]->name + "\n";
      }
    }
    out +=
        "// Autorun kernels touch no global memory and are not enqueued by the host. Global "
        "arrays are in\n// Fortran order (first index fastest).\n";
    return out;
  }

  // The struct types of the vector widths OpenCL has no type for: those of channels, of the
  // device kernels' registers, inputs and buffers, and of every value their code computes, in
  // that order of first use.
  std::string vector_typedefs(const std::vector<const Kernel*>& device) const {
    std::set<std::string> seen;
    std::string out;
    auto add = [&](Type t, const SourceLoc& loc) {
      const std::string def = opencl_vector_typedef(t, loc);
      if (!def.empty() && seen.insert(def).second) out += def;
    };
    for (const Channel& c : program_.channels) add(c.type, c.loc);
    for (const Kernel* k : device) {
      for (const Register* r : registers_of(program_, *k)) add(r->type, r->loc);
      for (const Input* in : used_inputs(program_, uses_.at(k->name).inputs)) {
        add(in->type, in->loc);
      }
      for (const Buffer* b : used_buffers(program_, uses_.at(k->name))) add(b->type, b->loc);
    }
    for (const Kernel* k : device)
      for_each_stmt_expr(k->body, [&](const Expr& e) { add(e->type, e->loc); });
    return out;
  }

  std::string channel_declarations(const std::vector<const Kernel*>& device) const {
    std::set<std::string> device_names;
    for (const Kernel* k : device) device_names.insert(k->name);
    std::string out;
    for (const Channel& c : program_.channels) {
      std::string dims;
      for (int64_t d : c.dims) {
        if (d < 1) {
          throw Diagnostic(
              c.loc, "channel '" + c.name + "' has an array dimension of " + std::to_string(d),
              "emit-extent");
        }
        dims += "[" + std::to_string(d) + "]";
      }
      out += "channel " + opencl_vector_type_name(c.type, c.loc) + " " + c_identifier(c.name) +
             dims +
             (c.depth > 0 ? " __attribute__((depth(" + std::to_string(c.depth) + ")))" : "") +
             ";  // " + c.producer + " -> " + c.consumer + "\n";
    }
    return out;
  }

  std::string kernel(const Kernel& k) {
    check_opencl_types(program_, k);
    const StmtList body = expand_channel_indices(program_, k);
    const Uses& uses = uses_.at(k.name);
    const bool autorun = autorun_.at(k.name);
    std::vector<std::string> params, notes;
    std::vector<std::string> input_names, read_names, write_names;
    for (const Input* in : used_inputs(program_, uses.inputs)) {
      input_extents(*in);  // emit-extent before anything uses it
      params.push_back("__global const " + global_type(in->type, in->loc) + "* restrict " +
                       c_identifier(in->name));
      input_names.push_back(in->name);
    }
    for (const Buffer* b : used_buffers(program_, uses)) {
      buffer_mins(*b);
      buffer_extents(*b);
      const bool written = uses.writes.count(b->name) > 0;
      params.push_back(std::string("__global ") + (written ? "" : "const ") +
                       global_type(b->type, b->loc) + "* restrict " + c_identifier(b->name));
      (written ? write_names : read_names).push_back(b->name);
      if (written && uses.reads.count(b->name)) read_names.push_back(b->name);
    }
    if (!input_names.empty()) notes.push_back("reads input " + join(input_names, ", "));
    if (!read_names.empty()) notes.push_back("reads buffer " + join(read_names, ", "));
    if (!write_names.empty()) notes.push_back("writes buffer " + join(write_names, ", "));
    if (!uses.channels.empty()) {
      const std::vector<std::string> channels(uses.channels.begin(), uses.channels.end());
      notes.push_back("channels " + join(channels, ", "));
    }
    if (autorun) notes.push_back("no global memory: autorun");

    std::string out = "// Kernel " + k.name + (k.loc.valid() ? " (" + k.loc.str() + ")" : "") +
                      (notes.empty() ? "" : ": " + join(notes, "; ")) + ".\n";
    out += "__kernel __attribute__((max_global_work_dim(0)))" +
           std::string(autorun ? " __attribute__((autorun))" : "") + "\n";
    out += "void " + c_identifier(k.name) + "(" + join(params, ", ") + ") {\n";
    for (const Register* r : registers_of(program_, k)) out += register_declaration(*r);
    storage_.begin_kernel();
    codegen_.stmts(body, 1, &out);
    out += "}\n";
    return out;
  }

  static std::string register_declaration(const Register& r) {
    const std::string type = opencl_vector_type_name(r.type, r.loc);
    const std::string name = c_identifier(r.name);
    const std::string dims = pe_dims(r);
    std::string out = "  // " + kind_word(r) + " " + r.name + " of Func " + r.func + ": " +
                      std::to_string(r.depth) + (r.depth == 1 ? " value" : " values") +
                      " per PE, PE array (" + join_ints(r.shape, ", ") + ")" +
                      (r.shape.size() > 1 ? ", outermost space loop first" : "") + "\n";
    out += "  " + type + " " + name + dims + "[" + std::to_string(r.depth) + "];\n";
    if (r.kind == Register::kFifo) {
      out += "  int " + name + "_head" + dims + " = {0};\n";
      out += "  int " + name + "_count" + dims + " = {0};\n";
    }
    return out;
  }

  const Program& program_;
  DeviceStorage storage_;
  CCodegen codegen_;
  std::map<std::string, Uses> uses_;
  std::map<std::string, bool> autorun_;
};

}  // namespace
}  // namespace opencl_internal

std::string opencl_vector_type_name(Type type, const SourceLoc& loc) {
  return c_value_type_name(type, CDialect::kOpenCl, loc);
}

std::string opencl_vector_typedef(Type type, const SourceLoc& loc) {
  return opencl_struct_typedef(type, loc);
}

std::string emit_opencl(const Program& program) {
  return opencl_internal::DeviceEmitter(program).run();
}

}  // namespace t2s
