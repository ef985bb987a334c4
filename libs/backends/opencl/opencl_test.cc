#include "libs/backends/opencl/opencl.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>

#include "libs/backends/opencl/host_support_source.h"
#include "libs/ir/ir_json.h"
#include "libs/testing/golden.h"
#include "libs/testing/ir_edit.h"

namespace t2s {
namespace {

#define EXPECT_CONTAINS(text, needle)                                                       \
  EXPECT_NE((text).find(needle), std::string::npos) << "missing: " << (needle) << "\nin:\n" \
                                                    << (text)
#define EXPECT_NOT_CONTAINS(text, needle)                                                      \
  EXPECT_EQ((text).find(needle), std::string::npos) << "unexpected: " << (needle) << "\nin:\n" \
                                                    << (text)

// A pipeline of device kernels in the shape t2s-merge and t2s-stt give gemm_tiled and
// isolate_consumer: a systolic kernel A with a shift register (depth 3, so it has a shift loop)
// that sends values over a channel to an autorun drainer (no global memory), which forwards
// them over a channel of depth 4 to a collector writing a buffer, then a host kernel (unloader)
// that reads the buffer and writes the output.
const char* const kChannels = R"JSON({
 "t2s_ir": 1, "stage": "stt", "vars": ["i", "k"],
 "inputs": [{"name": "a", "type": "float32", "dims": 2, "extents": ["4", "8"], "loc": "3:12"}],
 "funcs": [
  {"name": "collector", "type": "float32", "args": ["i", "k"], "place": "device", "declared": false,
   "definition": null, "loc": "12:3", "decl_loc": "5:6"},
  {"name": "out", "type": "float32", "args": ["i", "k"], "place": "host", "declared": false,
   "definition": null, "loc": "13:3", "decl_loc": "5:20"}],
 "directives": [],
 "output": {"func": "out", "extents": ["4", "2"], "loc": "30:3"},
 "buffers": [
  {"name": "collector", "type": "float32", "bounds": [["0", "4"], ["0", "2"]], "loc": "12:3"},
  {"name": "out", "type": "float32", "bounds": [["0", "4"], ["0", "2"]], "loc": "13:3"}],
 "kernels": [
  {"name": "A", "place": "device", "loc": "10:1", "body": [
   {"for": "k", "min": "0", "extent": "8", "kind": "serial", "body": [
    {"for": "i", "min": "0", "extent": "4", "kind": "unrolled", "body": [
     {"let": "A_val", "value": "select(i == 0, a(i, k), A_shreg(i - 1, 2))", "body": [
      {"shift": "A_shreg", "args": ["i"], "loc": "10:1"},
      {"provide": "A_shreg", "args": ["i", "0"], "value": "A_val", "loc": "10:1"},
      {"if": "k / 4 * 4 + 3 == k", "then": [
       {"write_channel": "A_to_drainer", "index": [], "value": "A_val", "loc": "12:3"}],
       "else": []}]}]}]}]},
  {"name": "drainer", "place": "device", "loc": "12:3", "body": [
   {"for": "k", "min": "0", "extent": "2", "kind": "serial", "body": [
    {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
     {"write_channel": "drainer_to_collector", "index": [],
      "value": "read_channel(A_to_drainer)", "loc": "12:3"}]}]}]},
  {"name": "collector", "place": "device", "loc": "12:3", "body": [
   {"for": "k", "min": "0", "extent": "2", "kind": "serial", "body": [
    {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
     {"provide": "collector", "args": ["i", "k"], "value": "read_channel(drainer_to_collector)",
      "loc": "12:3"}]}]}]},
  {"name": "unloader", "place": "host", "loc": "13:3", "body": [
   {"for": "k", "min": "0", "extent": "2", "kind": "serial", "body": [
    {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
     {"provide": "out", "args": ["i", "k"], "value": "collector(i, k) * 2.0f", "loc": "13:3"}]}]}]}],
 "channels": [
  {"name": "A_to_drainer", "type": "float32", "dims": [], "depth": 0, "producer": "A",
   "consumer": "drainer", "loc": "12:3"},
  {"name": "drainer_to_collector", "type": "float32", "dims": [], "depth": 4,
   "producer": "drainer", "consumer": "collector", "loc": "12:3"}],
 "registers": [
  {"name": "A_shreg", "func": "A", "kernel": "A", "type": "float32", "kind": "shift", "shape": [4],
   "depth": 3, "distance": [1, 2], "pe_offset": [1], "time_distance": 2, "period": 1, "naive": 3, "loc": "10:1"}]
})JSON";

// seed000_abc at the stt stage (t2s-stt's output), reduced to Func A's FIFO: 10 PEs, 9 values
// each; a host kernel.
const char* const kFifo = R"JSON({
 "t2s_ir": 1, "stage": "stt", "vars": ["i", "j", "k"],
 "inputs": [{"name": "a", "type": "int32", "dims": 2, "extents": ["10", "10"], "loc": "16:12"}],
 "funcs": [
  {"name": "A", "type": "int32", "args": ["i", "j", "k"], "place": "host", "declared": true,
   "definition": "select(i == 0, a(j, k), A(i - 1, j, k))", "loc": "23:1", "decl_loc": "20:6"},
  {"name": "c", "type": "int32", "args": ["i", "j"], "place": "host", "declared": false,
   "definition": "select(k == 9, A(i, j, k))", "loc": "26:1", "decl_loc": "21:6"}],
 "directives": [],
 "output": {"func": "c", "extents": ["10", "10"], "loc": "36:3"},
 "buffers": [{"name": "c", "type": "int32", "bounds": [["0", "10"], ["0", "10"]], "loc": "26:1"}],
 "kernels": [{"name": "A", "place": "host", "loc": "23:1", "body": [
  {"for": "t1", "min": "0", "extent": "55", "kind": "serial", "body": [
   {"for": "t2", "min": "0", "extent": "28", "kind": "serial", "body": [
    {"for": "i", "min": "0", "extent": "10", "kind": "unrolled", "body": [
     {"let": "j", "value": "t2 - 2 * i", "body": [
      {"let": "k", "value": "t1 - 2 * i - 3 * j", "body": [
       {"if": "0 <= j && j < 10 && 0 <= k && k < 10", "then": [
        {"let": "A_fifo_val", "value": "select(1 <= i, pop(A_fifo, i - 1), 0)", "body": [
         {"let": "A_val", "value": "select(i == 0, a(j, k), A_fifo_val)", "body": [
          {"if": "i < 9", "then": [
           {"push": "A_fifo", "args": ["i"], "value": "A_val", "loc": "23:1"}], "else": []},
          {"if": "k == 9", "then": [
           {"provide": "c", "args": ["i", "j"], "value": "A_val", "loc": "26:1"}],
           "else": [], "loc": "26:1"}]}]}],
       "else": []}]}]}]}]}]}]}],
 "channels": [],
 "registers": [
  {"name": "A_fifo", "func": "A", "kernel": "A", "type": "int32", "kind": "fifo", "shape": [10],
   "depth": 9, "distance": [1, 0, 0], "pe_offset": [1], "time_distance": 58, "period": 1,
   "naive": 59, "loc": "23:1"}]
})JSON";

