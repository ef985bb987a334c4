#include "libs/backends/text/text.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "libs/ir/expr.h"
#include "libs/ir/program.h"
#include "libs/testing/golden.h"

namespace t2s {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

Expr i32(int64_t v) { return make_int(Type::Int(32), v); }

TEST(TextTest, GemmListingAsInTheSeeds) {
  const std::string expected =
      "// t2s pseudo-code, stage stt\n"
      "// output: c: float32, extents [4, 4]\n"
      "// inputs:\n"
      "//   a: float32, 2 dims, extents [4, 8]\n"
      "//   b: float32, 2 dims, extents [8, 4]\n"
      "// buffers:\n"
      "//   c: float32 [0, 4) x [0, 4)\n"
      "\n"
      "kernel A (device):\n"
      "  for k in [0, 8) serial:\n"
      "    for j in [0, 4) unrolled:\n"
      "      for i in [0, 4) unrolled:\n"
      "        let A_val = select(j == 0, a(i, k), A_shreg(i, j - 1, 0))\n"
      "        A_shreg(i, j, 0) = A_val\n"
      "        let B_val = select(i == 0, b(k, j), B_shreg(i - 1, j, 0))\n"
      "        B_shreg(i, j, 0) = B_val\n"
      "        let C_val = select(k == 0, 0.0f, C_shreg(i, j, 0)) + A_val * B_val\n"
      "        C_shreg(i, j, 0) = C_val\n"
      "        if (k == 7):\n"
      "          c(i, j) = C_val\n"
      "\n"
      "channels: none\n"
      "registers:\n"
      "  A_shreg: shift float32, Func A in kernel A, depth 1 per PE, PE array [4, 4] (16 PEs), "
      "distance (0, 1, 0), time_distance 0, period 1, naive 1 per PE (16 values in all; "
      "allocated 16)\n"
      "  B_shreg: shift float32, Func B in kernel A, depth 1 per PE, PE array [4, 4] (16 PEs), "
      "distance (1, 0, 0), time_distance 0, period 1, naive 1 per PE (16 values in all; "
      "allocated 16)\n"
      "  C_shreg: shift float32, Func C in kernel A, depth 1 per PE, PE array [4, 4] (16 PEs), "
      "distance (0, 0, 1), time_distance 1, period 1, naive 2 per PE (32 values in all; "
      "allocated 16)\n";
  EXPECT_EQ(emit_text(testing::load_golden_ir("gemm", "stt")), expected);
}

TEST(TextTest, FifosPushPopAndTheSeedsNaiveShiftRegisters) {
  std::string text = emit_text(testing::load_golden_ir("seed000_abc", "stt"));
  // Time loops, the space loop, the recovered indices and the guard, nested as in step 4.
  EXPECT_TRUE(contains(text,
                       "kernel A (host):\n"
                       "  for t1 in [0, 55) serial:\n"
                       "    for t2 in [0, 28) serial:\n"
                       "      for i in [0, 10) unrolled:\n"
                       "        let j = t2 - 2 * i\n"
                       "        let k = t1 - 2 * i - 3 * j\n"
                       "        if (0 <= j && j < 10 && 0 <= k && k < 10):\n"
                       "          let A_fifo_val = select(1 <= i, pop(A_fifo, i - 1), 0)\n"
                       "          let A_val = select(i == 0, a(j, k), A_fifo_val)\n"
                       "          if (i < 9):\n"
                       "            push A_fifo(i) <- A_val\n"))
      << text;
  EXPECT_TRUE(contains(text, "          if (k == 9):\n            c(i, j) = C_val\n")) << text;
  // Step 5 of the seed allocates srA[10][59]; t2s-stt a FIFO of depth 9 per PE.
  EXPECT_TRUE(contains(text,
                       "  A_fifo: fifo int32, Func A in kernel A, depth 9 per PE, PE array [10] "
                       "(10 PEs), distance (1, 0, 0), time_distance 58, period 1, naive 59 per PE "
                       "(590 values in all; allocated 90)\n"))
      << text;
  EXPECT_TRUE(contains(text, "  C_fifo: fifo int32, Func C in kernel A, depth 3 per PE"));
}

TEST(TextTest, ChannelsBetweenKernels) {
  std::string text = emit_text(testing::load_golden_ir("isolate_consumer", "stt"));
  size_t feeder = text.find("kernel feederA (device):\n");
  size_t a = text.find("kernel A (device):\n");
  size_t drainer = text.find("kernel drainer (device):\n");
  size_t collector = text.find("kernel collector (device):\n");
  ASSERT_NE(feeder, std::string::npos);
  ASSERT_NE(collector, std::string::npos);
  EXPECT_LT(feeder, a);
  EXPECT_LT(a, drainer);
  EXPECT_LT(drainer, collector);
  EXPECT_TRUE(
      contains(text, "        if (j == 0):\n          write_channel feederA_to_A <- a(i, k)\n"));
  EXPECT_TRUE(contains(text,
                       "let A_val = select(j == 0, read_channel(feederA_to_A), "
                       "A_shreg(i, j - 1, 0))\n"));
  // The channels out of the array are arrays, one channel per PE: each PE writes its own, and
  // drainer, which inherits A's PE array, reads the one of the same loop variables.
  EXPECT_TRUE(contains(text, "          write_channel c_to_drainer(j, i) <- C_val\n"));
  EXPECT_TRUE(contains(text,
                       "      write_channel drainer_to_collector(j, i) <- "
                       "read_channel(c_to_drainer, j, i)\n"));
  EXPECT_TRUE(contains(
      text,
      "channels:\n"
      "  c_to_drainer: float32, A -> drainer, depth 0 (default), dims [4, 4] (16 channels)\n"
      "  drainer_to_collector: float32, drainer -> collector, depth 4, dims [4, 4] (16 "
      "channels)\n"
      "  feederA_to_A: float32, feederA -> A, depth 0 (default), dims []\n"))
      << text;
}

TEST(TextTest, MergedStageRealizes) {
  std::string text = emit_text(testing::load_golden_ir("ar_filter", "merged"));
  EXPECT_TRUE(contains(text, "// t2s pseudo-code, stage merged\n"));
  EXPECT_TRUE(contains(text,
                       "kernel Y (host):\n"
                       "  realize Y: float32 [0, 3) x [0, 10):\n"
                       "    realize S: float32 [0, 3) x [0, 10):\n"
                       "      for n in [0, 10) serial:\n"
                       "        for k in [0, 3) serial:\n"
                       "          Y(k, n) = select(k == 0, x(n) + select(n == 0, 0.0f, "
                       "S(k, n - 1)), Y(k - 1, n))\n"))
      << text;
  EXPECT_TRUE(contains(text, "//   x: float32, 1 dim, extents [10]\n"));
  EXPECT_TRUE(contains(text, "channels: none\nregisters: none\n"));
}

// Statement kinds the goldens do not exercise, in a program built by hand.
TEST(TextTest, EveryStatementKind) {
  Program p;
  p.stage = Stage::kVectorized;
  p.inputs.push_back({"in", Type::Int(16), 1, {}, {}});
  p.channels.push_back({"ch", Type::Int(32), {4}, 2, "K", "L", {}});

  StmtPtr alloc = make_alloc("R", Type::Float(32), {i32(4), i32(59)});
  StmtPtr shift = make_shift("R", {make_var("x")});
  StmtPtr push = make_push("F", {make_var("x")}, make_var("t", Type::Int(32), {}));
  StmtPtr let = make_let("t", make_binary(BinaryOp::kMul, make_var("x"), i32(2), Type::Int(32)),
                         {shift, push});
  StmtPtr write = make_write_channel("ch", {make_var("x")}, make_var("y"));
  StmtPtr other = make_write_channel("ch", {i32(0)}, i32(-1));
  StmtPtr cond =
      make_if(make_binary(BinaryOp::kLT, make_var("x"), i32(3), Type::Bool()), {write}, {other});
  StmtPtr sym = make_for("y", make_var("m"), make_var("n"), LoopKind::kSerial, {alloc, let, cond});
  StmtPtr loop = make_for("x", i32(2), i32(8), LoopKind::kVectorized, {sym});
  p.kernels.push_back({"K", Place::kDevice, {loop}, {}});
  p.kernels.push_back({"L", Place::kHost, {}, {}});

  const std::string expected_kernels =
      "kernel K (device):\n"
      "  for x in [2, 10) vectorized:\n"
      "    for y in [m, m + n) serial:\n"
      "      alloc R: float32 [4, 59]\n"
      // Not the last statement of its block: its scope is shown by indentation.
      "      let t = x * 2:\n"
      "        shift R(x)\n"
      "        push F(x) <- t\n"
      "      if (x < 3):\n"
      "        write_channel ch(x) <- y\n"
      "      else:\n"
      "        write_channel ch(0) <- -1\n"
      "\n"
      "kernel L (host):\n"
      "  (empty)\n"
      "\n"
      "channels:\n"
      "  ch: int32, K -> L, depth 2, dims [4] (4 channels)\n"
      "registers: none\n";
  std::string text = emit_text(p);
  EXPECT_TRUE(contains(text, "// t2s pseudo-code, stage vectorized\n// output: none\n"));
  EXPECT_TRUE(contains(text, "//   in: int16, 1 dim, extents unknown\n"));
  ASSERT_TRUE(contains(text, expected_kernels)) << text;
  EXPECT_EQ(text.substr(text.size() - expected_kernels.size()), expected_kernels);
}

TEST(TextTest, Ranges) {
  EXPECT_EQ(print_range(i32(0), i32(8)), "[0, 8)");
  EXPECT_EQ(print_range(i32(-3), i32(5)), "[-3, 2)");
  EXPECT_EQ(print_range(i32(0), make_var("N")), "[0, N)");
  EXPECT_EQ(print_range(i32(1), make_var("N")), "[1, 1 + N)");
  EXPECT_EQ(
      print_range(make_var("m"), make_binary(BinaryOp::kSub, make_var("n"), i32(1), Type::Int(32))),
      "[m, m + (n - 1))");
  // The end would overflow int32: left as a sum.
  EXPECT_EQ(print_range(i32(2147483647), i32(1)), "[2147483647, 2147483647 + 1)");
}

TEST(TextTest, RefusesTheParsedStage) {
  Program p;
  p.stage = Stage::kParsed;
  try {
    emit_text(p);
    FAIL() << "expected a Diagnostic";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "emit-stage");
  }
}

