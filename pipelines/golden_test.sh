#!/usr/bin/env bash
# pipelines/golden_test.sh: what t2s_golden_test (t2s.bzl) runs, from the runfiles root of the
# main workspace (every path below is relative to it).
#
#   golden_test.sh --pipeline LABEL --golden-dir DIR --update-command CMD
#                  --known-names "parsed.json merged.json ..."
#                  [--file GOLDEN_NAME BUILT_FILE]...
#                  [--spec SPEC --t2s-parse P --t2s-merge M --t2s-stt S [--parse-flag F]...]
#                  [--update]
#
# Test mode: each BUILT_FILE must equal DIR/GOLDEN_NAME byte for byte; a golden file among the
# known names that the pipeline does not produce is an error too. With --spec, the tools run on
# the spec itself: `t2s-parse FLAGS SPEC` and `t2s-parse FLAGS -I SPECDIR - < SPEC` must give
# the pipeline's parsed.json, `t2s-merge FLAGS SPEC` its merged.json and `t2s-stt FLAGS SPEC`
# its stt.json.
#
# --update (t2s_golden_test's NAME.update target, run by scripts/update-goldens or
# `bazel run`): writes each BUILT_FILE to $BUILD_WORKSPACE_DIRECTORY/DIR/GOLDEN_NAME (only when
# it changed), removes golden files of known names the pipeline does not produce, and prints
# what it did.
set -uo pipefail

pipeline="" golden_dir="" update_command="scripts/update-goldens" known_names="" update=0
spec="" parse="" merge="" stt=""
names=() built=() parse_flags=()
while (($#)); do
  case "$1" in
    --pipeline) pipeline="$2"; shift 2 ;;
    --golden-dir) golden_dir="$2"; shift 2 ;;
    --update-command) update_command="$2"; shift 2 ;;
    --known-names) known_names="$2"; shift 2 ;;
    --file) names+=("$2"); built+=("$3"); shift 3 ;;
    --spec) spec="$2"; shift 2 ;;
    --t2s-parse) parse="$2"; shift 2 ;;
    --t2s-merge) merge="$2"; shift 2 ;;
    --t2s-stt) stt="$2"; shift 2 ;;
    --parse-flag) parse_flags+=("$2"); shift 2 ;;
    --update) update=1; shift ;;
    *) echo "golden_test.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [[ -z "$golden_dir" || ${#names[@]} -eq 0 ]]; then
  echo "golden_test.sh: --golden-dir and at least one --file are required" >&2
  exit 2
fi

# Golden files hold emitted programs with their fixed parts (the embedded runtime, the OpenCL
# host support: the lines from `// ---- BEGIN t2s NAME ----` to `// ---- END t2s NAME ----`)
# elided to one line: those parts have their own tests (//libs/runtime:runtime_test,
# //libs/backends/opencl:opencl_test), and the goldens then show only what is specific to the
# design. Built files are compared and written in that form.
golden_form_dir="$(mktemp -d "${TEST_TMPDIR:-${TMPDIR:-/tmp}}/golden-form.XXXXXX")"
trap 'rm -rf "$golden_form_dir"' EXIT
origin=("${built[@]}")  # the files as built, for messages
for i in "${!built[@]}"; do
  [[ -f "${built[$i]}" ]] || continue  # reported as missing below
  form="$golden_form_dir/$i.${names[$i]}"
  awk '/^\/\/ ---- BEGIN t2s .* ----$/ { skip = 1; name = $0
         sub(/^\/\/ ---- BEGIN t2s /, "", name); sub(/ ----$/, "", name)
         print "// ---- t2s " name ": elided in golden files ----"; next }
       skip && /^\/\/ ---- END t2s .* ----$/ { skip = 0; next }
       !skip' "${built[$i]}" >"$form" || { echo "golden_test.sh: cannot read ${built[$i]}" >&2; exit 1; }
  built[$i]="$form"
done

produced() {  # produced NAME: is NAME one of the pipeline's golden names?
  local n
  for n in "${names[@]}"; do [[ "$n" == "$1" ]] && return 0; done
  return 1
}

