// emit_cpp at the source level: what it refuses and how (compiling and running the programs is
// tested by //tests/emit and the project's emulation agreement tests).
#include "libs/backends/cpp/cpp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "libs/ir/expr_parser.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/verify.h"
#include "libs/runtime/runtime_source.h"
#include "libs/testing/golden.h"
#include "libs/testing/ir_edit.h"

namespace t2s {
namespace {

// seed001_wrap_image's merged stage: one host kernel that copies input a to output g.
const char kCopy[] = R"json({
  "t2s_ir": 1, "stage": "merged", "vars": ["i", "j"],
  "inputs": [{"name": "a", "type": "int32", "dims": 2, "extents": ["4", "3"], "loc": "12:12"}],
  "funcs": [{"name": "g", "type": "int32", "args": ["i", "j"], "place": "host",
             "declared": false, "definition": "a(i, j)", "loc": "16:1", "decl_loc": "14:12"}],
  "directives": [],
  "output": {"func": "g", "extents": ["4", "3"], "loc": "19:3"},
  "buffers": [{"name": "g", "type": "int32", "bounds": [["0", "4"], ["0", "3"]], "loc": "16:1"}],
  "kernels": [{"name": "g", "place": "host", "body": [
    {"for": "j", "min": "0", "extent": "3", "kind": "serial", "body": [
      {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
        {"provide": "g", "args": ["i", "j"], "value": "a(i, j)", "loc": "16:1"}]}]}],
    "loc": "16:1"}],
  "channels": [], "registers": []
})json";

Program copy_program() { return read_program(kCopy, "copy.json"); }

// The innermost statement of the copy kernel (the provide).
Stmt& provide_stmt_of(Program& p) {
  return testing::edit(
      testing::edit_as<For>(testing::edit_as<For>(p.kernels[0].body[0])->body[0])->body[0]);
}

Diagnostic diagnostic_of(const Program& p) {
  try {
    emit_cpp(p);
  } catch (const Diagnostic& d) {
    return d;
  }
  ADD_FAILURE() << "no diagnostic";
  return Diagnostic({}, "", "");
}

std::string internal_error_of(const Program& p) {
  try {
    emit_cpp(p);
  } catch (const InternalError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no internal error";
  return "";
}

TEST(EmitCpp, IsSelfContainedAndDeterministic) {
  const std::string code = emit_cpp(copy_program());
  EXPECT_EQ(code, emit_cpp(copy_program()));
  EXPECT_NE(code.find(t2s_runtime_source()), std::string::npos);
  EXPECT_NE(code.find("//   g++ -std=c++17 -O2 -pthread -ffp-contract=off g_emu.cpp -o g_emu\n"),
            std::string::npos);
  EXPECT_NE(code.find("t2s_a_in.init(\"a\", t2s_rt::input_array(options, \"a\", \"int32\", {4, "
                      "3}));"),
            std::string::npos)
      << code;
  EXPECT_NE(code.find("t2s_rt::write_output(options, \"g\", t2s_g_bf.to_output());"),
            std::string::npos);
  // The only #include lines are the runtime's (standard headers).
  std::istringstream lines(code);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("#include", 0) == 0) {
      EXPECT_NE(line.find('<'), std::string::npos) << line;
    }
}

TEST(EmitCpp, RefusesParsedPrograms) {
  Program p = copy_program();
  p.stage = Stage::kParsed;
  EXPECT_EQ(diagnostic_of(p).rule(), "emit-stage");
}

// Extents are integers once read (the IR reader refuses any other spelling: ir_json_test);
// the cpp target still needs them to be there.
TEST(EmitCpp, NeedsInputExtents) {
  Program p = copy_program();
  p.inputs[0].extents.clear();
  Diagnostic d = diagnostic_of(p);
  EXPECT_EQ(d.rule(), "emit-extent");
  EXPECT_EQ(d.loc().str(), "12:12");
  EXPECT_EQ(d.message(),
            "input 'a' has no extents (a parsed-stage program?); the cpp target needs them to "
            "know the shape of its data");
}

// The copy kernel with `value` in place of its provide's value.
Program copy_with_value(const std::string& value) {
  std::string text = kCopy;
  const std::string old = "\"value\": \"a(i, j)\"";
  text.replace(text.find(old), old.size(), "\"value\": \"" + value + "\"");
  return read_program(text, "copy.json");
}

