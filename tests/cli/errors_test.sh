#!/usr/bin/env bash
# //tests/cli:errors_test: every testdata/errors/NAME.t2s is a wrong spec that states the exact
# diagnostic it must produce, in comments:
#
#   // expect-error: LINE:COL: MESSAGE [RULE]        exactly one per file
#   // expect-note: LINE:COL: MESSAGE                 any number; a note in this file
#   // expect-note: FILE:LINE:COL: MESSAGE            any number; a note in FILE (e.g. an include)
#   // t2s-parse-flags: -D N=3                        optional extra command-line flags
#
# `t2s-gather [flags] testdata/errors/NAME.t2s -o $TEST_TMPDIR/out.json` (which parses the
# spec as t2s-parse does, merges it as t2s-merge does (URE rules, loop nests, kernels,
# channels), applies the space-time transforms and checks their legality, vectorizes, then
# gathers) must exit 1,
# print nothing on stdout, create no output file, and print on stderr first the line
# `testdata/errors/NAME.t2s:LINE:COL: error: MESSAGE [RULE]`, then the source line, then a caret
# line; each expected note must appear as a line `PATH:LINE:COL: note: MESSAGE`; and nothing may
# say "hand-edited" (IR a spec cannot produce).
#
# A spec that t2s-parse accepts is also run as the Bazel pipeline runs it: `t2s-parse
# --spec-lines-out LINES`, then t2s-merge, t2s-stt, t2s-vec, t2s-gather each on the previous IR
# with `--spec-lines LINES` (never the spec): the stage that fails must exit 1 and print the
# same stderr, byte for byte, as with `--spec SPEC` in place of the lines.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

MIN_SPECS=20