# --- update mode ------------------------------------------------------------------------------
if ((update)); then
  if [[ -z "${BUILD_WORKSPACE_DIRECTORY:-}" ]]; then
    echo "golden_test.sh --update: BUILD_WORKSPACE_DIRECTORY is not set; run it with" \
      "\`bazel run\` or scripts/update-goldens" >&2
    exit 2
  fi
  if [[ "$golden_dir" == ../* ]]; then
    echo "golden_test.sh --update: $golden_dir is in another repository; update it there" >&2
    exit 2
  fi
  dest="$BUILD_WORKSPACE_DIRECTORY/$golden_dir"
  mkdir -p "$dest" || exit 1
  status=0
  for i in "${!names[@]}"; do
    target="$dest/${names[$i]}"
    if [[ -f "$target" ]] && cmp -s "${built[$i]}" "$target"; then
      continue
    fi
    what="updated"
    [[ -f "$target" ]] || what="created"
    tmp="$(mktemp "$dest/.${names[$i]}.XXXXXX")" &&
      cp "${built[$i]}" "$tmp" && chmod 644 "$tmp" && mv -f "$tmp" "$target" ||
      { echo "FAILED to write $golden_dir/${names[$i]}" >&2; rm -f "${tmp:-}"; status=1; continue; }
    echo "$what $golden_dir/${names[$i]}"
  done
  for n in $known_names; do
    if ! produced "$n" && [[ -f "$dest/$n" ]]; then
      rm -f "$dest/$n" && echo "removed $golden_dir/$n (not an output of $pipeline)"
    fi
  done
  exit "$status"
fi

# --- test mode --------------------------------------------------------------------------------
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failed=0
checked=0
fail() {
  echo "FAIL: $*" >&2
  failed=$((failed + 1))
}
hint() {
  echo "    If the change is intended, run $update_command and review \`git diff $golden_dir\`." >&2
}
# show_diff EXPECTED ACTUAL LABEL_E LABEL_A: a unified diff, at most 200 lines.
show_diff() {
  diff -u --label "$3" --label "$4" "$1" "$2" >"$TMP/diff" 2>&1
  head -n 200 "$TMP/diff" | sed 's/^/    /' >&2
  local lines
  lines=$(wc -l <"$TMP/diff")
  ((lines <= 200)) || echo "    ... ($((lines - 200)) more diff lines)" >&2
}

# The path of a built file as a user finds it from the workspace root.
shown() {
  if [[ "$1" == ../* ]]; then echo "bazel-bin/external/${1#../}"; else echo "bazel-bin/$1"; fi
}
for i in "${!names[@]}"; do
  golden="$golden_dir/${names[$i]}"
  actual="${built[$i]}"
  shown_actual="$(shown "${origin[$i]}")"
  checked=$((checked + 1))
  if [[ ! -f "$actual" ]]; then
    fail "${origin[$i]} (built by $pipeline) is missing from the test's runfiles"
  elif [[ ! -f "$golden" ]]; then
    fail "no golden file $golden for $shown_actual; create it with $update_command"
  elif ! cmp -s "$golden" "$actual"; then
    fail "$shown_actual (built by $pipeline) differs from $golden:"
    show_diff "$golden" "$actual" "$golden (golden)" "$shown_actual (built)"
    hint
  else
    echo "ok   $golden"
  fi
done

for n in $known_names; do
  if ! produced "$n" && [[ -f "$golden_dir/$n" ]]; then
    fail "$golden_dir/$n is not an output of $pipeline (a stage after its last one, or a" \
      "target it does not emit); $update_command removes it"
  fi
done

# --- the same files from the spec itself ----------------------------------------------------
built_of() {  # built_of GOLDEN_NAME: the pipeline's file of that name, or nothing
  local i
  for i in "${!names[@]}"; do
    [[ "${names[$i]}" == "$1" ]] && { echo "${built[$i]}"; return 0; }
  done
  return 1
}
# from_spec WHAT EXPECTED CMD...: CMD's stdout must equal EXPECTED.
from_spec() {
  local what="$1" expected="$2" rc=0
  shift 2
  checked=$((checked + 1))
  "$@" >"$TMP/out" 2>"$TMP/err" <"${stdin_file:-/dev/null}" || rc=$?
  local cmd="$*"
  [[ -z "${stdin_file:-}" ]] || cmd="$cmd < $stdin_file"
  if ((rc != 0)); then
    fail "\`$cmd\` exited with status $rc; stderr:"
    sed 's/^/    /' "$TMP/err" >&2
  elif ! cmp -s "$expected" "$TMP/out"; then
    fail "$what: \`$cmd\` differs from $expected (the pipeline's output):"
    show_diff "$expected" "$TMP/out" "$expected (pipeline)" "$cmd"
  else
    echo "ok   $what"
  fi
}
if [[ -n "$spec" ]]; then
  flags=("${parse_flags[@]+"${parse_flags[@]}"}")
  if parsed="$(built_of parsed.json)"; then
    stdin_file="" from_spec "t2s-parse of the spec" "$parsed" "$parse" "${flags[@]}" "$spec"
    stdin_file="$spec" from_spec "t2s-parse of the spec from stdin" "$parsed" \
      "$parse" "${flags[@]}" -I "$(dirname "$spec")" -
  fi
  if merged="$(built_of merged.json)"; then
    stdin_file="" from_spec "t2s-merge of the spec" "$merged" "$merge" "${flags[@]}" "$spec"
  fi
  if stt_file="$(built_of stt.json)"; then
    stdin_file="" from_spec "t2s-stt of the spec" "$stt_file" "$stt" "${flags[@]}" "$spec"
  fi
fi

if ((failed)); then
  echo "$pipeline: $failed of $checked check(s) failed" >&2
  exit 1
fi
echo "$pipeline: all $checked checks passed"