// The kernels of an emitted program (the runtime before them has every accessor).
std::string kernels_of(const std::string& code) { return code.substr(code.find("// Kernel '")); }

TEST(EmitCpp, AnAccessProvedInBoundsIsUnchecked) {
  const std::string code = kernels_of(emit_cpp(copy_program()));
  // a(i, j) with 0 <= i < 4, 0 <= j < 3 inside a's 4 x 3: a position, no check.
  EXPECT_NE(code.find("t2s_g_st.store(t2s_g_st.offset({i, j}), t2s_a_in.get({i, j}));"),
            std::string::npos)
      << code;
  EXPECT_EQ(code.find("t2s_a_in.read("), std::string::npos);
  EXPECT_EQ(code.find("locate_write"), std::string::npos);
}

TEST(EmitCpp, AnAccessNotProvedInBoundsKeepsItsCheck) {
  // i + 1 reaches 4, outside a's extent: checked (the emulation fails there as t2s-run does).
  const std::string code = emit_cpp(copy_with_value("a(i + 1, j)"));
  EXPECT_NE(code.find("t2s_a_in.read({t2s_add_i32(i, 1), j})"), std::string::npos) << code;
  // The write is still proved.
  EXPECT_NE(code.find("t2s_g_st.store(t2s_g_st.offset({i, j}), "), std::string::npos);
}

TEST(EmitCpp, ProofsUseTheConditionsThatGuardAnAccess) {
  // a(i - 1, j) only where i > 0 (a select's lazy branch): in bounds.
  std::string code = emit_cpp(copy_with_value("select(i > 0, a(i - 1, j), 0)"));
  EXPECT_NE(code.find("t2s_a_in.get({t2s_sub_i32(i, 1), j})"), std::string::npos) << code;
  // The other branch does not guard it.
  code = emit_cpp(copy_with_value("select(i > 0, 0, a(i - 1, j))"));
  EXPECT_NE(code.find("t2s_a_in.read({t2s_sub_i32(i, 1), j})"), std::string::npos) << code;
}

TEST(EmitCpp, CheckedKeepsEveryCheck) {
  const std::string code = kernels_of(emit_cpp(copy_program(), {/*checked=*/true}));
  EXPECT_NE(code.find("{ const int64_t t2s_at = t2s_g_st.locate_write({i, j}); "
                      "t2s_g_st.store(t2s_at, t2s_a_in.read({i, j})); }"),
            std::string::npos)
      << code;
  EXPECT_EQ(code.find(".get("), std::string::npos);
  EXPECT_EQ(code.find(".offset("), std::string::npos);
}

// A host kernel with local storage t over [0, 4) per j: t(i) is written, then read at the same
// i (written: a plain read) and at i - 1 where i > 0 (written at the previous i: a plain read);
// u(i) is read before anything writes it (a read that checks the element was computed).
const char kRealize[] = R"json({
  "t2s_ir": 1, "stage": "merged", "vars": ["i", "j"],
  "inputs": [{"name": "a", "type": "int32", "dims": 2, "extents": ["4", "3"]}],
  "funcs": [{"name": "t", "type": "int32", "args": ["i"], "place": "host",
             "declared": false, "definition": "a(i, 0)"},
            {"name": "u", "type": "int32", "args": ["i"], "place": "host",
             "declared": false, "definition": "a(i, 0)"},
            {"name": "g", "type": "int32", "args": ["i", "j"], "place": "host",
             "declared": false, "definition": "t(i)"}],
  "directives": [],
  "output": {"func": "g", "extents": ["4", "3"]},
  "buffers": [{"name": "g", "type": "int32", "bounds": [["0", "4"], ["0", "3"]]}],
  "kernels": [{"name": "g", "place": "host", "body": [
    {"for": "j", "min": "0", "extent": "3", "kind": "serial", "body": [
      {"realize": "t", "type": "int32", "bounds": [["0", "4"]], "body": [
        {"realize": "u", "type": "int32", "bounds": [["0", "4"]], "body": [
          {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
            {"provide": "t", "args": ["i"], "value": "a(i, j)"},
            {"provide": "g", "args": ["i", "j"], "value": "t(i) + select(i > 0, t(i - 1), 0)"},
            {"provide": "u", "args": ["i"], "value": "u(i)"}]}]}]}]}]}],
  "channels": [], "registers": []
})json";