shopt -s nullglob
all_specs=(testdata/errors/*.t2s)
# Bazel's shards (tests/cli/BUILD): this shard checks every shard_count-th spec.
source libs/testing/shard.sh
mapfile -t specs < <(shard_of all_specs)

passed=0
failed=()
pipeline_checked=0

for spec in "${specs[@]}"; do
  name="$(basename "$spec" .t2s)"
  problems=()
  out_file="$TMP/out.json"
  rm -f "$out_file"

  # --- expectations -------------------------------------------------------------------------
  mapfile -t errs < <(grep -E '^[[:space:]]*//[[:space:]]*expect-error:' "$spec" |
    sed -E 's#^[[:space:]]*//[[:space:]]*expect-error:[[:space:]]*##; s#[[:space:]]+$##')
  mapfile -t notes < <(grep -E '^[[:space:]]*//[[:space:]]*expect-note:' "$spec" |
    sed -E 's#^[[:space:]]*//[[:space:]]*expect-note:[[:space:]]*##; s#[[:space:]]+$##')
  read -r -a flags <<<"$(spec_flags "$spec")"

  if ((${#errs[@]} != 1)); then
    failed+=("$name")
    echo "FAIL: $spec: expected exactly one '// expect-error: LINE:COL: MESSAGE [RULE]' comment, found ${#errs[@]}" >&2
    continue
  fi
  if [[ ! "${errs[0]}" =~ ^([0-9]+):([0-9]+):\ (.+)$ ]]; then
    failed+=("$name")
    echo "FAIL: $spec: malformed expect-error comment '${errs[0]}' (want LINE:COL: MESSAGE [RULE])" >&2
    continue
  fi
  err_line="${BASH_REMATCH[1]}"
  err_col="${BASH_REMATCH[2]}"
  expected_first="$spec:$err_line:$err_col: error: ${BASH_REMATCH[3]}"

  expected_notes=()
  for n in "${notes[@]}"; do
    if [[ "$n" =~ ^([0-9]+:[0-9]+):\ (.+)$ ]]; then
      expected_notes+=("$spec:${BASH_REMATCH[1]}: note: ${BASH_REMATCH[2]}")
    elif [[ "$n" =~ ^(.+):([0-9]+:[0-9]+):\ (.+)$ ]]; then
      expected_notes+=("${BASH_REMATCH[1]}:${BASH_REMATCH[2]}: note: ${BASH_REMATCH[3]}")
    else
      problems+=("malformed expect-note comment '$n' (want [FILE:]LINE:COL: MESSAGE)")
    fi
  done

  # --- run ----------------------------------------------------------------------------------
  cmd="tools/t2s-gather ${flags[*]:+${flags[*]} }$spec -o \$TEST_TMPDIR/out.json"
  rc=0
  tools/t2s-gather "${flags[@]}" "$spec" -o "$out_file" >"$TMP/stdout" 2>"$TMP/stderr" || rc=$?
  first="$(head -n 1 "$TMP/stderr" | tr -d '\r')"

  ((rc == 1)) || problems+=("exit status: expected 1, got $rc")
  [[ "$first" == "$expected_first" ]] ||
    problems+=("first line of stderr:" "  expected: $expected_first" "  actual:   $first")
  [[ ! -s "$TMP/stdout" ]] || problems+=("stdout is not empty ($(wc -c <"$TMP/stdout") bytes)")
  [[ ! -e "$out_file" ]] || problems+=("output file was created although the spec is wrong")

  # The source line and a caret line follow the error line.
  src="$(sed -n "${err_line}p" "$spec" | tr -d '\r')"
  line2="$(sed -n 2p "$TMP/stderr" | tr -d '\r')"
  line3="$(sed -n 3p "$TMP/stderr" | tr -d '\r')"
  if (($(wc -l <"$spec") >= err_line)) && [[ "$line2" != "$src" ]]; then
    problems+=("second line of stderr should be source line $err_line:" "  expected: $src" "  actual:   $line2")
  fi
  [[ "$line3" =~ ^[[:space:]~]*\^[~^[:space:]]*$ ]] ||
    problems+=("third line of stderr should be a caret line, got: $line3")

  for want in "${expected_notes[@]}"; do
    grep -qxF -- "$want" <(tr -d '\r' <"$TMP/stderr") || problems+=("missing note line: $want")
  done
  # A spec is never told its IR was hand-edited: those messages are for IR a spec cannot make.
  ! grep -q "hand-edited" "$TMP/stderr" ||
    problems+=("the diagnostic of a spec speaks of hand-edited IR: $(grep "hand-edited" "$TMP/stderr")")

  # --- the same spec as the Bazel pipeline runs it (pipelines/t2s.bzl) -----------------------
  # t2s-parse writes the IR and the spec lines its locations point at; each later stage reads
  # the IR and those lines, never the spec. The stage that fails must exit 1 and print the same
  # stderr, byte for byte, as that stage given the spec itself (--spec SPEC) on the same IR.
  # (IR locations of expressions have no column, so an IR stage may report a spec location's
  # column 1 where t2s-gather on the spec reports the exact one.)
  lines="$TMP/spec_lines.json"
  rm -f "$lines" "$TMP/stage_"*.json
  prc=0
  tools/t2s-parse "${flags[@]}" --spec-lines-out "$lines" "$spec" -o "$TMP/stage_parse.json" \
    >/dev/null 2>/dev/null || prc=$?
  if ((prc == 0)); then
    pipeline_checked=$((pipeline_checked + 1))
    prev="$TMP/stage_parse.json"
    for stage in merge stt vec gather; do
      prc=0
      "tools/t2s-$stage" --spec-lines "$lines" "$prev" -o "$TMP/stage_$stage.json" \
        >/dev/null 2>"$TMP/lines_stderr" || prc=$?
      ((prc == 0)) || break
      prev="$TMP/stage_$stage.json"
    done
    if ((prc != 1)); then
      problems+=("pipeline: t2s-$stage --spec-lines exited $prc, expected 1")
    else
      "tools/t2s-$stage" --spec "$spec" "$prev" -o "$TMP/stage_$stage.json" \
        >/dev/null 2>"$TMP/spec_stderr" || true
      cmp -s "$TMP/lines_stderr" "$TMP/spec_stderr" || problems+=(
        "pipeline: t2s-$stage --spec-lines LINES IR and --spec SPEC IR print different stderr:"
        "$(diff -u "$TMP/spec_stderr" "$TMP/lines_stderr" | head -n 20 || true)")
    fi
  fi

  if ((${#problems[@]} == 0)); then
    passed=$((passed + 1))
    echo "ok   $name"
  else
    failed+=("$name")
    {
      echo "FAIL: $spec"
      echo "  command: $cmd"
      printf '  %s\n' "${problems[@]}"
      echo "  --- stderr ---"
      sed 's/^/  | /' "$TMP/stderr" | head -n 40
    } >&2
  fi
done

status=0
if ((${#all_specs[@]} < MIN_SPECS)); then
  echo "FAIL: only ${#all_specs[@]} error specs in testdata/errors (at least $MIN_SPECS wanted)" >&2
  status=1
fi
echo "errors_test: $(shard_name): ${#specs[@]} specs, $passed ok, ${#failed[@]} failed${failed[*]:+: ${failed[*]}}" \
  "($pipeline_checked failing after parse, also checked stage by stage with --spec-lines)"
if ((${#failed[@]})); then status=1; fi
exit "$status"
