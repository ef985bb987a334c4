// //tests/run:gather_run_test: the gathering specs (seed 003, issue 14) compute their math at
// every stage.
//
// Each case lowers a spec of testdata/specs with the -D flags of its testdata/BUILD pipeline
// through t2s-stt, t2s-vec and t2s-gather, then runs t2s-run --check on the spec (its merged
// stage) and on each stage's IR (the stt, vectorized and gathered stages: --check holds each to
// the merged stage, bit for bit) and compares every output bit for bit with the formula the
// spec's header states, computed here with plain C++ loops in the spec's order of additions
// (run_support.h; the conventions of run_test.cc), on sequential and random data. That the
// emulation and the OpenCL of each stage agree is //testdata:NAME_emulation_test's and
// NAME_opencl_test's part.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "libs/exec/npy_files.h"
#include "tests/run/run_support.h"

namespace t2s {
namespace {

using namespace run_testing;  // NOLINT(build/namespaces): the shared test support

using Formula = std::function<NdArray(const Fill&)>;

// Runs `t2s-run --check PATH FILL -o OUT` and compares the output with expected(fill).
void CheckRun(const std::string& path, const std::string& output, const Fill& fill,
              const Formula& expected) {
  std::vector<std::string> args = {"--check", path};
  for (const std::string& f : fill.flags()) args.push_back(f);
  args.insert(args.end(), {"-o", OutPath()});
  std::remove(OutPath().c_str());
  const ToolRun run = RunTool(args);
  SCOPED_TRACE(run.command);
  ASSERT_EQ(run.status, 0) << run.describe();
  EXPECT_NE(run.err.find("check passed"), std::string::npos) << run.err;
  NdArray actual;
  try {
    actual = read_npy(ReadFile(OutPath()), OutPath());
  } catch (const NpyError& e) {
    FAIL() << e.what();
  }
  EXPECT_TRUE(SameBits(expected(fill), actual, output));
}

// The spec with `flags` through every stage: the formula holds on the spec (merged stage, with
// CheckSpec's test that the output depends on the data) and on each stage's IR.
void CheckGather(const std::string& spec, const std::vector<std::string>& flags,
                 const std::string& output, const Formula& expected) {
  CheckSpec(spec, flags, output, true, expected);
  const std::string stt = TmpDir() + "/stt.json", vec = TmpDir() + "/vectorized.json",
                    gathered = TmpDir() + "/gathered.json";
  std::vector<std::string> stt_args = {SpecPath(spec)};
  stt_args.insert(stt_args.end(), flags.begin(), flags.end());
  stt_args.insert(stt_args.end(), {"-o", stt});
  for (const ToolRun& run :
       {RunTool(stt_args, "tools/t2s-stt"), RunTool({stt, "-o", vec}, "tools/t2s-vec"),
        RunTool({vec, "-o", gathered}, "tools/t2s-gather")})
    ASSERT_EQ(run.status, 0) << run.describe();
  for (const std::string& path : {stt, vec, gathered})
    for (const Fill& fill : {kSequential, kRandom7}) CheckRun(path, output, fill, expected);
}

// gather_2d: c(i, j, b) = sum over k < 4 of a(i, k, b) * w(k, j), I = 3, J = 4, NB = 2
// (float32, from 0.0f in k order).
NdArray BatchedProduct(const Fill& fill) {
  const Arr<float> a = Input<float>("a", {3, 4, 2}, fill), w = Input<float>("w", {4, 4}, fill);
  Arr<float> c({3, 4, 2});
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 4; ++j) {
        float sum = 0.0f;
        for (int64_t k = 0; k < 4; ++k) sum = Add(sum, Mul(a(i, k, b), w(k, j)));
        c.set({i, j, b}, sum);
      }
    }
  }
  return c.array();
}

struct Case2d {
  const char* pipeline;
  std::vector<std::string> flags;
};

