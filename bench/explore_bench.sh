#!/usr/bin/env bash
# bench/explore_bench.sh: time (opt build) t2s-explore on GEMM's schedules (testdata/specs/
# gemm.t2s: every loop order, the innermost loops to space, vectors in [-1, 1]: 78 candidates,
# 42 judged by the merge and stt passes), on GEMM with its own loop order only and with larger
# arrays, and on the polyhedral examples of DTSE chapters 3 and 4 (the three-polytope example
# with the ordering search at N = 5 and N = 40, figure 4.3's bounds with k outermost, MASAI's
# placement search on the three polytopes and on GEMM's merge group).
# The target (issue 15): exploring GEMM's schedules in under 1 s.
# Reports; it is not a test and does not fail on a slow result (it fails only if a tool fails).
# Usage: bench/explore_bench.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${1:-5}"
work="$(mktemp -d "${TMPDIR:-/tmp}/t2s-explore-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

source bench/lib.sh
build_opt_tools //tools:t2s-explore

# A GEMM spec of I x J x K.
gemm() {
  sed -E -e "s/^#define I [0-9]+/#define I $1/" -e "s/^#define J [0-9]+/#define J $2/" \
    -e "s/^#define K [0-9]+/#define K $3/" testdata/specs/gemm.t2s >"$work/gemm_$1_$2_$3.t2s"
  echo "$work/gemm_$1_$2_$3.t2s"
}

row() {  # row LABEL COMMAND...
  local label="$1"
  shift
  "$@" >/dev/null  # fails the script if the tool fails
  local ms
  ms=$(for ((r = 0; r < RUNS; r++)); do time_ms "$@"; done | median)
  printf '%-58s %8s\n' "$label" "$ms"
}

echo "== t2s-explore, median of $RUNS runs (milliseconds)"
row "GEMM 4x4x8 schedules (78 candidates)" "$bin/t2s-explore" testdata/specs/gemm.t2s
row "GEMM 4x4x8 --best" "$bin/t2s-explore" testdata/specs/gemm.t2s --best
row "GEMM 4x4x8 --keep-order (13 candidates)" "$bin/t2s-explore" testdata/specs/gemm.t2s --keep-order
row "GEMM 4x4x8 --bound 2 (186 candidates)" "$bin/t2s-explore" testdata/specs/gemm.t2s --bound 2
row "GEMM 16x16x64 schedules" "$bin/t2s-explore" "$(gemm 16 16 64)"
row "seed000_abc (10x10x10) --keep-order --bound 3" "$bin/t2s-explore" \
  testdata/specs/seed000_abc.t2s --keep-order --bound 3
row "three polytopes N = 5, --search" "$bin/t2s-explore" testdata/explore/three_polytopes.json --search
row "three polytopes N = 40, --search" "$bin/t2s-explore" testdata/explore/three_polytopes.json \
  --search -P N=40
row "figure 4.3, --fix k" "$bin/t2s-explore" testdata/explore/storage_estimation.json --fix k
row "three polytopes N = 5, --place (MASAI search)" "$bin/t2s-explore" \
  testdata/explore/three_polytopes.json --place
row "GEMM 4x4x8 --place --no-enumerate" "$bin/t2s-explore" testdata/specs/gemm.t2s --place \
  --no-enumerate
echo "(target: GEMM's schedules in under 1000 ms)"
