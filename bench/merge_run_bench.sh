#!/usr/bin/env bash
# bench/merge_run_bench.sh: time (opt build) t2s-merge on every spec in testdata/specs, and
# t2s-run of the GEMM spec at 64 x 64 x 64 (and 32^3 for comparison) on random data.
# Reports; it is not a test and does not fail on a slow result (it fails only if a tool fails).
# Usage: bench/merge_run_bench.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${1:-3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/t2s-merge-run-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

source bench/lib.sh
build_opt_tools //tools:t2s-parse //tools:t2s-merge //tools:t2s-run

echo "== t2s-merge of every spec (parsed IR in, merged IR out), median of $RUNS runs"
printf '%-28s %8s\n' spec ms
for spec in testdata/specs/*.t2s; do
  name="$(basename "$spec" .t2s)"
  flags="$(head -n 40 "$spec" | grep -m1 -E '^//[[:space:]]*t2s-parse-flags:' |
    sed -E 's#^//[[:space:]]*t2s-parse-flags:[[:space:]]*##' || true)"
  read -r -a flag_args <<<"$flags"
  "$bin/t2s-parse" "${flag_args[@]}" "$spec" -o "$work/$name.json"
  ms=$(for ((r = 0; r < RUNS; r++)); do time_ms "$bin/t2s-merge" "$work/$name.json"; done | median)
  printf '%-28s %8s\n' "$name" "$ms"
done

echo
echo "== t2s-run of GEMM (testdata/specs/gemm.t2s with I, J, K replaced), --fill random"
printf '%-14s %12s %8s\n' size iterations ms
for n in 32 64; do
  sed -E "s/^#define I .*/#define I $n/; s/^#define J .*/#define J $n/; s/^#define K .*/#define K $n/" \
    testdata/specs/gemm.t2s >"$work/gemm$n.t2s"
  "$bin/t2s-merge" "$work/gemm$n.t2s" -o "$work/gemm$n.json"
  ms=$(for ((r = 0; r < RUNS; r++)); do
    time_ms "$bin/t2s-run" "$work/gemm$n.json" --fill random -o "$work/out$n.npy"
  done | median)
  printf '%-14s %12s %8s\n' "${n}x${n}x${n}" $((n * n * n)) "$ms"
done
echo
echo "(No target is asserted; see bench/README.md.)"
