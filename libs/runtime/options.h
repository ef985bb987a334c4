// options.h: the command line every generated program takes (as t2s-run's), its inputs and
// its output.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "libs/runtime/array.h"
#include "libs/runtime/common.h"
#include "libs/runtime/file.h"
#include "libs/runtime/fill.h"
#include "libs/runtime/npy.h"

namespace t2s_rt {

// ---------------------------------------------------------------------------------------------
// Command line

struct Options {
  std::map<std::string, std::string> inputs;  // --input NAME=FILE.npy
  std::string output;                         // -o FILE; empty: none
  bool random = false;                        // --fill random
  uint64_t seed = 0;                          // --seed
  bool print = false;                         // --print
  std::vector<std::string> positional;        // the required positional arguments, in order
};

namespace detail {

// An unsigned 64-bit decimal integer: digits only, in range (strtoull alone takes "-1" and
// " 7"). The t2s tools check --seed with it too (libs/cli).
inline bool parse_uint64(const std::string& text, uint64_t* value) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0') return false;
  *value = static_cast<uint64_t>(v);
  return true;
}

[[noreturn]] inline void usage_error(const std::string& message) {
  std::cerr << program_name() << ": error: " << message << "\n"
            << "Run '" << program_name() << " --help' for the options.\n";
  T2S_RT_EXIT(2);
}

// Adds an --input value NAME=FILE.npy to `inputs`; returns the error or "" (t2s-run's messages).
inline std::string add_input_spec(const std::string& value,
                                  std::map<std::string, std::string>& inputs) {
  size_t eq = value.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
    return "--input expects NAME=FILE.npy, not '" + value + "'";
  std::string name = value.substr(0, eq);
  if (inputs.count(name)) return "--input gives '" + name + "' twice";
  inputs[name] = value.substr(eq + 1);
  return "";
}

}  // namespace detail

// Parses the options t2s-run takes for its data: --input NAME=FILE.npy (repeatable), -o FILE,
// --fill sequential|random, --seed N, --print, and -h/--help (prints `description` and every
// option; exit 0), followed by the required `positional_names`. Sets the program name fail()
// prints (the base name of argv[0]). Wrong usage: a message and exit 2.
inline Options parse_options(int argc, char** argv, const std::string& description,
                             const std::vector<std::string>& positional_names) {
  if (argc > 0 && argv[0] && argv[0][0]) {
    std::string name = argv[0];
    size_t slash = name.rfind('/');
    detail::program_name() = slash == std::string::npos ? name : name.substr(slash + 1);
  }
  Options options;
  bool fill_given = false, seed_given = false, output_given = false;
  auto help = [&] {
    std::string text = description + "\n\nUsage: " + detail::program_name() + " [OPTIONS]";
    for (const std::string& p : positional_names) text += " " + p;
    text += "\n\n";
    if (!positional_names.empty()) {
      text += "Positionals:\n";
      for (const std::string& p : positional_names) text += "  " + p + " (required)\n";
      text += "\n";
    }
    text +=
        "Options:\n"
        "  -h,--help                 Print this help message and exit\n"
        "  --input NAME=FILE.npy     Data for input NAME from a .npy file (C or Fortran\n"
        "                            order; indexed arr[x0, x1, ...] with x0 the first\n"
        "                            argument; it must have the input's type and\n"
        "                            dimensions, each at least the extent read, and may\n"
        "                            be larger); repeatable\n"
        "  -o,--output FILE.npy      Write the output as a .npy file (version 1.0, Fortran\n"
        "                            order), atomically; - prints it instead\n"
        "  --fill sequential|random  How to generate inputs not given with --input, as\n"
        "                            t2s-run does: sequential (the row-major linear index)\n"
        "                            or random (SplitMix64 from --seed and the input's\n"
        "                            name). Default: sequential\n"
        "  --seed N                  Seed of --fill random (an unsigned 64-bit integer).\n"
        "                            Default: 0\n"
        "  --print                   Print every output element as NAME(x0, x1, ...) =\n"
        "                            VALUE, last index fastest (the default when there is\n"
        "                            no -o)\n"
        "\n"
        "Exit status: 0 success, 1 error (a message PROGRAM: error: MESSAGE on stderr),\n"
        "2 wrong command line.\n";
    std::cout << text;
    std::cout.flush();
    T2S_RT_EXIT(0);
  };
  auto take_value = [&](int& i, const std::string& arg, const std::string& option,
                        std::string* value) -> bool {
    // "--option=value", "--option value", and for -o also "-oFILE".
    if (arg == option) {
      if (i + 1 >= argc) detail::usage_error(option + " requires an argument");
      *value = argv[++i];
      return true;
    }
    if (option.size() > 2 && arg.rfind(option + "=", 0) == 0) {
      *value = arg.substr(option.size() + 1);
      return true;
    }
    if (option == "-o" && arg.size() > 2 && arg.rfind("-o", 0) == 0 && arg[2] != '-') {
      *value = arg.substr(2);
      return true;
    }
    return false;
  };
  bool only_positionals = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string value;
    if (only_positionals || arg == "-" || arg.empty() || arg[0] != '-') {
      if (options.positional.size() >= positional_names.size())
        detail::usage_error("unexpected argument '" + arg + "'");
      options.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positionals = true;
    } else if (arg == "-h" || arg == "--help") {
      help();
    } else if (arg == "--print") {
      options.print = true;
    } else if (take_value(i, arg, "--input", &value)) {
      std::string error = detail::add_input_spec(value, options.inputs);
      if (!error.empty()) fail(error);
    } else if (take_value(i, arg, "-o", &value) || take_value(i, arg, "--output", &value)) {
      if (output_given) detail::usage_error("-o is given more than once");
      output_given = true;
      options.output = value;
    } else if (take_value(i, arg, "--fill", &value)) {
      if (fill_given) detail::usage_error("--fill is given more than once");
      fill_given = true;
      if (value != "sequential" && value != "random")
        detail::usage_error("--fill: '" + value + "' is not one of sequential, random");
      options.random = value == "random";
    } else if (take_value(i, arg, "--seed", &value)) {
      if (seed_given) detail::usage_error("--seed is given more than once");
      seed_given = true;
      if (!detail::parse_uint64(value, &options.seed))
        detail::usage_error("--seed: '" + value + "' is not an unsigned 64-bit integer");
    } else {
      detail::usage_error("unknown option '" + arg + "'");
    }
  }
  if (options.positional.size() < positional_names.size())
    detail::usage_error("missing argument " + positional_names[options.positional.size()]);
  if (options.output == "-") options.output.clear();
  return options;
}