// t's reads are proved written: its written flags are not kept (put), and its storage folds
// along i to 2 elements (reads at i and i - 1 of what iterations i and i - 1 wrote). u's read
// is not proved: its storage stays whole, with flags, and the read checks its element.
TEST(EmitCpp, ReadsProvedToFindAWrittenValueSkipThatCheck) {
  const std::string code = kernels_of(emit_cpp(read_program(kRealize, "realize.json")));
  EXPECT_NE(code.find("t2s_rt::FuncStorage<int32_t> t2s_t_st(\"t\", {0}, {4}, {2});"),
            std::string::npos)
      << code;
  // t(i), stored earlier in the same iteration, is forwarded (docs/emulation.md); t(i - 1) is
  // read from the storage.
  EXPECT_NE(code.find("t2s_t_st.put((i & 1), t2s_t_cr0 = t2s_a_in.get({i, j}));"),
            std::string::npos)
      << code;
  EXPECT_NE(code.find("t2s_add_i32(t2s_t_cr0, i > 0 ? t2s_t_st.get((t2s_sub_i32(i, 1) & 1)) : 0)"),
            std::string::npos)
      << code;
  EXPECT_NE(code.find("t2s_rt::FuncStorage<int32_t> t2s_u_st(\"u\", {0}, {4});"), std::string::npos)
      << code;
  EXPECT_NE(code.find("t2s_u_st.store(i, t2s_u_st.read_at(i));"), std::string::npos) << code;
}

// Storage folds only where the fold is smaller than the extent, and never with --checked.
TEST(EmitCpp, StorageFoldsOnlyWhenSmallerAndUnchecked) {
  // t over [0, 2) with i in [0, 2): the fold of 2 would keep every element.
  std::string json = kRealize;
  const std::string bounds = R"("realize": "t", "type": "int32", "bounds": [["0", "4"]])";
  json.replace(json.find(bounds), bounds.size(),
               R"("realize": "t", "type": "int32", "bounds": [["0", "2"]])");
  const std::string loop = R"("for": "i", "min": "0", "extent": "4")";
  json.replace(json.find(loop), loop.size(), R"("for": "i", "min": "0", "extent": "2")");
  std::string code = kernels_of(emit_cpp(read_program(json, "realize.json")));
  EXPECT_NE(code.find("t2s_rt::FuncStorage<int32_t> t2s_t_st(\"t\", {0}, {2});"), std::string::npos)
      << code;
  EXPECT_NE(code.find("t2s_t_st.get(t2s_sub_i32(i, 1))"), std::string::npos) << code;

  CppOptions checked;
  checked.checked = true;
  code = kernels_of(emit_cpp(read_program(kRealize, "realize.json"), checked));
  EXPECT_NE(code.find("t2s_rt::FuncStorage<int32_t> t2s_t_st(\"t\", {0}, {4});"), std::string::npos)
      << code;
  EXPECT_EQ(code.find(".put("), std::string::npos) << code;
}

// Accesses in two loops (t written by one, read ahead by the next: t(i + 1)) keep the storage
// whole.
TEST(EmitCpp, StorageDoesNotFoldForReadsAhead) {
  std::string json = kRealize;
  const std::string loop = R"x({"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
            {"provide": "t", "args": ["i"], "value": "a(i, j)"},)x";
  ASSERT_NE(json.find(loop), std::string::npos);
  json.replace(json.find(loop), loop.size(),
               R"x({"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
            {"provide": "t", "args": ["i"], "value": "a(i, j)"}]},
          {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [)x");
  const std::string reads = "t(i) + select(i > 0, t(i - 1), 0)";
  json.replace(json.find(reads), reads.size(), "t(i) + select(i < 3, t(i + 1), 0)");
  const std::string code = kernels_of(emit_cpp(read_program(json, "realize.json")));
  EXPECT_NE(code.find("t2s_rt::FuncStorage<int32_t> t2s_t_st(\"t\", {0}, {4});"), std::string::npos)
      << code;
  EXPECT_NE(code.find("t2s_t_st.read_at(t2s_add_i32(i, 1))"), std::string::npos) << code;
}

// kRealize with g computed before t: g(i, j) reads t(i - 1), which the write of t at the
// previous iteration of the innermost loop stored and nothing overwrote since.
std::string forwarding_json() {
  std::string json = kRealize;
  const std::string body = R"x({"provide": "t", "args": ["i"], "value": "a(i, j)"},
            {"provide": "g", "args": ["i", "j"], "value": "t(i) + select(i > 0, t(i - 1), 0)"},)x";
  EXPECT_NE(json.find(body), std::string::npos);
  json.replace(json.find(body), body.size(),
               R"x({"provide": "g", "args": ["i", "j"], "value": "select(i > 0, t(i - 1), 0)"},
            {"provide": "t", "args": ["i"], "value": "a(i, j)"},)x");
  return json;
}

