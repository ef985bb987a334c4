// What the interpreter's tests share: merged-stage test programs written by hand as JSON, array
// helpers and expectations on errors.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "libs/exec/compare.h"
#include "libs/exec/interpreter.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/verify.h"

namespace t2s {
namespace exec_test {

// ---------------------------------------------------------------------------------------------
// Building test programs: merged-stage documents written by hand, in compact JSON (the reader
// takes any layout). `@NAME` placeholders are replaced by subst().

inline std::string subst(std::string text, std::vector<std::pair<std::string, std::string>> vs) {
  // Longer keys first, so that @W does not eat the start of @WIDX.
  std::stable_sort(vs.begin(), vs.end(),
                   [](const auto& x, const auto& y) { return x.first.size() > y.first.size(); });
  for (const auto& [key, value] : vs) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
      text.replace(at, key.size(), value);
      at += value.size();
    }
  }
  return text;
}

// A Func record, needed so that calls of the Func type-check.
inline std::string func(const std::string& name, const std::string& type, int dims) {
  std::string args;
  for (int d = 0; d < dims; ++d) args += (d ? ", \"_" : "\"_") + std::to_string(d) + "\"";
  return R"j({"name": ")j" + name + R"j(", "type": ")j" + type + R"j(", "args": [)j" + args +
         R"j(], "place": "host", "declared": true, "definition": null, "loc": null,
            "decl_loc": null})j";
}

inline std::string document(const std::string& inputs, const std::string& funcs,
                            const std::string& output, const std::string& buffers,
                            const std::string& kernels, const std::string& channels = "[]",
                            const std::string& stage = "merged",
                            const std::string& registers = "[]") {
  return R"j({"t2s_ir": 1, "stage": ")j" + stage + R"j(", "vars": [], "inputs": )j" + inputs +
         R"j(, "funcs": )j" + funcs + R"j(, "directives": [], "output": )j" + output +
         R"j(, "buffers": )j" + buffers + R"j(, "kernels": )j" + kernels + R"j(, "channels": )j" +
         channels + R"j(, "registers": )j" + registers + "}";
}

inline Program parse(const std::string& text) { return read_program(text, "test.json"); }

template <typename T>
NdArray make_array(Type type, std::vector<int64_t> shape, const std::vector<T>& values) {
  NdArray a;
  a.type = type;
  a.shape = std::move(shape);
  a.data.resize(values.size() * sizeof(T));
  std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

template <typename T>
T element(const NdArray& a, int64_t i) {
  T v;
  std::memcpy(&v, &a.data.at(static_cast<size_t>(i) * sizeof(T)), sizeof(T));
  return v;
}

template <typename T>
std::vector<T> elements(const NdArray& a) {
  std::vector<T> out;
  for (int64_t i = 0; i < a.num_elements(); ++i) out.push_back(element<T>(a, i));
  return out;
}

inline std::string f32(float v) {
  return format_element(make_array<float>(Type::Float(32), {}, {v}), 0);
}
inline std::string f64(double v) {
  return format_element(make_array<double>(Type::Float(64), {}, {v}), 0);
}

// Runs `f` and checks that it throws exactly this Diagnostic.
template <typename F>
void expect_diagnostic(F f, const std::string& loc, const std::string& message,
                       const std::string& rule) {
  try {
    f();
    ADD_FAILURE() << "expected [" << rule << "] " << message;
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.loc().str(), loc);
    EXPECT_EQ(d.message(), message);
    EXPECT_EQ(d.rule(), rule);
  }
}

template <typename F>
void expect_internal_error(F f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "expected an internal error containing: " << part;
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// Checks that verify_program rejects `p` with exactly this diagnostic: malformed IR is the
// verifier's to reject, and the interpreter runs only verified programs (interpreter.h).
inline void expect_verifier_error(const Program& p, const std::string& message,
                                  const std::string& rule) {
  expect_diagnostic([&] { verify_program(p, "test.json"); }, "test.json", message, rule);
}

// ---------------------------------------------------------------------------------------------
// Small programs around one 1-D input `a` and output `c`.

inline constexpr char kInputA[] =
    R"j([{"name": "a", "type": "int32", "dims": 1, "extents": ["8"], "loc": "3:1"}])j";

// The Func record of output c (int32, 1-D).
inline constexpr char kFuncC[] =
    R"j([{"name": "c", "type": "int32", "args": ["_0"], "place": "host",
  "declared": true, "definition": null, "loc": null, "decl_loc": null}])j";

inline std::string output_c(int n) {
  return R"j({"func": "c", "extents": [")j" + std::to_string(n) + R"j("], "loc": "20:1"})j";
}
inline std::string buffer_c(int n, const std::string& type = "int32") {
  return R"j([{"name": "c", "type": ")j" + type + R"j(", "bounds": [["0", ")j" + std::to_string(n) +
         R"j("]], "loc": "9:1"}])j";
}

// One host kernel `K` around `body` (a statement list).
inline std::string host_kernel(const std::string& body) {
  return R"j([{"name": "K", "place": "host", "loc": "4:1", "body": )j" + body + "}]";
}

inline Program one_kernel(const std::string& body, int n = 8) {
  return parse(document(kInputA, "[" + func("c", "int32", 1) + "]", output_c(n), buffer_c(n),
                        host_kernel(body)));
}

inline NdArray sequence(int n) {
  std::vector<int32_t> v;
  for (int i = 0; i < n; ++i) v.push_back(10 * i + 1);
  return make_array<int32_t>(Type::Int(32), {n}, v);
}

}  // namespace exec_test
}  // namespace t2s
