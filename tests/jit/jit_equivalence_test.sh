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
# The same program twice: when a pipeline's gathered stage emits the C++ program its stt stage
# emits (t2s-emit --target cpp, but for the stage's name in a comment and the help text: about
# half the pipelines, whose last passes changed nothing), the JIT would compile and run the
# same code on the same data again; the gathered stage's interpreter output is then held to the
# stt stage's JIT output instead (and the -O2 turn of such a pipeline's gathered stage goes to
# its stt stage).
#
# Run by hand from the repository root after `bazel build //tools:t2s-run //tools:t2s-emit`:
#   bash tests/jit/jit_equivalence_test.sh [NAME...]
set -uo pipefail
if [[ -n "${TEST_SRCDIR:-}" && -d "${TEST_SRCDIR}/t2s" ]]; then
  cd "${TEST_SRCDIR}/t2s"
  RUN="$PWD/tools/t2s-run"
  EMIT="$PWD/tools/t2s-emit"
else
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
  RUN="$PWD/bazel-bin/tools/t2s-run"
  EMIT="$PWD/bazel-bin/tools/t2s-emit"
fi

# emitted_program STAGE IR: the C++ of IR, its stage's name blanked out.
emitted_program() {
  "$EMIT" --target cpp "$2" | sed -E "s/stage '$1'/stage ''/g; s/\(stage $1\)/(stage )/g"
}
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
source libs/testing/shard.sh

if (($#)); then
  names=("$@")
else
  names=()
  for dir in testdata/golden/*/; do names+=("$(basename "$dir")"); done
fi
((${#names[@]} > 0)) || { echo "FAIL: no pipelines found" >&2; exit 1; }

failures=0
checked=0
for ((i = shard_index; i < ${#names[@]}; i += shard_count)); do
  name="${names[i]}"
  same_program=0
  stt_ir="testdata/golden/$name/stt.json" gathered_ir="testdata/golden/$name/gathered.json"
  if [[ -f "$stt_ir" && -f "$gathered_ir" ]] &&
    emitted_program stt "$stt_ir" >"$TMP/stt.cpp" 2>/dev/null &&
    emitted_program gathered "$gathered_ir" >"$TMP/gathered.cpp" 2>/dev/null &&
    cmp -s "$TMP/stt.cpp" "$TMP/gathered.cpp"; then
    same_program=1
  fi
  o2_stage=$((i % 3))
  ((same_program && o2_stage == 2)) && o2_stage=1
  stage_index=0
  for stage in merged stt gathered; do
    opt=(--jit-opt 0)
    ((stage_index++ == o2_stage)) && opt=()
    ir="testdata/golden/$name/$stage.json"
    [[ -f "$ir" ]] || { echo "FAIL: $ir is missing" >&2; failures=$((failures + 1)); continue; }
    data=(--fill random --seed "$((i + 11))")
    rm -f "$TMP/interp.npy"
    "$RUN" "$ir" "${data[@]}" --engine interp -o "$TMP/interp.npy" 2> "$TMP/interp.err"
    interp_rc=$?
    if [[ $stage == gathered && $same_program == 1 ]]; then
      # The stt stage's JIT run (same program, same data) stands for this one: jit.npy, jit.err
      # and jit_rc are still its.
      how="the stt stage's run: the same program"
    else
      rm -f "$TMP/jit.npy"
      "$RUN" "$ir" "${data[@]}" --engine jit "${opt[@]}" -o "$TMP/jit.npy" 2> "$TMP/jit.err"
      jit_rc=$?
      how="${opt[*]:--O2}"
    fi
    if [[ $interp_rc != "$jit_rc" ]] || ! cmp -s "$TMP/interp.err" "$TMP/jit.err"; then
      echo "FAIL: $ir: interp exits $interp_rc ($(head -c 300 "$TMP/interp.err")), jit $jit_rc ($(head -c 2000 "$TMP/jit.err"))" >&2
      failures=$((failures + 1))
    elif [[ $interp_rc == 0 ]] && ! cmp -s "$TMP/interp.npy" "$TMP/jit.npy"; then
      echo "FAIL: $ir: the outputs differ" >&2
      failures=$((failures + 1))
    else
      echo "ok   $ir (exit $interp_rc, jit $how)"
    fi
    checked=$((checked + 1))
  done
done
if ((failures > 0)); then
  echo "$failures of $checked programs differ" >&2
  exit 1
fi
echo "PASS: $checked programs ($(shard_name))"
