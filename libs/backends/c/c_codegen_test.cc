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

TEST(CCodegen, VectorTypeNames) {
  EXPECT_EQ(c_value_type_name(Type::Float(32), CDialect::kCpp), "float");
  EXPECT_EQ(c_value_type_name(Type::Float(32, 4), CDialect::kCpp), "t2s_rt::Vec<float, 4>");
  EXPECT_EQ(c_value_type_name(Type::Bool(64), CDialect::kCpp), "t2s_rt::Vec<bool, 64>");
  EXPECT_EQ(c_value_type_name(Type::Float(32, 16), CDialect::kOpenCl), "float16");
  EXPECT_EQ(c_value_type_name(Type::Bool(4), CDialect::kOpenCl), "char4");
  EXPECT_EQ(c_value_type_name(Type::UInt(16, 12), CDialect::kOpenCl), "ushort_vec12");
  EXPECT_EQ(opencl_struct_typedef(Type::Int(32, 5)), "typedef struct { int data[5]; } int_vec5;\n");
  EXPECT_EQ(opencl_struct_typedef(Type::Int(32, 8)), "");
  try {
    c_value_type_name(Type::Float(32, 33), CDialect::kOpenCl, SourceLoc::parse("3:4"));
    ADD_FAILURE() << "33 lanes accepted";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "emit-type");
    EXPECT_EQ(d.loc().str(), "3:4");
    EXPECT_NE(d.message().find("cannot express 33 lanes"), std::string::npos) << d.message();
  }
  // Names OpenCL gives vector types and built-ins are not the program's.
  EXPECT_EQ(c_identifier("float4"), "float4_");
  EXPECT_EQ(c_identifier("int_vec5"), "int_vec5_");
  EXPECT_EQ(c_identifier("vload16"), "vload16_");
  EXPECT_EQ(c_identifier("convert_int4"), "convert_int4_");
  EXPECT_EQ(c_identifier("float"), "float_");
  EXPECT_EQ(c_identifier("x4"), "x4");
  EXPECT_EQ(c_identifier("int5"), "int5");
}

TEST(CCodegen, ElementwiseVectorsAreTheScalarOperationLaneByLane) {
  std::string helpers;
  // C++: a helper per operation and type, whose operands come as one braced list (evaluated
  // left to right), each lane the scalar operation's code.
  EXPECT_EQ(print("a(ramp(i, 1, 4)) / broadcast(j, 4)", CDialect::kCpp, &helpers).substr(0, 17),
            "t2s_vdiv_i32x4({[");
  EXPECT_NE(helpers.find("static inline t2s_rt::Vec<int32_t, 4> t2s_vdiv_i32x4(const "
                         "std::tuple<t2s_rt::Vec<int32_t, 4>, t2s_rt::Vec<int32_t, 4>>& t2s_in) {\n"
                         "  const auto& [t2s_0, t2s_1] = t2s_in;\n"
                         "  return t2s_rt::Vec<int32_t, 4>{{\n"
                         "      t2s_div_i32(t2s_0.lane[0], t2s_1.lane[0]),\n"),
            std::string::npos)
      << helpers;
  // The scalar helper the lanes call is defined before the vector helper.
  EXPECT_LT(helpers.find("t2s_div_i32(int32_t a"), helpers.find("t2s_vdiv_i32x4"));
  // OpenCL: native operators where they are Halide's, a helper with one lane per line else.
  EXPECT_EQ(print("f(ramp(i, 1, 4)) * broadcast(2.0f, 4)", CDialect::kOpenCl),
            "(float4)(f[i], f[i + 1], f[i + 2], f[i + 3]) * (float4)(2.0f)");
  EXPECT_EQ(print("cast(Float(32, 8), ramp(i, 2, 8))", CDialect::kOpenCl, &helpers),
            "convert_float8(t2s_ramp_i32x8(i, 2))");
  EXPECT_NE(helpers.find("static inline int8 t2s_ramp_i32x8(int t2s_0, int t2s_1) {\n"
                         "  return (int8)(\n"
                         "      t2s_0,\n"
                         "      t2s_0 + t2s_1,\n"
                         "      t2s_0 + 2 * t2s_1,\n"),
            std::string::npos)
      << helpers;
  EXPECT_EQ(print("ramp(i, 1, 4) % broadcast(j, 4)", CDialect::kOpenCl, &helpers),
            "t2s_vmod_i32x4(t2s_ramp_i32x4(i, 1), (int4)(j))");
  EXPECT_NE(helpers.find("      t2s_mod_i32(t2s_0.s3, t2s_1.s3));\n"), std::string::npos);
  // Float to integer saturates (helper); narrow integers wrap in their own type (native).
  EXPECT_EQ(print("cast(Int(32, 4), f(ramp(i, 1, 4)))", CDialect::kOpenCl, &helpers).substr(0, 24),
            "t2s_vcvt_i32x4_f32x4((fl");
  EXPECT_NE(helpers.find("      t2s_cvt_i32_f32(t2s_0.s0),\n"), std::string::npos);
  EXPECT_EQ(print("s(ramp(i, 1, 2)) * s(ramp(i, 1, 2))", CDialect::kOpenCl),
            "(char2)(s[i], s[i + 1]) * (char2)(s[i], s[i + 1])");
  // OpenCL has no bool vectors: comparisons and their uses are lane by lane, in char lanes.
  EXPECT_EQ(print("select(ramp(i, 1, 5) < broadcast(j, 5), ramp(i, 1, 5), broadcast(0, 5))",
                  CDialect::kOpenCl, &helpers),
            "t2s_vselect_i32x5(t2s_vlt_i32x5(t2s_ramp_i32x5(i, 1), t2s_broadcast_i32x5(j)), "
            "t2s_ramp_i32x5(i, 1), t2s_broadcast_i32x5(0))");
  EXPECT_NE(helpers.find("static inline char_vec5 t2s_vlt_i32x5(int_vec5 t2s_0, int_vec5 t2s_1) "
                         "{\n  return (char_vec5){{\n      t2s_0.data[0] < t2s_1.data[0],\n"),
            std::string::npos)
      << helpers;
}

