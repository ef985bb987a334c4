// t2s-run: executes IR of any stage from `merged` on (a spec or parsed IR is merged first) with
// the reference interpreter (libs/exec), and optionally checks it against the merged stage.
#include <cstdlib>
#include <iostream>

#include "libs/cli/tool.h"
#include "libs/exec/compare.h"
#include "libs/exec/interpreter.h"
#include "libs/ir/ir_json.h"
#include "libs/passes/merge/merge.h"

namespace {

// NAME=FILE.npy pairs, read into arrays.
std::map<std::string, t2s::NdArray> read_inputs(const std::vector<std::string>& specs) {
  std::map<std::string, t2s::NdArray> out;
  for (const std::string& s : specs) {
    size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      throw t2s::IoError("--input expects NAME=FILE.npy, not '" + s + "'");
    std::string name = s.substr(0, eq), path = s.substr(eq + 1);
    if (out.count(name)) throw t2s::IoError("--input gives '" + name + "' twice");
    try {
      out[name] = t2s::read_npy(t2s::read_file_or_stdin(path), path);
    } catch (const t2s::NpyError& e) {
      throw t2s::IoError(e.what());
    }
  }
  return out;
}

void print_array(const std::string& name, const t2s::NdArray& a, std::ostream& out) {
  // Row-major order (last index fastest), as T2S tests loop over results.
  std::vector<int64_t> index(a.shape.size(), 0);
  for (int64_t n = 0; n < a.num_elements(); ++n) {
    out << name << t2s::format_index(index) << " = "
        << t2s::format_element(a, a.linear_index(index)) << "\n";
    for (int d = static_cast<int>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < a.shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  t2s::Tool tool("t2s-run", "run",
                 "Execute IR of any stage from merged on (a spec or parsed IR is merged first) "
                 "with the reference interpreter and write or print the realized output.");
  tool.add_spec_options();
  std::vector<std::string> input_specs;
  std::string fill = "sequential";
  uint64_t seed = 0;
  bool print = false, check = false;
  t2s::RunOptions options;
  tool.app()
      .add_option("--input", input_specs,
                  "Data for input NAME from a .npy file (C or Fortran order; indexed "
                  "arr[x0, x1, ...] with x0 the first argument); repeatable")
      ->type_name("NAME=FILE.npy")
      ->allow_extra_args(false);
  tool.app()
      .add_option("--fill", fill,
                  "How to generate inputs not given with --input (formulas in the README): "
                  "sequential (the row-major linear index, as T2S's tests) or random")
      ->check(CLI::IsMember({"sequential", "random"}))
      ->default_str("sequential");
  tool.app().add_option("--seed", seed, "Seed of --fill random")->default_str("0");
  tool.app().add_flag("--print", print,
                      "Print every output element as NAME(x0, x1, ...) = VALUE, last index "
                      "fastest (the default when there is no -o)");
  tool.app().add_flag("--check", check,
                      "Also run the merged stage of the same program and fail (exit 1) on the "
                      "first element that differs, printing its index and both values");
  tool.app()
      .add_option("--max-steps", options.max_steps,
                  "Stop with an error after this many statement executions")
      ->default_str("2000000000");
  return tool.run(argc, argv, [&] {
    t2s::Program program = tool.read_input_program_or_spec([](t2s::Stage) { return true; }, "");
    if (program.stage == t2s::Stage::kParsed) program = t2s::merge_pass(program);
    auto inputs = t2s::complete_inputs(
        program, read_inputs(input_specs),
        fill == "random" ? t2s::FillKind::kRandom : t2s::FillKind::kSequential, seed);
    t2s::NdArray result = t2s::run_program(program, inputs, options);
    const std::string& name = program.output.func;
    if (check) {
      t2s::Program reference = t2s::merge_pass(t2s::as_parsed(program));
      t2s::NdArray expected = t2s::run_program(reference, inputs, options);
      std::optional<t2s::Mismatch> m;
      try {
        m = t2s::compare_arrays(expected, result);
      } catch (const t2s::NpyError& e) {
        throw t2s::Diagnostic(
            program.output.loc,
            std::string("the output differs from the merged reference: ") + e.what(), "check");
      }
      if (m)
        throw t2s::Diagnostic(program.output.loc,
                              "the " + std::string(t2s::stage_name(program.stage)) +
                                  " stage differs from the merged reference at " + name +
                                  t2s::format_index(m->index) + ": merged " + m->expected + ", " +
                                  t2s::stage_name(program.stage) + " " + m->actual + " (" +
                                  std::to_string(m->count) + " of " +
                                  std::to_string(result.num_elements()) + " elements differ)",
                              "check");
      std::cerr << "t2s-run: check passed: " << name << " of the " << t2s::stage_name(program.stage)
                << " stage equals the merged reference (" << result.num_elements()
                << " elements, bit for bit)\n";
    }
    if (tool.output_path() != "-") {
      tool.write_output(t2s::write_npy(result));
      if (print) print_array(name, result, std::cout);
    } else {
      print_array(name, result, std::cout);
    }
  });
}
