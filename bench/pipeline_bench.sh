#!/usr/bin/env bash
# bench/pipeline_bench.sh: time (opt build) the whole pipeline on GEMM systolic arrays of 4x4,
# 16x16 and 64x64 PEs (K = 64): t2s-parse | t2s-merge | t2s-stt | t2s-vec | t2s-gather, then
# t2s-emit for every target (opencl with --host, cpp, dot, text), as `bazel build` of a
# pipeline runs them. Per stage and in total: the time must not grow with the array (PEs are
# unrolled loops with constant extents; the dot picture caps the PEs it draws).
# Also compiles the emitted C++ emulation of the 4x4 and 16x16 arrays and times its run.
# Then every tool on every testdata pipeline (issue 17: each under 10 ms): t2s-parse on each spec
# of testdata/specs, and t2s-merge ... t2s-emit on each pipeline's golden input of the stage
# before (testdata/golden/NAME: so the -D variants count too), median wall ms of RUNS runs, a
# table with the slowest tool of each pipeline and the whole pipeline's time, then the slowest
# cells over all.
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

# --- Every tool on every testdata pipeline ------------------------------------------------------
# A cell is the median wall time of RUNS runs of one tool on its input (ms); '-' where the
# pipeline has no such stage or target.
echo
echo "== every tool on every testdata pipeline (median of $RUNS runs, ms; target: each < 10)"
tools=(parse merge stt vec gather opencl cpp dot text)
printf '%-36s' pipeline
printf ' %6s' "${tools[@]}" max total
echo
slow=0
for dir in testdata/golden/*/; do
  name="$(basename "$dir")"
  # The spec of the pipeline: its own name, else the spec it is a -D variant of (the longest
  # spec name that prefixes the pipeline's name). Parse times the spec as written.
  spec=""
  for s in testdata/specs/*.t2s; do
    base="$(basename "$s" .t2s)"
    if [[ "$name" == "$base" || "$name" == "$base"_* ]] && ((${#base} > ${#spec})); then
      spec="$s"
    fi
  done
  declare -A cmd=()
  [[ -n "$spec" ]] && cmd[parse]="$bin/t2s-parse $spec -I testdata/specs -o $work/p.json"
  [[ -f $dir/parsed.json ]] && cmd[merge]="$bin/t2s-merge $dir/parsed.json -o $work/m.json"
  [[ -f $dir/merged.json ]] && cmd[stt]="$bin/t2s-stt $dir/merged.json -o $work/s.json"
  [[ -f $dir/stt.json ]] && cmd[vec]="$bin/t2s-vec $dir/stt.json -o $work/v.json"
  [[ -f $dir/vectorized.json ]] && cmd[gather]="$bin/t2s-gather $dir/vectorized.json -o $work/g.json"
  last=""
  for st in gathered vectorized stt merged; do
    [[ -f $dir/$st.json ]] && { last=$dir/$st.json; break; }
  done
  if [[ -n "$last" ]]; then
    [[ -f $dir/kernel.cl ]] &&
      cmd[opencl]="$bin/t2s-emit $last --target opencl --host $work/h.cpp -o $work/k.cl"
    [[ -f $dir/emu.cpp ]] && cmd[cpp]="$bin/t2s-emit $last --target cpp -o $work/e.cpp"
    [[ -f $dir/array.dot ]] && cmd[dot]="$bin/t2s-emit $last --target dot -o $work/a.dot"
    [[ -f $dir/text.txt ]] && cmd[text]="$bin/t2s-emit $last --target text -o $work/a.txt"
  fi
  row="" max=0 total=0
  for tool in "${tools[@]}"; do
    if [[ -z "${cmd[$tool]:-}" ]]; then
      row+="$(printf ' %6s' -)"
      continue
    fi
    # shellcheck disable=SC2086  # the commands are word lists
    ms=$(for ((r = 0; r < RUNS; r++)); do time_ms ${cmd[$tool]}; done | median)
    row+="$(printf ' %6s' "$ms")"
    ((ms > max)) && max=$ms
    total=$((total + ms))
    ((ms >= 10)) && slow=$((slow + 1)) && echo "$ms $name $tool" >>"$work/slow.txt"
  done
  printf '%-36s%s %6s %6s\n' "$name" "$row" "$max" "$total"
  unset cmd
done
if ((slow)); then
  echo "$slow cells at 10 ms or more (slowest first):"
  sort -rn "$work/slow.txt" | head -20
else
  echo "every tool under 10 ms on every pipeline"
fi
