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

#include "libs/backends/runtime/array.h"
#include "libs/backends/runtime/common.h"
#include "libs/backends/runtime/file.h"
#include "libs/backends/runtime/fill.h"
#include "libs/backends/runtime/npy.h"

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

[[noreturn]] inline void usage_error(const std::string& message) {
  std::cerr << program_name() << ": error: " << message << "\n"
            << "Run '" << program_name() << " --help' for the options.\n";
  std::exit(2);
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
        "                            argument; its type and shape must be the input's);\n"
        "                            repeatable\n"
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
    std::exit(0);
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
      errno = 0;
      char* end = nullptr;
      unsigned long long seed = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos ||
          errno == ERANGE || *end != '\0')
        detail::usage_error("--seed: '" + value + "' is not an unsigned 64-bit integer");
      options.seed = static_cast<uint64_t>(seed);
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

// The data of input `name`: the --input file (its dtype and shape must be `dtype` and `shape`)
// or data generated exactly as t2s-run --fill / --seed generates it.
inline Array input_array(const Options& options, const std::string& name, const std::string& dtype,
                         const std::vector<int64_t>& shape) {
  detail::checked_dtype(dtype, "input '" + name + "'");
  auto it = options.inputs.find(name);
  if (it == options.inputs.end())
    return fill_array(dtype, shape, options.random, options.seed, name);
  Array a = read_npy_file(it->second);
  if (a.dtype != dtype)
    fail("input '" + name + "' has type " + dtype + ", but the array given for it holds " +
         a.dtype);
  if (a.shape.size() != shape.size())
    fail("input '" + name + "' has " + std::to_string(shape.size()) +
         " dimensions, but the array given for it has " + std::to_string(a.shape.size()));
  if (a.shape != shape)
    fail("input '" + name + "' has shape " + detail::format_index(shape) +
         ", but the array given for it has shape " + detail::format_index(a.shape));
  return a;
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

}  // namespace t2s_rt
