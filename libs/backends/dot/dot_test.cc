#include "libs/backends/dot/dot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "libs/ir/expr.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/program.h"
#include "libs/testing/golden.h"

namespace t2s {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

int count(const std::string& text, const std::string& pattern) {
  std::regex re(pattern);
  return static_cast<int>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

// testdata/golden/gemm/stt.json with an n x n PE array instead of 4 x 4: the golden, edited as
// JSON, with `n` as the extent of its two unrolled loops (j, i) and as both dimensions of its
// registers' shapes (A_shreg, B_shreg, C_shreg).
void unrolled_extents_to(nlohmann::ordered_json& node, int n) {
  if (node.is_object() && node.value("kind", "") == "unrolled" && node.contains("for"))
    node["extent"] = std::to_string(n);
  if (node.is_object() || node.is_array())
    for (auto& child : node) unrolled_extents_to(child, n);
}

Program gemm_stt_array(int n) {
  nlohmann::ordered_json doc =
      nlohmann::ordered_json::parse(testing::read_golden_text("gemm", "stt"));
  for (auto& kernel : doc.at("kernels")) unrolled_extents_to(kernel.at("body"), n);
  for (auto& reg : doc.at("registers")) reg["shape"] = {n, n};
  return read_program(doc.dump(1),
                      "gemm.stt.json, " + std::to_string(n) + " x " + std::to_string(n) + " PEs");
}

StmtPtr loop(const std::string& var, Expr extent, LoopKind kind, StmtList body) {
  return make_for(var, make_int(Type::Int(32), 0), extent, kind, std::move(body));
}

Expr i32(int64_t v) { return make_int(Type::Int(32), v); }

// A program built by hand: a 2 x 3 x 4 PE array without registers, an array of symbolic
// extent, a kernel whose name needs escaping, and a register without a PE offset.
Program hand_built() {
  Program p;
  p.stage = Stage::kGathered;
  StmtPtr provide =
      make_provide("R", {make_var("c"), make_var("b"), make_var("a"), i32(0)}, i32(1));
  p.kernels.push_back({"T",
                       Place::kDevice,
                       {loop("a", i32(2), LoopKind::kUnrolled,
                             {loop("b", i32(3), LoopKind::kUnrolled,
                                   {loop("c", i32(4), LoopKind::kUnrolled, {provide})})})},
                       {}});
  p.kernels.push_back({"S",
                       Place::kHost,
                       {loop("t", i32(5), LoopKind::kSerial,
                             {loop("u", make_var("n"), LoopKind::kUnrolled,
                                   {loop("v", i32(4), LoopKind::kVectorized, {})})})},
                       {}});
  p.kernels.push_back({"we\"ird", Place::kHost, {}, {}});
  p.funcs.push_back({"F", Type::Int(32), {"x", "y"}, Place::kDevice, true, "", nullptr, {}, {}});
  Register r;
  r.name = "R";
  r.func = "F";
  r.kernel = "T";
  r.type = Type::Int(32);
  r.shape = {4, 3, 2};
  r.depth = 2;
  r.distance = {1, 0};
  p.registers.push_back(r);
  p.channels.push_back({"S_to_weird", Type::Int(32), {2, 2}, 3, "S", "we\"ird", {}});
  return p;
}

// A linear array s in [0, 4) whose registers carry the PE offsets t2s-stt records: forwards,
// within the PE, two PEs on, and backwards (which the distance of a Func argument alone would not
// say: H's arguments are not the space loop).
Program offsets_program() {
  Program p;
  p.stage = Stage::kStt;
  p.funcs.push_back({"F", Type::Int(32), {"i", "j"}, Place::kDevice, true, "", nullptr, {}, {}});
  p.funcs.push_back({"H", Type::Int(32), {"x"}, Place::kDevice, true, "", nullptr, {}, {}});
  auto reg = [&](const std::string& name, const std::string& func, std::vector<int64_t> distance,
                 int64_t pe_offset, Register::Kind kind) {
    Register r;
    r.name = name;
    r.func = func;
    r.kernel = "K";
    r.type = Type::Int(32);
    r.kind = kind;
    r.shape = {4};
    r.distance = std::move(distance);
    r.pe_offset = {pe_offset};
    p.registers.push_back(r);
  };
  reg("R1", "F", {1, 0}, 1, Register::kShift);
  reg("R2", "F", {1, -1}, 0, Register::kShift);  // stays in the PE
  reg("R3", "F", {2, 0}, 2, Register::kShift);
  reg("R4", "H", {1}, 1, Register::kShift);
  reg("R5", "H", {1}, -3, Register::kFifo);
  reg("R6", "H", {1}, -2, Register::kShift);
  StmtPtr provide = make_provide("R1", {make_var("s"), i32(0)}, i32(1));
  p.kernels.push_back(
      {"K",
       Place::kDevice,
       {loop("t", i32(9), LoopKind::kSerial, {loop("s", i32(4), LoopKind::kUnrolled, {provide})})},
       {}});
  return p;
}

TEST(DotTest, OffsetsFromTheRegisters) {
  std::string dot = emit_dot(offsets_program());
  EXPECT_TRUE(contains(dot, "\"K_pe_0\" -> \"K_pe_1\" [xlabel=\"R1 shift x1\"")) << dot;
  EXPECT_EQ(count(dot, "xlabel=\"R1 shift x1\""), 3);
  EXPECT_TRUE(contains(dot, "\"K_pe_2\" -> \"K_pe_2\" [label=\"R2 shift x1\""));
  EXPECT_TRUE(contains(dot, "\"K_pe_1\" -> \"K_pe_3\" [xlabel=\"R3 shift x1\""));
  EXPECT_EQ(count(dot, "xlabel=\"R3 shift x1\""), 2);
  EXPECT_TRUE(contains(dot, "\"K_pe_2\" -> \"K_pe_3\" [xlabel=\"R4 shift x1\""));
  EXPECT_TRUE(contains(dot, "\"K_pe_3\" -> \"K_pe_0\" [xlabel=\"R5 fifo depth 1\""));
  EXPECT_EQ(count(dot, "R5 fifo depth 1"), 1);
  EXPECT_TRUE(contains(dot, "\"K_pe_2\" -> \"K_pe_0\" [xlabel=\"R6 shift x1\""));
  EXPECT_EQ(count(dot, "R6 shift x1"), 2);
  EXPECT_FALSE(contains(dot, "offset unknown"));
}

TEST(DotTest, GemmIsA4x4GridOfPes) {
  std::string dot = emit_dot(testing::load_golden_ir("gemm", "stt"));
  EXPECT_EQ(dot.find("digraph \"t2s\" {\n"), dot.find('\n') + 1) << dot;
  EXPECT_TRUE(contains(dot, "compound=true"));
  EXPECT_EQ(count(dot, R"re("A_pe_\d+_\d+" \[label="PE\(\d+, \d+\)"\])re"), 16) << dot;
  EXPECT_TRUE(contains(dot, "\"A_pe_1_2\" [label=\"PE(1, 2)\"];"));
  EXPECT_FALSE(contains(dot, "A_pe_4_"));
  EXPECT_FALSE(contains(dot, "_pe_more"));
  // Four rows (j) of four PEs (i).
  EXPECT_EQ(count(dot, R"re(\{ rank=same;( "A_pe_\d_\d" \[label="PE\(\d, \d\)"\];){4} \})re"), 4);
  EXPECT_TRUE(contains(dot, "{ rank=same; \"A_pe_0_2\" [label=\"PE(0, 2)\"]; \"A_pe_1_2\""));
  EXPECT_TRUE(contains(dot,
                       "label=\"A (device)\\ntime: k in [0, 8)\\nspace: j in [0, 4), "
                       "i in [0, 4)\";"));
  // A moves along j (distance (0, 1, 0)), B along i, C stays in the PE.
  EXPECT_TRUE(contains(dot, "\"A_pe_2_0\" -> \"A_pe_2_1\" [label=\"A_shreg shift x1\""));
  EXPECT_TRUE(contains(dot, "\"A_pe_0_3\" -> \"A_pe_1_3\" [xlabel=\"B_shreg shift x1\""));
  EXPECT_EQ(count(dot, R"re(-> "A_pe_\d_\d" \[label="A_shreg shift x1")re"), 12);
  EXPECT_EQ(count(dot, R"re(-> "A_pe_\d_\d" \[xlabel="B_shreg shift x1")re"), 12);
  EXPECT_EQ(count(dot, R"re("(A_pe_\d_\d)" -> "\1" \[label="C_shreg shift x1")re"), 16);
  EXPECT_FALSE(contains(dot, "\"A_pe_3_0\" -> \"A_pe_4_0\""));
  // Inputs into the kernel's cluster, the kernel into the output buffer.
  EXPECT_TRUE(contains(dot, "\"input.a\" [shape=parallelogram"));
  EXPECT_TRUE(
      contains(dot, "\"input.a\" -> \"A_pe_0_0\" [color=\"#b08000\", lhead=\"cluster_A\"]"));
  EXPECT_TRUE(contains(dot, "\"input.b\" -> \"A_pe_0_0\""));
  EXPECT_TRUE(contains(dot, "\"buffer.c\" [shape=cylinder"));
  EXPECT_TRUE(contains(dot, "label=\"c (output)\\nfloat32 [0, 4) x [0, 4)\""));
  EXPECT_TRUE(
      contains(dot, "\"A_pe_3_3\" -> \"buffer.c\" [color=\"#2e7d32\", ltail=\"cluster_A\"]"));
  ASSERT_GE(dot.size(), 2u);
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
}

TEST(DotTest, FifoEdgesWithDepths) {
  std::string dot = emit_dot(testing::load_golden_ir("seed000_abc", "stt"));
  EXPECT_EQ(count(dot, R"re("A_pe_\d" \[label="PE\(\d\)"\])re"), 10) << dot;
  // A_fifo: distance (1, 0, 0) along the space loop i: PE(p) -> PE(p + 1).
  EXPECT_TRUE(contains(dot, "\"A_pe_0\" -> \"A_pe_1\" [xlabel=\"A_fifo fifo depth 9\""));
  EXPECT_TRUE(contains(dot, "\"A_pe_8\" -> \"A_pe_9\" [xlabel=\"A_fifo fifo depth 9\""));
  EXPECT_EQ(count(dot, "A_fifo fifo depth 9"), 9);
  // B and C stay in their PE: one self-loop per PE listing both, drawn in both colours.
  EXPECT_TRUE(contains(dot,
                       "\"A_pe_4\" -> \"A_pe_4\" [label=\"B_fifo fifo depth 10\\nC_fifo fifo "
                       "depth 3\", color=\"#d62728:#2ca02c\""))
      << dot;
  EXPECT_EQ(count(dot, R"re("(A_pe_\d)" -> "\1" )re"), 10);
  EXPECT_TRUE(contains(dot,
                       "label=\"A (host)\\ntime: t1 in [0, 55), t2 in [0, 28)\\nspace: i "
                       "in [0, 10)\";"));
}

TEST(DotTest, ChannelsBetweenKernelClusters) {
  std::string dot = emit_dot(testing::load_golden_ir("isolate_consumer", "stt"));
  for (const char* k : {"feederA", "A", "drainer", "collector"})
    EXPECT_TRUE(contains(dot, std::string("subgraph \"cluster_") + k + "\" {")) << k;
  // Kernels without a PE array are one node.
  EXPECT_TRUE(contains(dot, "\"kernel.feederA\" [label=\"feederA\"];"));
  EXPECT_TRUE(
      contains(dot, "label=\"feederA (device)\\nloops: k in [0, 8), j in [0, 4), i in [0, 4)\";"));
  // drainer and collector inherit A's PE array (isolate_consumer copies the schedule), and the
  // channels out of an array are arrays of channels, one per PE.
  EXPECT_TRUE(contains(dot, "label=\"drainer (device)\\nspace: j in [0, 4), i in [0, 4)\";"));
  EXPECT_TRUE(contains(dot,
                       "\"drainer_pe_3_3\" -> \"collector_pe_0_0\" [label=\"drainer_to_collector "
                       "(depth 4)\\narray 4 x 4 = 16 channels\", style=bold, color=\"#444444\", "
                       "ltail=\"cluster_drainer\", lhead=\"cluster_collector\"];"))
      << dot;
  EXPECT_TRUE(contains(dot,
                       "\"kernel.feederA\" -> \"A_pe_0_0\" [label=\"feederA_to_A (depth 0)\", "
                       "style=bold, color=\"#444444\", ltail=\"cluster_feederA\", "
                       "lhead=\"cluster_A\"];"));
  // Out of the array from its last PE, so that the consumer is laid out below it.
  EXPECT_TRUE(contains(dot,
                       "\"A_pe_3_3\" -> \"drainer_pe_0_0\" [label=\"c_to_drainer (depth "
                       "0)\\narray 4 x 4 = 16 channels\""));
  EXPECT_EQ(count(dot, R"re(\(depth \d\))re"), 3);
  // a is read by feederA, b by A; collector writes the output buffer.
  EXPECT_TRUE(contains(dot, "\"input.a\" -> \"kernel.feederA\""));
  EXPECT_FALSE(contains(dot, "\"input.a\" -> \"A_pe_0_0\""));
  EXPECT_TRUE(contains(dot, "\"input.b\" -> \"A_pe_0_0\""));
  EXPECT_TRUE(contains(dot, "\"collector_pe_3_3\" -> \"buffer.collector\""));
}

TEST(DotTest, GeneralTransformMapsTheDistanceThroughItsMatrix) {
  // PE s = i: B (distance (1, 0, 0)) moves to the next PE; A (0, 1, 0) and C (0, 0, 1) stay.
  std::string dot = emit_dot(testing::load_golden_ir("gemm_projection", "stt"));
  EXPECT_EQ(count(dot, R"re("A_pe_\d" -> "A_pe_\d" \[xlabel="B_shreg shift x1")re"), 3) << dot;
  EXPECT_TRUE(contains(dot, "\"A_pe_2\" -> \"A_pe_3\" [xlabel=\"B_shreg shift x1\""));
  EXPECT_TRUE(
      contains(dot, "\"A_pe_0\" -> \"A_pe_0\" [label=\"A_shreg shift x8\\nC_shreg shift x1\""));
}

TEST(DotTest, ThreeDimensionalArrayFlattenedIntoRows) {
  // vectorize_gather's stt stage with its lanes (kk) made PEs: shape (kk, i, j) = (4, 4, 4),
  // 16 rows of 4 PEs.
  Program p = testing::load_golden_ir("vectorize_gather", "stt");
  std::function<void(StmtList&)> unroll_lanes = [&](StmtList& list) {
    for (StmtPtr& s : list) {
      Stmt copy{s->node, s->loc};
      if (For* f = copy.as<For>(); f && f->loop_kind == LoopKind::kVectorized)
        f->loop_kind = LoopKind::kUnrolled;
      for (StmtList* c : copy.children()) unroll_lanes(*c);
      s = with_node(*s, copy.node);
    }
  };
  for (Kernel& k : p.kernels) unroll_lanes(k.body);
  std::string dot = emit_dot(p);
  EXPECT_EQ(
      count(dot, R"re(\{ rank=same;( "A_pe_\d_\d_\d" \[label="PE\(\d, \d, \d\)"\];){4} \})re"), 16)
      << dot;
  // C_shreg (distance -3 along kk) goes back along the row, C_shreg_2 (1) forward; flat edges
  // do not reorder the row.
  EXPECT_TRUE(contains(dot,
                       "\"A_pe_3_2_1\" -> \"A_pe_0_2_1\" [xlabel=\"C_shreg shift x1\", "
                       "color=\"#2ca02c\", fontcolor=\"#2ca02c\", constraint=false];"));
  EXPECT_TRUE(contains(dot, "\"A_pe_0_2_1\" -> \"A_pe_1_2_1\" [xlabel=\"C_shreg_2 shift x1\""));
  EXPECT_EQ(count(dot, "xlabel=\"C_shreg shift x1\""), 16);
  EXPECT_EQ(count(dot, "xlabel=\"C_shreg_2 shift x1\""), 48);
  // A (along j, the outermost) jumps four rows; B (along i) one row.
  EXPECT_TRUE(contains(dot, "\"A_pe_1_2_0\" -> \"A_pe_1_2_1\" [label=\"A_shreg shift x1\""));
  EXPECT_TRUE(contains(dot, "\"A_pe_1_2_0\" -> \"A_pe_1_3_0\" [label=\"B_shreg shift x1\""));
}

TEST(DotTest, LargeArrayIsCut) {
  std::string dot = emit_dot(gemm_stt_array(64));
  EXPECT_EQ(count(dot, R"re("A_pe_\d+_\d+" \[label="PE\(\d+, \d+\)"\])re"), 256);
  EXPECT_TRUE(contains(dot, "\"A_pe_15_15\" [label=\"PE(15, 15)\"]"));
  EXPECT_FALSE(contains(dot, "\"A_pe_16_"));
  EXPECT_FALSE(contains(dot, "_16\""));
  EXPECT_TRUE(contains(dot, "\"A_pe_more\" [shape=note"));
  EXPECT_TRUE(contains(dot,
                       "... 3840 more PEs not drawn\\nPE array 64 x 64 = 4096 PEs; drawn: "
                       "16 x 16"))
      << dot.substr(0, 2000);
  EXPECT_TRUE(contains(dot,
                       "label=\"A (device)\\ntime: k in [0, 8)\\nspace: j in [0, 64), i in "
                       "[0, 64)\";"));
  // Edges only between drawn PEs; the output leaves from the ellipsis node.
  EXPECT_TRUE(contains(dot, "\"A_pe_14_15\" -> \"A_pe_15_15\" [xlabel=\"B_shreg shift x1\""));
  EXPECT_TRUE(contains(dot, "\"A_pe_more\" -> \"buffer.c\""));
  EXPECT_LT(dot.size(), 200000u);
  // Far larger arrays stay as small.
  EXPECT_LT(emit_dot(gemm_stt_array(4096)).size(), dot.size() + 100);
}

TEST(DotTest, HandBuiltShapes) {
  std::string dot = emit_dot(hand_built());
  // Shape (4, 3, 2) innermost first: rows of 4 PEs (c), 3 x 2 = 6 rows, b varying fastest.
  EXPECT_EQ(count(dot, R"re("T_pe_\d_\d_\d" \[label="PE\(\d, \d, \d\)"\])re"), 24) << dot;
  EXPECT_EQ(
      count(dot, R"re(\{ rank=same;( "T_pe_\d_\d_\d" \[label="PE\(\d, \d, \d\)"\];){4} \})re"), 6);
  EXPECT_TRUE(contains(dot, "{ rank=same; \"T_pe_0_1_0\" [label=\"PE(0, 1, 0)\"]; \"T_pe_1_1_0\""));
  size_t row1 = dot.find("{ rank=same; \"T_pe_0_1_0\"");
  size_t row3 = dot.find("{ rank=same; \"T_pe_0_0_1\"");
  ASSERT_NE(row3, std::string::npos);
  EXPECT_LT(row1, row3);
  // R records no PE offset (hand-built IR, which would not verify): the offset is unknown.
  EXPECT_TRUE(contains(dot,
                       "\"T_pe_0_0_0\" -> \"T_pe_0_0_0\" [label=\"R shift x2 (PE offset "
                       "unknown)\""));
  // An extent that is not a constant: one node.
  EXPECT_TRUE(contains(dot, "\"S_pe_array\" [label=\"PE array\\nn x 4 PEs\"];") ||
              contains(dot, "\"S_pe_array\" [label=\"PE array\\nn PEs\"];"))
      << dot;
  EXPECT_TRUE(contains(dot,
                       "label=\"S (host)\\ntime: t in [0, 5)\\nspace: u in [0, n)\\n"
                       "vectorized: v in [0, 4)\";"));
  // Quotes are escaped.
  EXPECT_TRUE(contains(dot, "subgraph \"cluster_we\\\"ird\" {"));
  EXPECT_TRUE(contains(dot, "\"kernel.we\\\"ird\" [label=\"we\\\"ird\"];"));
  EXPECT_TRUE(contains(dot, "[label=\"S_to_weird (depth 3)\\narray 2 x 2 = 4 channels\""));
}

// Vector code (docs/ir.md, "Vector values"): a kernel's cluster shows the lane counts of the
// values its PEs compute; vector channels and registers show their type. Scalar ones are
// labelled as before.
TEST(DotTest, VectorLanesOfKernelsChannelsAndRegisters) {
  Program p = testing::load_golden_ir("gemm", "stt");
  p.registers[0].type = Type::Float(32, 16);
  const Expr eight = make_call("broadcast", CallKind::kIntrinsic, Type::Float(32, 8),
                               {make_float(Type::Float(32), 1.0), i32(8)});
  p.kernels[0].body.push_back(make_let(
      "v", make_call("concat", CallKind::kIntrinsic, Type::Float(32, 16), {eight, eight}), {}));
  std::string dot = emit_dot(p);
  EXPECT_TRUE(contains(dot, "space: j in [0, 4), i in [0, 4)\\nvector lanes: 8, 16\";")) << dot;
  EXPECT_TRUE(contains(dot, "label=\"A_shreg shift x1, float32x16\"")) << dot;
  EXPECT_TRUE(contains(dot, "label=\"B_shreg shift x1\"")) << dot;

  Program q = testing::load_golden_ir("isolate_consumer", "stt");
  q.channels[0].type = Type::Float(32, 8);
  dot = emit_dot(q);
  EXPECT_TRUE(contains(dot, "label=\"" + q.channels[0].name + " (depth " +
                                std::to_string(q.channels[0].depth) +
                                "), float32x8\\narray 4 x 4 = 16 channels\""))
      << dot;
}

// A kernel whose PEs pass values along i over a channel of its own (a t2s-gather FIFO, Down):
// its PE loop runs from the highest i down (let i = 2 - i_pe); PE i writes fifo(i, j) and reads
// fifo(i + 1, j). A second such channel is read at an index the PE does not decide.
Program pe_fifo_program() {
  Program p;
  p.stage = Stage::kGathered;
  Channel fifo{"fifo", Type::Float(32), {3, 2}, 2, "G", "G", {}, "PE i + 1 writes 2 values first"};
  p.channels.push_back(fifo);
  fifo.name = "other";
  p.channels.push_back(fifo);
  const Expr i = make_var("i"), j = make_var("j"), t = make_var("t");
  auto read = [&](const std::string& ch, Expr index) {
    return make_call("read_channel", CallKind::kChannel, Type::Float(32),
                     {make_var(ch), std::move(index), j});
  };
  StmtPtr write = make_write_channel(
      "fifo", {i, j}, read("fifo", make_binary(BinaryOp::kAdd, i, i32(1), Type::Int(32))));
  StmtPtr other = make_write_channel("other", {i, j}, read("other", t));
  StmtPtr body = make_let("i", make_binary(BinaryOp::kSub, i32(2), make_var("i_pe"), Type::Int(32)),
                          {make_if(make_binary(BinaryOp::kGT, i, i32(0), Type::Bool()),
                                   {write, loop("t", i32(3), LoopKind::kSerial, {other})}, {})});
  StmtPtr pes =
      loop("j", i32(2), LoopKind::kUnrolled, {loop("i_pe", i32(3), LoopKind::kUnrolled, {body})});
  p.kernels.push_back({"G", Place::kDevice, {pes}, {}});
  return p;
}

// A channel between the PEs of one kernel is drawn from the PE that writes each element to the
// PE that reads it, through the lets that give the PE's index (the picture's PEs are the loop's:
// PE(0, j) runs first and is i = 2).
TEST(DotTest, ChannelBetweenThePesOfOneKernel) {
  std::string dot = emit_dot(pe_fifo_program());
  EXPECT_TRUE(contains(dot,
                       "  // fifo: between the PEs of G, from the PE that writes an element "
                       "to the PE that reads it\n"))
      << dot;
  for (const char* edge : {"\"G_pe_0_0\" -> \"G_pe_1_0\"", "\"G_pe_1_0\" -> \"G_pe_2_0\"",
                           "\"G_pe_0_1\" -> \"G_pe_1_1\"", "\"G_pe_1_1\" -> \"G_pe_2_1\""})
    EXPECT_TRUE(contains(dot, std::string("  ") + edge +
                                  " [xlabel=\"fifo fifo depth 2\", style=bold, "
                                  "color=\"#444444\", fontcolor=\"#444444\", constraint=false];\n"))
        << edge << "\n"
        << dot;
  EXPECT_EQ(count(dot, "\\[xlabel=\"fifo fifo depth 2\""), 4);
  // Read at t: which PE writes the element read is not known; one edge for the channel.
  EXPECT_EQ(count(dot, "\"G_pe_2_1\" -> \"G_pe_0_0\" \\[label=\"other \\(depth 2\\)"), 1) << dot;
}

TEST(DotTest, Deterministic) {
  std::string first = emit_dot(testing::load_golden_ir("isolate_consumer", "stt"));
  EXPECT_EQ(first, emit_dot(testing::load_golden_ir("isolate_consumer", "stt")));
  EXPECT_EQ(emit_dot(hand_built()), emit_dot(hand_built()));
  EXPECT_FALSE(contains(first, "0x"));
}

TEST(DotTest, RefusesTheParsedStage) {
  Program p;
  p.stage = Stage::kParsed;
  try {
    emit_dot(p);
    FAIL() << "expected a Diagnostic";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "emit-stage");
  }
}

// Graphviz renders every picture without a warning (skipped where dot is not installed).
TEST(DotTest, GraphvizRendersWithoutWarnings) {
  const char* dot_tool = "/usr/bin/dot";
  if (access(dot_tool, X_OK) != 0) GTEST_SKIP() << "graphviz is not installed";
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = tmp ? tmp : "/tmp";
  struct Case {
    const char* name;
    Program program;
  };
  Case cases[] = {{"gemm", testing::load_golden_ir("gemm", "stt")},
                  {"gemm64", gemm_stt_array(64)},
                  {"seed000_abc", testing::load_golden_ir("seed000_abc", "stt")},
                  {"isolate_consumer", testing::load_golden_ir("isolate_consumer", "stt")},
                  {"gemm_projection", testing::load_golden_ir("gemm_projection", "stt")},
                  {"vectorize_gather", testing::load_golden_ir("vectorize_gather", "stt")},
                  {"ar_filter", testing::load_golden_ir("ar_filter", "merged")},
                  {"hand_built", hand_built()},
                  {"offsets", offsets_program()},
                  {"pe_fifo", pe_fifo_program()}};
  for (const Case& c : cases) {
    std::string in = dir + "/" + c.name + ".dot";
    std::string err = dir + "/" + c.name + ".err";
    std::ofstream(in) << emit_dot(c.program);
    std::string command =
        std::string(dot_tool) + " -Tsvg " + in + " -o " + dir + "/" + c.name + ".svg 2> " + err;
    EXPECT_EQ(std::system(command.c_str()), 0) << c.name;
    std::ifstream errors(err);
    std::string text((std::istreambuf_iterator<char>(errors)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "") << c.name;
  }
}

}  // namespace
}  // namespace t2s
