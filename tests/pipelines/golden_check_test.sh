#!/usr/bin/env bash
# //tests/pipelines:golden_check_test: pipelines/golden_test.sh (what every t2s_golden_test
# runs) fails when it should and says what to do: a file that differs (a unified diff and the
# update command), a missing golden file, a golden file the pipeline does not produce, a tool
# that disagrees with the pipeline on the spec; it passes on identical files; --update writes
# the changed files, removes the stale ones and leaves the rest alone.
set -uo pipefail
if [[ -n "${TEST_SRCDIR:-}" && -d "${TEST_SRCDIR}/t2s" ]]; then
  cd "${TEST_SRCDIR}/t2s"
else
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
fi
SCRIPT="$PWD/pipelines/golden_test.sh"
T="${TEST_TMPDIR:-$(mktemp -d)}/golden_check"
rm -rf "$T" && mkdir -p "$T"
cd "$T" || exit 1

passed=0
failed=0
check() {  # check DESCRIPTION STATUS(0 = as expected)
  if (($2 == 0)); then
    passed=$((passed + 1))
    echo "ok   $1"
  else
    failed=$((failed + 1))
    echo "FAIL: $1" >&2
    echo "    --- output of golden_test.sh ---" >&2
    sed 's/^/    | /' "$T/out" | head -n 40 >&2
  fi
}
t() { "$@" && echo 0 || echo 1; }

# A "pipeline" of two files and its goldens.
setup() {
  rm -rf built golden && mkdir -p built golden/p
  printf '{\n  "stage": "parsed",\n  "x": 1\n}\n' >built/p.parsed.json
  printf '__kernel void k() {}\n' >built/p.cl
  cp built/p.parsed.json golden/p/parsed.json
  cp built/p.cl golden/p/kernel.cl
}
run() {  # run [EXTRA ARGS...]: the golden test on the two files; sets $rc, output in $T/out
  rc=0
  TEST_TMPDIR="$T/tmp" bash "$SCRIPT" --pipeline //x:p --golden-dir golden/p \
    --update-command "scripts/update-goldens" \
    --known-names "parsed.json merged.json kernel.cl emu.cpp" \
    --file parsed.json built/p.parsed.json --file kernel.cl built/p.cl "$@" >"$T/out" 2>&1 || rc=$?
}
mkdir -p "$T/tmp"

setup
run
check "identical files pass" "$(t test "$rc" -eq 0)"
check "identical files: one ok line per file" "$(t test "$(grep -c '^ok ' "$T/out")" -eq 2)"

setup
printf '__kernel void k() { int x; }\n' >golden/p/kernel.cl
run
check "a differing file fails" "$(t test "$rc" -ne 0)"
check "a differing file: names both files" \
  "$(t grep -qF 'bazel-bin/built/p.cl (built by //x:p) differs from golden/p/kernel.cl' "$T/out")"
check "a differing file: prints a unified diff" "$(t grep -qE '^ +\+__kernel void k\(\) \{\}$' "$T/out")"
check "a differing file: diff has both labels" \
  "$(t grep -qF -- '--- golden/p/kernel.cl (golden)' "$T/out")"
check "a differing file: prints the update command" "$(t grep -qF 'run scripts/update-goldens' "$T/out")"

setup
rm golden/p/parsed.json
run
check "a missing golden file fails" "$(t test "$rc" -ne 0)"
check "a missing golden file: says so" "$(t grep -qF 'no golden file golden/p/parsed.json' "$T/out")"

setup
echo stale >golden/p/merged.json
echo unrelated >golden/p/README.md
run
check "a golden file the pipeline does not produce fails" "$(t test "$rc" -ne 0)"
check "a stale golden file: named" "$(t grep -qF 'golden/p/merged.json is not an output of //x:p' "$T/out")"
check "a file of another name (README.md) is ignored" "$(t test "$(grep -c FAIL "$T/out")" -eq 1)"

# The spec checks: a fake t2s-parse that prints the parsed file (or not).
setup
cat >fake_parse.sh <<'EOF'
#!/bin/bash
# prints built/p.parsed.json; with FAKE_WRONG set, something else
[[ -z "${FAKE_WRONG:-}" ]] || { echo '{}'; exit 0; }
cat built/p.parsed.json
EOF
chmod +x fake_parse.sh
echo 'spec' >p.t2s
run --spec p.t2s --t2s-parse ./fake_parse.sh --t2s-merge /bin/false --t2s-stt /bin/false
check "spec checks: tools that agree pass" "$(t test "$rc" -eq 0)"
check "spec checks: from a file and from stdin" "$(t test "$(grep -c '^ok   t2s-parse' "$T/out")" -eq 2)"
FAKE_WRONG=1 run --spec p.t2s --t2s-parse ./fake_parse.sh --t2s-merge /bin/false --t2s-stt /bin/false
check "spec checks: a tool that disagrees fails" "$(t test "$rc" -ne 0)"
check "spec checks: names the command" "$(t grep -qF 't2s-parse of the spec: `./fake_parse.sh p.t2s` differs' "$T/out")"

# --update: writes what changed, removes stale goldens of known names, keeps others.
setup
printf 'old\n' >golden/p/kernel.cl
echo stale >golden/p/emu.cpp
echo unrelated >golden/p/README.md
rm golden/p/parsed.json
chmod 444 built/p.cl  # Bazel's outputs are read-only; the goldens must not be
mkdir -p ws && mv golden ws/
rc=0
BUILD_WORKSPACE_DIRECTORY="$T/ws" bash "$SCRIPT" --pipeline //x:p --golden-dir golden/p \
  --known-names "parsed.json merged.json kernel.cl emu.cpp" --update \
  --file parsed.json built/p.parsed.json --file kernel.cl built/p.cl >"$T/out" 2>&1 || rc=$?
check "--update exits 0" "$(t test "$rc" -eq 0)"
check "--update creates a missing golden" "$(t cmp -s built/p.parsed.json ws/golden/p/parsed.json)"
check "--update replaces a changed golden" "$(t cmp -s built/p.cl ws/golden/p/kernel.cl)"
check "--update: the golden is writable (644)" "$(t test "$(stat -c %a ws/golden/p/kernel.cl)" = 644)"
check "--update removes a stale golden" "$(t test ! -e ws/golden/p/emu.cpp)"
check "--update keeps other files" "$(t test -f ws/golden/p/README.md)"
check "--update reports each change" \
  "$(t test "$(grep -cE '^(created|updated|removed) golden/p/' "$T/out")" -eq 3)"
rc=0
BUILD_WORKSPACE_DIRECTORY="$T/ws" bash "$SCRIPT" --pipeline //x:p --golden-dir golden/p \
  --known-names "parsed.json merged.json kernel.cl emu.cpp" --update \
  --file parsed.json built/p.parsed.json --file kernel.cl built/p.cl >"$T/out" 2>&1 || rc=$?
check "--update twice: nothing to do, nothing printed" "$(t test "$rc" -eq 0 -a ! -s "$T/out")"
mv ws/golden golden
run
check "after --update the test passes" "$(t test "$rc" -eq 0)"

echo "golden_check_test: $passed ok, $failed failed"
((failed == 0))
