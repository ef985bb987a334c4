# tests/emit/testlib.sh: shared by the sh_tests in tests/emit/BUILD (sourced, not run).
#
# Under `bazel test`: cd to the runfiles root of the `t2s` workspace and use the tools Bazel built
# as data dependencies; run by hand from the repository root: the checkout and bazel-bin/.
# Sets EMIT (the cpp target of exactly the given stage), RUN (t2s-run), CXX, TMP, DIR (the
# goldens), failures, and defines fail.

if [[ -n "${TEST_SRCDIR:-}" && -d "${TEST_SRCDIR}/t2s" ]]; then
  cd "${TEST_SRCDIR}/t2s"
  EMIT="$PWD/tests/emit/emit_cpp_stage"
  RUN="$PWD/tools/t2s-run"
else
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
  EMIT="$PWD/bazel-bin/tests/emit/emit_cpp_stage"
  RUN="$PWD/bazel-bin/tools/t2s-run"
fi
CXX="${CXX:-/usr/bin/g++}"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
DIR=testdata/golden
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

