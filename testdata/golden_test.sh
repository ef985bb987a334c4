#!/usr/bin/env bash
# //testdata:golden_parsed_test: for every testdata/specs/NAME.t2s, `t2s-parse` must produce
# exactly testdata/golden/NAME/parsed.json (byte for byte), the same bytes when the spec comes
# from stdin, and the same bytes when run twice. Regenerate goldens with scripts/update-goldens
# and review the diff.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

shopt -s nullglob
specs=(testdata/specs/*.t2s)
if ((${#specs[@]} == 0)); then
  echo "FAIL: no specs found in testdata/specs" >&2
  exit 1
fi

passed=0
failed=0
fail() {
  echo "FAIL: $1: $2" >&2
  failed=$((failed + 1))
  spec_failed=1
}

for spec in "${specs[@]}"; do
  name="$(basename "$spec" .t2s)"
  golden="testdata/golden/$name/parsed.json"
  read -r -a flags <<<"$(spec_flags "$spec")"
  cmd="tools/t2s-parse ${flags[*]:+${flags[*]} }$spec"
  spec_failed=0
  out="$TMP/$name.json" err="$TMP/$name.err"

  run_tool "$out" "$err" "${flags[@]}" "$spec"
  if ((rc != 0)); then
    fail "$name" "\`$cmd\` exited with status $rc; stderr:"
    sed 's/^/    /' "$err" >&2
    continue
  fi

  if [[ ! -f "$golden" ]]; then
    fail "$name" "no golden file $golden; create it with scripts/update-goldens"
  elif ! cmp -s "$golden" "$out"; then
    fail "$name" "output of \`$cmd\` differs from $golden:"
    diff -u --label "$golden (expected)" --label "$cmd (actual)" "$golden" "$out" | head -n 200 >&2 || true
    echo "    If the change is intended, run scripts/update-goldens and review \`git diff testdata/golden\`." >&2
  fi

  # Determinism: a second run gives the same bytes.
  run_tool "$out.2" "$err.2" "${flags[@]}" "$spec"
  if ((rc != 0)) || ! cmp -s "$out" "$out.2"; then
    fail "$name" "second run of \`$cmd\` gave different output (status $rc):"
    diff -u --label "run 1" --label "run 2" "$out" "$out.2" | head -n 50 >&2 || true
  fi

  # Stdin: `t2s-parse - < spec` gives the same bytes. Includes are relative to the spec's
  # directory when it is named; from stdin that directory is given with -I.
  run_tool "$out.stdin" "$err.stdin" "${flags[@]}" -I "$(dirname "$spec")" - <"$spec"
  if ((rc != 0)); then
    fail "$name" "\`tools/t2s-parse ${flags[*]:+${flags[*]} }-I $(dirname "$spec") - < $spec\` exited with status $rc; stderr:"
    sed 's/^/    /' "$err.stdin" >&2
  elif ! cmp -s "$out" "$out.stdin"; then
    fail "$name" "parsing from stdin gives different output than parsing the named file:"
    diff -u --label "$spec" --label "stdin" "$out" "$out.stdin" | head -n 50 >&2 || true
  fi

  # TODO: IR round trip (read parsed.json back and re-emit it) once a tool option exists.

  if ((spec_failed == 0)); then
    passed=$((passed + 1))
    echo "ok   $name"
  fi
done

# Goldens whose spec is gone (not an error: later stages may keep other files there).
for dir in testdata/golden/*/; do
  name="$(basename "$dir")"
  [[ -f "testdata/specs/$name.t2s" ]] || echo "warning: $dir has no spec testdata/specs/$name.t2s" >&2
done

echo "golden_parsed_test: ${#specs[@]} specs, $passed ok, $failed check(s) failed"
((failed == 0))
