// //tests/run:run_test: t2s-run computes the right numbers.
//
// Every case runs the t2s-run binary on a spec of testdata/specs, reads the .npy it writes, and
// compares it bit for bit with values computed here with plain C++ loops from the same inputs
// (generated with fill_array exactly as t2s-run generates them, or written to .npy files by the
// test). The loops follow each spec's arithmetic order: float32 sums start from 0.0f and add the
// terms in the spec's order, so the results are exact; int32 arithmetic wraps modulo 2^32 (the
// interpreter's Halide semantics), done here in uint32 so that it is defined C++.
//
// Bazel runs the test in the runfiles root of the `t2s` workspace: the tool is tools/t2s-run and
// the specs are testdata/specs/NAME.t2s.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "libs/exec/input_fill.h"
#include "libs/exec/npy_files.h"
#include "tests/run/run_support.h"

namespace t2s {
namespace {

using namespace run_testing;  // NOLINT(build/namespaces): the shared test support

// ---------------------------------------------------------------------------------------------
// GEMM: c(i, j) = sum over k of a(i, k) * b(k, j), from C(i, j, k) = select(k == 0, 0,
// C(i, j, k - 1)) + A(i, j, k) * B(i, j, k) with A = a(i, k), B = b(k, j): the sum starts from 0
// and adds the products in k order 0, 1, ..., K - 1.

template <typename T>
T GemmElement(const Arr<T>& a, const Arr<T>& b, int64_t i, int64_t j) {
  T sum = 0;
  for (int64_t k = 0; k < a.extent(1); ++k) sum = Add(sum, Mul(a(i, k), b(k, j)));
  return sum;
}

template <typename T>
NdArray Gemm(const Arr<T>& a, const Arr<T>& b) {
  Arr<T> c({a.extent(0), b.extent(1)});
  for (int64_t i = 0; i < a.extent(0); ++i) {
    for (int64_t j = 0; j < b.extent(1); ++j) c.set({i, j}, GemmElement(a, b, i, j));
  }
  return c.array();
}

TEST(RunTest, GemmFloat32) {
  // I = J = 4, K = 8: a is I x K, b is K x J.
  CheckSpec("gemm", {}, "c", true, [](const Fill& fill) {
    return Gemm(Input<float>("a", {4, 8}, fill), Input<float>("b", {8, 4}, fill));
  });
}

TEST(RunTest, GemmInt32) {
  CheckSpec("gemm_int", {}, "c", true, [](const Fill& fill) {
    return Gemm(Input<int32_t>("a", {4, 8}, fill), Input<int32_t>("b", {8, 4}, fill));
  });
}

TEST(RunTest, IsolateConsumerEqualsPlainGemm) {
  // feederA -> A, c -> drainer -> collector: collector(i, j) is the plain GEMM's c(i, j).
  CheckSpec("isolate_consumer", {}, "collector", true, [](const Fill& fill) {
    return Gemm(Input<float>("a", {4, 8}, fill), Input<float>("b", {8, 4}, fill));
  });
}

TEST(RunTest, GemmIsolateInputsEqualsPlainGemm) {
  // loadA -> feedA -> A and loadB -> feedB -> B (both isolated through the representative A):
  // c(i, j) is the plain GEMM's c(i, j).
  CheckSpec("gemm_isolate_inputs", {}, "c", true, [](const Fill& fill) {
    return Gemm(Input<float>("a", {4, 8}, fill), Input<float>("b", {8, 4}, fill));
  });
}

TEST(RunTest, IsolateNamedExprEqualsPlainGemmOfTwiceA) {
  // Expr a2 = a(i, k) * 2.0f, isolated into feedA: c is the plain GEMM of (2 a) and b.
  CheckSpec("isolate_named_expr", {}, "c", true, [](const Fill& fill) {
    Arr<float> a = Input<float>("a", {4, 8}, fill);
    Arr<float> a2({4, 8});
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t k = 0; k < 8; ++k) a2.set({i, k}, Mul(a(i, k), 2.0f));
    return Gemm(a2, Input<float>("b", {8, 4}, fill));
  });
}

TEST(RunTest, GemmTiled) {
  // I = J = K = 8 with III = JJJ = KKK = II = JJ = KK = OI = OJ = OK = 2. The output
  // unloader(jj, ii, jjj, iii, oj, oi) = c(i, j) with i = oi*II*III + ii*III + iii and
  // j = oj*JJ*JJJ + jj*JJJ + jjj. C accumulates over k = ok*KK*KKK + kk*KKK + kkk in loop order
  // (ok, kk, kkk): plain k order 0..K-1, starting from 0.
  CheckSpec("gemm_tiled", {}, "unloader", true, [](const Fill& fill) {
    const Arr<float> a = Input<float>("a", {8, 8}, fill), b = Input<float>("b", {8, 8}, fill);
    const int64_t II = 2, III = 2, JJ = 2, JJJ = 2, OI = 2, OJ = 2;
    Arr<float> unloader({JJ, II, JJJ, III, OJ, OI});
    for (int64_t oi = 0; oi < OI; ++oi)
      for (int64_t oj = 0; oj < OJ; ++oj)
        for (int64_t iii = 0; iii < III; ++iii)
          for (int64_t jjj = 0; jjj < JJJ; ++jjj)
            for (int64_t ii = 0; ii < II; ++ii)
              for (int64_t jj = 0; jj < JJ; ++jj) {
                const int64_t i = oi * II * III + ii * III + iii;
                const int64_t j = oj * JJ * JJJ + jj * JJJ + jjj;
                unloader.set({jj, ii, jjj, iii, oj, oi}, GemmElement(a, b, i, j));
              }
    return unloader.array();
  });
}

TEST(RunTest, VectorizeGather) {
  // collector(i, j) = c(i, j) = sum over k = ko * KK + kk of a(k, i) * b(j, k): A = a(k, i),
  // B = b(j, k); C adds along kk within a vector, then from the last lane of the previous ko:
  // k order 0..7. a is K x I = 8 x 4, b is J x K = 4 x 8.
  CheckSpec("vectorize_gather", {}, "collector", true, [](const Fill& fill) {
    const Arr<float> a = Input<float>("a", {8, 4}, fill), b = Input<float>("b", {4, 8}, fill);
    Arr<float> collector({4, 4});
    for (int64_t i = 0; i < 4; ++i) {
      for (int64_t j = 0; j < 4; ++j) {
        float sum = 0.0f;
        for (int64_t k = 0; k < 8; ++k) sum = Add(sum, Mul(a(k, i), b(j, k)));
        collector.set({i, j}, sum);
      }
    }
    return collector.array();
  });
}

// macros_partial_args: c(i, j) = sum over k < KSIZE of (a(i, k) * b(k, j)) * SCALE, from
// C = select(k == 0, ZERO, C(k - 1)) + A * B * SCALE (left to right: (A * B) * SCALE); a is
// N x KSIZE, b is KSIZE x N. KSIZE = N / 2 if N > 8, N if N >= 4 and not TINY, else 2.
template <typename T>
void CheckMacrosPartialArgs(const std::vector<std::string>& flags, int64_t n, int64_t ksize,
                            T scale) {
  CheckSpec("macros_partial_args", flags, "c", true, [=](const Fill& fill) {
    const Arr<T> a = Input<T>("a", {n, ksize}, fill), b = Input<T>("b", {ksize, n}, fill);
    Arr<T> c({n, n});
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        T sum = 0;
        for (int64_t k = 0; k < ksize; ++k) sum = Add(sum, Mul(Mul(a(i, k), b(k, j)), scale));
        c.set({i, j}, sum);
      }
    }
    return c.array();
  });
}