// stt_stride_checktime at the stt stage (t2s-stt's output): `k = t / 2` under CheckTime.
const char* const kDivision = R"JSON({
 "t2s_ir": 1, "stage": "stt", "vars": ["i", "k"],
 "inputs": [{"name": "a", "type": "int32", "dims": 2, "extents": ["4", "6"], "loc": "11:12"}],
 "funcs": [
  {"name": "A", "type": "int32", "args": ["i", "k"], "place": "host", "declared": true,
   "definition": "select(k == 0, a(i, k), A(i, k - 1) + a(i, k))", "loc": "16:1",
   "decl_loc": "13:6"},
  {"name": "c", "type": "int32", "args": ["i"], "place": "host", "declared": false,
   "definition": "select(k == 5, A(i, k))", "loc": "17:1", "decl_loc": "14:6"}],
 "directives": [],
 "output": {"func": "c", "extents": ["4"], "loc": "24:3"},
 "buffers": [{"name": "c", "type": "int32", "bounds": [["0", "4"]], "loc": "17:1"}],
 "kernels": [{"name": "A", "place": "device", "loc": "16:1", "body": [
  {"for": "t", "min": "0", "extent": "11", "kind": "serial", "body": [
   {"for": "s", "min": "0", "extent": "4", "kind": "unrolled", "body": [
    {"let": "i", "value": "s", "body": [
     {"let": "k", "value": "t / 2", "body": [
      {"if": "s == i && t == 2 * k", "then": [
       {"let": "A_val", "value": "select(k == 0, a(i, k), A_shreg(s, 0) + a(i, k))", "body": [
        {"provide": "A_shreg", "args": ["s", "0"], "value": "A_val", "loc": "16:1"},
        {"if": "k == 5", "then": [
         {"provide": "c", "args": ["i"], "value": "A_val", "loc": "17:1"}],
         "else": [], "loc": "17:1"}]}],
       "else": []}]}]}]}]}]}],
 "channels": [],
 "registers": [
  {"name": "A_shreg", "func": "A", "kernel": "A", "type": "int32", "kind": "shift", "shape": [4],
   "depth": 1, "distance": [0, 1], "pe_offset": [0], "time_distance": 2, "period": 2, "naive": 3,
   "loc": "16:1"}]
})JSON";

// An array of channels (one per PE, as t2s-stt will give a transformed producer): PE i of the
// producer writes ch[i], the consumer reads all four. Also a buffer of a non-zero min and a
// bool buffer.
const char* const kChannelArray = R"JSON({
 "t2s_ir": 1, "stage": "stt", "vars": ["i", "k"], "inputs": [],
 "funcs": [
  {"name": "P", "type": "int32", "args": ["i", "k"], "place": "device", "declared": false,
   "definition": null, "loc": "5:1", "decl_loc": "2:6"},
  {"name": "q", "type": "int32", "args": ["i", "k"], "place": "device", "declared": false,
   "definition": null, "loc": "6:1", "decl_loc": "2:9"},
  {"name": "flags", "type": "bool", "args": ["i"], "place": "device", "declared": false,
   "definition": null, "loc": "7:1", "decl_loc": "2:12"}],
 "directives": [],
 "output": {"func": "q", "extents": ["4", "3"], "loc": "9:3"},
 "buffers": [
  {"name": "q", "type": "int32", "bounds": [["0", "4"], ["0", "3"]], "loc": "6:1"},
  {"name": "flags", "type": "bool", "bounds": [["2", "4"]], "loc": "7:1"}],
 "kernels": [
  {"name": "P", "place": "device", "loc": "5:1", "body": [
   {"for": "k", "min": "0", "extent": "3", "kind": "serial", "body": [
    {"for": "i", "min": "0", "extent": "4", "kind": "unrolled", "body": [
     {"write_channel": "P_to_q", "index": ["i"], "value": "i * k", "loc": "6:1"}]}]}]},
  {"name": "q", "place": "device", "loc": "6:1", "body": [
   {"for": "k", "min": "0", "extent": "3", "kind": "serial", "body": [
    {"for": "i", "min": "0", "extent": "4", "kind": "unrolled", "body": [
     {"provide": "q", "args": ["i", "k"], "value": "read_channel(P_to_q, i)", "loc": "6:1"},
     {"provide": "flags", "args": ["i + 2"], "value": "k == 2", "loc": "7:1"}]}]}]}],
 "channels": [
  {"name": "P_to_q", "type": "int32", "dims": [4], "depth": 2, "producer": "P", "consumer": "q",
   "loc": "6:1"}],
 "registers": []
})JSON";

Program load(const char* json) { return read_program(json, "test.json"); }

// testdata/specs/seed001_example2.t2s at the merged stage: nested realizes of f and g in one host
// kernel.
Program realize_program() { return testing::load_golden_ir("seed001_example2", "merged"); }

Program all_device(Program p) {
  for (Kernel& k : p.kernels) k.place = Place::kDevice;
  return p;
}

std::string runfile(const std::string& path) {
  const char* root = std::getenv("TEST_SRCDIR");
  return std::string(root ? root : ".") + "/t2s/" + path;
}

