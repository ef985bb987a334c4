#!/usr/bin/env bash
# bench/gather_bench.sh: time (opt build) the whole pipeline, parse to OpenCL, of the gathered
# 10 x 8 x 16 GEMM, testdata/specs/gemm_gather_a10.t2s: T2SP's Arria-10 GEMM (10 x 8 PEs, each a
# 16-lane dot product per time step) with its two-level output path (the drainer gathers along
# iii, the collector along jjj, a host unloader), as T2SP writes it and with the collector's own
# transform (-D COLLECTOR_STT), with its outer loops II = JJ = KK of 2 (the spec as it is) and 8
# (a copy generated with sed). Per stage, median of RUNS runs: t2s-parse, t2s-merge, t2s-stt,
# t2s-vec, t2s-gather and t2s-emit --target opencl --host (each tool reading the previous
# stage's file, as `bazel build` of a pipeline runs them), and their total; then t2s-emit for
# the other targets (cpp, dot, text), reported apart; and the CPU time (user + system) of parse
# to OpenCL, which does not depend on what else the machine runs (the load average is printed:
# above the number of cores, wall times grow). Target: parse to OpenCL under 50 ms.
# Also compiles the emitted C++ emulation, runs it on random data and checks it writes t2s-run's
# bytes (t2s-run on the gathered stage, with --check: that stage computes what the merged stage
# computes).
# Reports; it is not a test and does not fail on a slow result (it fails only if a tool fails or
# an emulation differs from t2s-run).
# Usage: bench/gather_bench.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${1:-5}"
work="$(mktemp -d "${TMPDIR:-/tmp}/t2s-gather-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

source bench/lib.sh
build_opt_tools //tools:t2s-parse //tools:t2s-merge //tools:t2s-stt //tools:t2s-vec \
  //tools:t2s-gather //tools:t2s-emit //tools:t2s-run

stages=(parse merge stt vec gather opencl)
others=(cpp dot text)
echo "== gathered GEMM 10 x 8 PEs x 16 lanes (testdata/specs/gemm_gather_a10.t2s, II = JJ = KK = N),"
echo "   median of $RUNS runs, ms; 'to cl' is parse to OpenCL"
printf '%-16s' case
printf ' %7s' "${stages[@]}" "to cl" "${others[@]}" "cpu"
echo
spec_ms="" spec_cpu=""
echo "   (load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores)"
for n in 2 8; do
  for variant in t2sp row; do
    spec="$work/gemm_gather_$n.t2s"
    sed -E "s/^#define (II|JJ|KK) [0-9]+/#define \1 $n/" testdata/specs/gemm_gather_a10.t2s >"$spec"
    flags=()
    [[ $variant == row ]] && flags=(-D COLLECTOR_STT)
    declare -A cmd=(
      [parse]="$bin/t2s-parse ${flags[*]} $spec -o $work/p.json"
      [merge]="$bin/t2s-merge $work/p.json -o $work/m.json"
      [stt]="$bin/t2s-stt $work/m.json -o $work/s.json"
      [vec]="$bin/t2s-vec $work/s.json -o $work/v.json"
      [gather]="$bin/t2s-gather $work/v.json -o $work/g.json"
      [opencl]="$bin/t2s-emit $work/g.json --target opencl --host $work/host.cpp -o $work/k.cl"
      [cpp]="$bin/t2s-emit $work/g.json --target cpp -o $work/emu.cpp"
      [dot]="$bin/t2s-emit $work/g.json --target dot -o $work/a.dot"
      [text]="$bin/t2s-emit $work/g.json --target text -o $work/a.txt"
    )
    row="" total=0 rest="" cpu=0
    for stage in "${stages[@]}"; do
      # shellcheck disable=SC2086  # the commands are word lists
      ms=$(for ((r = 0; r < RUNS; r++)); do time_ms ${cmd[$stage]}; done | median)
      row+="$(printf ' %7s' "$ms")"
      total=$((total + ms))
      # shellcheck disable=SC2086
      ms=$(for ((r = 0; r < RUNS; r++)); do time_cpu_ms ${cmd[$stage]}; done | median)
      cpu=$((cpu + ms))
    done
    for stage in "${others[@]}"; do
      # shellcheck disable=SC2086
      ms=$(for ((r = 0; r < RUNS; r++)); do time_ms ${cmd[$stage]}; done | median)
      rest+="$(printf ' %7s' "$ms")"
    done
    printf '%-16s%s %7s%s %7s\n' "N = $n, $variant" "$row" "$total" "$rest" "$cpu"
    if [[ $n == 2 && $variant == t2sp ]]; then spec_ms=$total spec_cpu=$cpu; fi
    g++ -std=c++17 -O2 -pthread -ffp-contract=off "$work/emu.cpp" -o "$work/emu"
    run_ms=$(time_ms "$bin/t2s-run" "$work/g.json" --check --fill random --seed 7 \
      -o "$work/ref.npy" 2>"$work/check.log")
    grep -q "check passed" "$work/check.log" || { cat "$work/check.log"; exit 1; }
    emu_ms=$(time_ms "$work/emu" --fill random --seed 7 -o "$work/emu.npy")
    cmp -s "$work/ref.npy" "$work/emu.npy" ||
      { echo "emulation of N = $n ($variant) differs from t2s-run"; exit 1; }
    echo "                emulation (g++ -O2): runs in $emu_ms ms and matches t2s-run" \
      "(t2s-run --check: $run_ms ms)"
    unset cmd
  done
done
verdict=missed
((spec_ms < 50)) && verdict=met
echo "parse to OpenCL of the gathered 10 x 8 x 16 GEMM (the spec, N = 2): $spec_ms ms" \
  "($spec_cpu ms of CPU); target < 50 ms: $verdict"
echo "(load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
