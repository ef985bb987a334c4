#!/usr/bin/env bash
# bench/jit_bench.sh: `t2s-run --engine jit` (docs/jit.md) on GEMM N^3 (testdata/specs/gemm.t2s
# with I = J = K = N, default 1024; opt build), random inputs: prints the JIT's compile time
# (emitting the C++, clang, linking) and run time apart, and the whole process's wall time
# (target: under 10 s for N = 1024, compilation included). The run time is the emitted C++
# emulation's (libs/backends/cpp): it falls as that code gets faster. First checks at N = 32 that
# the JIT gives the interpreter's bits (--engine jit against --engine interp).
# Reports; it is not a test and does not fail on a slow result (only if a run fails or the
# engines differ). Usage: bench/jit_bench.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."

N="${1:-1024}"
work="$(mktemp -d "${TMPDIR:-/tmp}/t2s-jit-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

source bench/lib.sh
build_opt_tools //tools:t2s-run

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
start=$(date +%s%N)
"$bin/t2s-run" "$work/gemm.t2s" --engine jit --timings --fill random --seed 1 \
  -o "$work/out.npy" 2>"$work/timings.txt"
end=$(date +%s%N)
wall_ms=$(((end - start) / 1000000))
compile=$(sed -nE 's/^t2s-run: run: engine jit: compile ([0-9.]+) s, run ([0-9.]+) s$/\1/p' \
  "$work/timings.txt")
run=$(sed -nE 's/^t2s-run: run: engine jit: compile ([0-9.]+) s, run ([0-9.]+) s$/\2/p' \
  "$work/timings.txt")
echo "== t2s-run --engine jit, GEMM ${N}^3 (float, random inputs); GEMM 32^3 equals --engine interp"
printf '%-52s %8s s\n' "compile (emit C++, clang -O2, JIT link)" "$compile" \
  "run (the emulation's main: inputs to output)" "$run"
printf '%-52s %4d.%03d s   (target: under 10 s)\n' "whole t2s-run process (wall)" \
  $((wall_ms / 1000)) $((wall_ms % 1000))