std::string temp_path(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp ? tmp : "/tmp") + "/" + name;
}

// Runs `command`, returning its exit status and (in *output) what it printed.
int run(const std::string& command, std::string* output) {
  const std::string log = temp_path("command.log");
  const int status = std::system((command + " >" + log + " 2>&1").c_str());
  std::ifstream in(log);
  output->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

// check_cl.sh on `cl`: clang as OpenCL C 2.0 with the Intel channel header.
void expect_cl_accepted(const std::string& cl, const std::string& name) {
  const std::string path = temp_path(name + ".cl");
  write_file(path, cl);
  std::string output;
  const int status =
      run(runfile("libs/backends/opencl/testing/check_cl.sh") + " " +
              runfile("libs/backends/opencl/testing/intel_fpga_channels.h") + " " + path,
          &output);
  EXPECT_EQ(status, 0) << output << "\n" << cl;
}

void expect_host_accepted(const std::string& cpp, const std::string& name) {
  const std::string path = temp_path(name + ".cpp");
  write_file(path, cpp);
  std::string output;
  const int status =
      run(runfile("libs/backends/opencl/testing/check_host.sh") + " " + path, &output);
  EXPECT_EQ(status, 0) << output;
}

// The position of `needle` in `text`; fails the test when it is missing.
size_t position(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << "missing: " << needle;
  return at;
}

template <typename F>
void expect_diagnostic(F&& f, const std::string& rule, const std::string& loc,
                       const std::string& message_part) {
  try {
    f();
    ADD_FAILURE() << "no diagnostic; expected [" << rule << "]";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), rule) << d.message();
    EXPECT_EQ(d.loc().str(), loc) << d.message();
    EXPECT_NE(d.message().find(message_part), std::string::npos) << d.message();
  }
}

TEST(OpenclVectorTypes, NativeVectorsAndStructs) {
  EXPECT_EQ(opencl_vector_type_name(Type::Float(32)), "float");
  EXPECT_EQ(opencl_vector_type_name(Type::Float(32, 2)), "float2");
  EXPECT_EQ(opencl_vector_type_name(Type::Float(32, 4)), "float4");
  EXPECT_EQ(opencl_vector_type_name(Type::Float(64, 3)), "double3");
  EXPECT_EQ(opencl_vector_type_name(Type::Int(32, 8)), "int8");
  EXPECT_EQ(opencl_vector_type_name(Type::UInt(8, 16)), "uchar16");
  EXPECT_EQ(opencl_vector_type_name(Type::Int(64, 2)), "long2");
  EXPECT_EQ(opencl_vector_type_name(Type::Bool(4)), "char4");
  EXPECT_EQ(opencl_vector_type_name(Type::Float(32, 5)), "float_vec5");
  EXPECT_EQ(opencl_vector_type_name(Type::Int(16, 32)), "short_vec32");
  EXPECT_EQ(opencl_vector_type_name(Type::UInt(32, 12)), "uint_vec12");
  EXPECT_EQ(opencl_vector_typedef(Type::Float(32, 5)),
            "typedef struct { float data[5]; } float_vec5;\n");
  EXPECT_EQ(opencl_vector_typedef(Type::Int(16, 32)),
            "typedef struct { short data[32]; } short_vec32;\n");
  EXPECT_EQ(opencl_vector_typedef(Type::Bool(7)), "typedef struct { char data[7]; } char_vec7;\n");
  EXPECT_EQ(opencl_vector_typedef(Type::Float(32, 4)), "");
  EXPECT_EQ(opencl_vector_typedef(Type::Float(32)), "");
}

TEST(OpenclVectorTypes, NamesCompileAsOpenCl) {
  std::string cl = "#pragma OPENCL EXTENSION cl_intel_channels : enable\n";
  std::string uses;
  for (int lanes : {2, 3, 4, 5, 8, 9, 16, 17, 31, 32}) {
    for (Type t : {Type::Float(32, lanes), Type::Int(8, lanes), Type::UInt(64, lanes)}) {
      cl += opencl_vector_typedef(t);
      const std::string name = opencl_vector_type_name(t);
      cl += "channel " + name + " ch_" + name + ";\n";
      uses += "  write_channel_intel(ch_" + name + ", read_channel_intel(ch_" + name + "));\n";
    }
  }
  cl += "__kernel __attribute__((max_global_work_dim(0))) __attribute__((autorun))\nvoid k() {\n" +
        uses + "}\n";
  expect_cl_accepted(cl, "vector_types");
}

TEST(OpenclVectorTypes, MoreThan32LanesRefused) {
  SourceLoc loc;
  loc.line = 4;
  loc.col = 2;
  expect_diagnostic([&] { opencl_vector_type_name(Type::Float(32, 33), loc); }, "emit-type", "4:2",
                    "cannot express 33 lanes (vector type float32x33; it takes 2 to 32 lanes)");
}

// Tensors (docs/ir-vectors.md): rows of a native width are a struct of native rows, up to 64
// lanes; other rows the flat struct up to 32 lanes, else emit-type.
TEST(OpenclVectorTypes, Tensors) {
  const Type f16x4 = Type::Float(32).with_shape({16, 4});
  EXPECT_EQ(opencl_vector_type_name(f16x4), "float_tensor16x4");
  EXPECT_EQ(opencl_vector_typedef(f16x4),
            "typedef struct { float16 data[4]; } float_tensor16x4;\n");
  EXPECT_EQ(opencl_vector_type_name(Type::Float(32).with_shape({4, 4})), "float_tensor4x4");
  EXPECT_EQ(opencl_vector_typedef(Type::Bool().with_shape({8, 2, 2})),
            "typedef struct { char8 data[4]; } char_tensor8x2x2;\n");
  EXPECT_EQ(opencl_vector_type_name(Type::Int(32).with_shape({5, 2})), "int_vec10");
  SourceLoc loc;
  loc.line = 4;
  loc.col = 2;
  expect_diagnostic(
      [&] {
        opencl_vector_type_name(Type::Float(32).with_shape({5, 8}), loc);
      },
      "emit-type", "4:2",
      "cannot express 40 lanes (tensor type float32x5x8: its rows of 5 lanes have no "
      "native type, and a struct of lanes takes 2 to 32)");
}

