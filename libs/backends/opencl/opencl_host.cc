// The host program of the opencl target: the OpenCL objects, the transfers, the runs of device
// kernels and the host kernels as C++ (opencl.h describes the output).
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "libs/backends/c/c_codegen.h"
#include "libs/backends/opencl/host_support_source.h"
#include "libs/backends/opencl/opencl.h"
#include "libs/backends/opencl/opencl_internal.h"
#include "libs/ir/strings.h"
#include "libs/runtime/runtime_source.h"

namespace t2s {
namespace opencl_internal {
namespace {

// A C++ string literal for `text` (names and dtypes: identifier characters only, but escape
// anyway).
std::string cpp_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

class HostStorage : public CStorage {
 public:
  void begin_kernel(const Kernel& kernel) {
    kernel_ = &kernel;
    realized_.clear();
  }

  std::string read_input(const Input& input, const std::vector<std::string>& index) override {
    return c_identifier(input.name) + ".at(\"read\", " + brace_list(index) + ")";
  }
  // Inputs and buffers are t2s_refs; realizes are t2s_rt::FuncStorage.
  std::string read_func(const std::string& func, const std::vector<std::string>& index,
                        const SourceLoc& loc) override {
    if (realized(func)) return c_identifier(func) + ".read(" + index_list(index) + ")";
    return c_identifier(func) + ".at(\"read\", " + brace_list(index) + ")";
  }
  std::vector<std::string> write_func(const std::string& func,
                                      const std::vector<std::string>& index,
                                      const std::string& value, const SourceLoc& loc) override {
    // The index is evaluated (and checked) before the value, as in the interpreter.
    const std::string name = c_identifier(func);
    if (realized(func)) {
      return {"{", "  const int64_t t2s_at = " + name + ".locate_write(" + index_list(index) + ");",
              "  " + name + ".store(t2s_at, " + value + ");", "}"};
    }
    return {"{", "  auto& t2s_cell = " + name + ".at(\"write\", " + brace_list(index) + ");",
            "  t2s_cell = " + value + ";", "}"};
  }
  std::vector<std::string> declare_realize(const Realize& realize, const SourceLoc& loc,
                                           const std::vector<std::string>& mins,
                                           const std::vector<std::string>& extents) override {
    realized_.insert(realize.func);
    return {"t2s_rt::FuncStorage<" + c_type_name(realize.type, CDialect::kCpp, loc) + "> " +
            c_identifier(realize.func) + "(" + cpp_string(realize.func) + ", " + brace_list(mins) +
            ", " + brace_list(extents) + ");"};
  }
  std::string read_channel(const Channel& channel, const std::vector<std::string>& index,
                           const SourceLoc& loc) override {
    refuse_channel(channel, loc);
  }
  std::vector<std::string> write_channel(const Channel& channel,
                                         const std::vector<std::string>& index,
                                         const std::string& value, const SourceLoc& loc) override {
    refuse_channel(channel, loc);
  }
  std::string read_register(const Register& reg, const std::vector<std::string>& pe,
                            const std::string& slot, const SourceLoc& loc) override {
    std::vector<std::string> index = pe;
    index.push_back(slot);
    return c_identifier(reg.name) + ".read(" + brace_list(index) + ")";
  }
  std::vector<std::string> write_register(const Register& reg, const std::vector<std::string>& pe,
                                          const std::string& slot, const std::string& value,
                                          const SourceLoc& loc) override {
    std::vector<std::string> index = pe;
    index.push_back(slot);
    const std::string name = c_identifier(reg.name);
    return {"{", "  const int64_t t2s_at = " + name + ".locate_write(" + brace_list(index) + ");",
            "  " + name + ".store(t2s_at, " + value + ");", "}"};
  }
  std::vector<std::string> shift_register(const Register& reg, const std::vector<std::string>& pe,
                                          const SourceLoc& loc) override {
    return {c_identifier(reg.name) + ".shift(" + index_list(pe) + ");"};
  }
  std::vector<std::string> push_fifo(const Register& reg, const std::vector<std::string>& pe,
                                     const std::string& value, const SourceLoc& loc) override {
    const std::string name = c_identifier(reg.name);
    const std::string locate =
        pe.empty() ? name + ".locate_push()" : name + ".locate_push(" + brace_list(pe) + ")";
    return {"{", "  const int64_t t2s_pe = " + locate + ";",
            "  " + name + ".push(t2s_pe, " + value + ");", "}"};
  }
  std::string pop_fifo(const Register& reg, const std::vector<std::string>& pe,
                       const SourceLoc& loc) override {
    return c_identifier(reg.name) + ".pop(" + index_list(pe) + ")";
  }

