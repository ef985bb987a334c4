#!/usr/bin/env bash
# bench/stt_bench.sh: time (opt build) t2s-stt on GEMM systolic arrays of 4x4, 16x16 and 64x64
# PEs (K = 64), for the three GEMM schedules of testdata/specs: space loops only (gemm.t2s), a
# scheduling vector (gemm_int.t2s: t = i + j + k) and CheckTime (gemm_checktime.t2s), and for
# the seed's double projection (seed000_abc.t2s) scaled the same way.
# The target (issue 4): t2s-stt's time must not grow with the array: PEs are unrolled loops with
# constant extents, and register sizes come from isl, never from enumerating iterations.
# Reports; it is not a test and does not fail on a slow result (it fails only if a tool fails).
# Usage: bench/stt_bench.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${1:-5}"
work="$(mktemp -d "${TMPDIR:-/tmp}/t2s-stt-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

source bench/lib.sh
build_opt_tools //tools:t2s-parse //tools:t2s-merge //tools:t2s-stt

echo "== t2s-stt (merged IR in, stt IR out), median of $RUNS runs, K = 64"
printf '%-22s %10s %10s %10s\n' spec 4x4 16x16 64x64
for name in gemm gemm_int gemm_checktime seed000_abc; do
  row=""
  for n in 4 16 64; do
    spec="$work/${name}_$n.t2s"
    # The array size: I and J, with K = 64.
    sed -E -e "s/^#define I [0-9]+/#define I $n/" -e "s/^#define J [0-9]+/#define J $n/" \
      -e "s/^#define K [0-9]+/#define K 64/" "testdata/specs/$name.t2s" >"$spec"
    "$bin/t2s-parse" "$spec" -o "$work/p.json"
    "$bin/t2s-merge" "$work/p.json" -o "$work/m.json"
    ms=$(for ((r = 0; r < RUNS; r++)); do time_ms "$bin/t2s-stt" "$work/m.json"; done | median)
    row+="$(printf ' %10s' "$ms")"
  done
  printf '%-22s%s\n' "$name" "$row"
done
echo "(milliseconds; measured 2026-11: GEMM 12-17 ms at every size; seed000_abc, whose FIFOs"
echo " hold more values as the array grows, 91 / 126 / 180 ms)"