// A tensor load whose rows are contiguous in memory is one vloadW per row, and its store one
// vstoreW per row; its arithmetic one native operation per row (seed 002 part 3).
TEST(OpenclDevice, TensorRowsLoadedAndStoredWithVloadN) {
  const std::string cl = emit_opencl(testing::load_golden_ir("vec_tensor64", "gathered"));
  EXPECT_NE(cl.find("typedef struct { float16 data[4]; } float_tensor16x4;"), std::string::npos)
      << cl;
  EXPECT_NE(cl.find("(float_tensor16x4){{vload16(0, a + 16 * xo + 32 * (4 * yo)), "
                    "vload16(0, a + 16 * xo + 32 * (4 * yo + 1)), "
                    "vload16(0, a + 16 * xo + 32 * (4 * yo + 2)), "
                    "vload16(0, a + 16 * xo + 32 * (4 * yo + 3))}}"),
            std::string::npos)
      << cl;
  for (int row = 0; row < 4; ++row)
    EXPECT_NE(cl.find("vstore16(t2s_v.data[" + std::to_string(row) + "], 0, out + 0 + 16 * (" +
                      std::to_string(row) + " + 4 * (xo + 2 * yo)));"),
              std::string::npos)
        << cl;
  EXPECT_NE(cl.find("  t2s_r.data[3] = t2s_0.data[3] * t2s_1.data[3];\n"), std::string::npos) << cl;
  // No lane of the inputs is read one by one.
  for (const char* element : {" a[", "(a[", " b[", "(b["})
    EXPECT_EQ(cl.find(element), std::string::npos) << element << "\n" << cl;
}

TEST(OpenclDevice, ChannelsWithDepthAndAutorun) {
  const std::string cl = emit_opencl(load(kChannels));
  EXPECT_EQ(cl.rfind("#pragma OPENCL EXTENSION cl_intel_channels : enable\n", 0), 0u) << cl;
  // Depth 0 is Intel's default: no attribute.
  EXPECT_CONTAINS(cl, "channel float A_to_drainer;");
  EXPECT_CONTAINS(cl, "channel float drainer_to_collector __attribute__((depth(4)));");
  // The drainer touches no global memory: autorun, no arguments.
  EXPECT_CONTAINS(cl,
                  "__kernel __attribute__((max_global_work_dim(0))) __attribute__((autorun))\n"
                  "void drainer() {\n");
  EXPECT_CONTAINS(cl,
                  "write_channel_intel(drainer_to_collector, read_channel_intel(A_to_drainer));");
  // The others take their global memory: inputs const restrict, a written buffer restrict.
  EXPECT_CONTAINS(cl,
                  "__kernel __attribute__((max_global_work_dim(0)))\n"
                  "void A(__global const float* restrict a) {\n");
  EXPECT_CONTAINS(cl,
                  "__kernel __attribute__((max_global_work_dim(0)))\n"
                  "void collector(__global float* restrict collector) {\n");
  EXPECT_CONTAINS(cl, "write_channel_intel(A_to_drainer, A_val);");
  // The host kernel is not device code.
  EXPECT_NOT_CONTAINS(cl, "unloader(");
  EXPECT_CONTAINS(cl, "//   host: unloader\n");
  expect_cl_accepted(cl, "channels");
}

TEST(OpenclDevice, UnrolledLoopsAndFortranOrder) {
  const std::string cl = emit_opencl(load(kChannels));
  // Only the unrolled loop (the PE loop) gets the pragma.
  EXPECT_CONTAINS(cl, "    #pragma unroll\n    for (int i = 0; i < 4; i++) {\n");
  EXPECT_CONTAINS(cl, "  for (int k = 0; k < 8; k++) {\n");
  EXPECT_NOT_CONTAINS(cl, "#pragma unroll\n  for (int k");
  // a is 4 x 8: a(i, k) at i + 4 * k; collector is [0, 4) x [0, 2).
  EXPECT_CONTAINS(cl, "a[i + 4 * k]");
  EXPECT_CONTAINS(cl, "collector[i + 4 * k] = read_channel_intel(drainer_to_collector);");
}

TEST(OpenclDevice, ShiftRegisterArrayAndShiftLoop) {
  const std::string cl = emit_opencl(load(kChannels));
  // Declared at the top of its kernel: PEs (outermost first), then the slots.
  EXPECT_CONTAINS(cl,
                  "void A(__global const float* restrict a) {\n"
                  "  // shift register A_shreg of Func A: 3 values per PE, PE array (4)\n"
                  "  float A_shreg[4][3];\n");
  // The shift: an unrolled loop moving slot s - 1 to slot s, deepest first; then slot 0.
  EXPECT_CONTAINS(cl,
                  "      #pragma unroll\n"
                  "      for (int t2s_s = 2; t2s_s > 0; t2s_s--) {\n"
                  "        A_shreg[i][t2s_s] = A_shreg[i][t2s_s - 1];\n"
                  "      }\n"
                  "      A_shreg[i][0] = A_val;\n");
  EXPECT_CONTAINS(cl, "A_shreg[i - 1][2]");
}

TEST(OpenclDevice, FloorDivisionHelper) {
  const std::string cl = emit_opencl(load(kDivision));
  EXPECT_CONTAINS(cl, "static inline int t2s_div_i32(int a, int b) {");
  EXPECT_CONTAINS(cl, "const int k = t2s_div_i32(t, 2);");
  // Halide's division rounds down: a remainder below 0 moves the quotient.
  EXPECT_CONTAINS(cl, "if (r < 0) q = y > 0 ? q - 1 : q + 1;");
  // A shift register of depth 1 (a plain register per PE).
  EXPECT_CONTAINS(cl, "  int A_shreg[4][1];\n");
  EXPECT_CONTAINS(cl, "A_shreg[s][0] = A_val;");
  EXPECT_CONTAINS(cl, "c[i] = A_val;");
  expect_cl_accepted(cl, "division");
  const std::string both = emit_opencl(load(kChannels));
  EXPECT_CONTAINS(both, "t2s_div_i32(k, 4) * 4 + 3 == k");
}