// The cases of testdata/BUILD: along i or j, Down or Up, unrolled or vectorized (eight), and
// with both space loops vectorized (a tensor of lanes) along i Down and along j Up.
TEST(GatherRunTest, Gather2d) {
  const std::vector<Case2d> cases = {
      {"gather_2d", {}},
      {"gather_2d_i_up", {"-D", "UP"}},
      {"gather_2d_j_down", {"-D", "ALONG_J"}},
      {"gather_2d_j_up", {"-D", "ALONG_J", "-D", "UP"}},
      {"gather_2d_vec_i_down", {"-D", "VEC"}},
      {"gather_2d_vec_i_up", {"-D", "UP", "-D", "VEC"}},
      {"gather_2d_vec_j_down", {"-D", "ALONG_J", "-D", "VEC"}},
      {"gather_2d_vec_j_up", {"-D", "ALONG_J", "-D", "UP", "-D", "VEC"}},
      {"gather_2d_vec2_i_down", {"-D", "VEC2"}},
      {"gather_2d_vec2_j_up", {"-D", "ALONG_J", "-D", "UP", "-D", "VEC2"}},
  };
  for (const Case2d& c : cases) {
    SCOPED_TRACE(c.pipeline);
    CheckGather("gather_2d", c.flags, "collector", BatchedProduct);
  }
}

// gather_3d: s(i, j, l, b) = sum over k < 4 of a(i, l, k, b) * x(j, l, k), I = 2, J = 3, L = 4,
// NB = 2 (int32, wrapping, from 0 in k order).
NdArray DotProducts3d(const Fill& fill) {
  const Arr<int32_t> a = Input<int32_t>("a", {2, 4, 4, 2}, fill);
  const Arr<int32_t> x = Input<int32_t>("x", {3, 4, 4}, fill);
  Arr<int32_t> s({2, 3, 4, 2});
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t j = 0; j < 3; ++j) {
        for (int64_t l = 0; l < 4; ++l) {
          int32_t sum = 0;
          for (int64_t k = 0; k < 4; ++k) sum = Add(sum, Mul(a(i, l, k, b), x(j, l, k)));
          s.set({i, j, l, b}, sum);
        }
      }
    }
  }
  return s.array();
}

TEST(GatherRunTest, Gather3d) { CheckGather("gather_3d", {}, "collector", DotProducts3d); }

TEST(GatherRunTest, Gather3dVectorizedI) {
  CheckGather("gather_3d", {"-D", "VEC_I"}, "collector", DotProducts3d);
}

TEST(GatherRunTest, Gather3dVectorizedIL) {
  CheckGather("gather_3d", {"-D", "VEC_I", "-D", "VEC_L"}, "collector", DotProducts3d);
}

TEST(GatherRunTest, Gather3dVectorizedL) {
  CheckGather("gather_3d", {"-D", "ALONG_L", "-D", "VEC_L"}, "collector", DotProducts3d);
}

// gather_3d_tensor.t2s: the same array, i and l vectorized, gathered along l (a tensor of lanes).
TEST(GatherRunTest, Gather3dTensorAlongL) {
  CheckGather("gather_3d_tensor", {}, "collector", DotProducts3d);
}

// gemm_gather_a10: unloader(jjj, iii, jj, ii) = sum over k = kkk + 16 * kk of a(k, i) * b(j, k),
// i = iii + 10 * ii, j = jjj + 8 * jj (KKK = 16, JJJ = 8, III = 10, KK = JJ = II = 2; float32
// from 0.0f in k order), as vec_run_test's GemmVecA10.
NdArray TiledGemmA10(const Fill& fill) {
  const int64_t kkk = 16, jjj = 8, iii = 10, kk = 2, jj = 2, ii = 2;
  const int64_t K = kkk * kk, I = iii * ii, J = jjj * jj;
  const Arr<float> a = Input<float>("a", {K, I}, fill), b = Input<float>("b", {J, K}, fill);
  Arr<float> out({jjj, iii, jj, ii});
  for (int64_t i = 0; i < I; ++i) {
    for (int64_t j = 0; j < J; ++j) {
      float sum = 0.0f;
      for (int64_t k = 0; k < K; ++k) sum = Add(sum, Mul(a(k, i), b(j, k)));
      out.set({j % jjj, i % iii, j / jjj, i / iii}, sum);
    }
  }
  return out.array();
}

// T2SP's writing: the collector inherits the drainer's PEs and gathers along jjj vectorized.
TEST(GatherRunTest, GemmGatherA10) { CheckGather("gemm_gather_a10", {}, "unloader", TiledGemmA10); }

// The collector's own space_time_transform(jjj): a row of PEs, gathering along jjj unrolled.
TEST(GatherRunTest, GemmGatherA10Row) {
  CheckGather("gemm_gather_a10", {"-D", "COLLECTOR_STT"}, "unloader", TiledGemmA10);
}

}  // namespace
}  // namespace t2s
