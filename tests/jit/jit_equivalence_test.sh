#!/bin/bash
# tests/jit/jit_equivalence_test.sh: t2s-run --engine jit computes what --engine interp computes,
# bit for bit, on the merged stage (whose realizes the emulation folds), the stt stage and the
# last stage (gathered) of every pipeline's goldens (testdata/golden/NAME/{merged,stt,
# gathered}.json), with random inputs (a seed per pipeline). Sharded: each shard takes every Nth
# pipeline.
#
# Optimization levels: of each pipeline's three stages, one runs at the JIT's default -O2 (the
# K-th stage for the K-th pipeline, modulo 3, so every stage is covered at -O2 across the
# pipelines) and the other two at --jit-opt 0. The code is the same at every level (the output
# must be the same bits); -O0 compiles in about 40% of -O2's time (about 1.5 s against 3.5 s
# here), which is most of this test's cost: about 300 compiles, some 700 s of one core.
#
# Run by hand from the repository root after `bazel build //tools:t2s-run`:
#   bash tests/jit/jit_equivalence_test.sh [NAME...]
set -uo pipefail
if [[ -n "${TEST_SRCDIR:-}" && -d "${TEST_SRCDIR}/t2s" ]]; then
  cd "${TEST_SRCDIR}/t2s"
  RUN="$PWD/tools/t2s-run"
else
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
  RUN="$PWD/bazel-bin/tools/t2s-run"
fi
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
[[ -n "${TEST_SHARD_STATUS_FILE:-}" ]] && touch "$TEST_SHARD_STATUS_FILE"
shards="${TEST_TOTAL_SHARDS:-1}"
shard="${TEST_SHARD_INDEX:-0}"

if (($#)); then
  names=("$@")
else
  names=()
  for dir in testdata/golden/*/; do names+=("$(basename "$dir")"); done
fi
((${#names[@]} > 0)) || { echo "FAIL: no pipelines found" >&2; exit 1; }

failures=0
checked=0
for ((i = shard; i < ${#names[@]}; i += shards)); do
  name="${names[i]}"
  stage_index=0
  for stage in merged stt gathered; do
    opt=(--jit-opt 0)
    ((stage_index++ == i % 3)) && opt=()
    ir="testdata/golden/$name/$stage.json"
    [[ -f "$ir" ]] || { echo "FAIL: $ir is missing" >&2; failures=$((failures + 1)); continue; }
    data=(--fill random --seed "$((i + 11))")
    rm -f "$TMP/interp.npy" "$TMP/jit.npy"
    "$RUN" "$ir" "${data[@]}" --engine interp -o "$TMP/interp.npy" 2> "$TMP/interp.err"
    interp_rc=$?
    "$RUN" "$ir" "${data[@]}" --engine jit "${opt[@]}" -o "$TMP/jit.npy" 2> "$TMP/jit.err"
    jit_rc=$?
    if [[ $interp_rc != "$jit_rc" ]] || ! cmp -s "$TMP/interp.err" "$TMP/jit.err"; then
      echo "FAIL: $ir: interp exits $interp_rc ($(head -c 300 "$TMP/interp.err")), jit $jit_rc ($(head -c 2000 "$TMP/jit.err"))" >&2
      failures=$((failures + 1))
    elif [[ $interp_rc == 0 ]] && ! cmp -s "$TMP/interp.npy" "$TMP/jit.npy"; then
      echo "FAIL: $ir: the outputs differ" >&2
      failures=$((failures + 1))
    else
      echo "ok   $ir (exit $interp_rc, jit ${opt[*]:--O2})"
    fi
    checked=$((checked + 1))
  done
done
if ((failures > 0)); then
  echo "$failures of $checked programs differ" >&2
  exit 1
fi
echo "PASS: $checked programs (shard $shard of $shards)"