TEST(OpenclDevice, FifoRingBuffer) {
  const std::string cl = emit_opencl(all_device(load(kFifo)));
  EXPECT_CONTAINS(cl,
                  "  int A_fifo[10][9];\n"
                  "  int A_fifo_head[10] = {0};\n"
                  "  int A_fifo_count[10] = {0};\n");
  // Push: at (head + count) mod depth, then count one more.
  EXPECT_CONTAINS(cl, "const int t2s_tail = A_fifo_head[i] + A_fifo_count[i];\n");
  EXPECT_CONTAINS(cl, "A_fifo[i][t2s_tail < 9 ? t2s_tail : t2s_tail - 9] = A_val;\n");
  EXPECT_CONTAINS(cl, "A_fifo_count[i] += 1;\n");
  // Pop: the helper takes the head's slot and advances it.
  EXPECT_CONTAINS(cl, "A_fifo[i - 1][t2s_fifo_pop(&A_fifo_head[i - 1], &A_fifo_count[i - 1], 9)]");
  EXPECT_CONTAINS(cl, "static inline int t2s_fifo_pop(int* head, int* count, int depth) {");
  // Inputs and the output buffer are global; c(i, j) of [0, 10) x [0, 10) at i + 10 * j.
  EXPECT_CONTAINS(cl, "void A(__global const int* restrict a, __global int* restrict c) {");
  EXPECT_CONTAINS(cl, "c[i + 10 * j] = A_val;");
  expect_cl_accepted(cl, "fifo");
}

// A program whose kernels all run on the host has nothing for the device: refused at the
// realized Func's declaration, naming what to place on the device.
TEST(OpenclDevice, NoDeviceKernelIsRefused) {
  try {
    emit_opencl(load(kFifo));
    FAIL() << "a program without device kernels was emitted";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "emit-no-device");
    EXPECT_CONTAINS(d.message(), "no Func of this program runs on the device");
  }
}

TEST(OpenclDevice, RealizeAsPrivateArray) {
  const std::string cl = emit_opencl(all_device(realize_program()));
  // f and g are [0, 4) x [0, 3): 12 elements, (i, j) at i + 4 * j.
  EXPECT_CONTAINS(cl, "int f[12];  // f [0, 4) x [0, 3), Fortran order");
  EXPECT_CONTAINS(cl, "int g[12];  // g [0, 4) x [0, 3), Fortran order");
  EXPECT_CONTAINS(cl, "f[i + 4 * j] = i == 0 ? i : f[i - 1 + 4 * j];");
  EXPECT_CONTAINS(cl, "g[i + 4 * j] = i == 0 ? f[i + 4 * j] : g[i - 1 + 4 * j];");
  EXPECT_CONTAINS(cl, "out[j] = g[i + 4 * j] + j;");
  EXPECT_CONTAINS(cl, "void f(__global int* restrict out) {");
  expect_cl_accepted(cl, "realize");
}

TEST(OpenclDevice, ArrayOfChannelsAndBoolBuffer) {
  const std::string cl = emit_opencl(load(kChannelArray));
  EXPECT_CONTAINS(cl, "channel int P_to_q[4] __attribute__((depth(2)));");
  EXPECT_CONTAINS(cl, "write_channel_intel(P_to_q[i], i * k);");
  EXPECT_CONTAINS(cl, "q[i + 4 * k] = read_channel_intel(P_to_q[i]);");
  // flags: bool in global memory is uchar; its min is 2.
  EXPECT_CONTAINS(cl, "void q(__global int* restrict q, __global uchar* restrict flags) {");
  EXPECT_CONTAINS(cl, "flags[i + 2 - 2] = (uchar)(k == 2);");
  // P touches no global memory but writes before it reads anything (it reads nothing): Intel
  // would restart it as an autorun kernel and it would send its values again, so the host
  // enqueues it.
  EXPECT_CONTAINS(cl, "__kernel __attribute__((max_global_work_dim(0)))\nvoid P() {");
  EXPECT_EQ(cl.find("__attribute__((autorun))"), std::string::npos) << cl;
  expect_cl_accepted(cl, "channel_array");
}

// The provide statement innermost in kernel `k`'s loop nest (for k, for i, provide).
Provide& innermost_provide(Program& p, size_t k) {
  Stmt* s = &testing::edit(p.kernels.at(k).body.at(0));
  while (For* loop = s->as<For>()) s = &testing::edit(loop->body.at(0));
  EXPECT_EQ(s->kind(), Stmt::kProvide);
  return *s->as<Provide>();
}

// A vectorized-stage program: a float32x4 channel and shift register between device kernels, a
// float32x5 value that only an expression has, contiguous and bool scatters, and a host kernel
// with vector code. (//tests/cli:vector_ir_test runs such programs against t2s-run.)
const char* const kVectors = R"JSON({
 "t2s_ir": 1, "stage": "vectorized", "vars": ["i"],
 "inputs": [{"name": "x", "type": "float32", "dims": 1, "extents": ["16"], "loc": "3:1"}],
 "funcs": [
  {"name": "e", "type": "float32", "args": ["i"], "place": "device", "declared": true,
   "definition": null, "loc": "8:1", "decl_loc": "7:6"},
  {"name": "flags", "type": "bool", "args": ["i"], "place": "device", "declared": true,
   "definition": null, "loc": "9:1", "decl_loc": "7:9"}],
 "directives": [], "output": {"func": "e", "extents": ["16"], "loc": "10:1"},
 "buffers": [
  {"name": "e", "type": "float32", "bounds": [["0", "16"]], "loc": "8:1"},
  {"name": "flags", "type": "bool", "bounds": [["0", "8"]], "loc": "9:1"}],
 "kernels": [
  {"name": "P", "place": "device", "loc": "6:1", "body": [
   {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
    {"write_channel": "ch", "index": [], "value": "x(ramp(i * 4, 1, 4))", "loc": "6:1"}]}]},
  {"name": "E", "place": "device", "loc": "8:1", "body": [
   {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
    {"shift": "V", "args": ["0"]},
    {"provide": "V", "args": ["0", "0"], "value": "read_channel(ch)", "loc": "8:1"},
    {"let": "w", "value": "concat(slice(V(0, 0), 0, 3), broadcast(1.0f, 2))", "loc": "8:5",
     "body": [
     {"provide": "e", "args": ["ramp(i * 4, 1, 4)"], "value": "slice(w, 1, 4) / V(0, 0)",
      "loc": "8:1"},
     {"provide": "flags", "args": ["ramp(i * 2, 1, 2)"],
      "value": "slice(w, 0, 2) < slice(w, 2, 2)", "loc": "9:1"}]}]}]},
  {"name": "H", "place": "host", "loc": "11:1", "body": [
   {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
    {"provide": "e", "args": ["ramp(i, 4, 4)"],
     "value": "e(ramp(i, 4, 4)) * broadcast(2.0f, 4)", "loc": "11:1"}]}]}],
 "channels": [{"name": "ch", "type": "float32x4", "dims": [], "depth": 2, "producer": "P",
               "consumer": "E", "loc": "6:1"}],
 "registers": [
  {"name": "V", "func": "e", "kernel": "E", "type": "float32x4", "kind": "shift", "shape": [1],
   "depth": 1, "distance": [0], "pe_offset": [0], "time_distance": 0, "period": 1, "naive": 1,
   "loc": "8:1"}]
})JSON";