// The read takes the value from a local that the write sets (no load waiting for the store).
TEST(EmitCpp, ReadsOfThePreviousIterationsWriteAreForwarded) {
  const std::string code = kernels_of(emit_cpp(read_program(forwarding_json(), "realize.json")));
  for (const char* expected : {"  int32_t t2s_t_cr0{};  // forwarded along the innermost loop\n",
                               "t2s_g_st.store(t2s_g_st.offset({i, j}), i > 0 ? t2s_t_cr0 : 0);",
                               "t2s_t_st.put((i & 1), t2s_t_cr0 = t2s_a_in.get({i, j}));"})
    EXPECT_NE(code.find(expected), std::string::npos) << expected << "\n" << code;
  CppOptions checked;
  checked.checked = true;
  EXPECT_EQ(
      kernels_of(emit_cpp(read_program(forwarding_json(), "realize.json"), checked)).find("_cr0"),
      std::string::npos);
}

// Not forwarded: past a second write of t inside the loop (it may store the element read after
// the first did), nor the previous iteration's value from a write earlier in the body than the
// read (kRealize's t(i - 1): at the read's own iteration that write has already replaced the
// local's value).
TEST(EmitCpp, ReadsAreNotForwardedPastAnotherWrite) {
  std::string json = forwarding_json();
  const std::string write = R"x({"provide": "t", "args": ["i"], "value": "a(i, j)"},)x";
  json.replace(json.find(write), write.size(),
               R"x({"provide": "t", "args": ["i"], "value": "a(i, j)"},
            {"if": "j == 1", "then": [{"provide": "t", "args": ["i"], "value": "a(i, 0)"}],
             "else": []},)x");
  std::string code = kernels_of(emit_cpp(read_program(json, "realize.json")));
  EXPECT_EQ(code.find("_cr0"), std::string::npos) << code;
  EXPECT_NE(code.find("t2s_t_st.get((t2s_sub_i32(i, 1) & 1))"), std::string::npos) << code;
  code = kernels_of(emit_cpp(read_program(kRealize, "realize.json")));
  EXPECT_NE(code.find("t2s_t_st.get((t2s_sub_i32(i, 1) & 1))"), std::string::npos) << code;
}

TEST(EmitCpp, RefusesVectorStorageAndAllocAtTheirLocation) {
  // Inputs and Func storage hold scalars (docs/ir.md, "Vector values"), as in the interpreter.
  Program p = copy_program();
  p.inputs[0].type = Type::Int(32, 4);
  Diagnostic d = diagnostic_of(p);
  EXPECT_EQ(d.rule(), "emit-unsupported");
  EXPECT_EQ(d.loc().str(), "12:12");
  EXPECT_NE(d.message().find("input 'a' of vector type int32x4"), std::string::npos);

  p = copy_program();
  StmtList body = std::move(p.kernels[0].body);
  p.kernels[0].body = {make_realize("r", Type::Float(32, 8), {make_int(Type::Int(32), 0)},
                                    {make_int(Type::Int(32), 4)}, std::move(body),
                                    SourceLoc::parse("8:4"))};
  d = diagnostic_of(p);
  EXPECT_EQ(d.rule(), "emit-unsupported");
  EXPECT_EQ(d.loc().str(), "8:4");
  EXPECT_NE(d.message().find("the storage of 'r' of vector type float32x8"), std::string::npos);

  p = copy_program();
  p.kernels[0].body.insert(p.kernels[0].body.begin(),
                           make_alloc("r", Type::Int(32), {}, SourceLoc::parse("9:2")));
  d = diagnostic_of(p);
  EXPECT_EQ(d.rule(), "emit-unsupported");
  EXPECT_EQ(d.loc().str(), "9:2");
}