// Fails (as t2s-run does) when --input names something that is not an input of the program.
inline void check_input_names(const Options& options, const std::vector<std::string>& names) {
  for (const auto& given : options.inputs)
    if (std::find(names.begin(), names.end(), given.first) == names.end())
      fail("an array is given for '" + given.first + "', which is not an input");
}

// ---------------------------------------------------------------------------------------------
// Inputs: the rule that t2s-run (libs/exec), the emulation and the OpenCL host program share.
// As Halide takes input buffers, an array given for an input may be larger than the region the
// program reads: it is accepted when it has the input's type and number of dimensions and every
// dimension covers the region read, [0, extent) for each extent the compiler inferred
// (Input::extents). It is then indexed with its own shape; its extra elements are not read.

enum class InputMismatch { kNone, kType, kDimensions, kRegion };

struct InputCheck {
  InputMismatch mismatch = InputMismatch::kNone;
  std::string message;  // empty when the array is accepted
};

namespace detail {

// "[0, 4) x [0, 8)"; "[]" for no dimensions.
inline std::string region_text(const std::vector<int64_t>& extents) {
  if (extents.empty()) return "[]";
  std::string out;
  for (size_t d = 0; d < extents.size(); ++d)
    out += (d ? " x [0, " : "[0, ") + std::to_string(extents[d]) + ")";
  return out;
}

}  // namespace detail

// Whether an array of `array_dtype` and `array_shape` may be given for input `name`, of `dtype`,
// `dims` dimensions and region read `region` (one extent per dimension; when `region` does not
// have `dims` extents, the region is unknown and not checked).
inline InputCheck check_input_array(const std::string& name, const std::string& dtype, size_t dims,
                                    const std::vector<int64_t>& region,
                                    const std::string& array_dtype,
                                    const std::vector<int64_t>& array_shape) {
  InputCheck check;
  if (array_dtype != dtype) {
    check.mismatch = InputMismatch::kType;
    check.message = "input '" + name + "' has type " + dtype +
                    ", but the array given for it holds " + array_dtype;
  } else if (array_shape.size() != dims) {
    check.mismatch = InputMismatch::kDimensions;
    check.message = "input '" + name + "' has " + std::to_string(dims) +
                    " dimensions, but the array given for it has " +
                    std::to_string(array_shape.size());
  } else if (region.size() == dims) {
    for (size_t d = 0; d < dims; ++d) {
      if (array_shape[d] >= region[d]) continue;
      check.mismatch = InputMismatch::kRegion;
      check.message = "input '" + name + "' is read over " + detail::region_text(region) +
                      ", but the array given for it has shape " + detail::format_index(array_shape);
      break;
    }
  }
  return check;
}

