#!/usr/bin/env bash
# pipelines/emulation_test.sh: what t2s_emulation_test (t2s.bzl) runs, from the runfiles root of
# the main workspace.
#
#   emulation_test.sh --emu BIN [--emu-arg ARG ...] --t2s-run T2S_RUN --ir LAST_STAGE.json
#                     --seed N --fill sequential|random [--fill ...]
#
# The --emu-args come first on BIN's command line (the OpenCL executor's host program takes the
# device code, NAME.cl, there: t2s_opencl_exec_test).
#
# For each fill: BIN (the compiled NAME_emu.cpp) and `t2s-run --check LAST_STAGE.json` (the
# reference interpreter, which also checks the stage against the merged stage) generate the
# same inputs (--fill, and --seed N for random) and must write byte-identical .npy files. On a
# difference both programs print their output (--print) and the test shows `diff -u` of them.
set -uo pipefail

emu="" run="" ir="" seed=7
fills=() emu_args=()
while (($#)); do
  case "$1" in
    --emu) emu="$2"; shift 2 ;;
    --emu-arg) emu_args+=("$2"); shift 2 ;;
    --t2s-run) run="$2"; shift 2 ;;
    --ir) ir="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --fill) fills+=("$2"); shift 2 ;;
    *) echo "emulation_test.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [[ -z "$emu" || -z "$run" || -z "$ir" || ${#fills[@]} -eq 0 ]]; then
  echo "emulation_test.sh: --emu, --t2s-run, --ir and --fill are required" >&2
  exit 2
fi

TMP="${TEST_TMPDIR:-$(mktemp -d)}"
export TMPDIR="$TMP"  # the OpenCL executor compiles the device code in a directory of its own there
failed=0
fail() {
  echo "FAIL: $*" >&2
  failed=$((failed + 1))
}
# run_cmd LOG CMD...: runs CMD with stdout and stderr to LOG.out / LOG.err; sets $rc.
run_cmd() {
  local log="$1"
  shift
  rc=0
  "$@" >"$log.out" 2>"$log.err" || rc=$?
}
show() {  # show FILE: indented, at most 40 lines
  head -n 40 "$1" | sed 's/^/    | /' >&2
}

for fill in "${fills[@]}"; do
  opts=(--fill "$fill")
  [[ "$fill" != random ]] || opts+=(--seed "$seed")
  what="--fill $fill${opts[2]:+ --seed $seed}"
  ref="$TMP/ref.$fill.npy" got="$TMP/emu.$fill.npy"
  rm -f "$ref" "$got"

  run_cmd "$TMP/ref.$fill" "$run" --check "${opts[@]}" -o "$ref" "$ir"
  if ((rc != 0)); then
    fail "\`t2s-run --check ${opts[*]} $ir\` exited with status $rc:"
    show "$TMP/ref.$fill.err"
    continue
  fi
  run_cmd "$TMP/emu.$fill" "$emu" "${emu_args[@]}" "${opts[@]}" -o "$got"
  if ((rc != 0)); then
    fail "the emulation \`$emu ${opts[*]} -o OUT.npy\` exited with status $rc:"
    show "$TMP/emu.$fill.err"
    show "$TMP/emu.$fill.out"
    continue
  fi
  if [[ ! -s "$got" ]]; then
    fail "the emulation \`$emu ${opts[*]} -o OUT.npy\` exited 0 but wrote no output"
    continue
  fi
  if cmp -s "$ref" "$got"; then
    echo "ok   $what: $emu and t2s-run $ir wrote the same $(wc -c <"$got") bytes"
    continue
  fi
  fail "$what: the emulation's output differs from t2s-run's ($ir):"
  cmp "$ref" "$got" 2>&1 | sed 's/^/    /' >&2
  run_cmd "$TMP/ref.$fill.print" "$run" "${opts[@]}" --print "$ir"
  run_cmd "$TMP/emu.$fill.print" "$emu" "${emu_args[@]}" "${opts[@]}" --print
  diff -u --label "t2s-run ${opts[*]} --print $ir" --label "$emu ${opts[*]} --print" \
    "$TMP/ref.$fill.print.out" "$TMP/emu.$fill.print.out" | head -n 100 | sed 's/^/    /' >&2
done

if ((failed)); then
  echo "emulation test: $failed of ${#fills[@]} fill(s) failed" >&2
  exit 1
fi
echo "emulation test: ${#fills[@]} fill(s) agree"
