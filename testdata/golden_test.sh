#!/usr/bin/env bash
# //testdata:golden_test: for every testdata/specs/NAME.t2s, `t2s-parse` must produce
# exactly testdata/golden/NAME/parsed.json (byte for byte), the same bytes when the spec comes
# from stdin, and the same bytes when run twice; `t2s-merge` must turn that parsed.json into
# exactly testdata/golden/NAME/merged.json, and give the same bytes when given the spec itself;
# `t2s-stt` must turn that merged.json into exactly testdata/golden/NAME/stt.json, and give the
# same bytes when given the spec itself.
# Regenerate goldens with scripts/update-goldens and review the diff.
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

  # The merged stage, from the parsed IR (as in a pipe) and from the spec itself.
  merged_golden="testdata/golden/$name/merged.json"
  run_merge "$out.merged" "$err.merged" "$out"
  if ((rc != 0)); then
    fail "$name" "\`tools/t2s-merge\` of the parsed IR exited with status $rc; stderr:"
    sed 's/^/    /' "$err.merged" >&2
  elif [[ ! -f "$merged_golden" ]]; then
    fail "$name" "no golden file $merged_golden; create it with scripts/update-goldens"
  elif ! cmp -s "$merged_golden" "$out.merged"; then
    fail "$name" "\`t2s-parse $spec | t2s-merge\` differs from $merged_golden:"
    diff -u --label "$merged_golden (expected)" --label "t2s-merge (actual)" "$merged_golden" \
      "$out.merged" | head -n 200 >&2 || true
    echo "    If the change is intended, run scripts/update-goldens and review \`git diff testdata/golden\`." >&2
  else
    run_merge "$out.merged2" "$err.merged2" "${flags[@]}" "$spec"
    if ((rc != 0)) || ! cmp -s "$out.merged" "$out.merged2"; then
      fail "$name" "\`tools/t2s-merge ${flags[*]:+${flags[*]} }$spec\` (status $rc) differs from merging the parsed IR"
      diff -u "$out.merged" "$out.merged2" | head -n 50 >&2 || true
    fi
  fi

  # The stt stage, from the merged golden (as in a pipe) and from the spec itself.
  stt_golden="testdata/golden/$name/stt.json"
  stt_cmd="tools/t2s-stt --spec $spec $merged_golden"
  rc=0
  [[ ! -f "$merged_golden" ]] || run_stt "$out.stt" "$err.stt" --spec "$spec" "$merged_golden"
  if [[ ! -f "$merged_golden" ]]; then
    :  # reported above
  elif ((rc != 0)); then
    fail "$name" "\`$stt_cmd\` exited with status $rc; stderr:"
    sed 's/^/    /' "$err.stt" >&2
  elif [[ ! -f "$stt_golden" ]]; then
    fail "$name" "no golden file $stt_golden; create it with scripts/update-goldens"
  elif ! cmp -s "$stt_golden" "$out.stt"; then
    fail "$name" "output of \`$stt_cmd\` differs from $stt_golden:"
    diff -u --label "$stt_golden (expected)" --label "$stt_cmd (actual)" "$stt_golden" \
      "$out.stt" | head -n 200 >&2 || true
    echo "    If the change is intended, run scripts/update-goldens and review \`git diff testdata/golden\`." >&2
  else
    run_stt "$out.stt2" "$err.stt2" "${flags[@]}" "$spec"
    stt_spec_cmd="tools/t2s-stt ${flags[*]:+${flags[*]} }$spec"
    if ((rc != 0)); then
      fail "$name" "\`$stt_spec_cmd\` exited with status $rc; stderr:"
      sed 's/^/    /' "$err.stt2" >&2
    elif ! cmp -s "$out.stt" "$out.stt2"; then
      fail "$name" "\`$stt_spec_cmd\` differs from \`$stt_cmd\` ($stt_golden):"
      diff -u --label "$stt_cmd" --label "$stt_spec_cmd" "$out.stt" "$out.stt2" | head -n 50 >&2 || true
    fi
  fi

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

echo "golden_test: ${#specs[@]} specs, $passed ok, $failed check(s) failed"
((failed == 0))
