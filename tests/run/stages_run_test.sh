#!/bin/bash
# stages_run_test.sh: every stage of every testdata pipeline runs and computes what its merged
# stage computes. For each testdata/golden/NAME/ (the golden copies, which the golden tests keep
# equal to the pipelines' outputs), `t2s-run --engine interp --check` on stt.json, vectorized.json
# and gathered.json, with sequential and random inputs. A stage that fails is reported with the
# tool that produced it from the stage before, and whether that stage ran (so "t2s-vec turned a
# running design into a deadlock" reads as such).
#
# Cost: about 570 interpreter runs of small designs, a minute or two on one core; sharded.
#
# Under `bazel test`, runs from the runfiles root of the `t2s` workspace. By hand, from the
# repository root after `bazel build //tools:t2s-run`: bash tests/run/stages_run_test.sh
set -u

if [[ -n "${TEST_SRCDIR:-}" && -d "${TEST_SRCDIR}/t2s" ]]; then
  cd "${TEST_SRCDIR}/t2s"
  bin=.
else
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
  bin=bazel-bin
fi
RUN=$bin/tools/t2s-run
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
[[ -x "$RUN" ]] || {
  echo "FAIL: $RUN not found" >&2
  exit 1
}

# The stages after merged, each with the tool that makes it and the stage it is made from.
stages=(stt vectorized gathered)
declare -A tool_of=([stt]=t2s-stt [vectorized]=t2s-vec [gathered]=t2s-gather)
declare -A before=([stt]=merged [vectorized]=stt [gathered]=vectorized)

# Bazel's test sharding (shard_count in BUILD): shard K of N takes every N-th pipeline.
source libs/testing/shard.sh

failures=0
runs=0
pipelines=0
index=0
for dir in testdata/golden/*/; do
  name=$(basename "$dir")
  shard_owns $((index++)) || continue
  [[ -f "$dir/merged.json" ]] || continue
  pipelines=$((pipelines + 1))
  for fill in sequential random; do
    declare -A ran=([merged]=1)
    for stage in "${stages[@]}"; do
      ir="$dir/$stage.json"
      [[ -f "$ir" ]] || continue
      runs=$((runs + 1))
      err="$TMP/$name.$stage.$fill.err"
      if "$RUN" --engine interp --check --fill "$fill" --seed 7 "$ir" -o "$TMP/out.npy" 2>"$err"; then
        ran[$stage]=1
        continue
      fi
      ran[$stage]=0
      prev=${before[$stage]}
      if [[ ${ran[$prev]:-0} == 1 ]]; then
        what="${tool_of[$stage]} turned the $prev stage, which runs, into a $stage stage that"
      else
        what="the $stage stage (made by ${tool_of[$stage]} from the $prev stage, which fails too)"
      fi
      if grep -q "deadlock" "$err"; then
        what+=" deadlocks"
      else
        what+=" fails"
      fi
      echo "FAIL: $name ($fill inputs): $what:" >&2
      sed 's/^/    /' "$err" | head -n 20 >&2
      failures=$((failures + 1))
    done
    unset ran
  done
done

if ((pipelines == 0)); then
  echo "FAIL: no pipeline in testdata/golden ($(shard_name))" >&2
  exit 1
fi
if ((failures > 0)); then
  echo "$failures of $runs stage runs failed ($(shard_name))" >&2
  exit 1
fi
echo "PASS: $runs stage runs of $pipelines pipelines equal their merged stage ($(shard_name))"
