#!/usr/bin/env bash
# //tests/cli:vector_ir_test: vectorized-stage IR with vector values (docs/ir.md, "Vector
# values"; testdata/ir/vector_dot.json) through the tools: t2s-run executes it, the text and dot
# backends print it, and the opencl and cpp backends (and the C code they share) refuse it with
# a located diagnostic, never a crash.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

IR=testdata/ir/vector_dot.json
failed=0
expect() {  # expect DESCRIPTION STATUS [GREP-PATTERN FILE]
  local what="$1" want="$2"
  if [[ "$rc" -ne "$want" ]]; then
    echo "FAIL: $what: exit $rc, expected $want" >&2
    sed 's/^/    | /' "$TMP/err" | head -n 10 >&2
    failed=$((failed + 1))
  elif [[ $# -ge 4 ]] && ! grep -qE -- "$3" "$4"; then
    echo "FAIL: $what: no line matching '$3' in $4" >&2
    sed 's/^/    | /' "$4" | head -n 10 >&2
    failed=$((failed + 1))
  else
    echo "ok   $what"
  fi
}
run() {
  set +e
  "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
}

run tools/t2s-run "$IR" --fill random -o "$TMP/e.npy"
expect "t2s-run executes vector IR" 0
run tools/t2s-emit --target text "$IR" -o "$TMP/ir.txt"
expect "text prints ramps and gathers" 0 'e\(ramp\(0, 1, 4\)\) = c\(ramp\(0, 1, 4\)\)' "$TMP/ir.txt"
expect "text prints vector channel types" 0 'ch: float32x4' "$TMP/ir.txt"
run tools/t2s-emit --target dot "$IR" -o "$TMP/ir.dot"
expect "dot prints vector IR" 0 'digraph' "$TMP/ir.dot"
run tools/t2s-emit --target opencl "$IR" -o "$TMP/ir.cl"
expect "opencl refuses vector IR at its location" 1 \
  '^<spec>:6:1: error: vector type float32x4 is not supported by the opencl target yet .*\[emit-type\]$' \
  "$TMP/err"
run tools/t2s-emit --target cpp "$IR" -o "$TMP/ir.cpp"
expect "cpp refuses vector IR at its location" 1 \
  '^<spec>:6:1: error: vector type float32x4 is not supported by the cpp target yet .*\[emit-unsupported\]$' \
  "$TMP/err"
[[ ! -e "$TMP/ir.cl" && ! -e "$TMP/ir.cpp" ]] || { echo "FAIL: output written on error" >&2; failed=$((failed + 1)); }

if ((failed > 0)); then
  echo "$failed check(s) failed" >&2
  exit 1
fi
