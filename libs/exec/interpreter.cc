#include "libs/exec/interpreter.h"

#include <algorithm>

#include "libs/exec/interpreter_internal.h"
#include "libs/ir/program_facts.h"
#include "libs/runtime/options.h"

namespace t2s {
namespace interp {
namespace {

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
    // The rule of the runtime (t2s_rt::check_input_array): the array may be larger than the
    // region read, and is indexed with its own shape.
    const t2s_rt::InputCheck check = t2s_rt::check_input_array(
        in.name, in.type.name(), static_cast<size_t>(in.dims), in.extents, a.type.name(), a.shape);
    if (check.mismatch != t2s_rt::InputMismatch::kNone)
      throw Diagnostic(
          in.loc, check.message,
          check.mismatch == t2s_rt::InputMismatch::kType ? "run-input-type" : "run-input-shape");
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
    // A vector channel holds `lanes` values per element (libs/exec/interpreter_vector.cc).
    state.capacity = static_cast<size_t>(std::max<int64_t>(c.depth, 1) * c.type.lanes);
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
    const std::string context = "buffer '" + b.name + "'";
    if (b.mins.size() != b.extents.size() || b.mins.size() > kMaxDims)
      throw InternalError("interpreter: buffer '" + b.name + "' has bad bounds");
    auto storage = std::make_unique<Storage>(templates[i]);
    Exec exec(run, nullptr, nullptr, 0);
    for (size_t d = 0; d < b.mins.size(); ++d) {
      storage->mins[d] =
          exec.eval(compile_constant(program, constants, context, &b.loc, b.mins[d])).i;
      storage->extents[d] =
          exec.eval(compile_constant(program, constants, context, &b.loc, b.extents[d])).i;
    }
    storage->allocate(b.loc);
    run.buffers.push_back(std::move(storage));
  }

  // The output's buffer, checked before anything runs.
  int out = -1;
  for (size_t i = 0; i < program.buffers.size(); ++i)
    if (program.buffers[i].name == program.output.func) out = static_cast<int>(i);
  if (out < 0)  // the lookup's miss: verify_program rejects it (ir-output)
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
    compiled[k].accesses = kernel_accesses(program, kernel);
    compile_kernel(program, compiled[k]);
  }
  for (const KernelRun& group : kernel_runs(program))
    run_group(run, program, compiled, group.first, group.last, options.max_live);

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
}  // namespace interp

NdArray run_program(const Program& program, const std::map<std::string, NdArray>& inputs,
                    const RunOptions& options) {
  // Compilation recurses as deep as expressions nest, like evaluation: both get a large stack.
  NdArray result;
  interp::run_with_large_stack(
      [&] { result = interp::run_program_on_this_thread(program, inputs, options); });
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
