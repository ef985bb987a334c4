# tests/cli/testlib.sh: shared by the sh_tests in tests/cli/BUILD (sourced, not run).
#
# Under `bazel test`: cd to the runfiles root of the `t2s` workspace and use the t2s-parse that
# Bazel built as a data dependency (likewise t2s-merge and t2s-stt). Run by hand from the
# repository root (`bash tests/cli/cli_test.sh`): use the checkout and bazel-bin/tools/t2s-*.
# $T2S_PARSE, $T2S_MERGE and $T2S_STT override.

if [[ -n "${TEST_SRCDIR:-}" && -d "${TEST_SRCDIR}/t2s" ]]; then
  cd "${TEST_SRCDIR}/t2s"
else
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
fi
T2S_PARSE="${T2S_PARSE:-$PWD/tools/t2s-parse}"
if [[ ! -x "$T2S_PARSE" && -x bazel-bin/tools/t2s-parse ]]; then
  T2S_PARSE="$PWD/bazel-bin/tools/t2s-parse"
fi
if [[ ! -x "$T2S_PARSE" ]]; then
  echo "FAIL: t2s-parse not found (looked at $T2S_PARSE)" >&2
  exit 1
fi
T2S_MERGE="${T2S_MERGE:-$PWD/tools/t2s-merge}"
if [[ ! -x "$T2S_MERGE" && -x bazel-bin/tools/t2s-merge ]]; then
  T2S_MERGE="$PWD/bazel-bin/tools/t2s-merge"
fi
T2S_STT="${T2S_STT:-$PWD/tools/t2s-stt}"
if [[ ! -x "$T2S_STT" && -x bazel-bin/tools/t2s-stt ]]; then
  T2S_STT="$PWD/bazel-bin/tools/t2s-stt"
fi
TMP="${TEST_TMPDIR:-$(mktemp -d)}"

# Extra command-line flags for a spec: the first `// t2s-parse-flags: ...` comment among its
# first 40 lines (e.g. `// t2s-parse-flags: -D N=16 -D USE_INT`). Prints them, possibly nothing.
spec_flags() {
  head -n 40 "$1" | grep -m1 -E '^//[[:space:]]*t2s-parse-flags:' |
    sed -E 's#^//[[:space:]]*t2s-parse-flags:[[:space:]]*##' || true
}

# run_tool OUT ERR ARGS... : run t2s-parse with stdout/stderr to files; sets $rc (never exits).
run_tool() {
  local out="$1" err="$2"
  shift 2
  rc=0
  "$T2S_PARSE" "$@" >"$out" 2>"$err" || rc=$?
}

# run_merge OUT ERR ARGS... : run t2s-merge with stdout/stderr to files; sets $rc (never exits).
run_merge() {
  local out="$1" err="$2"
  shift 2
  rc=0
  "$T2S_MERGE" "$@" >"$out" 2>"$err" || rc=$?
}

# run_stt OUT ERR ARGS... : run t2s-stt with stdout/stderr to files; sets $rc (never exits).
run_stt() {
  local out="$1" err="$2"
  shift 2
  rc=0
  "$T2S_STT" "$@" >"$out" 2>"$err" || rc=$?
}