TEST(RunTest, MacrosPartialArgs) {
  CheckMacrosPartialArgs<float>({}, 4, 4, 2.0f);
  CheckMacrosPartialArgs<float>({"-D", "TINY"}, 4, 2, 2.0f);
  CheckMacrosPartialArgs<float>({"-D", "N=10"}, 10, 5, 2.0f);
  CheckMacrosPartialArgs<int32_t>({"-D", "N=16", "-D", "USE_INT"}, 16, 8, 2);
}

// ---------------------------------------------------------------------------------------------
// conv1d: out(n) = sum over k < K of w(k) * x(n + k), N = 8 outputs, K = 3 taps, x has
// N + K - 1 = 10 elements. W(k, n) = w(k) (loaded at n == 0 and kept), X(k, n) = x(n + k), and
// S(k, n) = select(k == 0, 0, S(k - 1, n)) + W * X: the sum starts from 0 and adds the taps in
// k order; out(n) = S(K - 1, n).

template <typename T>
NdArray Conv1d(const Fill& fill) {
  const int64_t N = 8, K = 3;
  const Arr<T> x = Input<T>("x", {N + K - 1}, fill), w = Input<T>("w", {K}, fill);
  Arr<T> out({N});
  for (int64_t n = 0; n < N; ++n) {
    T sum = 0;
    for (int64_t k = 0; k < K; ++k) sum = Add(sum, Mul(w(k), x(n + k)));
    out.set({n}, sum);
  }
  return out.array();
}