TEST(CCodegen, VectorOperations) {
  std::string helpers;
  // A select with a scalar condition stays lazy.
  EXPECT_EQ(print("select(i == 0, ramp(i, 1, 4), broadcast(j, 4))", CDialect::kOpenCl),
            "i == 0 ? t2s_ramp_i32x4(i, 1) : (int4)(j)");
  EXPECT_EQ(print("select(i == 0, broadcast(1.0f, 4), broadcast(2.0f, 4))", CDialect::kCpp),
            "i == 0 ? t2s_broadcast_f32x4(1.0f) : t2s_broadcast_f32x4(2.0f)");
  // slice: a lane, a swizzle, a helper.
  EXPECT_EQ(print("slice(ramp(i, 1, 16), 11, 1)", CDialect::kOpenCl), "t2s_ramp_i32x16(i, 1).sb");
  EXPECT_EQ(print("slice(ramp(i, 1, 16), 4, 4)", CDialect::kOpenCl), "t2s_ramp_i32x16(i, 1).s4567");
  EXPECT_EQ(print("slice(ramp(i, 1, 12), 1, 1)", CDialect::kOpenCl),
            "t2s_ramp_i32x12(i, 1).data[1]");
  EXPECT_EQ(print("slice(ramp(i, 1, 4), 3, 1)", CDialect::kCpp), "t2s_ramp_i32x4({i, 1}).lane[3]");
  EXPECT_EQ(print("slice(ramp(i, 1, 12), 2, 3)", CDialect::kOpenCl, &helpers),
            "t2s_slice_i32x12_2_3(t2s_ramp_i32x12(i, 1))");
  EXPECT_NE(helpers.find("  return (int3)(\n      t2s_0.data[2],\n      t2s_0.data[3],\n"
                         "      t2s_0.data[4]);\n"),
            std::string::npos)
      << helpers;
  // concat: a literal of scalars (C++ evaluates it left to right) or of OpenCL native parts, a
  // helper else.
  EXPECT_EQ(print("concat(i, j, i + j)", CDialect::kCpp),
            "t2s_rt::Vec<int32_t, 3>{{i, j, t2s_add_i32(i, j)}}");
  EXPECT_EQ(print("concat(ramp(i, 1, 2), j, i)", CDialect::kOpenCl),
            "(int4)(t2s_ramp_i32x2(i, 1), j, i)");
  EXPECT_EQ(print("concat(i, j, i, j, i)", CDialect::kOpenCl), "(int_vec5){{i, j, i, j, i}}");
  EXPECT_EQ(print("concat(ramp(i, 1, 2), j, ramp(j, 1, 2))", CDialect::kCpp, &helpers),
            "t2s_concat_i32_2_1_2({t2s_ramp_i32x2({i, 1}), j, t2s_ramp_i32x2({j, 1})})");
  EXPECT_NE(helpers.find("      t2s_0.lane[1],\n      t2s_1,\n      t2s_2.lane[0],\n"),
            std::string::npos)
      << helpers;
}