TEST(OpenclDevice, VectorCode) {
  const std::string cl = emit_opencl(load(kVectors));
  // Types: the struct of a width without a native type, also when only an expression has it.
  EXPECT_CONTAINS(cl, "typedef struct { float data[5]; } float_vec5;\n");
  EXPECT_CONTAINS(cl, "channel float4 ch __attribute__((depth(2)));");
  EXPECT_CONTAINS(cl, "  float4 V[1][1];\n");
  // Contiguous global reads and writes are vloadN / vstoreN; bool data is uchar, per lane.
  EXPECT_CONTAINS(cl, "write_channel_intel(ch, vload4(0, x + i * 4));");
  EXPECT_CONTAINS(cl, "V[0][0] = read_channel_intel(ch);");
  EXPECT_CONTAINS(cl, "const float_vec5 w = t2s_concat_f32_3_2(V[0][0].s012, (float2)(1.0f));");
  EXPECT_CONTAINS(cl, "vstore4(t2s_slice_f32x5_1_4(w) / V[0][0], 0, e + i * 4);");
  EXPECT_CONTAINS(cl,
                  "const char2 t2s_1 = t2s_vlt_f32x2(t2s_slice_f32x5_0_2(w), "
                  "t2s_slice_f32x5_2_2(w));");
  EXPECT_CONTAINS(cl, "flags[t2s_0.s1] = (uchar)(t2s_1.s1);");
  EXPECT_CONTAINS(cl,
                  "static inline float_vec5 t2s_concat_f32_3_2(float3 t2s_0, float2 t2s_1) {\n"
                  "  return (float_vec5){{\n      t2s_0.s0,\n");
  expect_cl_accepted(cl, "vectors");
  // The host kernel's vector code is C++, with the runtime's Vec.
  const std::string cpp = emit_opencl_host(load(kVectors));
  EXPECT_CONTAINS(cpp,
                  "t2s_vmul_f32x4({[&] { const t2s_rt::Vec<int32_t, 4> t2s_0 = "
                  "t2s_ramp_i32x4({i, 4}); return t2s_rt::Vec<float, 4>{{e.at(\"read\", "
                  "{t2s_0.lane[0]}), ");
  expect_host_accepted(cpp, "vectors_host");
}

TEST(OpenclDevice, MoreThan32LanesRefusedAtTheirStatement) {
  // 33 lanes in a device kernel: emit-type at the let (whose loc the check finds), never a
  // crash; in a host kernel they are C++ and fine.
  std::string json = kVectors;
  const std::string two = "broadcast(1.0f, 2)";
  json.replace(json.find(two), two.size(), "broadcast(1.0f, 30)");
  json.replace(json.find("slice(w, 1, 4) / V(0, 0)"), 24, "slice(w, 29, 4) / V(0, 0)");
  json.replace(json.find("slice(w, 2, 2)"), 14, "slice(w, 30, 2)");
  const Program p = load(json.c_str());
  expect_diagnostic([&] { emit_opencl(p); }, "emit-type", "8:5",
                    "the opencl target cannot express 33 lanes (vector type float32x33");
  Program q = load(kVectors);
  Provide& host = innermost_provide(q, 2);
  const Type wide = Type::Float(32, 40);
  host.value = make_call(
      "slice", CallKind::kIntrinsic, Type::Float(32, 4),
      {make_call("concat", CallKind::kIntrinsic, wide,
                 {host.value,
                  make_call("broadcast", CallKind::kIntrinsic, Type::Float(32, 36),
                            {make_float(Type::Float(32), 1.0), make_int(Type::Int(32), 36)})}),
       make_int(Type::Int(32), 0), make_int(Type::Int(32), 4)});
  EXPECT_NO_THROW(emit_opencl(q));
  expect_host_accepted(emit_opencl_host(q), "wide_host");
}

TEST(OpenclDevice, GatherAtIndicesWithAnEffectRefused) {
  // Each lane computes its index in OpenCL: an index that reads a channel cannot be repeated.
  std::string json = kVectors;
  const std::string read = "\"value\": \"read_channel(ch)\"";
  json.replace(json.find(read), read.size(),
               "\"value\": \"x(cast(Int(32, 4), read_channel(ch)))\"");
  const Program p = load(json.c_str());
  expect_diagnostic([&] { emit_opencl(p); }, "emit-unsupported", "8:1",
                    "cannot gather from 'x' at indices that read a channel");
}

TEST(OpenclDevice, NonConstantExtentRefused) {
  Program p = load(kChannels);
  p.buffers[0].extents[1] = make_var("n");
  expect_diagnostic([&] { emit_opencl(p); }, "emit-extent", "12:3", "buffer 'collector'");
  expect_diagnostic([&] { emit_opencl_host(p); }, "emit-extent", "12:3", "buffer 'collector'");
  Program q = load(kChannels);
  q.inputs[0].extents.clear();  // an input read at an index that is not quasi-affine
  expect_diagnostic([&] { emit_opencl(q); }, "emit-extent", "3:12", "input 'a'");
}

