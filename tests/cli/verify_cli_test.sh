#!/usr/bin/env bash
# //tests/cli:verify_cli_test: every tool verifies the IR it reads (libs/ir/verify). Golden IR
# broken by hand in one cross-reference gets exit 1, a diagnostic with the verifier's rule and
# nothing on stdout from every tool that takes its stage: never a crash or an internal error.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

tool() {  # the path of tools/t2s-NAME (the Bazel data dependency, or bazel-bin by hand)
  if [[ -x "tools/t2s-$1" ]]; then echo "$PWD/tools/t2s-$1"; else echo "$PWD/bazel-bin/tools/t2s-$1"; fi
}

passed=0
failed=0
# expect_refused FILE RULE TOOL ARGS...: TOOL on FILE exits 1 with [RULE] and no output.
expect_refused() {
  local file="$1" rule="$2" name="$3"
  shift 3
  local rc=0
  "$(tool "$name")" "$@" "$file" >"$TMP/out" 2>"$TMP/err" || rc=$?
  if ((rc == 1)) && grep -q "error: .*\[$rule\]" "$TMP/err" && [[ ! -s "$TMP/out" ]]; then
    passed=$((passed + 1))
    echo "ok   t2s-$name $* on $(basename "$file"): exit 1 [$rule]"
  else
    failed=$((failed + 1))
    echo "FAIL: t2s-$name $* on $(basename "$file"): exit $rc, expected 1 with [$rule]" >&2
    sed 's/^/    | /' "$TMP/err" | head -n 10 >&2
  fi
}

# Every tool that reads stage STAGE (a lowered stage: t2s-emit and t2s-run read them all).
expect_refused_by_all() {  # FILE RULE STAGE
  local file="$1" rule="$2" stage="$3"
  case "$stage" in
    merged) expect_refused "$file" "$rule" stt ;;
    stt) expect_refused "$file" "$rule" vec ;;
  esac
  for target in opencl cpp dot text; do
    expect_refused "$file" "$rule" emit --target "$target"
  done
  expect_refused "$file" "$rule" run
}

# A register of a kernel that does not exist.
sed '0,/"kernel": "A"/s//"kernel": "X"/' testdata/golden/gemm/stt.json >"$TMP/unknown_kernel.json"
expect_refused_by_all "$TMP/unknown_kernel.json" ir-unknown-kernel stt

# An output that names no Func.
sed '/"output": {/{n;s/"func": "c"/"func": "nothing"/}' testdata/golden/gemm/merged.json \
  >"$TMP/unknown_output.json"
expect_refused_by_all "$TMP/unknown_output.json" ir-unknown-func merged

# An unbound variable (a register written with a value no let or loop binds).
sed '0,/"value": "A_val",/s//"value": "q",/' testdata/golden/gemm/stt.json >"$TMP/unbound.json"
expect_refused_by_all "$TMP/unbound.json" ir-unbound stt

# Two kernels with one name.
sed 's/"name": "collector",/"name": "drainer",/' testdata/golden/isolate_consumer/merged.json \
  >"$TMP/duplicate_kernel.json"
expect_refused_by_all "$TMP/duplicate_kernel.json" ir-duplicate merged

# The broken files differ from their goldens (so the checks above test something).
for f in unknown_kernel unknown_output unbound duplicate_kernel; do
  if cmp -s "$TMP/$f.json" testdata/golden/gemm/stt.json ||
    cmp -s "$TMP/$f.json" testdata/golden/gemm/merged.json ||
    cmp -s "$TMP/$f.json" testdata/golden/isolate_consumer/merged.json; then
    failed=$((failed + 1))
    echo "FAIL: $f.json is not broken (the sed edit did not apply)" >&2
  fi
done

echo "$passed passed, $failed failed"
((failed == 0))