TEST(RunTest, Conv1dFloat32) { CheckSpec("conv1d", {}, "out", true, Conv1d<float>); }

TEST(RunTest, Conv1dInt32) { CheckSpec("conv1d", {"-D", "USE_INT"}, "out", true, Conv1d<int32_t>); }

// ar_filter: y(n) = x(n) + sum over m = 1..K of a_m * y(n - m) with y(n) = 0 for n < 0, N = 10,
// K = 3, a(k) = a_{k+1}. In the transposed direct form the sum is s_1(n - 1) with
// s_m(t) = a_m * y(t) + s_{m+1}(t - 1), whose innermost term is a_M * y(n - M) + 0 for
// M = min(K, n): so the terms are added from the oldest (m = M) to the newest (m = 1), each as
// a(m - 1) * y(n - m) + (the sum so far), starting from 0; y(0) = x(0) + 0. out(n) = y(n).

template <typename T>
NdArray ArFilter(const Fill& fill) {
  const int64_t N = 10, K = 3;
  const Arr<T> x = Input<T>("x", {N}, fill), a = Input<T>("a", {K}, fill);
  Arr<T> y({N});
  for (int64_t n = 0; n < N; ++n) {
    T s = 0;
    for (int64_t m = std::min(K, n); m >= 1; --m) s = Add(Mul(a(m - 1), y(n - m)), s);
    y.set({n}, Add(x(n), s));
  }
  return y.array();
}

TEST(RunTest, ArFilterFloat32) { CheckSpec("ar_filter", {}, "out", true, ArFilter<float>); }

TEST(RunTest, ArFilterInt32) {
  CheckSpec("ar_filter", {"-D", "USE_INT"}, "out", true, ArFilter<int32_t>);
}

// ---------------------------------------------------------------------------------------------
// Seed 000.

// A(i, j) = select(j == 0, a(i), A(i, j - 1) + a(i)) and B(i, j) = A(i, j) + 1, I = 4, J = 6:
// B(i, j) = (j + 1) * a(i) + 1 (int32, wrapping). The three schedules compute the same values.
NdArray Seed000TwoD(const Fill& fill) {
  const int64_t I = 4, J = 6;
  const Arr<int32_t> a = Input<int32_t>("a", {I}, fill);
  Arr<int32_t> b({I, J});
  for (int64_t i = 0; i < I; ++i) {
    int32_t acc = 0;
    for (int64_t j = 0; j < J; ++j) {
      acc = Add(acc, a(i));
      b.set({i, j}, Add(acc, 1));
    }
  }
  return b.array();
}

TEST(RunTest, Seed000TwoD) {
  for (const char* spec : {"seed000_2d", "seed000_2d_all_space", "seed000_2d_reorder"}) {
    CheckSpec(spec, {}, "B", true, Seed000TwoD);
  }
}

// A(i, j, k) = a(j, k) (flows along i), B(i, j, k) = b(i, k) (flows along j),
// C = select(k == 0, 0, C(k - 1)) + A * B: c(i, j) = sum over k of a(j, k) * b(i, k) (int32).
// a is J x K, b is I x K.
NdArray Seed000Abc(const Fill& fill, int64_t I, int64_t J, int64_t K) {
  const Arr<int32_t> a = Input<int32_t>("a", {J, K}, fill), b = Input<int32_t>("b", {I, K}, fill);
  Arr<int32_t> c({I, J});
  for (int64_t i = 0; i < I; ++i) {
    for (int64_t j = 0; j < J; ++j) {
      int32_t sum = 0;
      for (int64_t k = 0; k < K; ++k) sum = Add(sum, Mul(a(j, k), b(i, k)));
      c.set({i, j}, sum);
    }
  }
  return c.array();
}