 private:
  bool realized(const std::string& func) const { return realized_.count(func) > 0; }
  // The argument of the runtime's read / shift / pop: a braced list, or nothing for no index.
  static std::string index_list(const std::vector<std::string>& index) {
    return index.empty() ? "" : brace_list(index);
  }

  [[noreturn]] void refuse_channel(const Channel& channel, const SourceLoc& loc) const {
    throw Diagnostic(loc.valid() ? loc : channel.loc,
                     "host kernel '" + (kernel_ ? kernel_->name : std::string("?")) +
                         "' uses channel '" + channel.name +
                         "'; channels connect device kernels only",
                     "emit-channel");
  }

  const Kernel* kernel_ = nullptr;
  // Funcs with a realize in the kernel being printed (a Func is either realized in a kernel or
  // a program buffer).
  std::set<std::string> realized_;
};

class HostEmitter {
 public:
  explicit HostEmitter(const Program& program)
      : program_(program), codegen_(program, CDialect::kCpp, storage_) {}

  std::string run() {
    require_kernel_stage(program_, "the opencl target");
    bool any_device = false;
    for (const Kernel& k : program_.kernels) {
      uses_[k.name] = collect_uses(program_, k);
      if (is_device(k)) any_device = true;
    }
    // Host arrays: every input a kernel reads, every buffer.
    std::set<std::string> read_inputs;
    for (const auto& entry : uses_) {
      read_inputs.insert(entry.second.inputs.begin(), entry.second.inputs.end());
    }
    for (const Input& in : program_.inputs) {
      if (read_inputs.count(in.name)) {
        c_type_name(in.type, CDialect::kCpp, in.loc);
        input_extents(in);
      }
    }
    for (const Buffer& b : program_.buffers) {
      c_type_name(b.type, CDialect::kCpp, b.loc);
      buffer_mins(b);
      buffer_extents(b);
    }
    // Verified IR: the output has a buffer.
    const Buffer* output = program_.find_buffer(program_.output.func);

    std::string functions;
    for (const Kernel& k : program_.kernels) {
      if (!is_device(k)) functions += "\n" + host_kernel(k);
    }

    std::string out = header_comment(any_device);
    out += "#define CL_TARGET_OPENCL_VERSION 120\n#include <CL/cl.h>\n\n";
    for (const char* h : {"climits", "cmath", "cstdint", "cstdio", "fstream", "initializer_list",
                          "iterator", "memory", "string", "utility", "vector"}) {
      out += std::string("#include <") + h + ">\n";
    }
    out += "\n" + t2s_runtime_block();
    // Fixed support code (OpenCL error names, checked calls, array views), marked like the
    // runtime so that golden files can elide it.
    // The marker names opencl.cc, as golden files have it; the code is host_support.h. It ends
    // its anonymous namespace, which the program's own code reopens (closed at its end).
    out += "// ---- BEGIN t2s OpenCL host support (libs/backends/opencl/opencl.cc) ----\n";
    out += t2s_opencl_host_support_source();
    out += "\nnamespace {\n";
    out += "// ---- END t2s OpenCL host support ----\n";
    const std::string helpers = codegen_.helper_definitions();
    if (!helpers.empty()) out += "// ---- Halide arithmetic ----\n\n" + helpers + "\n";
    out += data_struct(read_inputs);
    out += functions;
    out += "\n}  // namespace\n\n";
    out += main_function(read_inputs, *output, any_device);
    return out;
  }