TEST(CCodegen, Gathers) {
  // C++: an immediately invoked lambda evaluates each index once, in order, then reads lane by
  // lane.
  EXPECT_EQ(print("a(ramp(i, 2, 2))", CDialect::kCpp),
            "[&] { const t2s_rt::Vec<int32_t, 2> t2s_0 = t2s_ramp_i32x2({i, 2}); return "
            "t2s_rt::Vec<int32_t, 2>{{a[t2s_0.lane[0]], a[t2s_0.lane[1]]}}; }()");
  // OpenCL: each lane computes its index; one that has an effect is refused.
  EXPECT_EQ(print("a(ramp(i, -3, 2))", CDialect::kOpenCl), "(int2)(a[i], a[i - 3])");
  // An index built from ramps, broadcasts and integer arithmetic is computed lane by lane as a
  // scalar, with literal parts folded (Halide's / and %); other vector indices are read lane by
  // lane from the whole vector.
  EXPECT_EQ(print("a(ramp(i, j, 2) * broadcast(2, 2))", CDialect::kOpenCl),
            "(int2)(a[i * 2], a[(i + j) * 2])");
  EXPECT_EQ(print("a(ramp(-1, 1, 4) % broadcast(2, 4) + ramp(0, 1, 4) / broadcast(2, 4) * "
                  "broadcast(i, 4))",
                  CDialect::kOpenCl),
            "(int4)(a[1], a[0], a[1 + i], a[i])");
}

// Storage with contiguous vector accesses, as OpenCL's global memory has them.
class ContiguousStorage : public RecordingStorage {
 public:
  std::vector<std::string> write_func_contiguous(const std::string& f,
                                                 const std::vector<std::string>& first,
                                                 const std::string& value, Type type,
                                                 const SourceLoc&) override {
    return {"store" + std::to_string(type.lanes) + "(" + f + "[" + joined(first) + "], " + value +
            ");"};
  }
};