// A vectorized-stage program: a float32x4 channel and shift register, a FIFO register of
// int32x5, a gather, a scatter and elementwise operations (running it against t2s-run is
// //tests/cli:vector_ir_test).
const char kVectors[] = R"json({
  "t2s_ir": 1, "stage": "vectorized", "vars": ["i"],
  "inputs": [{"name": "x", "type": "float32", "dims": 1, "extents": ["16"], "loc": "3:1"}],
  "funcs": [{"name": "e", "type": "float32", "args": ["i"], "place": "host", "declared": true,
             "definition": null, "loc": "8:1", "decl_loc": "7:6"}],
  "directives": [], "output": {"func": "e", "extents": ["16"], "loc": "10:1"},
  "buffers": [{"name": "e", "type": "float32", "bounds": [["0", "16"]], "loc": "8:1"}],
  "kernels": [
    {"name": "P", "place": "device", "loc": "6:1", "body": [
      {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
        {"write_channel": "ch", "index": [], "value": "x(ramp(i * 4, 1, 4))", "loc": "6:1"}]}]},
    {"name": "E", "place": "device", "loc": "8:1", "body": [
      {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
        {"shift": "V", "args": ["0"]},
        {"provide": "V", "args": ["0", "0"], "value": "read_channel(ch)", "loc": "8:1"},
        {"push": "F", "args": ["0"], "value": "ramp(i, 1, 5) / broadcast(2, 5)", "loc": "8:1"},
        {"provide": "e", "args": ["ramp(i * 4 + 3, -1, 4)"],
         "value": "V(0, 0) + cast(Float(32, 4), slice(pop(F, 0), 1, 4))", "loc": "8:1"}]}]}],
  "channels": [{"name": "ch", "type": "float32x4", "dims": [], "depth": 2, "producer": "P",
                "consumer": "E", "loc": "6:1"}],
  "registers": [
    {"name": "V", "func": "e", "kernel": "E", "type": "float32x4", "kind": "shift", "shape": [1],
     "depth": 1, "distance": [0], "pe_offset": [0], "time_distance": 0, "period": 1, "naive": 1,
     "loc": "8:1"},
    {"name": "F", "func": "e", "kernel": "E", "type": "int32x5", "kind": "fifo", "shape": [1],
     "depth": 1, "distance": [0], "pe_offset": [0], "time_distance": 0, "period": 1, "naive": 1,
     "loc": "8:1"}]
})json";

TEST(EmitCpp, VectorValuesAreVecsComputedLaneByLane) {
  // Checked: the accessors' text does not depend on what is proved.
  const std::string code = emit_cpp(read_program(kVectors, "vectors.json"), {/*checked=*/true});
  for (const char* expected :
       {"t2s_rt::Fifo<t2s_rt::Vec<float, 4>> t2s_ch_ch(\"ch\", 2);",
        "t2s_rt::ShiftRegister<t2s_rt::Vec<float, 4>> t2s_V_rg(\"V\", {1}, 1);",
        "t2s_rt::FifoRegister<t2s_rt::Vec<int32_t, 5>> t2s_F_rg(\"F\", {1}, 1);",
        // A gather: each index once, then the lanes.
        "t2s_ch_ch.write([&] { const t2s_rt::Vec<int32_t, 4> t2s_0 = "
        "t2s_ramp_i32x4({t2s_mul_i32(i, 4), 1}); return t2s_rt::Vec<float, 4>{{"
        "t2s_x_in.read({t2s_0.lane[0]}), ",
        // Elementwise helpers take their operands as one braced list.
        "t2s_F_rg.push(t2s_at, t2s_vdiv_i32x5({t2s_ramp_i32x5({i, 1}), "
        "t2s_broadcast_i32x5(2)}));",
        "      t2s_div_i32(t2s_0.lane[4], t2s_1.lane[4])}};\n",
        // A scatter: indices, value, then lane by lane.
        "    const t2s_rt::Vec<float, 4> t2s_1 = t2s_vadd_f32x4({t2s_V_rg.read({0, 0}), "
        "t2s_vcvt_f32x4_i32x4(t2s_slice_i32x5_1_4(t2s_F_rg.pop({0})))});",
        "{ const int64_t t2s_at = t2s_e_st.locate_write({t2s_0.lane[3]}); "
        "t2s_e_st.store(t2s_at, t2s_1.lane[3]); }"}) {
    EXPECT_NE(code.find(expected), std::string::npos) << expected;
  }
  EXPECT_EQ(code, emit_cpp(read_program(kVectors, "vectors.json"), {/*checked=*/true}));
}

