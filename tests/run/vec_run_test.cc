// //tests/run:vec_run_test: the vectorized specs (seed 002) compute their math.
//
// Each case runs t2s-run on a spec of testdata/specs whose loops t2s-vec vectorizes and compares
// its output bit for bit with the formula the spec's header states, computed here with plain
// C++ loops in the spec's order of additions (run_support.h; the same conventions as
// run_test.cc). t2s-run on a spec runs its merged stage; that the vectorized stage and the
// emulation compute the same is //testdata:NAME_emulation_test's part (t2s-run --check).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "libs/exec/npy_files.h"
#include "tests/run/run_support.h"

namespace t2s {
namespace {

using namespace run_testing;  // NOLINT(build/namespaces): the shared test support

// gemm_vec_a10 and vec_tensor: Out(jjj, iii, jj, ii) = sum over k = kkk + KKK * kk of
// a(k, i) * b(j, k), i = iii + III * ii, j = jjj + JJJ * jj; C starts from 0.0f and adds the
// products in k order (along kkk within a step, then from the last lane of the previous kk).
NdArray TiledGemm(const Fill& fill, int64_t kkk, int64_t jjj, int64_t iii, int64_t kk, int64_t jj,
                  int64_t ii) {
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

TEST(VecRunTest, GemmVecA10) {
  CheckSpec("gemm_vec_a10", {}, "Out", true,
            [](const Fill& fill) { return TiledGemm(fill, 16, 8, 10, 2, 2, 2); });
}

TEST(VecRunTest, VecTensor) {
  CheckSpec("vec_tensor", {}, "Out", true,
            [](const Fill& fill) { return TiledGemm(fill, 4, 4, 3, 2, 2, 2); });
}

// vec_tensor3d: the same GEMM with kkk, jjj and iii vectorized (a 3-D tensor of lanes).
TEST(VecRunTest, VecTensor3d) {
  CheckSpec("vec_tensor3d", {}, "Out", true,
            [](const Fill& fill) { return TiledGemm(fill, 8, 2, 2, 2, 2, 2); });
}

// vec_tensor64: out(xi, yi, xo, yo) = a(x, y) * b(x, y) + 2.0f * a(x, y), x = xi + 16 * xo,
// y = yi + 4 * yo (64 lanes: 4 rows of 16).
TEST(VecRunTest, VecTensor64) {
  CheckSpec("vec_tensor64", {}, "out", true, [](const Fill& fill) {
    const Arr<float> a = Input<float>("a", {32, 12}, fill), b = Input<float>("b", {32, 12}, fill);
    Arr<float> out({16, 4, 2, 3});
    for (int64_t y = 0; y < 12; ++y)
      for (int64_t x = 0; x < 32; ++x)
        out.set({x % 16, y % 4, x / 16, y / 4}, Add(Mul(a(x, y), b(x, y)), Mul(2.0f, a(x, y))));
    return out.array();
  });
}

// vec_tensor_narrow: drain(j, i) = sum over k < 4 of a(k, i) * b(j, k), from 0.0f in k order
// (J = 8, I = 4).
TEST(VecRunTest, VecTensorNarrow) {
  CheckSpec("vec_tensor_narrow", {}, "drain", true, [](const Fill& fill) {
    const Arr<float> a = Input<float>("a", {4, 4}, fill), b = Input<float>("b", {8, 4}, fill);
    Arr<float> out({8, 4});
    for (int64_t i = 0; i < 4; ++i) {
      for (int64_t j = 0; j < 8; ++j) {
        float sum = 0.0f;
        for (int64_t k = 0; k < 4; ++k) sum = Add(sum, Mul(a(k, i), b(j, k)));
        out.set({j, i}, sum);
      }
    }
    return out.array();
  });
}

// gemm_vec_space: c(jj, ii, j, i) = sum over k = kkk + 4 * kk of a(k, ii + 2 * i) *
// b(jj + 3 * j, k) in int32 (wrapping), KKK = 4, JJ = 3, II = 2, KK = 3, J = I = 2.
TEST(VecRunTest, GemmVecSpace) {
  CheckSpec("gemm_vec_space", {}, "c", true, [](const Fill& fill) {
    const Arr<int32_t> a = Input<int32_t>("a", {12, 4}, fill);
    const Arr<int32_t> b = Input<int32_t>("b", {6, 12}, fill);
    Arr<int32_t> c({3, 2, 2, 2});
    for (int64_t i = 0; i < 4; ++i) {
      for (int64_t j = 0; j < 6; ++j) {
        int32_t sum = 0;
        for (int64_t k = 0; k < 12; ++k) sum = Add(sum, Mul(a(k, i), b(j, k)));
        c.set({j % 3, i % 2, j / 3, i / 2}, sum);
      }
    }
    return c.array();
  });
}

// gemm_vec_inner: c(i, j) = sum over k < 8 of a(i, k) * b(k, j), I = J = 4.
TEST(VecRunTest, GemmVecInner) {
  CheckSpec("gemm_vec_inner", {}, "c", true, [](const Fill& fill) {
    const Arr<float> a = Input<float>("a", {4, 8}, fill), b = Input<float>("b", {8, 4}, fill);
    Arr<float> c({4, 4});
    for (int64_t i = 0; i < 4; ++i) {
      for (int64_t j = 0; j < 4; ++j) {
        float sum = 0.0f;
        for (int64_t k = 0; k < 8; ++k) sum = Add(sum, Mul(a(i, k), b(k, j)));
        c.set({i, j}, sum);
      }
    }
    return c.array();
  });
}

// vec_width5: y(nn, no) = sum over k < 5 of w(k) * x(n + k), n = nn + 4 * no (int32, wrapping);
// x has 12 + 4 elements.
TEST(VecRunTest, VecWidth5) {
  CheckSpec("vec_width5", {}, "y", true, [](const Fill& fill) {
    const Arr<int32_t> x = Input<int32_t>("x", {16}, fill), w = Input<int32_t>("w", {5}, fill);
    Arr<int32_t> y({4, 3});
    for (int64_t n = 0; n < 12; ++n) {
      int32_t sum = 0;
      for (int64_t k = 0; k < 5; ++k) sum = Add(sum, Mul(w(k), x(n + k)));
      y.set({n % 4, n / 4}, sum);
    }
    return y.array();
  });
}

// vec_width12: drain(ii, io) = y(i) = sum over j < 6 of int32(a(i, j)) * int32(x(j)),
// i = ii + 12 * io; a and x are int16.
TEST(VecRunTest, VecWidth12) {
  CheckSpec("vec_width12", {}, "drain", true, [](const Fill& fill) {
    const Arr<int16_t> a = Input<int16_t>("a", {24, 6}, fill), x = Input<int16_t>("x", {6}, fill);
    Arr<int32_t> drain({12, 2});
    for (int64_t i = 0; i < 24; ++i) {
      int32_t sum = 0;
      for (int64_t j = 0; j < 6; ++j) sum = Add(sum, Mul(int32_t{a(i, j)}, int32_t{x(j)}));
      drain.set({i % 12, i / 12}, sum);
    }
    return drain.array();
  });
}

// vec_width32: y(i) = sum over k < 64 of a(k, i) * x(k), I = 4 (float32, from 0.0f in k order).
TEST(VecRunTest, VecWidth32) {
  CheckSpec("vec_width32", {}, "y", true, [](const Fill& fill) {
    const Arr<float> a = Input<float>("a", {64, 4}, fill), x = Input<float>("x", {64}, fill);
    Arr<float> y({4});
    for (int64_t i = 0; i < 4; ++i) {
      float sum = 0.0f;
      for (int64_t k = 0; k < 64; ++k) sum = Add(sum, Mul(a(k, i), x(k)));
      y.set({i}, sum);
    }
    return y.array();
  });
}

}  // namespace
}  // namespace t2s