TEST(RunTest, Seed000ThreeDCase2) {
  CheckSpec("seed000_3d_case2", {}, "c", true,
            [](const Fill& fill) { return Seed000Abc(fill, 4, 5, 6); });
}

TEST(RunTest, Seed000Abc) {
  for (const char* spec : {"seed000_abc", "seed000_abc_single", "seed000_abc_checktime"}) {
    CheckSpec(spec, {}, "c", true, [](const Fill& fill) { return Seed000Abc(fill, 10, 10, 10); });
  }
}

// ---------------------------------------------------------------------------------------------
// Seed 001. Specs without inputs give the same values under every fill.

TEST(RunTest, Seed001Example2) {
  // f(i, j) = select(i == 0, i, f(i - 1, j)); g(i, j) = select(i == 0, f(i, j), g(i - 1, j));
  // out(j) = g(I - 1, j) + j, with I = 4, J = 3.
  CheckSpec("seed001_example2", {}, "out", false, [](const Fill&) {
    const int64_t I = 4, J = 3;
    Arr<int32_t> f({I, J}), g({I, J}), out({J});
    for (int64_t j = 0; j < J; ++j) {
      for (int64_t i = 0; i < I; ++i) {
        f.set({i, j}, i == 0 ? static_cast<int32_t>(i) : f(i - 1, j));
        g.set({i, j}, i == 0 ? f(i, j) : g(i - 1, j));
      }
      out.set({j}, Add(g(I - 1, j), static_cast<int32_t>(j)));
    }
    return out.array();
  });
}

TEST(RunTest, Seed001ExtendedUre) {
  // f(x, y) = select(x == 0, y, f(x - 1, y) + x), X = 11, Y = 5; out(y) = f(10, y).
  CheckSpec("seed001_extended_ure", {}, "out", false, [](const Fill&) {
    const int64_t X = 11, Y = 5;
    Arr<int32_t> out({Y});
    for (int64_t y = 0; y < Y; ++y) {
      int32_t f = 0;
      for (int64_t x = 0; x < X; ++x) {
        f = x == 0 ? static_cast<int32_t>(y) : Add(f, static_cast<int32_t>(x));
        if (x == 10) out.set({y}, f);
      }
    }
    return out.array();
  });
}

TEST(RunTest, Seed001UseBeforeDefine) {
  // f(i, j) = select(i == 0, i, f(i - 1, j)) (0 everywhere); g(i, j) = f(i, j) + i + 2 * j.
  CheckSpec("seed001_use_before_define", {}, "g", false, [](const Fill&) {
    const int64_t I = 4, J = 3;
    Arr<int32_t> f({I, J}), g({I, J});
    for (int64_t j = 0; j < J; ++j) {
      for (int64_t i = 0; i < I; ++i) {
        f.set({i, j}, i == 0 ? static_cast<int32_t>(i) : f(i - 1, j));
        g.set({i, j}, Add(Add(f(i, j), static_cast<int32_t>(i)), static_cast<int32_t>(2 * j)));
      }
    }
    return g.array();
  });
}

TEST(RunTest, Seed001DeclaredTypes) {
  // f(i, j) = (i + j) * 1.0f (float32); g(i, j) = select(j == 0, 0, cast(Int(32), f(i, j - 1))).
  CheckSpec("seed001_declared_types", {}, "g", false, [](const Fill&) {
    const int64_t I = 4, J = 5;
    Arr<int32_t> g({I, J});
    for (int64_t i = 0; i < I; ++i) {
      for (int64_t j = 0; j < J; ++j) {
        const float f_prev = static_cast<float>(i + j - 1) * 1.0f;
        g.set({i, j}, j == 0 ? 0 : static_cast<int32_t>(f_prev));
      }
    }
    return g.array();
  });
}

TEST(RunTest, Seed001WrapImage) {
  // Func f(a): f(i, j) = a(i, j); g(i, j) = f(i, j). a is I x J = 4 x 3 (int32).
  CheckSpec("seed001_wrap_image", {}, "g", true, [](const Fill& fill) {
    return Input<int32_t>("a", {4, 3}, fill).array();
  });
}

// ---------------------------------------------------------------------------------------------
// Every spec: t2s-run --check (the run equals the merged reference) exits 0.

