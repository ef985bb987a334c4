#include "libs/exec/run_support.h"

#include <optional>

#include "libs/backends/runtime/options.h"
#include "libs/exec/compare.h"
#include "libs/ir/diagnostic.h"

namespace t2s {

std::map<std::string, NdArray> read_input_arrays(
    const std::vector<std::string>& specs,
    const std::function<std::string(const std::string&)>& read_file,
    const std::function<void(const std::string&)>& error) {
  std::map<std::string, std::string> paths;
  std::map<std::string, NdArray> out;
  for (const std::string& s : specs) {
    std::string message = t2s_rt::detail::add_input_spec(s, paths);
    if (!message.empty()) error(message);
    const std::string name = s.substr(0, s.find('='));
    try {
      out[name] = read_npy(read_file(paths[name]), paths[name]);
    } catch (const NpyError& e) {
      error(e.what());
    }
  }
  return out;
}

void print_array(const std::string& name, const NdArray& a, std::ostream& out) {
  t2s_rt::detail::print_elements(
      name, a.shape, [&](int64_t linear) { return format_element(a, linear); }, out);
}

std::string check_against_reference(const Program& program, const NdArray& expected,
                                    const NdArray& result) {
  const std::string& name = program.output.func;
  const std::string stage = stage_name(program.stage);
  std::optional<Mismatch> m;
  try {
    m = compare_arrays(expected, result);
  } catch (const NpyError& e) {
    throw Diagnostic(program.output.loc,
                     std::string("the output differs from the merged reference: ") + e.what(),
                     "check");
  }
  if (m) {
    throw Diagnostic(program.output.loc,
                     "the " + stage + " stage differs from the merged reference at " + name +
                         format_index(m->index) + ": merged " + m->expected + ", " + stage + " " +
                         m->actual + " (" + std::to_string(m->count) + " of " +
                         std::to_string(result.num_elements()) + " elements differ)",
                     "check");
  }
  return "check passed: " + name + " of the " + stage + " stage equals the merged reference (" +
         std::to_string(result.num_elements()) + " elements, bit for bit)";
}

}  // namespace t2s
