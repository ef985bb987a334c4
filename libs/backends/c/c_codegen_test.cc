#include "libs/backends/c/c_codegen.h"

#include <gtest/gtest.h>

#include "libs/ir/expr_parser.h"
#include "libs/ir/ir_json.h"

namespace t2s {
namespace {

// Storage that spells every access as a call, so the tests see what the generator asks for.
class RecordingStorage : public CStorage {
 public:
  static std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
  }
  std::string read_input(const Input& in, const std::vector<std::string>& index) override {
    return in.name + "[" + joined(index) + "]";
  }
  std::string read_func(const std::string& f, const std::vector<std::string>& index,
                        const SourceLoc&) override {
    return f + "[" + joined(index) + "]";
  }
  std::vector<std::string> write_func(const std::string& f, const std::vector<std::string>& index,
                                      const std::string& value, const SourceLoc&) override {
    return {f + "[" + joined(index) + "] = " + value + ";"};
  }
  std::vector<std::string> declare_realize(const Realize& r, const SourceLoc&,
                                           const std::vector<std::string>&,
                                           const std::vector<std::string>& extents) override {
    return {"realize " + r.func + "[" + joined(extents) + "];"};
  }
  std::string read_channel(const Channel& c, const std::vector<std::string>&,
                           const SourceLoc&) override {
    return "read(" + c.name + ")";
  }
  std::vector<std::string> write_channel(const Channel& c, const std::vector<std::string>&,
                                         const std::string& value, const SourceLoc&) override {
    return {"write(" + c.name + ", " + value + ");"};
  }
  std::string read_register(const Register& r, const std::vector<std::string>& pe,
                            const std::string& slot, const SourceLoc&) override {
    return r.name + "[" + joined(pe) + "][" + slot + "]";
  }
  std::vector<std::string> write_register(const Register& r, const std::vector<std::string>& pe,
                                          const std::string& slot, const std::string& value,
                                          const SourceLoc&) override {
    return {r.name + "[" + joined(pe) + "][" + slot + "] = " + value + ";"};
  }
  std::vector<std::string> shift_register(const Register& r, const std::vector<std::string>& pe,
                                          const SourceLoc&) override {
    return {"shift(" + r.name + ", " + joined(pe) + ");"};
  }
  std::vector<std::string> push_fifo(const Register& r, const std::vector<std::string>& pe,
                                     const std::string& value, const SourceLoc&) override {
    return {"push(" + r.name + ", " + joined(pe) + ", " + value + ");"};
  }
  std::string pop_fifo(const Register& r, const std::vector<std::string>& pe,
                       const SourceLoc&) override {
    return "pop(" + r.name + ", " + joined(pe) + ")";
  }
  std::vector<std::string> before_unrolled_loop() override { return {"#pragma unroll"}; }
};

Program test_program() {
  Program p;
  p.stage = Stage::kMerged;
  p.vars = {"i", "j"};
  Input a;
  a.name = "a";
  a.type = Type::Int(32);
  a.dims = 1;
  p.inputs.push_back(a);
  Input f;
  f.name = "f";
  f.type = Type::Float(32);
  f.dims = 1;
  p.inputs.push_back(f);
  Input s;
  s.name = "s";
  s.type = Type::Int(8);
  s.dims = 1;
  p.inputs.push_back(s);
  return p;
}

std::string print(const std::string& text, CDialect dialect, std::string* helpers = nullptr) {
  Program p = test_program();
  RecordingStorage storage;
  CCodegen codegen(p, dialect, storage);
  std::string out = codegen.expr(resolve_in_program(parse_expr_text(text, {}), p));
  if (helpers) *helpers = codegen.helper_definitions();
  return out;
}

TEST(CCodegen, TypeNames) {
  EXPECT_EQ(c_type_name(Type::Int(32), CDialect::kCpp), "int32_t");
  EXPECT_EQ(c_type_name(Type::Int(32), CDialect::kOpenCl), "int");
  EXPECT_EQ(c_type_name(Type::UInt(8), CDialect::kOpenCl), "uchar");
  EXPECT_EQ(c_type_name(Type::Int(64), CDialect::kOpenCl), "long");
  EXPECT_EQ(c_type_name(Type::UInt(16), CDialect::kCpp), "uint16_t");
  EXPECT_EQ(c_type_name(Type::Float(64), CDialect::kCpp), "double");
  EXPECT_EQ(c_type_name(Type::Bool(), CDialect::kOpenCl), "bool");
  EXPECT_THROW(c_type_name(Type::Float(32, 4), CDialect::kCpp), Diagnostic);
  EXPECT_THROW(c_type_name(Type::Float(16), CDialect::kCpp), Diagnostic);
}

TEST(CCodegen, Identifiers) {
  EXPECT_EQ(c_identifier("A_val"), "A_val");
  EXPECT_EQ(c_identifier("kernel"), "kernel_");
  EXPECT_EQ(c_identifier("int"), "int_");
  EXPECT_EQ(c_identifier("t2s_div_i32"), "t2s_div_i32_");
}

TEST(CCodegen, IntegerDivisionAndModuloAreHalides) {
  std::string helpers;
  EXPECT_EQ(print("a(i) / 2 + a(i) % j", CDialect::kOpenCl, &helpers),
            "t2s_div_i32(a[i], 2) + t2s_mod_i32(a[i], j)");
  EXPECT_NE(helpers.find("static inline int t2s_div_i32(int a, int b)"), std::string::npos);
  EXPECT_NE(helpers.find("if (r < 0) q = y > 0 ? q - 1 : q + 1;"), std::string::npos);
  EXPECT_NE(helpers.find("static inline int t2s_mod_i32(int a, int b)"), std::string::npos);
  // Float division is the operator; float modulo is Halide's.
  EXPECT_EQ(print("f(i) / 2.0f", CDialect::kOpenCl), "f[i] / 2.0f");
  EXPECT_EQ(print("f(i) % 2.0f", CDialect::kCpp, &helpers), "t2s_mod_f32(f[i], 2.0f)");
  EXPECT_NE(helpers.find("return a - b * std::floor(a / b);"), std::string::npos);
}

TEST(CCodegen, SignedWrapAroundInCpp) {
  std::string helpers;
  EXPECT_EQ(print("a(i) * 3 - 1", CDialect::kCpp, &helpers),
            "t2s_sub_i32(t2s_mul_i32(a[i], 3), 1)");
  EXPECT_NE(helpers.find("return (int32_t)((uint32_t)a * (uint32_t)b);"), std::string::npos);
  EXPECT_EQ(print("a(i) * 3 - 1", CDialect::kOpenCl), "a[i] * 3 - 1");
  // Narrow types are promoted and cast back.
  EXPECT_EQ(print("s(i) + s(i)", CDialect::kOpenCl), "(char)(s[i] + s[i])");
}

TEST(CCodegen, PrecedenceAndSelect) {
  EXPECT_EQ(print("(i + 1) * (j - 2)", CDialect::kOpenCl), "(i + 1) * (j - 2)");
  EXPECT_EQ(print("i - (j - 1)", CDialect::kOpenCl), "i - (j - 1)");
  EXPECT_EQ(print("i - j - 1", CDialect::kOpenCl), "i - j - 1");
  // A negated negation must not become the decrement operator.
  EXPECT_EQ(print("-(-i)", CDialect::kOpenCl), "-(-i)");
  EXPECT_EQ(print("-(-f(i))", CDialect::kCpp), "-(-f[i])");
  EXPECT_EQ(print("select(i == 0, f(i), 0.5f) + 1.0f", CDialect::kOpenCl),
            "(i == 0 ? f[i] : 0.5f) + 1.0f");
  EXPECT_EQ(print("i < 3 && (j > 1 || i == j)", CDialect::kOpenCl), "i < 3 && (j > 1 || i == j)");
}

TEST(CCodegen, CastsSaturateFloatToInt) {
  std::string helpers;
  EXPECT_EQ(print("cast(Int(32), f(i))", CDialect::kCpp, &helpers), "t2s_cvt_i32_f32(f[i])");
  EXPECT_NE(helpers.find("if (x != x) return 0;"), std::string::npos);
  EXPECT_NE(helpers.find("if (x >= (float)0x1p31) return INT32_MAX;"), std::string::npos);
  EXPECT_EQ(print("cast(Float(32), a(i))", CDialect::kOpenCl), "(float)a[i]");
  EXPECT_EQ(print("cast(Bool(), a(i))", CDialect::kOpenCl), "(a[i] != 0)");
}

TEST(CCodegen, LiteralsAndIntrinsics) {
  EXPECT_EQ(print("f(i) * 0.1f", CDialect::kCpp), "f[i] * 0.100000001f");
  EXPECT_EQ(print("f(i) + 3.0f", CDialect::kCpp), "f[i] + 3.0f");
  EXPECT_EQ(print("sqrt(f(i))", CDialect::kCpp), "std::sqrt(f[i])");
  EXPECT_EQ(print("round(f(i))", CDialect::kOpenCl), "rint(f[i])");
  std::string helpers;
  EXPECT_EQ(print("max(a(i), 0)", CDialect::kOpenCl, &helpers), "t2s_max_i32(a[i], 0)");
  EXPECT_NE(helpers.find("return a > b ? a : b;"), std::string::npos);
}

TEST(CCodegen, Statements) {
  Program p = test_program();
  p.kernels.push_back({});
  const std::string ir =
      R"json({"for": "i", "min": "0", "extent": "4", "kind": "unrolled", "body": [
      {"let": "v", "value": "a(i) + 1", "body": [
        {"if": "v > 2", "then": [{"provide": "out", "args": ["i"], "value": "v"}],
         "else": [{"provide": "out", "args": ["i"], "value": "0"}]}]},
      {"let": "v", "value": "a(i) + 2", "body": []}]})json";
  // Build the statement through a whole document so the reader types it.
  const std::string doc = R"json({"t2s_ir": 1, "stage": "merged", "vars": ["i"],
    "inputs": [{"name": "a", "type": "int32", "dims": 1, "extents": ["4"], "loc": "1:1"}],
    "funcs": [{"name": "out", "type": "int32", "args": ["i"], "place": "host", "declared": true,
               "definition": "a(i)", "loc": "2:1", "decl_loc": "2:1"}],
    "directives": [], "output": {"func": "out", "extents": ["4"], "loc": "3:1"},
    "buffers": [{"name": "out", "type": "int32", "bounds": [["0", "4"]], "loc": "2:1"}],
    "kernels": [{"name": "out", "place": "host", "body": [)json" +
                          ir + R"json(], "loc": "2:1"}], "channels": [], "registers": []})json";
  Program program = read_program(doc, "test");
  RecordingStorage storage;
  CCodegen codegen(program, CDialect::kOpenCl, storage);
  std::string out;
  codegen.stmts(program.kernels[0].body, 1, &out);
  EXPECT_EQ(out,
            "  #pragma unroll\n"
            "  for (int i = 0; i < 4; i++) {\n"
            "    const int v = a[i] + 1;\n"
            "    if (v > 2) {\n"
            "      out[i] = v;\n"
            "    } else {\n"
            "      out[i] = 0;\n"
            "    }\n"
            "    {\n"
            "      const int v = a[i] + 2;\n"
            "    }\n"
            "  }\n");
}

}  // namespace
}  // namespace t2s
