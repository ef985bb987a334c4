#!/usr/bin/env bash
# bench/published_bench.sh: T2SP's designs at their published sizes (issue 34 item 2), lowered
# from the spec to OpenCL (t2s-emit --target opencl: every pass, then the backend) and to the
# performance report, median wall ms of RUNS runs (opt build):
#   gemm_a10: testdata/specs/gemm_a10_stensor.t2s with T2SP's A10 sizes (III 10, JJJ 8, KKK 16,
#             II = JJ = KK = 32, I = J = K = 32: 1.37 x 10^12 multiply-adds)
#   conv_a10: testdata/specs/conv2d_stensor.t2s with T2SP's A10 sizes (conv/const-parameters.h:
#             CII 16, CI 16, COOO 8, COO 16, CO 2, YYY 10, XXX 14, YY = XX = X = 2, Y 3, 3 x 3
#             kernel, batch N = 64)
# Target: each lowers to OpenCL in < 1 s. Reports; it is not a test (it fails only if a tool
# fails). Usage: bench/published_bench.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${1:-3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/t2s-published-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

source bench/lib.sh
build_opt_tools //tools:t2s-emit

# sized SPEC OUT NAME=VALUE...: SPEC with each `#define NAME ...` line given VALUE.
sized() {
  local spec="$1" out="$2"
  shift 2
  local args=()
  for nv in "$@"; do args+=(-e "s/^#define ${nv%%=*} .*/#define ${nv%%=*} ${nv#*=}/"); done
  sed -E "${args[@]}" "$spec" >"$out"
}
sized testdata/specs/gemm_a10_stensor.t2s "$work/gemm_a10.t2s" KKK=16 JJJ=8 III=10 JJ=32 II=32 \
  KK=32 I=32 J=32 K=32
sized testdata/specs/conv2d_stensor.t2s "$work/conv_a10.t2s" CII=16 CI=16 COOO=8 COO=16 CO=2 \
  YYY=10 XXX=14 YY=2 XX=2 X=2 Y=3 KY=3 KX=3 N=64

printf '%-10s %12s %12s\n' design "opencl (ms)" "report (ms)"
for d in gemm_a10 conv_a10; do
  ocl=$(for _ in $(seq "$RUNS"); do
    time_ms "$bin/t2s-emit" --target opencl "$work/$d.t2s" -o "$work/$d.cl"
  done | median)
  rep=$(for _ in $(seq "$RUNS"); do
    time_ms "$bin/t2s-emit" --target report "$work/$d.t2s" -o "$work/$d.txt"
  done | median)
  printf '%-10s %12s %12s\n' "$d" "$ocl" "$rep"
  grep -E "bytes per cycle|GFLOPS" "$work/$d.txt" | sed 's/^/  /'
done