TEST(CCodegen, ScattersEvaluateIndicesThenValueThenStoreLaneByLane) {
  const std::string doc = R"json({"t2s_ir": 1, "stage": "merged", "vars": ["i"],
    "inputs": [{"name": "a", "type": "int32", "dims": 1, "extents": ["4"], "loc": "1:1"}],
    "funcs": [{"name": "out", "type": "int32", "args": ["i", "j"], "place": "host",
               "declared": true, "definition": null, "loc": "2:1", "decl_loc": "2:1"}],
    "directives": [], "output": {"func": "out", "extents": ["4", "2"], "loc": "3:1"},
    "buffers": [{"name": "out", "type": "int32", "bounds": [["0", "4"], ["0", "2"]], "loc": "2:1"}],
    "kernels": [{"name": "out", "place": "host", "loc": "2:1", "body": [
      {"provide": "out", "args": ["ramp(3, -2, 2)", "1"], "value": "broadcast(a(0), 2)"},
      {"provide": "out", "args": ["ramp(0, 1, 2)", "0"], "value": "broadcast(a(1), 2)"}]}],
    "channels": [], "registers": []})json";
  Program program = read_program(doc, "test");
  RecordingStorage storage;
  CCodegen cpp(program, CDialect::kCpp, storage);
  std::string out;
  cpp.stmts({program.kernels[0].body[0]}, 1, &out);
  EXPECT_EQ(out,
            "  {\n"
            "    const t2s_rt::Vec<int32_t, 2> t2s_0 = t2s_ramp_i32x2({3, -2});\n"
            "    const int32_t t2s_1 = 1;\n"
            "    const t2s_rt::Vec<int32_t, 2> t2s_2 = t2s_broadcast_i32x2(a[0]);\n"
            "    out[t2s_0.lane[0], t2s_1] = t2s_2.lane[0];\n"
            "    out[t2s_0.lane[1], t2s_1] = t2s_2.lane[1];\n"
            "  }\n");
  // Contiguous (the first index a ramp of stride 1, the others scalars): the storage's form.
  ContiguousStorage contiguous;
  CCodegen opencl(program, CDialect::kOpenCl, contiguous);
  out.clear();
  opencl.stmts(program.kernels[0].body, 1, &out);
  EXPECT_EQ(out,
            "  {\n"
            "    const int2 t2s_0 = t2s_ramp_i32x2(3, -2);\n"
            "    const int t2s_1 = 1;\n"
            "    const int2 t2s_2 = (int2)(a[0]);\n"
            "    out[t2s_0.s0, t2s_1] = t2s_2.s0;\n"
            "    out[t2s_0.s1, t2s_1] = t2s_2.s1;\n"
            "  }\n"
            "  store2(out[0, 0], (int2)(a[1]));\n");
}

// OpenCL does not order the operands of a vector literal: the reads of one channel that a
// concat joins are assigned in order (comma operator) to variables declared before the
// statement that uses them; C++ evaluates the braced list left to right.
TEST(CCodegen, ConcatOfChannelReadsKeepsTheirOrder) {
  const std::string doc = R"json({"t2s_ir": 1, "stage": "vectorized", "vars": ["i"],
    "inputs": [], "funcs": [{"name": "out", "type": "float32", "args": ["i"], "place": "device",
               "declared": true, "definition": null, "loc": "2:1", "decl_loc": "2:1"}],
    "directives": [], "output": {"func": "out", "extents": ["4"], "loc": "3:1"},
    "buffers": [{"name": "out", "type": "float32", "bounds": [["0", "4"]], "loc": "2:1"}],
    "kernels": [{"name": "out", "place": "device", "loc": "2:1", "body": [
      {"let": "v", "value": "select(i == 0, concat(read_channel(ch), read_channel(ch)), broadcast(0.0f, 8))", "body": [
        {"let": "w", "value": "concat(read_channel(ch), v)", "body": [
          {"let": "x", "value": "concat(read_channel(ch), read_channel(ch))", "body": []}]}]}]}],
    "channels": [{"name": "ch", "type": "float32x4", "dims": [], "depth": 0, "producer": "out",
                  "consumer": "out", "loc": "4:1"}], "registers": []})json";
  Program program = read_program(doc, "test");
  RecordingStorage storage;
  CCodegen opencl(program, CDialect::kOpenCl, storage);
  std::string out;
  opencl.stmts(program.kernels[0].body, 1, &out);
  EXPECT_EQ(out,
            "  float4 t2s_part_0;\n"
            "  float4 t2s_part_1;\n"
            "  const float8 v = i == 0 ? (t2s_part_0 = read(ch), t2s_part_1 = read(ch), "
            "(float8)(t2s_part_0, t2s_part_1)) : (float8)(0.0f);\n"
            "  const float_vec12 w = t2s_concat_f32_4_8(read(ch), v);\n"
            "  float4 t2s_part_2;\n"
            "  float4 t2s_part_3;\n"
            "  const float8 x = (t2s_part_2 = read(ch), t2s_part_3 = read(ch), "
            "(float8)(t2s_part_2, t2s_part_3));\n");
  CCodegen cpp(program, CDialect::kCpp, storage);
  out.clear();
  cpp.stmts({program.kernels[0].body[0]}, 1, &out);
  EXPECT_NE(out.find("t2s_concat_f32_4_4({read(ch), read(ch)})"), std::string::npos) << out;
}

}  // namespace
}  // namespace t2s