// Vector code: a kernel's heading shows the lane counts of the values its PEs compute (none for
// scalar code); channel and register types print with their lanes.
TEST(TextTest, VectorLanes) {
  Program p = testing::load_golden_ir("gemm", "stt");
  p.registers[0].type = Type::Float(32, 4);
  p.kernels[0].body.push_back(make_let(
      "v", make_call("ramp", CallKind::kIntrinsic, Type::Int(32, 4), {i32(0), i32(1), i32(4)}),
      {}));
  const std::string text = emit_text(p);
  EXPECT_TRUE(contains(text, "kernel A (device, vector lanes 4):\n")) << text;
  EXPECT_TRUE(contains(text, "  let v = ramp(0, 1, 4)\n")) << text;
  EXPECT_TRUE(contains(text, "  A_shreg: shift float32x4, ")) << text;
  EXPECT_EQ(kernel_lanes(p.kernels[0]), std::vector<int>({4}));
  EXPECT_EQ(lanes_text({8, 16}), "vector lanes 8, 16");
  EXPECT_EQ(lanes_text({}), "");
}

TEST(TextTest, DeterministicWithTrailingNewline) {
  std::string first = emit_text(testing::load_golden_ir("isolate_consumer", "stt"));
  std::string second = emit_text(testing::load_golden_ir("isolate_consumer", "stt"));
  EXPECT_EQ(first, second);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first.back(), '\n');
  EXPECT_NE(first.substr(first.size() - 2), "\n\n");
}

// A channel between the PEs of one kernel (t2s-gather's FIFOs) says so, and a depth a pass
// chose comes with its reason.
TEST(TextTest, ChannelBetweenThePesOfOneKernelAndDepthReason) {
  Program p;
  p.stage = Stage::kGathered;
  p.channels.push_back(
      {"fifo", Type::Float(32), {3, 4}, 2, "G", "G", {}, "PE i + 1 writes 2 values first"});
  p.channels.push_back({"out", Type::Float(32), {4}, 0, "G", "H", {}});
  p.kernels.push_back({"G", Place::kDevice, {}, {}});
  p.kernels.push_back({"H", Place::kDevice, {}, {}});
  EXPECT_TRUE(contains(emit_text(p),
                       "channels:\n"
                       "  fifo: float32, G -> G, depth 2, dims [3, 4] (12 channels), between the "
                       "PEs of G\n"
                       "    depth 2: PE i + 1 writes 2 values first\n"
                       "  out: float32, G -> H, depth 0 (default), dims [4] (4 channels)\n"))
      << emit_text(p);
}

}  // namespace
}  // namespace t2s
