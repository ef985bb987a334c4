#!/usr/bin/env bash
# bench/emulation_bench.sh: the emitted C++ emulation of GEMM (testdata/specs/gemm.t2s with
# I = J = K = N, default 256) against a naive native triple loop (bench/emulation_native_gemm.cc),
# both compiled in this run with the same compiler and flags (the emulation's: -O2 -pthread
# -ffp-contract=off), on the same data; the emulation as emitted (accesses isl proves in bounds
# unchecked) and with `t2s-emit --checked` (every access checked), and t2s-run (the reference
# interpreter) on the same spec. Prints the median wall time of each (the emulations and t2s-run
# as whole processes: start, reading the inputs, writing the output; the native loop alone) and
# the emulation's ratio to the native loop (target: at most 3). Checks that the emulation, the
# checked emulation, t2s-run and the native loop give the same bits.
# Reports; it is not a test and does not fail on a slow result (only if a tool fails or the
# results differ). Usage: bench/emulation_bench.sh [RUNS] [N]
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${1:-5}"
N="${2:-256}"
CXX="${CXX:-g++}"
CXXFLAGS=(-std=c++17 -O2 -pthread -ffp-contract=off)
work="$(mktemp -d "${TMPDIR:-/tmp}/t2s-emulation-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

source bench/lib.sh
build_opt_tools --disk_cache=/tmp/t2s-disk-cache //tools:t2s-emit //tools:t2s-run

spec="$work/gemm.t2s"
sed -E -e "s/^#define I [0-9]+/#define I $N/" -e "s/^#define J [0-9]+/#define J $N/" \
  -e "s/^#define K [0-9]+/#define K $N/" testdata/specs/gemm.t2s >"$spec"
"$bin/t2s-emit" "$spec" --target cpp -o "$work/emu.cpp"
"$bin/t2s-emit" "$spec" --target cpp --checked -o "$work/emu_checked.cpp"
"$CXX" "${CXXFLAGS[@]}" bench/emulation_native_gemm.cc -o "$work/native"
"$CXX" "${CXXFLAGS[@]}" "$work/emu.cpp" -o "$work/emu"
"$CXX" "${CXXFLAGS[@]}" "$work/emu_checked.cpp" -o "$work/emu_checked"
echo "compiler: $("$CXX" --version | head -1); flags: ${CXXFLAGS[*]}"

# Seconds with 3 decimals from milliseconds (integer arithmetic, no bc).
seconds() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

# The native loop's own time (it writes a.npy, b.npy and c.bin in $work).
native_us=$(for ((r = 0; r < RUNS; r++)); do
  "$work/native" "$work" "$N" | awk '{ printf "%d\n", $1 * 1000000 + 0.5 }'
done | median)
inputs=(--input "a=$work/a.npy" --input "b=$work/b.npy")
emu_ms=$(for ((r = 0; r < RUNS; r++)); do
  time_ms "$work/emu" "${inputs[@]}" -o "$work/emu.npy"
done | median)
checked_ms=$(for ((r = 0; r < RUNS; r++)); do
  time_ms "$work/emu_checked" "${inputs[@]}" -o "$work/checked.npy"
done | median)
run_ms=$(time_ms "$bin/t2s-run" "$spec" "${inputs[@]}" -o "$work/run.npy")

bytes=$((N * N * 4))
for out in emu checked run; do
  if ! tail -c "$bytes" "$work/$out.npy" | cmp -s - "$work/c.bin"; then
    echo "emulation_bench: $out.npy differs from the native loop's result" >&2
    exit 1
  fi
done
echo "== GEMM ${N}^3 (float), median of $RUNS runs (t2s-run: one run); all four results equal"
printf '%-44s %10s s\n' "native triple loop (the loop alone)" \
  "$(printf '%d.%06d' $((native_us / 1000000)) $((native_us % 1000000)))"
printf '%-44s %10s s\n' "emulation (t2s-emit --target cpp, process)" "$(seconds "$emu_ms")"
printf '%-44s %10s s\n' "emulation --checked (process)" "$(seconds "$checked_ms")"
printf '%-44s %10s s\n' "t2s-run, the interpreter (process)" "$(seconds "$run_ms")"
ratio=$(awk -v e="$emu_ms" -v n="$native_us" 'BEGIN { printf "%.1f", e * 1000 / (n > 0 ? n : 1) }')
checked_ratio=$(awk -v e="$checked_ms" -v n="$native_us" \
  'BEGIN { printf "%.1f", e * 1000 / (n > 0 ? n : 1) }')
met=$(awk -v r="$ratio" 'BEGIN { print (r <= 3 ? "met" : "NOT met") }')
echo "ratio emulation / native: $ratio (target <= 3: $met); --checked / native: $checked_ratio"