// The data of input `name`, of `dtype` and region read `region`: the --input file (accepted by
// check_input_array, and kept whole: it may be larger than the region) or data of the region's
// shape generated exactly as t2s-run --fill / --seed generates it.
inline Array input_array(const Options& options, const std::string& name, const std::string& dtype,
                         const std::vector<int64_t>& region) {
  detail::checked_dtype(dtype, "input '" + name + "'");
  auto it = options.inputs.find(name);
  if (it == options.inputs.end())
    return fill_array(dtype, region, options.random, options.seed, name);
  Array a = read_npy_file(it->second);
  InputCheck check = check_input_array(name, dtype, region.size(), region, a.dtype, a.shape);
  if (check.mismatch != InputMismatch::kNone) fail(check.message);
  return a;
}

// The leading `region` of `a` (an array accepted for it: every dimension at least the region's),
// as an array of the region's shape: what code indexed with the region's extents (the OpenCL
// device kernels) reads.
inline Array leading_region(const Array& a, const std::vector<int64_t>& region) {
  if (a.shape == region) return a;
  bool fits = a.shape.size() == region.size();
  for (size_t d = 0; fits && d < region.size(); ++d) fits = a.shape[d] >= region[d];
  if (!fits)
    fail("leading_region: an array of shape " + detail::format_index(a.shape) + " does not cover " +
         detail::region_text(region));
  Array out = make_array(a.dtype, region);
  if (detail::num_elements(region) == 0) return out;
  // Dimension 0 is contiguous in both (Fortran order): copy column by column.
  const int64_t size = detail::dtype_info(a.dtype).bytes;
  std::vector<int64_t> strides(a.shape.size(), size);
  for (size_t d = 1; d < a.shape.size(); ++d) strides[d] = strides[d - 1] * a.shape[d - 1];
  const size_t column_bytes = static_cast<size_t>(region[0] * size);
  const int64_t columns = detail::num_elements(region) / region[0];
  std::vector<int64_t> index(region.size(), 0);
  for (int64_t c = 0; c < columns; ++c) {
    int64_t source = 0;
    for (size_t d = 1; d < region.size(); ++d) source += index[d] * strides[d];
    std::memcpy(&out.data[static_cast<size_t>(c) * column_bytes],
                &a.data[static_cast<size_t>(source)], column_bytes);
    for (size_t d = 1; d < region.size(); ++d) {
      if (++index[d] < region[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// The data of input `name` as code indexed with the region's extents reads it: input_array's
// array, cut to its leading `region`.
inline Array input_region(const Options& options, const std::string& name, const std::string& dtype,
                          const std::vector<int64_t>& region) {
  return leading_region(input_array(options, name, dtype, region), region);
}

namespace detail {

// Prints every element of an array of `shape` as `NAME(x0, x1) = VALUE`, last index fastest
// (as T2S tests loop over results), VALUE being format(Fortran-order position).
template <typename Format>
void print_elements(const std::string& name, const std::vector<int64_t>& shape, Format format,
                    std::ostream& out) {
  std::vector<int64_t> index(shape.size(), 0);
  const int64_t n = num_elements(shape);
  std::string text;
  for (int64_t k = 0; k < n; ++k) {
    int64_t linear = 0;
    for (size_t d = shape.size(); d-- > 0;) linear = linear * shape[d] + index[d];
    text += name + format_index(index) + " = " + format(linear) + "\n";
    if (text.size() > (1 << 16)) {
      out << text;
      text.clear();
    }
    for (int d = static_cast<int>(index.size()) - 1; d >= 0; --d) {
      if (++index[static_cast<size_t>(d)] < shape[static_cast<size_t>(d)]) break;
      index[static_cast<size_t>(d)] = 0;
    }
  }
  out << text;
}

}  // namespace detail

// Prints every element as `NAME(x0, x1) = VALUE`, last index fastest (t2s-run's print_array).
inline void print_array(const std::string& name, const Array& a, std::ostream& out) {
  detail::print_elements(
      name, a.shape, [&](int64_t linear) { return format_element(a, linear); }, out);
}

// Writes the realized output: the .npy file of -o (atomically), and prints it with --print or
// when there is no -o, byte for byte as t2s-run does.
inline void write_output(const Options& options, const std::string& name, const Array& result) {
  if (!options.output.empty()) {
    write_file_atomically(options.output, npy_bytes(result));
    if (!options.print) return;
  }
  print_array(name, result, std::cout);
  std::cout.flush();
  if (!std::cout) fail("cannot write to standard output");
}

// The rules other layers call (libs/exec, libs/cli, the OpenCL executor): their public names.
using detail::add_input_spec;
using detail::parse_uint64;
using detail::print_elements;

}  // namespace t2s_rt