TEST(EmitCpp, GathersScattersAndRegistersProvedInBoundsAreUnchecked) {
  const std::string code = kernels_of(emit_cpp(read_program(kVectors, "vectors.json")));
  for (const char* expected :
       {// x(ramp(i * 4, 1, 4)) with 0 <= i < 4: lanes 0..15 of x's 16.
        "return t2s_rt::Vec<float, 4>{{t2s_x_in.get({t2s_0.lane[0]}), ",
        // e(ramp(i * 4 + 3, -1, 4)): lanes 15..0 of e's 16.
        "t2s_e_st.store(t2s_e_st.offset({t2s_0.lane[3]}), t2s_1.lane[3]);",
        // The register's one PE; V(0, 0) is written earlier in the same iteration, so its one
        // read needs no written flag (put) and takes the value forwarded.
        "t2s_V_rg.shift_pe(0);", "t2s_V_rg.put(0, t2s_V_cr0 = t2s_ch_ch.read());",
        "t2s_vadd_f32x4({t2s_V_cr0, ",
        // The FIFO register's PE (overflow and emptiness are still checked).
        "t2s_F_rg.push(0, ", "t2s_F_rg.pop_at(0)"}) {
    EXPECT_NE(code.find(expected), std::string::npos) << expected << "\n" << code;
  }
  EXPECT_EQ(code.find("read({"), std::string::npos) << code;
}

TEST(EmitCpp, RefusesNamesThatAreNotIdentifiers) {
  Program p = copy_program();
  p.channels.push_back(Channel{"a-b", Type::Int(32), {}, 0, "g", "g", SourceLoc::parse("3:3")});
  Diagnostic d = diagnostic_of(p);
  EXPECT_EQ(d.rule(), "emit-unsupported");
  EXPECT_EQ(d.loc().str(), "3:3");
}

// Dangling names, unbound variables and wrong arities are the verifier's (libs/ir/verify,
// verify_test), which every tool runs on the IR it reads; what is left here is the target's own.
TEST(EmitCpp, MalformedIrIsAnInternalError) {
  Program p;
  // Two device kernels that run together and share a buffer one of them writes: the verifier's
  // rule (ir-storage), which emit_cpp trusts (libs/ir/program_facts.h).
  p = copy_program();
  p.kernels[0].place = Place::kDevice;
  p.kernels.push_back(p.kernels[0]);
  p.kernels[1].name = "g2";
  try {
    verify_program(p, "p.json");
    ADD_FAILURE() << "accepted";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "ir-storage");
    EXPECT_EQ(d.message(),
              "kernels[1]: kernels 'g' and 'g2' run concurrently and share buffer 'g', which 'g' "
              "writes");
  }
  // One after the other (a host kernel between them) they may.
  p.kernels[1].place = Place::kHost;
  EXPECT_NO_THROW(verify_program(p, "p.json"));
  EXPECT_NO_THROW(emit_cpp(p));

  p = copy_program();
  p.registers.push_back(Register{"R",
                                 "g",
                                 "g",
                                 Type::Int(32),
                                 Register::kShift,
                                 {1 << 13, 1 << 12},
                                 1,
                                 {1, 0},
                                 {0, 0},
                                 1,
                                 1,
                                 2,
                                 {}});
  EXPECT_EQ(internal_error_of(p), "emit: register 'R' has bad shape");
}

// Every pipeline's golden merged and stt stages (testdata/golden/NAME/: what the tools give for
// every spec of testdata/specs and its -D variants, which //testdata:golden_test holds them to):
// emitted without error, the same bytes twice, and one kernel function per kernel.
TEST(EmitCpp, EverySpecEmitsAtMergedAndSttStage) {
  std::vector<std::string> specs = testing::golden_specs("merged");
  ASSERT_GE(specs.size(), 20u);
  // Every pipeline is lowered through stt at least.
  ASSERT_EQ(testing::golden_specs("stt"), specs);
  for (const std::string& spec : specs) {
    Program merged = testing::load_golden_ir(spec, "merged");
    Program stt = testing::load_golden_ir(spec, "stt");
    for (const Program* p : {&merged, &stt}) {
      std::string code;
      ASSERT_NO_THROW(code = emit_cpp(*p)) << spec;
      EXPECT_EQ(code, emit_cpp(*p)) << spec;
      for (const Kernel& k : p->kernels)
        EXPECT_NE(code.find("void t2s_" + k.name + "_kn() {"), std::string::npos) << spec;
    }
  }
}

}  // namespace
}  // namespace t2s
