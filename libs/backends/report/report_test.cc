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

// T2SP's Arria-10 GEMM: III x JJJ = 10 x 8 PEs, each a KKK = 16-lane float dot product per time
// step, at 244 MHz. From the formulas of docs/report.md:
//   multiply-adds per cycle = 10 * 8 * 16 = 1280; peak = 2 * 1280 * 244e6 = 624.64 GFLOPS.
//   kernel A: KK * II * JJ steps, every PE useful at every step (no condition guards its work).
//   drainer (gathers along iii, its PEs in turn): per (ii, jj), PE (iii, jjj) runs iii + 1 steps,
//     sum over iii of (iii + 1) = 55, times JJJ = 8 columns: 440 steps, so 440 * II * JJ.
//   collector: II * JJ steps.
// Large problem, KK = 1024 (K = 16384), II = JJ = 16 (a 160 x 128 output): A has 1024 * 256
// steps against the drainer's 440 * 256, so A is the bottleneck, cycles = A's steps,
// utilisation = 80 * steps / (80 * steps) = 100%, throughput = the peak, 624.64 GFLOPS.
TEST(ReportTest, T2spArria10GemmLargeProblemReachesThePeak) {
  const DesignModel d = model_design(
      lowered_spec("gemm_gather_a10", {{"KK", "1024"}, {"II", "16"}, {"JJ", "16"}}), a10_at(244));
  const KernelModel& a = kernel(d, "A");
  EXPECT_EQ(a.pes, 80);
  EXPECT_EQ(a.lanes, 16);
  EXPECT_EQ(a.steps, 1024 * 16 * 16);
  EXPECT_EQ(a.ops.multiply_adds, 1280);
  EXPECT_EQ(a.useful_pe_steps, int64_t{80} * 1024 * 16 * 16);
  EXPECT_EQ(kernel(d, "drainer").steps, 440 * 16 * 16);
  EXPECT_EQ(kernel(d, "collector").steps, 16 * 16);
  EXPECT_EQ(d.multiply_adds_per_cycle, 1280);
  ASSERT_TRUE(d.bottleneck && d.utilisation && d.ops_per_second);
  EXPECT_EQ(d.kernels[*d.bottleneck].name, "A");
  EXPECT_GT(*d.utilisation, 0.99);
  EXPECT_DOUBLE_EQ(*d.utilisation, 1.0);
  EXPECT_GE(*d.ops_per_second, 620e9);
  EXPECT_NEAR(*d.ops_per_second, 624.64e9, 1e3);
  // One float multiply-add per DSP block: 1280 of the 1518 of an Arria 10 GX 1150.
  EXPECT_EQ(std::ceil(d.dsp_blocks), 1280);
  EXPECT_NE(report_text(d).find("624.64 GFLOPS"), std::string::npos) << report_text(d);
}

// The same array on the spec's own small problem (KK = II = JJ = 2): A has 8 steps, the drainer
// 440 * 4 = 1760, so the drainer is the bottleneck; utilisation = 80 * 8 / (80 * 1760) = 1/220
// (0.45%), throughput = 2 * 1280 * 8 / 1760 * 244e6 = 2.839 GFLOPS.
TEST(ReportTest, T2spArria10GemmSmallProblemNamesTheDrainer) {
  const DesignModel d = model_design(lowered_spec("gemm_gather_a10", {}), a10_at(244));
  ASSERT_TRUE(d.bottleneck && d.utilisation && d.ops_per_second);
  EXPECT_EQ(d.kernels[*d.bottleneck].name, "drainer");
  EXPECT_EQ(d.cycles, 1760);
  EXPECT_DOUBLE_EQ(*d.utilisation, 1.0 / 220);
  EXPECT_NEAR(*d.ops_per_second, 2.0 * 1280 * 8 / 1760 * 244e6, 1e3);
  EXPECT_NE(report_text(d).find("bottleneck: drainer, 1760 steps"), std::string::npos)
      << report_text(d);
}

// Without the output path (gemm_vec_a10) the array alone at KK = 512: 100%, the peak.
TEST(ReportTest, VectorizedGemmAloneIsItsOwnBottleneck) {
  const DesignModel d = model_design(lowered_spec("gemm_vec_a10", {{"KK", "512"}}), a10_at(244));
  ASSERT_TRUE(d.utilisation && d.ops_per_second);
  EXPECT_EQ(d.cycles, 512 * 2 * 2);
  EXPECT_DOUBLE_EQ(*d.utilisation, 1.0);
  EXPECT_NEAR(*d.ops_per_second, 624.64e9, 1e3);
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