 private:
  std::string header_comment(bool any_device) const {
    std::string out = "// OpenCL host program generated by t2s-emit (target opencl) from the " +
                      std::string(stage_name(program_.stage)) + " stage.\n";
    out += "// Runs the program with the device code of the same IR, compiled by aoc:\n";
    out +=
        "//   PROGRAM KERNEL.aocx [--input NAME=FILE.npy ...] [-o OUT.npy] [--fill] [--seed N] "
        "[--print]\n";
    out += "// Build: g++ -std=c++17 -O2 -ffp-contract=off -pthread THIS.cpp -lOpenCL\n";
    if (!any_device) {
      out +=
          "// This program has no device kernel: every kernel runs on the host, OpenCL is not "
          "used and the\n// KERNEL.aocx argument is not read.\n";
    }
    out += "// Kernels in the order they run:\n";
    std::map<std::string, bool> autorun;
    for (const Kernel& k : program_.kernels) {
      autorun[k.name] = is_device(k) && is_autorun(k, uses_.at(k.name));
    }
    for (const std::vector<const Kernel*>& run : execution_runs(program_)) {
      out += std::string("//   ") + (is_device(*run[0]) ? "device: " : "host: ") +
             run_description(run, autorun) + (run.size() > 1 ? " (concurrently)" : "") + "\n";
    }
    return out + "\n";
  }

  std::string data_struct(const std::set<std::string>& read_inputs) const {
    std::string out = "// The host copy of every input and buffer (Fortran order).\n";
    out += "struct t2s_data {\n";
    for (const Input& in : program_.inputs) {
      if (read_inputs.count(in.name)) {
        out += "  t2s_rt::Array " + c_identifier(in.name) + ";  // input\n";
      }
    }
    for (const Buffer& b : program_.buffers) {
      out += "  t2s_rt::Array " + c_identifier(b.name) + ";  // buffer " +
             bounds_text(buffer_mins(b), buffer_extents(b)) + "\n";
    }
    return out + "};\n";
  }

  std::string host_kernel(const Kernel& k) {
    const Uses& uses = uses_.at(k.name);
    std::string out =
        "// Host kernel " + k.name + (k.loc.valid() ? " (" + k.loc.str() + ")" : "") + ".\n";
    out += "void t2s_host_" + k.name + "(t2s_data& t2s_d) {\n";
    for (const Input* in : used_inputs(program_, uses.inputs)) {
      const std::string type = c_type_name(in->type, CDialect::kCpp, in->loc);
      const std::vector<int64_t> extents = input_extents(*in);
      out += "  const t2s_ref<const " + type + "> " + c_identifier(in->name) + "(" +
             cpp_string("input '" + in->name + "'") + ", reinterpret_cast<const " + type +
             "*>(t2s_d." + c_identifier(in->name) + ".data.data()), " +
             brace_list(std::vector<std::string>(extents.size(), "0")) + ", " +
             brace_list(extents) + ");\n";
    }
    for (const Buffer* b : used_buffers(program_, uses)) {
      const std::string type = c_type_name(b->type, CDialect::kCpp, b->loc);
      out += "  const t2s_ref<" + type + "> " + c_identifier(b->name) + "(" +
             cpp_string("'" + b->name + "'") + ", reinterpret_cast<" + type + "*>(t2s_d." +
             c_identifier(b->name) + ".data.data()), " + brace_list(buffer_mins(*b)) + ", " +
             brace_list(buffer_extents(*b)) + ");\n";
    }
    const std::vector<const Register*> registers = registers_of(program_, k);
    for (const Register* r : registers) {
      const std::string type = c_value_type_name(r->type, CDialect::kCpp, r->loc);
      out += "  t2s_rt::" +
             std::string(r->kind == Register::kFifo ? "FifoRegister" : "ShiftRegister") + "<" +
             type + "> " + c_identifier(r->name) + "(" + cpp_string(r->name) + ", " +
             brace_list(r->shape) + ", " + std::to_string(r->depth) + ");\n";
    }
    if (uses.inputs.empty() && uses.reads.empty() && uses.writes.empty()) {
      out += "  (void)t2s_d;\n";
    }
    storage_.begin_kernel(k);
    codegen_.stmts(k.body, 1, &out);
    for (const Register* r : registers) {
      if (r->kind == Register::kFifo) {
        out += "  " + c_identifier(r->name) + ".check_empty(" + cpp_string(k.name) + ");\n";
      }
    }
    return out + "}\n";
  }

