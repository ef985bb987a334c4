# tests/cli/ir_checks.sh: status checks shared by vector_ir_test.sh and gather_ir_test.sh
# (sourced after testlib.sh, not run). Each check prints `ok   WHAT` or `FAIL: WHAT: why` and
# counts failures in $failed; a script ends with `((failed == 0))`.
failed=0
expect() {  # expect DESCRIPTION STATUS [GREP-PATTERN FILE]: the last run's $rc, and FILE's text
  local what="$1" want="$2"
  if [[ "$rc" -ne "$want" ]]; then
    echo "FAIL: $what: exit $rc, expected $want" >&2
    sed 's/^/    | /' "$TMP/err" | head -n 10 >&2
    failed=$((failed + 1))
  elif [[ $# -ge 4 ]] && ! grep -qE -- "$3" "$4"; then
    echo "FAIL: $what: no line matching '$3' in $4" >&2
    sed 's/^/    | /' "$4" | head -n 20 >&2
    failed=$((failed + 1))
  else
    echo "ok   $what"
  fi
}
run() {  # run COMMAND...: its output in $TMP/out and $TMP/err, its status in $rc
  set +e
  "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
}
check() {  # check DESCRIPTION COMMAND...: passes when COMMAND succeeds
  local what="$1"
  shift
  run "$@"
  expect "$what" 0
}