// inline_device_helper: the GEMM with a(i, k) replaced by X(i, k) = a(i, k) * 2.0f + b(k, i) -
// 0.5f, a Func on Place::Device without bounds that is inlined (Halide's default).
TEST(RunTest, InlineDeviceHelper) {
  CheckSpec("inline_device_helper", {}, "c", true, [](const Fill& fill) {
    const Arr<float> a = Input<float>("a", {4, 8}, fill);
    const Arr<float> b = Input<float>("b", {8, 4}, fill);
    Arr<float> x({4, 8});
    for (int64_t i = 0; i < 4; ++i) {
      for (int64_t k = 0; k < 8; ++k) x.set({i, k}, Add(Mul(a(i, k), 2.0f), b(k, i)) - 0.5f);
    }
    return Gemm(x, b);
  });
}

// inline_diamond: F1 = a % 100 (Euclidean), then alternately F + F and F * F % 1009 up to F20;
// out = F20 - F1.
TEST(RunTest, InlineDiamond) {
  CheckSpec("inline_diamond", {}, "out", true, [](const Fill& fill) {
    const Arr<int32_t> a = Input<int32_t>("a", {8}, fill);
    Arr<int32_t> out({8});
    auto mod = [](int32_t v, int32_t m) { return (v % m + m) % m; };
    for (int64_t x = 0; x < 8; ++x) {
      const int32_t f1 = mod(a(x), 100);
      int32_t f = f1;
      for (int n = 2; n <= 20; ++n) f = n % 2 == 0 ? Add(f, f) : mod(Mul(f, f), 1009);
      out.set({x}, f - f1);
    }
    return out.array();
  });
}

// bounds_inferred: no set_bounds. Q(i) = a(0) + ... + a(i) over Q's inferred [0, 9);
// P(0) = 1, P(i) = P(i - 1) + Q(i - 1) over P's inferred [0, 10); out(i) = P(i) + P(i + 2).
TEST(RunTest, BoundsInferred) {
  CheckSpec("bounds_inferred", {}, "out", true, [](const Fill& fill) {
    const Arr<int32_t> a = Input<int32_t>("a", {9}, fill);
    std::vector<int32_t> q(9), p(10);
    for (int64_t i = 0; i < 9; ++i) q[i] = i == 0 ? a(i) : Add(q[i - 1], a(i));
    for (int64_t i = 0; i < 10; ++i) p[i] = i == 0 ? 1 : Add(p[i - 1], q[i - 1]);
    Arr<int32_t> out({8});
    for (int64_t i = 0; i < 8; ++i) out.set({i}, Add(p[i], p[i + 2]));
    return out.array();
  });
}

