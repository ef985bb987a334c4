#!/usr/bin/env bash
# bench/jit_bench.sh: `t2s-run --engine jit` (docs/jit.md) on GEMM N^3 (testdata/specs/gemm.t2s
# with I = J = K = N, default 1024; opt build), random inputs: prints the JIT's compile time
# (emitting the C++, clang, linking) and run time apart, and the whole process's wall time
# (target: under 10 s for N = 1024, compilation included), for the spec (t2s-run merges it) and
# for its systolic design (stt stage), which must give the same bits. The run time is the
# emitted C++ emulation's (libs/backends/cpp): it falls as that code gets faster. First checks
# at N = 32 that the JIT gives the interpreter's bits (--engine jit against --engine interp).
# Reports; it is not a test and does not fail on a slow result (only if a run fails or the
# engines differ). Usage: bench/jit_bench.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."

N="${1:-1024}"
work="$(mktemp -d "${TMPDIR:-/tmp}/t2s-jit-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

source bench/lib.sh
build_opt_tools //tools:t2s-run //tools:t2s-parse //tools:t2s-merge //tools:t2s-stt

gemm_spec() {
  sed -E -e "s/^#define I [0-9]+/#define I $1/" -e "s/^#define J [0-9]+/#define J $1/" \
    -e "s/^#define K [0-9]+/#define K $1/" testdata/specs/gemm.t2s >"$2"
}

gemm_spec 32 "$work/gemm32.t2s"
for engine in interp jit; do
  "$bin/t2s-run" "$work/gemm32.t2s" --engine "$engine" --fill random --seed 1 \
    -o "$work/$engine.npy"
done
if ! cmp -s "$work/interp.npy" "$work/jit.npy"; then
  echo "jit_bench: --engine jit differs from --engine interp on GEMM 32^3" >&2
  exit 1
fi

gemm_spec "$N" "$work/gemm.t2s"
"$bin/t2s-parse" "$work/gemm.t2s" -o "$work/parsed.json"
"$bin/t2s-merge" "$work/parsed.json" -o "$work/merged.json"
"$bin/t2s-stt" "$work/merged.json" -o "$work/stt.json"

# jit_run LABEL INPUT: one timed t2s-run --engine jit; prints its line of the table.
jit_run() {
  local start end wall_ms compile run
  start=$(date +%s%N)
  "$bin/t2s-run" "$2" --engine jit --timings --fill random --seed 1 \
    -o "$work/$1.npy" 2>"$work/$1.timings"
  end=$(date +%s%N)
  wall_ms=$(((end - start) / 1000000))
  compile=$(sed -nE 's/^t2s-run: run: engine jit: compile ([0-9.]+) s, run ([0-9.]+) s$/\1/p' \
    "$work/$1.timings")
  run=$(sed -nE 's/^t2s-run: run: engine jit: compile ([0-9.]+) s, run ([0-9.]+) s$/\2/p' \
    "$work/$1.timings")
  printf '%-44s %8s %8s %5d.%03d\n' "$3" "$compile" "$run" $((wall_ms / 1000)) $((wall_ms % 1000))
}

echo "== t2s-run --engine jit, GEMM ${N}^3 (float, random inputs); GEMM 32^3 equals --engine interp"
printf '%-44s %8s %8s %9s\n' "program" "compile" "run" "whole (s)"
# The spec itself (t2s-run merges it): Funcs realized over I x J x K, which the emulation folds
# (docs/emulation.md, "Storage folding").
jit_run spec "$work/gemm.t2s" "the spec (merged stage)"
# The systolic design: an N x N PE array, k in time.
jit_run stt "$work/stt.json" "the design (stt stage, N x N PEs)"
if ! cmp -s "$work/spec.npy" "$work/stt.npy"; then
  echo "jit_bench: the spec and the design give different bits" >&2
  exit 1
fi
echo "(compile: emit C++, clang -O2, JIT link; run: the emulation's main, inputs to output;"
echo " whole: the t2s-run process's wall time, target under 10 s for N = 1024. Measured"
echo " 2026-11-24 on 2 cores: spec 1.8 + 0.8 = 2.7 s, design 1.8 + 0.9 s; same bits)"