TEST(OpenclDevice, ParsedStageRefused) {
  Program p = load(kChannels);
  p.stage = Stage::kParsed;
  expect_diagnostic([&] { emit_opencl(p); }, "emit-stage", "", "merged stage or later");
  expect_diagnostic([&] { emit_opencl_host(p); }, "emit-stage", "", "merged stage or later");
}

TEST(OpenclDevice, Deterministic) {
  EXPECT_EQ(emit_opencl(load(kChannels)), emit_opencl(load(kChannels)));
  EXPECT_EQ(emit_opencl_host(load(kChannels)), emit_opencl_host(load(kChannels)));
}

TEST(OpenclHost, InputsTakenAsTSRunTakesThem) {
  // A read input is kept as its leading region (the kernels index the inferred extents); an
  // array given for an input no kernel reads is still checked (t2s_rt::check_input_array).
  Program p = load(kChannels);
  Input unread;
  unread.name = "z";
  unread.type = Type::Int(16);
  unread.dims = 2;
  unread.extents = {0, 0};
  p.inputs.push_back(unread);
  const std::string cpp = emit_opencl_host(p);
  EXPECT_CONTAINS(cpp, "t2s_d.a = t2s_rt::input_region(t2s_options, \"a\", \"float32\", {4, 8});");
  EXPECT_CONTAINS(cpp,
                  "  (void)t2s_rt::input_array(t2s_options, \"z\", \"int16\", {0, 0});  // not "
                  "read: only checked\n");
  EXPECT_NOT_CONTAINS(cpp, "t2s_d.z");
}

TEST(OpenclHost, RunsKernelsInExecutionModelOrder) {
  const std::string cpp = emit_opencl_host(load(kChannels));
  EXPECT_CONTAINS(cpp, "#define CL_TARGET_OPENCL_VERSION 120\n#include <CL/cl.h>\n");
  EXPECT_CONTAINS(cpp, "namespace t2s_rt {");              // the runtime, pasted in
  EXPECT_CONTAINS(cpp, t2s_opencl_host_support_source());  // and host_support.h
  EXPECT_CONTAINS(cpp, "t2s_rt::parse_options(argc, argv, ");
  EXPECT_CONTAINS(cpp, "{\"KERNEL.aocx\"});");
  EXPECT_CONTAINS(cpp, "if (platform_name(p).find(\"Intel(R) FPGA\") != std::string::npos) {");
  EXPECT_CONTAINS(cpp, "clCreateProgramWithBinary(context_, 1, &device_, &size, &bytes");
  EXPECT_CONTAINS(cpp, "t2s_cl_check(err, \"clCreateProgramWithBinary\");");
  EXPECT_CONTAINS(cpp, "what + \" failed: \" + t2s_cl_error_name(code) + \" (\"");
  EXPECT_CONTAINS(cpp, "{-42, \"CL_INVALID_BINARY\"},");
  // The autorun drainer is neither created nor enqueued.
  EXPECT_NOT_CONTAINS(cpp, "t2s_cl.kernel(\"drainer\")");
  const size_t input =
      position(cpp, "t2s_d.a = t2s_rt::input_region(t2s_options, \"a\", \"float32\", {4, 8});");
  const size_t kernel_a = position(cpp, "cl_kernel t2s_kernel_A = t2s_cl.kernel(\"A\");");
  const size_t arg_a = position(
      cpp, "t2s_opencl::set_arg(t2s_kernel_A, 0, t2s_mem_a, \"kernel A, argument 0: a\");");
  const size_t upload =
      position(cpp, "t2s_opencl::write(t2s_io, t2s_mem_a, t2s_d.a, \"input a\");");
  const size_t task_a = position(cpp, "t2s_opencl::task(t2s_queue_A, t2s_kernel_A, \"kernel A\");");
  const size_t task_c = position(
      cpp, "t2s_opencl::task(t2s_queue_collector, t2s_kernel_collector, \"kernel collector\");");
  const size_t finish_a = position(cpp, "t2s_opencl::finish(t2s_queue_A, \"kernel A\");");
  const size_t finish_c =
      position(cpp, "t2s_opencl::finish(t2s_queue_collector, \"kernel collector\");");
  const size_t read_back = position(
      cpp, "t2s_opencl::read(t2s_io, t2s_mem_collector, t2s_d.collector, \"buffer collector\");");
  const size_t host = position(cpp, "  t2s_host_unloader(t2s_d);\n");
  const size_t output = position(cpp, "t2s_rt::write_output(t2s_options, \"out\", t2s_d.out);");
  EXPECT_LT(input, kernel_a);
  EXPECT_LT(kernel_a, arg_a);
  EXPECT_LT(arg_a, upload);
  EXPECT_LT(upload, task_a);
  EXPECT_LT(task_a, task_c);    // the run is enqueued together ...
  EXPECT_LT(task_c, finish_a);  // ... then waited for
  EXPECT_LT(finish_a, finish_c);
  EXPECT_LT(finish_c, read_back);
  EXPECT_LT(read_back, host);
  EXPECT_LT(host, output);
  // The host kernel reads the buffer in the same Fortran layout, bounds-checked.
  EXPECT_CONTAINS(cpp,
                  "const t2s_ref<float> collector(\"'collector'\", "
                  "reinterpret_cast<float*>(t2s_d.collector.data.data()), {0, 0}, {4, 2});");
  EXPECT_CONTAINS(cpp, "auto& t2s_cell = out.at(\"write\", {i, k});\n");
  EXPECT_CONTAINS(cpp, "t2s_cell = collector.at(\"read\", {i, k}) * 2.0f;\n");
  // The output buffer never goes to the device.
  EXPECT_NOT_CONTAINS(cpp, "t2s_mem_out");
  expect_host_accepted(cpp, "channels_host");
}

