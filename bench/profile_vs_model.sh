#!/usr/bin/env bash
# bench/profile_vs_model.sh [PIPELINE...]: the OpenCL executor's measured steps, cycles and
# channel calls (`t2s-run --engine opencl --profile`) beside the performance model's (t2s-emit
# --target report: time steps, and channel reads and writes per time step times the steps), per
# device kernel, on the gathered goldens of the named testdata pipelines (default: a set of each
# kind of array).
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
printf '%-24s %-12s %8s %8s %8s %11s %9s %11s %9s\n' pipeline kernel "model" measured \
  measured "model" measured "model" measured
printf '%-24s %-12s %8s %8s %8s %11s %9s %11s %9s\n' "" "" steps steps cycles reads reads \
  writes writes
for name in "${names[@]}"; do
  ir=testdata/golden/$name/gathered.json
  "$EMIT" "$ir" --target report >"$tmp/report"
  "$RUN" --engine opencl --profile "$ir" -o "$tmp/out.npy" 2>"$tmp/profile"
  # kernel NAME (device): ..., N time steps (...) / per step: ..., channel reads R, channel writes W
  awk '/^kernel .*\(device\)/ { k = $2; n = $0; sub(/ time steps?.*/, "", n); sub(/.* /, "", n)
                                steps[k] = n }
       /^  per step:/ && k != "" { r = $0; sub(/.*channel reads /, "", r); sub(/,.*/, "", r)
                                   w = $0; sub(/.*channel writes /, "", w)
                                   print k, steps[k], r * steps[k], w * steps[k]; k = "" }' \
    "$tmp/report" | sort >"$tmp/model"
  # t2s profile: device run N: kernel 'K': C cycles, S steps (ran T ms); writes 'ch' N (blocked
  # B cycles); reads ...
  sed -n "s/^t2s profile: device run [0-9]*: kernel '\([^']*\)': \([0-9]*\) cycles, \([0-9]*\) steps ([^)]*)\(.*\)/\1 \2 \3 \4/p" \
    "$tmp/profile" |
    awk '{ k = $1; c[k] += $2; s[k] += $3; n = split($0, parts, "; ")
           for (i = 2; i <= n; i++) { split(parts[i], f, " ")
                                      if (f[1] == "reads") r[k] += f[3]; else w[k] += f[3] } }
         END { for (k in c) print k, s[k], c[k], r[k] + 0, w[k] + 0 }' |
    sort >"$tmp/measured"
  join "$tmp/model" "$tmp/measured" | while read -r k ms mr mw xs xc xr xw; do
    printf '%-24s %-12s %8s %8s %8s %11s %9s %11s %9s\n' "$name" "$k" "$ms" "$xs" "$xc" "$mr" \
      "$xr" "$mw" "$xw"
  done
done
