#!/usr/bin/env bash
# bench/profile_vs_model.sh [PIPELINE...]: the OpenCL executor's measured channel calls
# (`t2s-run --engine opencl --profile`) beside the performance model's (t2s-emit --target report:
# channel reads and writes per time step, times the kernel's time steps), per device kernel, on
# the gathered goldens of the named testdata pipelines (default: a set of each kind of array).
# A measurement, not a test (bench/README.md): it prints a table and fails only when a tool does.
# From the repository root, after `bazel build //:tools`.
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=bazel-bin/tools/t2s-run
EMIT=bazel-bin/tools/t2s-emit
[[ -x $RUN && -x $EMIT ]] || {
  echo "profile_vs_model: build the tools first: bazel build //:tools" >&2
  exit 1
}
names=("$@")
((${#names[@]})) || names=(gemm gemm_host_chains gemm_isolate_inputs gemm_gather_a10
  gemm_vec_a10 gemm_wavefront_feeders gather_2d isolate_consumer conv1d_reorder_skewed
  lu_diagonal_collector)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-24s %-14s %14s %14s %14s %14s\n' pipeline kernel "model reads" measured \
  "model writes" measured
for name in "${names[@]}"; do
  ir=testdata/golden/$name/gathered.json
  "$EMIT" "$ir" --target report >"$tmp/report"
  "$RUN" --engine opencl --profile "$ir" -o "$tmp/out.npy" 2>"$tmp/profile"
  # kernel NAME (device): ..., N time steps (...) / per step: ..., channel reads R, channel writes W
  awk '/^kernel .*\(device\)/ { k = $2; n = $0; sub(/ time steps?.*/, "", n); sub(/.* /, "", n)
                                steps[k] = n }
       /^  per step:/ && k != "" { r = $0; sub(/.*channel reads /, "", r); sub(/,.*/, "", r)
                                   w = $0; sub(/.*channel writes /, "", w)
                                   print k, r * steps[k], w * steps[k]; k = "" }' \
    "$tmp/report" | sort >"$tmp/model"
  # t2s profile: device run N: kernel 'K' ran ...; writes 'ch' C (waited ...); reads 'ch' C ...
  sed -n "s/^t2s profile: device run [0-9]*: kernel '\([^']*\)' ran [^;]*//p" "$tmp/profile" |
    awk '{ k = $0 } { split($0, parts, "; ") } { r = 0; w = 0 }
         { for (i in parts) { n = split(parts[i], f, " "); if (f[1] == "reads") r += f[3];
                              if (f[1] == "writes") w += f[3] } }
         { print r, w }' >"$tmp/counts"
  sed -n "s/^t2s profile: device run [0-9]*: kernel '\([^']*\)'.*/\1/p" "$tmp/profile" |
    paste -d' ' - "$tmp/counts" |
    awk '{ r[$1] += $2; w[$1] += $3 } END { for (k in r) print k, r[k], w[k] }' |
    sort >"$tmp/measured"
  join "$tmp/model" "$tmp/measured" | while read -r k mr mw xr xw; do
    printf '%-24s %-14s %14s %14s %14s %14s\n' "$name" "$k" "$mr" "$xr" "$mw" "$xw"
  done
done
