#!/usr/bin/env bash
# bench/pipeline_bench.sh: time (opt build) the whole pipeline on GEMM systolic arrays of 4x4,
# 16x16 and 64x64 PEs (K = 64): t2s-parse | t2s-merge | t2s-stt | t2s-vec | t2s-gather, then
# t2s-emit for every target (opencl with --host, cpp, dot, text), as `bazel build` of a
# pipeline runs them. Per stage and in total: the time must not grow with the array (PEs are
# unrolled loops with constant extents; the dot picture caps the PEs it draws).
# Also compiles the emitted C++ emulation of the 4x4 and 16x16 arrays and times its run.
# Reports; it is not a test and does not fail on a slow result (it fails only if a tool fails).
# Usage: bench/pipeline_bench.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${1:-5}"
work="$(mktemp -d "${TMPDIR:-/tmp}/t2s-pipeline-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

source bench/lib.sh
build_opt_tools //tools:t2s-parse //tools:t2s-merge //tools:t2s-stt //tools:t2s-vec \
  //tools:t2s-gather //tools:t2s-emit //tools:t2s-run

stages=(parse merge stt vec gather opencl cpp dot text)
echo "== GEMM pipeline (testdata/specs/gemm.t2s with I = J = N, K = 64), median of $RUNS runs, ms"
printf '%-8s' array
printf ' %7s' "${stages[@]}" total
echo
for n in 4 16 64; do
  spec="$work/gemm_$n.t2s"
  sed -E -e "s/^#define I [0-9]+/#define I $n/" -e "s/^#define J [0-9]+/#define J $n/" \
    -e "s/^#define K [0-9]+/#define K 64/" testdata/specs/gemm.t2s >"$spec"
  declare -A cmd=(
    [parse]="$bin/t2s-parse $spec -o $work/p.json"
    [merge]="$bin/t2s-merge $work/p.json -o $work/m.json"
    [stt]="$bin/t2s-stt $work/m.json -o $work/s.json"
    [vec]="$bin/t2s-vec $work/s.json -o $work/v.json"
    [gather]="$bin/t2s-gather $work/v.json -o $work/g.json"
    [opencl]="$bin/t2s-emit $work/g.json --target opencl --host $work/host.cpp -o $work/k.cl"
    [cpp]="$bin/t2s-emit $work/g.json --target cpp -o $work/emu.cpp"
    [dot]="$bin/t2s-emit $work/g.json --target dot -o $work/a.dot"
    [text]="$bin/t2s-emit $work/g.json --target text -o $work/a.txt"
  )
  row="" total=0
  for stage in "${stages[@]}"; do
    # shellcheck disable=SC2086  # the commands are word lists
    ms=$(for ((r = 0; r < RUNS; r++)); do time_ms ${cmd[$stage]}; done | median)
    row+="$(printf ' %7s' "$ms")"
    total=$((total + ms))
  done
  printf '%-8s%s %7s\n' "${n}x$n" "$row" "$total"
  if ((n <= 16)); then
    g++ -std=c++17 -O2 -pthread -ffp-contract=off "$work/emu.cpp" -o "$work/emu_$n"
    "$bin/t2s-run" "$work/g.json" --fill random --seed 7 -o "$work/ref.npy"
    emu_ms=$(time_ms "$work/emu_$n" --fill random --seed 7 -o "$work/emu.npy")
    cmp -s "$work/ref.npy" "$work/emu.npy" || { echo "emulation of ${n}x$n differs from t2s-run"; exit 1; }
    echo "         emulation of ${n}x$n (g++ -O2): runs in $emu_ms ms and matches t2s-run"
  fi
  unset cmd
done
echo "(measured 2026-11 on 2 cores: 47 / 53 / 70 ms in total; the emulations run in 3 / 8 ms)"