  std::string main_function(const std::set<std::string>& read_inputs, const Buffer& output,
                            bool any_device) {
    std::string description = "Runs the t2s program (" + std::string(stage_name(program_.stage)) +
                              " stage) on an OpenCL device: KERNEL.aocx is the device code "
                              "compiled by aoc.";
    std::string out = "int main(int argc, char** argv) {\n";
    out += "  const t2s_rt::Options t2s_options = t2s_rt::parse_options(argc, argv, " +
           cpp_string(description) + ", {\"KERNEL.aocx\"});\n";
    std::vector<std::string> input_names;
    for (const Input& in : program_.inputs) input_names.push_back(cpp_string(in.name));
    out += "  t2s_rt::check_input_names(t2s_options, " + brace_list(input_names) + ");\n";
    out += "  t2s_data t2s_d;\n";
    // An input array may be larger than the region read (t2s_rt::check_input_array, as t2s-run
    // and the emulation take it); the kernels index the region's extents, so the host keeps the
    // leading region.
    // An input no kernel reads is not kept, but an array given for it is checked as t2s-run
    // checks it (its region is empty unless the IR says otherwise).
    for (const Input& in : program_.inputs) {
      if (!read_inputs.count(in.name)) {
        if (in.extents.size() == static_cast<size_t>(in.dims))
          out += "  (void)t2s_rt::input_array(t2s_options, " + cpp_string(in.name) + ", " +
                 cpp_string(in.type.name()) + ", " + brace_list(in.extents) +
                 ");  // not read: only checked\n";
        continue;
      }
      out += "  t2s_d." + c_identifier(in.name) + " = t2s_rt::input_region(t2s_options, " +
             cpp_string(in.name) + ", " + cpp_string(in.type.name()) + ", " +
             brace_list(input_extents(in)) + ");\n";
    }
    for (const Buffer& b : program_.buffers) {
      out += "  t2s_d." + c_identifier(b.name) + " = t2s_rt::make_array(" +
             cpp_string(b.type.name()) + ", " + brace_list(buffer_extents(b)) + ");\n";
    }

    // Which inputs and buffers live on the device, and which kernels are enqueued.
    std::set<std::string> device_inputs, device_buffers;
    std::map<std::string, bool> autorun;
    for (const Kernel& k : program_.kernels) {
      if (!is_device(k)) continue;
      const Uses& u = uses_.at(k.name);
      device_inputs.insert(u.inputs.begin(), u.inputs.end());
      device_buffers.insert(u.reads.begin(), u.reads.end());
      device_buffers.insert(u.writes.begin(), u.writes.end());
      autorun[k.name] = is_autorun(k, u);
    }

    if (any_device) {
      out += "\n  // OpenCL: platform, device, context, and the program from the .aocx.\n";
      out += "  t2s_opencl t2s_cl(t2s_options.positional.at(0));\n";
      out += "  cl_command_queue t2s_io = t2s_cl.queue(\"transfers\");\n";
      out += "  (void)t2s_io;\n";
      for (const Input& in : program_.inputs) {
        if (!device_inputs.count(in.name)) continue;
        out += "  cl_mem t2s_mem_" + in.name + " = t2s_cl.buffer(CL_MEM_READ_ONLY, t2s_d." +
               c_identifier(in.name) + ", " + cpp_string("input " + in.name) + ");\n";
      }
      for (const Buffer& b : program_.buffers) {
        if (!device_buffers.count(b.name)) continue;
        out += "  cl_mem t2s_mem_" + b.name + " = t2s_cl.buffer(CL_MEM_READ_WRITE, t2s_d." +
               c_identifier(b.name) + ", " + cpp_string("buffer " + b.name) + ");\n";
      }
      for (const Kernel& k : program_.kernels) {
        if (!is_device(k)) continue;
        if (autorun.at(k.name)) {
          out += "  // Kernel " + k.name + " is autorun: it starts with the program.\n";
          continue;
        }
        const Uses& u = uses_.at(k.name);
        out += "  cl_kernel t2s_kernel_" + k.name + " = t2s_cl.kernel(" +
               cpp_string(c_identifier(k.name)) + ");\n";
        // The kernel's arguments: its inputs, then its buffers (as the device code declares them).
        int index = 0;
        auto set_arg = [&](const std::string& name) {
          out +=
              "  t2s_opencl::set_arg(t2s_kernel_" + k.name + ", " + std::to_string(index) +
              ", t2s_mem_" + name + ", " +
              cpp_string("kernel " + k.name + ", argument " + std::to_string(index) + ": " + name) +
              ");\n";
          ++index;
        };
        for (const Input* in : used_inputs(program_, u.inputs)) set_arg(in->name);
        for (const Buffer* b : used_buffers(program_, u)) set_arg(b->name);
        out += "  cl_command_queue t2s_queue_" + k.name + " = t2s_cl.queue(" +
               cpp_string("kernel " + k.name) + ");\n";
      }
      for (const Input& in : program_.inputs) {
        if (!device_inputs.count(in.name)) continue;
        out += "  t2s_opencl::write(t2s_io, t2s_mem_" + in.name + ", t2s_d." +
               c_identifier(in.name) + ", " + cpp_string("input " + in.name) + ");\n";
      }
    }

    // The runs, in order. A device buffer is up to date once written (before its first run, and
    // again after a host kernel changed the host copy); buffers a run writes are read back.
    std::set<std::string> device_fresh;
    int run_number = 0;
    for (const std::vector<const Kernel*>& run : execution_runs(program_)) {
      if (!is_device(*run[0])) {
        const Kernel& k = *run[0];
        out += "\n  // Host kernel " + k.name + ".\n";
        out += "  t2s_host_" + k.name + "(t2s_d);\n";
        for (const std::string& b : uses_.at(k.name).writes) device_fresh.erase(b);
        continue;
      }
      ++run_number;
      std::vector<std::string> names;
      std::set<std::string> used, written;
      for (const Kernel* k : run) {
        names.push_back(k->name + (autorun.at(k->name) ? " (autorun)" : ""));
        const Uses& u = uses_.at(k->name);
        used.insert(u.reads.begin(), u.reads.end());
        used.insert(u.writes.begin(), u.writes.end());
        written.insert(u.writes.begin(), u.writes.end());
      }
      out += "\n  // Device run " + std::to_string(run_number) + ": " + join(names, ", ") +
             (run.size() > 1 ? ", concurrently" : "") + ".\n";
      for (const Buffer& b : program_.buffers) {
        if (used.count(b.name) && !device_fresh.count(b.name)) {
          out += "  t2s_opencl::write(t2s_io, t2s_mem_" + b.name + ", t2s_d." +
                 c_identifier(b.name) + ", " + cpp_string("buffer " + b.name) + ");\n";
          device_fresh.insert(b.name);
        }
      }
      bool any_enqueued = false;
      for (const Kernel* k : run) {
        if (autorun.at(k->name)) continue;
        any_enqueued = true;
        out += "  t2s_opencl::task(t2s_queue_" + k->name + ", t2s_kernel_" + k->name + ", " +
               cpp_string("kernel " + k->name) + ");\n";
      }
      if (!any_enqueued) out += "  // Only autorun kernels: nothing to enqueue.\n";
      for (const Kernel* k : run) {
        if (autorun.at(k->name)) continue;
        out += "  t2s_opencl::finish(t2s_queue_" + k->name + ", " +
               cpp_string("kernel " + k->name) + ");\n";
      }
      for (const Buffer& b : program_.buffers) {
        if (written.count(b.name)) {
          out += "  t2s_opencl::read(t2s_io, t2s_mem_" + b.name + ", t2s_d." +
                 c_identifier(b.name) + ", " + cpp_string("buffer " + b.name) + ");\n";
        }
      }
    }
    out += "\n  t2s_rt::write_output(t2s_options, " + cpp_string(output.name) + ", t2s_d." +
           c_identifier(output.name) + ");\n";
    out += "  return 0;\n}\n";
    return out;
  }

  const Program& program_;
  HostStorage storage_;
  CCodegen codegen_;
  std::map<std::string, Uses> uses_;
};

}  // namespace
}  // namespace opencl_internal

std::string emit_opencl_host(const Program& program) {
  return opencl_internal::HostEmitter(program).run();
}

}  // namespace t2s