TEST(RunTest, CheckPassesOnEverySpec) {
  std::vector<std::string> specs;
  for (const auto& entry : std::filesystem::directory_iterator("testdata/specs")) {
    if (entry.path().extension() == ".t2s") specs.push_back(entry.path().stem().string());
  }
  std::sort(specs.begin(), specs.end());
  // The 20 specs of testdata/specs/README.md at the time of writing; more are welcome.
  ASSERT_GE(specs.size(), 20u) << "testdata/specs is missing from the runfiles";
  std::vector<std::vector<std::string>> runs;
  for (const std::string& spec : specs) runs.push_back({SpecPath(spec)});
  runs.push_back({SpecPath("conv1d"), "-D", "USE_INT"});
  runs.push_back({SpecPath("ar_filter"), "-D", "USE_INT"});
  runs.push_back({SpecPath("macros_partial_args"), "-D", "N=16", "-D", "USE_INT"});
  for (std::vector<std::string> args : runs) {
    for (const Fill& fill : {kSequential, kRandom7}) {
      std::vector<std::string> all = args;
      for (const std::string& f : fill.flags()) all.push_back(f);
      all.insert(all.end(), {"--check", "-o", OutPath()});
      const ToolRun run = RunTool(all);
      EXPECT_EQ(run.status, 0) << run.describe();
      EXPECT_NE(run.err.find("check passed"), std::string::npos) << run.describe();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Inputs from .npy files.

// A .npy file (version 1.0) in C order (row-major data, last index fastest), header written
// here as numpy writes it, independently of write_npy (which writes Fortran order).
std::string NpyCOrder(const std::string& descr, const std::vector<int64_t>& shape,
                      const std::string& row_major_data) {
  std::string dims;
  for (size_t d = 0; d < shape.size(); ++d) dims += (d ? ", " : "") + std::to_string(shape[d]);
  if (shape.size() == 1) dims += ",";
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Magic (6) + version (2) + header length (2) + header + '\n', padded to a multiple of 64.
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  return bytes + header + row_major_data;
}

// Row-major bytes of `values` (already in row-major order).
template <typename T>
std::string RowMajorBytes(const std::vector<T>& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(&bytes[0], values.data(), bytes.size());
  return bytes;
}

TEST(RunTest, GemmInputsFromCOrderAndFortranOrderFiles) {
  // a (4 x 8) in C order, b (8 x 4) in Fortran order (write_npy); values distinct and not the
  // fills' so that a transposed or misordered read shows.
  Arr<float> a({4, 8}), b({8, 4});
  std::vector<float> a_row_major;
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t k = 0; k < 8; ++k) {
      const float v = static_cast<float>(i * 8 + k) * 0.25f - 3.0f;
      a.set({i, k}, v);
      a_row_major.push_back(v);
    }
  }
  for (int64_t k = 0; k < 8; ++k) {
    for (int64_t j = 0; j < 4; ++j) b.set({k, j}, static_cast<float>(k * k - 5 * j) * 0.5f);
  }
  const std::string a_path = TmpDir() + "/a_c_order.npy", b_path = TmpDir() + "/b_fortran.npy";
  WriteFile(a_path, NpyCOrder("<f4", {4, 8}, RowMajorBytes(a_row_major)));
  WriteFile(b_path, write_npy(b.array()));
  const NdArray expected = Gemm(a, b);
  // With both inputs given, the fill does not matter.
  for (const Fill& fill : {kSequential, kRandom7}) {
    std::vector<std::string> flags = {"--input", "a=" + a_path, "--input", "b=" + b_path};
    for (const std::string& f : fill.flags()) flags.push_back(f);
    SCOPED_TRACE(fill.name());
    NdArray actual;
    ASSERT_TRUE(RunSpec("gemm", flags, &actual));
    EXPECT_TRUE(SameBits(expected, actual, "c"));
  }
}

TEST(RunTest, GemmOneInputFromFileOtherFilled) {
  // a from a C-order file, b generated by --fill random --seed 7.
  std::vector<float> a_row_major;
  Arr<float> a({4, 8});
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t k = 0; k < 8; ++k) {
      const float v = static_cast<float>((i + 1) * (k % 3) - k) / 8.0f;
      a.set({i, k}, v);
      a_row_major.push_back(v);
    }
  }
  const std::string a_path = TmpDir() + "/a_only.npy";
  WriteFile(a_path, NpyCOrder("<f4", {4, 8}, RowMajorBytes(a_row_major)));
  std::vector<std::string> flags = {"--input", "a=" + a_path};
  for (const std::string& f : kRandom7.flags()) flags.push_back(f);
  NdArray actual;
  ASSERT_TRUE(RunSpec("gemm", flags, &actual));
  EXPECT_TRUE(SameBits(Gemm(a, Input<float>("b", {8, 4}, kRandom7)), actual, "c"));
}

TEST(RunTest, WrapImageInt32FromCOrderAndFortranOrderFiles) {
  // g(i, j) = a(i, j): the output is the input, element for element.
  Arr<int32_t> a({4, 3});
  std::vector<int32_t> row_major;
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      const int32_t v = static_cast<int32_t>(1000 * i - 7 * j - 2000000000 * (i % 2));
      a.set({i, j}, v);
      row_major.push_back(v);
    }
  }
  const std::string c_path = TmpDir() + "/wrap_c.npy", f_path = TmpDir() + "/wrap_f.npy";
  WriteFile(c_path, NpyCOrder("<i4", {4, 3}, RowMajorBytes(row_major)));
  WriteFile(f_path, write_npy(a.array()));
  for (const std::string& path : {c_path, f_path}) {
    SCOPED_TRACE(path);
    NdArray actual;
    ASSERT_TRUE(RunSpec("seed001_wrap_image", {"--input", "a=" + path}, &actual));
    EXPECT_TRUE(SameBits(a.array(), actual, "g"));
  }
}

// ---------------------------------------------------------------------------------------------
// Errors: exit status, the exact first line of stderr, and no output file.