TEST(OpenclHost, HostKernelRegistersAndRealizes) {
  const std::string cpp = emit_opencl_host(load(kFifo));
  EXPECT_CONTAINS(cpp, "t2s_rt::FifoRegister<int32_t> A_fifo(\"A_fifo\", {10}, 9);");
  EXPECT_CONTAINS(cpp, "A_fifo.pop({t2s_sub_i32(i, 1)})");
  EXPECT_CONTAINS(cpp, "const int64_t t2s_pe = A_fifo.locate_push({i});\n");
  EXPECT_CONTAINS(cpp, "A_fifo.check_empty(\"A\");");
  // No device kernel: no OpenCL objects at run time.
  EXPECT_NOT_CONTAINS(cpp, "t2s_opencl t2s_cl(");
  EXPECT_CONTAINS(cpp, "This program has no device kernel");
  expect_host_accepted(cpp, "fifo_host");

  const std::string realize = emit_opencl_host(realize_program());
  EXPECT_CONTAINS(realize, "t2s_rt::FuncStorage<int32_t> f(\"f\", {0, 0}, {4, 3});");
  EXPECT_CONTAINS(realize, "g.read({t2s_sub_i32(i, 1), j})");
}

// Intel's channel arrays take constant indices: after unrolling, an index of unrolled loops
// (or lets of them) is one; an index of a serial loop is expanded into a choice among the
// constants of its dimension (a read per constant under `?:`, a write under an if chain).
TEST(OpenclDevice, ChannelArrayIndexedByASerialLoopExpanded) {
  const std::string cl = emit_opencl(testing::load_golden_ir("gemm_inherit_drainer", "gathered"));
  EXPECT_CONTAINS(cl, "channel float c_to_drainer[3][4];");
  EXPECT_CONTAINS(cl, "write_channel_intel(c_to_drainer[iii][jjj], C_val);");
  EXPECT_CONTAINS(cl, "read_channel_intel(c_to_drainer[iii][jjj])");
  // The collector's own transform makes iii a time loop: one read per value of iii.
  const std::string collector =
      emit_opencl(testing::load_golden_ir("gemm_inherit_collector", "gathered"));
  EXPECT_CONTAINS(collector,
                  "iii == 0 ? read_channel_intel(drainer_to_collector[0][jjj]) : (iii == 1 ? "
                  "read_channel_intel(drainer_to_collector[1][jjj]) : "
                  "read_channel_intel(drainer_to_collector[2][jjj]))");
  EXPECT_NOT_CONTAINS(collector, "read_channel_intel(drainer_to_collector[iii]");
  // Through a let: the drainer reads the channel at (x, jjj), x bound to an unrolled loop
  // (kept) or to a serial one (expanded); a write at a serial index is an if chain.
  auto drainer_with_let = [](const std::string& var) {
    Program p = testing::load_golden_ir("gemm_inherit_drainer", "gathered");
    StmtList* body = &p.kernels[1].body;
    for (int depth = 0; depth < 4; ++depth) body = &testing::edit_as<For>((*body)[0])->body;
    Provide* provide = testing::edit_as<Provide>((*body)[0]);
    const Type i32 = Type::Int(32);
    std::vector<Expr> operands = provide->value->operands;
    operands[1] = make_var("x", i32, {});
    provide->value = make_call("read_channel", CallKind::kChannel, provide->value->type, operands);
    *body = StmtList{make_let("x", make_var(var, i32, {}), *body)};
    return p;
  };
  EXPECT_CONTAINS(emit_opencl(drainer_with_let("iii")), "read_channel_intel(c_to_drainer[x][jjj])");
  const std::string serial = emit_opencl(drainer_with_let("jj"));
  EXPECT_CONTAINS(serial, "x == 0 ? read_channel_intel(c_to_drainer[0][jjj]) : ");
  EXPECT_CONTAINS(serial, ": read_channel_intel(c_to_drainer[2][jjj])");
  EXPECT_NOT_CONTAINS(serial, "c_to_drainer[x]");
  // The producer writing at a serial index: the value once, then an if chain.
  Program written = testing::load_golden_ir("gemm_inherit_drainer", "gathered");
  bool found = false;
  std::function<void(StmtList&)> retarget = [&](StmtList& list) {
    for (StmtPtr& slot : list) {
      Stmt& s = testing::edit(slot);
      if (WriteChannel* w = s.as<WriteChannel>(); w && !found) {
        w->index[0] = make_var("kk", Type::Int(32), {});
        found = true;
      }
      for (StmtList* child : s.children()) retarget(*child);
    }
  };
  retarget(written.kernels[0].body);
  ASSERT_TRUE(found);
  const std::string chain = emit_opencl(written);
  EXPECT_CONTAINS(chain, "const float t2s_channel_value_0_ = C_val;");
  EXPECT_CONTAINS(chain, "if (kk == 0) {");
  EXPECT_CONTAINS(chain, "write_channel_intel(c_to_drainer[0][jjj], t2s_channel_value_0_);");
  EXPECT_CONTAINS(chain, "write_channel_intel(c_to_drainer[2][jjj], t2s_channel_value_0_);");
  // An index read from a channel at run time cannot be expanded.
  Program runtime_index = testing::load_golden_ir("gemm_inherit_drainer", "gathered");
  {
    StmtList* body = &runtime_index.kernels[1].body;
    for (int depth = 0; depth < 4; ++depth) body = &testing::edit_as<For>((*body)[0])->body;
    Provide* provide = testing::edit_as<Provide>((*body)[0]);
    std::vector<Expr> operands = provide->value->operands;
    operands[1] = make_cast(Type::Int(32), provide->value);
    provide->value = make_call("read_channel", CallKind::kChannel, provide->value->type, operands);
  }
  expect_diagnostic([&] { emit_opencl(runtime_index); }, "emit-channel", "44:3",
                    "a value read at run time");
}

TEST(OpenclHost, ChannelInHostKernelRefused) {
  Program p = load(kChannels);
  p.kernels[1].place = Place::kHost;  // the drainer reads and writes channels
  expect_diagnostic([&] { emit_opencl_host(p); }, "emit-channel", "12:3", "host kernel 'drainer'");
}

}  // namespace
}  // namespace t2s
