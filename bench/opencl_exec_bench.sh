#!/usr/bin/env bash
# bench/opencl_exec_bench.sh: `t2s-run --engine opencl` (docs/opencl-executor.md) on the gathered
# 10 x 8 x 16 GEMM (testdata/specs/gemm_gather_a10.t2s: T2SP's a10 array, the drainer gathering
# along iii, the collector along jjj), outer loops II = JJ = KK = N (default 2, the spec, and 8),
# random inputs: the executor's wall time, with its build (emitting, g++ of the host program)
# and run (clang of the device code, the kernels' threads) apart, beside t2s-run's interpreter
# and JIT on the same program (the gathered stage); all three must write the same bytes.
# Target: the executor under 10 s for the spec (N = 2). Reports; it is not a test and does not
# fail on a slow result (only if a run fails or the engines differ).
# Usage: bench/opencl_exec_bench.sh [N ...]
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=("$@")
((${#sizes[@]})) || sizes=(2 8)
work="$(mktemp -d "${TMPDIR:-/tmp}/t2s-opencl-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

source bench/lib.sh
build_opt_tools //tools:t2s-run //tools:t2s-parse //tools:t2s-merge //tools:t2s-stt \
  //tools:t2s-vec //tools:t2s-gather

echo "== t2s-run on the gathered GEMM 10 x 8 PEs x 16 lanes (gemm_gather_a10.t2s, II = JJ = KK = N)"
printf '%-4s %12s %12s %12s %12s %12s\n' N "opencl ms" "(build ms)" "(run ms)" "interp ms" "jit ms"
for n in "${sizes[@]}"; do
  spec="$work/gemm$n.t2s"
  sed -E "s/^#define (II|JJ|KK) [0-9]+/#define \1 $n/" testdata/specs/gemm_gather_a10.t2s >"$spec"
  "$bin/t2s-parse" "$spec" -o "$work/p.json"
  "$bin/t2s-merge" "$work/p.json" -o "$work/m.json"
  "$bin/t2s-stt" "$work/m.json" -o "$work/s.json"
  "$bin/t2s-vec" "$work/s.json" -o "$work/v.json"
  "$bin/t2s-gather" "$work/v.json" -o "$work/g.json"
  opts=(--fill random --seed 5)
  start=$(date +%s%N)
  "$bin/t2s-run" --engine opencl --timings "${opts[@]}" "$work/g.json" -o "$work/opencl.npy" \
    2>"$work/timings.txt"
  end=$(date +%s%N)
  opencl_ms=$(((end - start) / 1000000))
  build_ms=$(awk '/engine opencl/ { printf "%d", $6 * 1000 }' "$work/timings.txt")
  run_ms=$(awk '/engine opencl/ { printf "%d", $9 * 1000 }' "$work/timings.txt")
  interp_ms=$(time_ms "$bin/t2s-run" --engine interp "${opts[@]}" "$work/g.json" -o "$work/interp.npy")
  jit_ms=$(time_ms "$bin/t2s-run" --engine jit "${opts[@]}" "$work/g.json" -o "$work/jit.npy")
  for e in interp jit; do
    if ! cmp -s "$work/opencl.npy" "$work/$e.npy"; then
      echo "opencl_exec_bench: N = $n: --engine opencl differs from --engine $e" >&2
      exit 1
    fi
  done
  printf '%-4s %12s %12s %12s %12s %12s\n' "$n" "$opencl_ms" "$build_ms" "$run_ms" "$interp_ms" "$jit_ms"
done
echo "target: --engine opencl under 10000 ms at N = 2 (build included)"
