#!/usr/bin/env bash
# The emulation's measured utilisation equals the performance model's (docs/report.md): for each
# spec, `t2s-emit --target cpp --profile` compiled and run prints one `profile: kernel K: ...`
# line per kernel, which must equal the report's `utilisation:` line of kernel K (useful
# PE-steps, PEs, steps), counted with isl without running anything.
# Specs: GEMM, the vectorized Arria-10 GEMM (small), the gathered Arria-10 GEMM (drainer,
# collector, unloader), a 2-D gather with Down's reversed PEs, CheckTime's skew (2-D and a
# projected convolution), a skewed 1-D array, isolated loaders (the model is of the device: the
# seeds, placed on the host, have none).
set -uo pipefail
if [[ -n "${TEST_SRCDIR:-}" && -d "${TEST_SRCDIR}/t2s" ]]; then
  cd "${TEST_SRCDIR}/t2s"
  T2S_EMIT="$PWD/tools/t2s-emit"
else
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
  T2S_EMIT="$PWD/bazel-bin/tools/t2s-emit"
fi
CXX="${CXX:-/usr/bin/g++}"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

for spec in gemm gemm_vec_a10 gemm_gather_a10 gather_2d gemm_checktime \
  conv2d_projected_outer conv1d_reorder_skewed gemm_isolate_inputs; do
  src="testdata/specs/$spec.t2s"
  if ! "$T2S_EMIT" "$src" --target cpp --profile -o "$TMP/$spec.cpp" ||
    ! "$CXX" -std=c++17 -O1 -pthread -ffp-contract=off "$TMP/$spec.cpp" -o "$TMP/$spec"; then
    echo "FAIL: $spec: the profiled emulation does not build" >&2
    failures=$((failures + 1))
    continue
  fi
  if ! "$TMP/$spec" -o "$TMP/$spec.npy" 2>"$TMP/$spec.measured.raw"; then
    echo "FAIL: $spec: the profiled emulation failed" >&2
    cat "$TMP/$spec.measured.raw" >&2
    failures=$((failures + 1))
    continue
  fi
  sed -n 's/^profile: //p' "$TMP/$spec.measured.raw" >"$TMP/$spec.measured"
  "$T2S_EMIT" "$src" --target report |
    awk '/^kernel / { name = $2 } /^  utilisation: / { sub(/^  utilisation: /, ""); print "kernel " name ": " $0 }' \
      >"$TMP/$spec.model"
  if [[ ! -s "$TMP/$spec.model" ]] || ! diff -u "$TMP/$spec.model" "$TMP/$spec.measured"; then
    echo "FAIL: $spec: the emulation's count differs from the model's (- model, + measured)" >&2
    failures=$((failures + 1))
  else
    echo "ok: $spec: $(wc -l <"$TMP/$spec.model") kernel(s) equal"
  fi
done

# --profile belongs to the cpp target.
if "$T2S_EMIT" testdata/specs/gemm.t2s --target text --profile >/dev/null 2>&1; then
  echo "FAIL: --profile with --target text was accepted" >&2
  failures=$((failures + 1))
fi
exit $((failures > 0))