void ExpectFailure(const std::vector<std::string>& flags, int status,
                   const std::string& first_line) {
  std::remove(OutPath().c_str());
  std::vector<std::string> args = {SpecPath("gemm")};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"-o", OutPath()});
  const ToolRun run = RunTool(args);
  EXPECT_EQ(run.status, status) << run.describe();
  EXPECT_EQ(run.first_err_line(), first_line) << run.describe();
  EXPECT_FALSE(std::filesystem::exists(OutPath())) << "`" << run.command << "` wrote its output";
}

// An input array of zeros of `type` and `shape`, as a Fortran-order .npy file.
std::string ZerosFile(const std::string& file, Type type, const std::vector<int64_t>& shape) {
  NdArray array;
  array.type = type;
  array.shape = shape;
  array.data.assign(static_cast<size_t>(array.num_elements()) * array.element_size(), 0);
  const std::string path = TmpDir() + "/" + file;
  WriteFile(path, write_npy(array));
  return path;
}

TEST(RunTest, ErrorInputWrongDtype) {
  const std::string path = ZerosFile("a_float64.npy", Type::Float(64), {4, 8});
  ExpectFailure({"--input", "a=" + path}, 1,
                "testdata/specs/gemm.t2s:7:12: error: input 'a' has type float32, but the array "
                "given for it holds float64 [run-input-type]");
}

TEST(RunTest, ErrorInputFileMissing) {
  const std::string path = TmpDir() + "/no_such_file.npy";
  std::remove(path.c_str());
  ExpectFailure({"--input", "a=" + path}, 1,
                "t2s-run: error: cannot read '" + path + "': No such file or directory");
}

TEST(RunTest, ErrorInputTooSmall) {
  // a is read over [0, 4) x [0, 8): a 3 x 8 array is refused before anything runs, at a's
  // declaration (the runtime's rule, t2s_rt::check_input_array).
  const std::string path = ZerosFile("a_3x8.npy", Type::Float(32), {3, 8});
  ExpectFailure({"--input", "a=" + path}, 1,
                "testdata/specs/gemm.t2s:7:12: error: input 'a' is read over [0, 4) x [0, 8), but "
                "the array given for it has shape (3, 8) [run-input-shape]");
  const std::string flat = ZerosFile("a_32.npy", Type::Float(32), {32});
  ExpectFailure({"--input", "a=" + flat}, 1,
                "testdata/specs/gemm.t2s:7:12: error: input 'a' has 2 dimensions, but the array "
                "given for it has 1 [run-input-shape]");
}

TEST(RunTest, InputLargerThanTheRegionRead) {
  // As Halide takes buffers: a 6 x 11 array for a (read over 4 x 8) is indexed with its own
  // shape; the output is that of the 4 x 8 array holding the same leading values.
  NdArray exact = fill_array(Type::Float(32), {4, 8}, FillKind::kRandom, 5, "a");
  NdArray large = fill_array(Type::Float(32), {6, 11}, FillKind::kRandom, 6, "a");
  for (int64_t j = 0; j < 8; ++j)
    for (int64_t i = 0; i < 4; ++i)
      std::memcpy(&large.data[static_cast<size_t>((j * 6 + i) * 4)],
                  &exact.data[static_cast<size_t>((j * 4 + i) * 4)], 4);
  const std::string exact_path = TmpDir() + "/a_exact.npy", large_path = TmpDir() + "/a_large.npy";
  WriteFile(exact_path, write_npy(exact));
  WriteFile(large_path, write_npy(large));
  NdArray from_exact, from_large;
  ASSERT_TRUE(RunSpec("gemm", {"--input", "a=" + exact_path}, &from_exact));
  ASSERT_TRUE(RunSpec("gemm", {"--input", "a=" + large_path}, &from_large));
  EXPECT_EQ(from_exact.shape, from_large.shape);
  EXPECT_EQ(from_exact.data, from_large.data);
  NdArray filled;
  ASSERT_TRUE(RunSpec("gemm", {}, &filled));
  EXPECT_NE(filled.data, from_exact.data);  // the arrays given were used
}

TEST(RunTest, ErrorBogusFill) {
  ExpectFailure({"--fill", "bogus"}, 2, "t2s-run: error: --fill: bogus not in {sequential,random}");
}

}  // namespace
}  // namespace t2s
