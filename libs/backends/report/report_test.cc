#include "libs/backends/report/report.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "libs/frontend/frontend.h"
#include "libs/ir/source_manager.h"
#include "libs/passes/lower/lower.h"
#include "libs/testing/golden.h"
#include "libs/testing/ir_edit.h"

namespace t2s {
namespace {

// testdata/specs/NAME.t2s with `#define MACRO OLD` lines replaced (the specs define their sizes
// unconditionally, so -D cannot change them), lowered through every stage.
Program lowered_spec(const std::string& name,
                     const std::vector<std::pair<std::string, std::string>>& sizes) {
  std::ifstream in(testing::runfile("testdata/specs/" + name + ".t2s"));
  std::stringstream buf;
  buf << in.rdbuf();
  std::string text = buf.str();
  for (const auto& [macro, value] : sizes) {
    const std::string key = "#define " + macro + " ";
    const size_t at = text.find(key);
    if (at == std::string::npos) throw std::runtime_error("no " + key + "in " + name);
    text.replace(at, text.find('\n', at) - at, key + value);
  }
  SourceManager sources;
  sources.add("", name + ".t2s", text);
  return lower_to(parse_spec(sources, FrontendOptions{}), Stage::kGathered);
}

const KernelModel& kernel(const DesignModel& d, const std::string& name) {
  for (const KernelModel& k : d.kernels)
    if (k.name == name) return k;
  throw std::runtime_error("no kernel " + name);
}

ReportOptions a10_at(double mhz) {
  ReportOptions o;
  o.device = "arria10";
  o.fmax_mhz = mhz;
  return o;
}

// T2SP's Arria-10 GEMM array: III x JJJ = 10 x 8 PEs, each a KKK = 16-lane float dot product per
// time step, at 244 MHz. From the formulas of docs/report.md:
//   multiply-adds per cycle = 10 * 8 * 16 = 1280; peak = 2 * 1280 * 244e6 = 624.64 GFLOPS.
//   kernel A: KK * II * JJ steps, every PE useful at every step (no condition guards its work).
//   drainer (gathers along iii): per (ii, jj), its count loop t runs III = 10 steps around the
//     PEs, which run at once (docs/ir.md, gathering), so 10 * II * JJ.
//   collector: II * JJ steps.
// Large problem, KK = 1024 (K = 16384), II = JJ = 16 (a 160 x 128 output): A has 1024 * 256
// steps against the drainer's 10 * 256. But gemm_gather_a10 has no input network: its PEs of
// jjj == 0 and iii == 0 read (10 + 8) * 16 floats from global memory at every step, 1152 bytes
// against the board's 157.38 a cycle, so the memory is the bottleneck (7.3 times the array's
// cycles) and the design runs at 13.65% of the peak (issue 34: no more parity claimed for it).
TEST(ReportTest, T2spArria10GemmWithoutFeedersIsMemoryBound) {
  const DesignModel d = model_design(
      lowered_spec("gemm_gather_a10", {{"KK", "1024"}, {"II", "16"}, {"JJ", "16"}}), a10_at(244));
  const KernelModel& a = kernel(d, "A");
  EXPECT_EQ(a.pes, 80);
  EXPECT_EQ(a.lanes, 16);
  EXPECT_EQ(a.steps, 1024 * 16 * 16);
  EXPECT_EQ(a.ops.multiply_adds, 1280);
  EXPECT_EQ(a.useful_pe_steps, int64_t{80} * 1024 * 16 * 16);
  EXPECT_EQ(a.global_bytes, int64_t{1024} * 16 * 16 * 1152);
  EXPECT_EQ(kernel(d, "drainer").steps, 10 * 16 * 16);
  EXPECT_EQ(kernel(d, "collector").steps, 16 * 16);
  EXPECT_EQ(d.multiply_adds_per_cycle, 1280);
  EXPECT_EQ(d.kernel_cycles, 1024 * 16 * 16);
  EXPECT_TRUE(d.memory_bound);
  ASSERT_TRUE(d.global_bytes && d.utilisation && d.ops_per_second);
  EXPECT_EQ(d.memory_cycles, static_cast<int64_t>(std::ceil(*d.global_bytes / (38.4e9 / 244e6))));
  EXPECT_DOUBLE_EQ(*d.utilisation, static_cast<double>(1024 * 16 * 16) / d.memory_cycles);
  EXPECT_LT(*d.ops_per_second, 90e9);
  // One float multiply-add per DSP block: 1280 of the 1518 of an Arria 10 GX 1150.
  EXPECT_EQ(std::ceil(d.dsp_blocks), 1280);
  EXPECT_NE(report_text(d).find("bottleneck: global memory"), std::string::npos) << report_text(d);
}

// The same array fed as T2SP feeds it (gemm_a10_stensor: DRAM loaders, double-buffered SRAM
// feeders, a collector and an unloader) at KK = 1024, II = JJ = 16, one tile (I = J = 1): the
// loaders send a vector of 16 floats a step, aLoader K * KK * II * III = 327680 steps and
// bLoader K * KK * JJ * JJJ = 262144, the unloader 256 steps of 10 x 8 floats: 37830656 bytes,
// 48.10 a cycle of the feeders' 786432 steps (the double buffers' K + 1 = 3 periods of
// 262144 reads), well under the board's 157.38: the design is not memory-bound.
TEST(ReportTest, T2spArria10GemmWithItsStensorNetworkIsNotMemoryBound) {
  const DesignModel d = model_design(lowered_spec("gemm_a10_stensor", {{"KKK", "16"},
                                                                       {"JJJ", "8"},
                                                                       {"III", "10"},
                                                                       {"JJ", "16"},
                                                                       {"II", "16"},
                                                                       {"KK", "1024"},
                                                                       {"I", "1"},
                                                                       {"J", "1"}}),
                                     a10_at(244));
  EXPECT_EQ(kernel(d, "aLoader").global_bytes, int64_t{327680} * 64);
  EXPECT_EQ(kernel(d, "bLoader").global_bytes, int64_t{262144} * 64);
  EXPECT_EQ(kernel(d, "unloader").global_bytes, 256 * 80 * 4);
  EXPECT_EQ(d.global_bytes, 37830656);
  EXPECT_EQ(d.kernel_cycles, 786432);
  EXPECT_FALSE(d.memory_bound);
  ASSERT_TRUE(d.bottleneck);
  EXPECT_EQ(d.kernels[*d.bottleneck].name, "aFeeder");
  EXPECT_NE(report_text(d).find("37830656 bytes in 786432 cycles = 48.10 bytes per cycle"),
            std::string::npos)
      << report_text(d);
}

// T2SP's A10 GEMM at its published sizes (inner III 10, JJJ 8, KKK 16, II = JJ = KK = 32; outer
// I = J = K = 32: A 10240 x 16384, B 16384 x 8192, 1.37 x 10^12 multiply-adds), which the merge
// used to refuse (loop-too-large; storage of Z): per period of 32768 x 32768 feeder cycles the
// loaders send a 320 x 512 tile of A and a 512 x 256 tile of B, 36 bytes a cycle (T2SP's 36).
// The feeders' double buffers take one period more than the 32768 tiles (the first fill), and
// the unloader's results add the rest: 36.31.
TEST(ReportTest, T2spArria10GemmAtItsPublishedSizes) {
  const DesignModel d = model_design(lowered_spec("gemm_a10_stensor", {{"KKK", "16"},
                                                                       {"JJJ", "8"},
                                                                       {"III", "10"},
                                                                       {"JJ", "32"},
                                                                       {"II", "32"},
                                                                       {"KK", "32"},
                                                                       {"I", "32"},
                                                                       {"J", "32"},
                                                                       {"K", "32"}}),
                                     a10_at(250));
  EXPECT_EQ(kernel(d, "X").steps, int64_t{1} << 30);
  EXPECT_EQ(kernel(d, "aFeeder").steps, int64_t{32768} * 32769);
  EXPECT_EQ(d.global_bytes, int64_t{38990249984});
  EXPECT_FALSE(d.memory_bound);
  EXPECT_NE(report_text(d).find("= 36.31 bytes per cycle"), std::string::npos) << report_text(d);
  EXPECT_NE(report_text(d).find("639.98 GFLOPS"), std::string::npos) << report_text(d);
}

// The same array on the spec's own small problem (KK = II = JJ = 2): A has 8 steps, the drainer
// 10 * 4 = 40, the most of a kernel. The design moves 9216 bytes of A's operands and the
// collector's 1280 of results: 10496 bytes, ceil(10496 / 157.38) = 67 cycles of the board's
// DDR at 244 MHz, more than the kernels' 40 steps: memory-bound, utilisation = 8 / 67,
// throughput = 2 * 1280 * 8 / 67 * 244e6 = 74.58 GFLOPS.
TEST(ReportTest, T2spArria10GemmSmallProblemIsMemoryBound) {
  const DesignModel d = model_design(lowered_spec("gemm_gather_a10", {}), a10_at(244));
  ASSERT_TRUE(d.bottleneck && d.utilisation && d.ops_per_second);
  EXPECT_EQ(d.kernels[*d.bottleneck].name, "drainer");
  EXPECT_EQ(kernel(d, "drainer").steps, 40);
  EXPECT_EQ(d.kernel_cycles, 40);
  EXPECT_EQ(d.global_bytes, 10496);
  EXPECT_TRUE(d.memory_bound);
  EXPECT_EQ(d.memory_cycles, 67);
  EXPECT_EQ(d.cycles, 67);
  EXPECT_DOUBLE_EQ(*d.utilisation, 8.0 / 67);
  EXPECT_NEAR(*d.ops_per_second, 2.0 * 1280 * 8 / 67 * 244e6, 1e3);
  EXPECT_NE(report_text(d).find("bottleneck: global memory, 67 cycles"), std::string::npos)
      << report_text(d);
}

// Without its I/O network (gemm_vec_a10) the array reads its operands from global memory:
// at every step the 10 PEs of jjj == 0 read 16 floats of a and the 8 of iii == 0 16 of b,
// (10 + 8) * 16 * 4 = 1152 bytes, and the 80 results of each (ii, jj) are stored once:
// 2048 * 1152 + 4 * 80 * 4 = 2360576 bytes. The board gives 38.4e9 / 244e6 = 157.38 bytes a
// cycle, so the memory needs ceil(2360576 / 157.38) = 15000 cycles against the array's 2048
// steps: the memory is the bottleneck and the throughput 2 * 1280 * 2048 / 15000 of the peak.
TEST(ReportTest, GemmReadingEveryOperandFromMemoryIsMemoryBound) {
  const DesignModel d = model_design(lowered_spec("gemm_vec_a10", {{"KK", "512"}}), a10_at(244));
  EXPECT_EQ(kernel(d, "A").global_bytes, int64_t{2048} * 1152 + 4 * 80 * 4);
  EXPECT_EQ(d.kernel_cycles, 512 * 2 * 2);
  EXPECT_TRUE(d.memory_bound);
  EXPECT_EQ(d.memory_cycles, 15000);
  EXPECT_EQ(d.cycles, 15000);
  ASSERT_TRUE(d.utilisation && d.ops_per_second);
  EXPECT_DOUBLE_EQ(*d.utilisation, 2048.0 / 15000);
  EXPECT_NEAR(*d.ops_per_second, 2.0 * 1280 * 2048 / 15000 * 244e6, 1e3);
  EXPECT_NE(report_text(d).find("bottleneck: global memory, 15000 cycles"), std::string::npos)
      << report_text(d);
  // On a Stratix 10 board (76.8 GB/s) at the same clock the memory needs half the cycles.
  ReportOptions s10 = a10_at(244);
  s10.device = "stratix10";
  EXPECT_EQ(model_design(lowered_spec("gemm_vec_a10", {{"KK", "512"}}), s10).memory_cycles, 7500);
}

// T2SP's GEMM with its Stensor I/O network (gemm_a10_stensor: 12 x 16 A and 16 x 12 B, tiles
// of III * II = 12 rows and JJJ * JJ = 6 columns): the loaders read each input once per tile
// of the other (A's 192 floats for each of J = 2 column tiles: 1536 bytes; B's for each of
// I = 2), the unloader writes the 144 results once; the feeders, the array and the collector
// touch no global memory. The same design written with the directives moves the same bytes.
TEST(ReportTest, StensorGemmReadsEachTileOnce) {
  const DesignModel d = model_design(lowered_spec("gemm_a10_stensor", {}), a10_at(244));
  EXPECT_EQ(kernel(d, "aLoader").global_bytes, 1536);
  EXPECT_EQ(kernel(d, "bLoader").global_bytes, 1536);
  EXPECT_EQ(kernel(d, "unloader").global_bytes, 576);
  for (const char* name : {"aFeeder", "bFeeder", "X", "collector"})
    EXPECT_EQ(kernel(d, name).global_bytes, 0) << name;
  EXPECT_FALSE(kernel(d, "deserializer").global_bytes);  // on the host
  EXPECT_EQ(d.global_bytes, 3648);
  EXPECT_FALSE(d.memory_bound);
  const DesignModel explicit_design =
      model_design(lowered_spec("gemm_a10_explicit", {}), a10_at(244));
  EXPECT_EQ(explicit_design.global_bytes, 3648);
}

// CheckTime (seed 000's skewed GEMM, 10 x 10 PEs, k in [0, 10)): PE (i, j) works at the 10
// steps t1 = 2 i + 3 j + k of the 55, so 100 * 10 of 100 * 55 PE-steps are useful: 18.18%.
TEST(ReportTest, CheckTimeUtilisationCountsTheGuardedSteps) {
  // The seed places its array on the host; the model is of the device.
  Program p = testing::load_golden_ir("seed000_abc_checktime", "gathered");
  for (Kernel& k : p.kernels) k.place = Place::kDevice;
  const DesignModel d = model_design(p, ReportOptions{});
  const KernelModel& a = kernel(d, "A");
  EXPECT_EQ(a.pes, 100);
  EXPECT_EQ(a.steps, 55);
  EXPECT_EQ(a.useful_pe_steps, 1000);
  EXPECT_FALSE(a.useful_is_upper_bound);
  // int32: a product of more than 27 bits takes two blocks; the add rides along.
  EXPECT_EQ(a.ops.multiply_adds, 100);
  EXPECT_DOUBLE_EQ(a.dsp_blocks, 200);
}

TEST(ReportTest, GemmCountsOperationsAndStorage) {
  const DesignModel d = model_design(testing::load_golden_ir("gemm", "gathered"), ReportOptions{});
  const KernelModel& a = kernel(d, "A");
  EXPECT_EQ(a.pes, 16);
  EXPECT_EQ(a.steps, 8);
  EXPECT_EQ(a.ops.multiply_adds, 16);
  EXPECT_EQ(a.ops.adds + a.ops.muls, 0);
  EXPECT_EQ(a.useful_pe_steps, 16 * 8);
  EXPECT_TRUE(a.float_arithmetic);
  // a(i, k) read where j == 0, b(k, j) where i == 0 (the select's condition narrows each
  // read), c stored once: (4 * 8 + 8 * 4 + 4 * 4) floats.
  EXPECT_EQ(a.global_bytes, (32 + 32 + 16) * 4);
}

// vec_width32: each of the 4 PEs keeps a 32-lane float register of depth 1 (X_shreg) and reads a
// 32-lane channel of depth 0 (one value): 1024-bit words, one each, which are flip-flops, not
// ceil(1024 / 40) = 26 M20K blocks apiece.
TEST(ReportTest, OneWordRegistersAndChannelsAreFlipFlopsHoweverWide) {
  const DesignModel d =
      model_design(testing::load_golden_ir("vec_width32", "gathered"), ReportOptions{});
  const KernelModel& a = kernel(d, "A");
  EXPECT_EQ(a.lanes, 32);
  EXPECT_GE(a.register_bits, 4 * 32 * 32);
  EXPECT_EQ(a.m20k_blocks, 0);
  EXPECT_EQ(kernel(d, "feedA").m20k_blocks, 0);
}

// Counts past int64 saturate and are refused (hand-edited IR: three unrolled loops of 2^31 - 1
// iterations make 2^93 PEs), never wrap.
TEST(ReportTest, CountsPastInt64AreRefused) {
  Program p = testing::load_golden_ir("gemm", "gathered");
  For& k = *testing::edit_as<For>(p.kernels[0].body[0]);
  For& j = *testing::edit_as<For>(k.body[0]);
  For& i = *testing::edit_as<For>(j.body[0]);
  const Expr big = make_int(Type::Int(32), INT32_MAX);
  j.extent = big;
  i.extent = big;
  For extra = i;
  extra.var = "l";
  i.body = {std::make_shared<Stmt>(Stmt{extra, {}})};
  try {
    model_design(p, ReportOptions{});
    ADD_FAILURE() << "no diagnostic";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "emit-report");
    EXPECT_NE(d.message().find("kernel A: its sizes exceed what the model counts"),
              std::string::npos)
        << d.message();
  }
}

TEST(ReportTest, JsonHasTheTextsNumbersAndTheDeviceChangesTheCapacity) {
  ReportOptions s10;
  s10.device = "stratix10";
  s10.fmax_mhz = 400;
  const Program p = testing::load_golden_ir("gemm", "gathered");
  const nlohmann::json j = nlohmann::json::parse(emit_report_target(p, true, s10));
  EXPECT_EQ(j["device"], "stratix10");
  EXPECT_EQ(j["design"]["dsp_blocks_available"], 5760);
  EXPECT_EQ(j["design"]["bottleneck"], "A");
  EXPECT_EQ(j["kernels"][0]["useful_pe_steps"], 128);
  // 16 multiply-adds per cycle at 400 MHz: 12.8 GFLOPS.
  EXPECT_DOUBLE_EQ(j["design"]["ops_per_second"].get<double>(), 2 * 16 * 400e6);
  EXPECT_THROW(emit_report_target(p, false, ReportOptions{"cyclone5", 100}), Diagnostic);
}

}  // namespace
}  // namespace t2s
