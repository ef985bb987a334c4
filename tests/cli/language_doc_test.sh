#!/usr/bin/env bash
# //tests/cli:language_doc_test: keeps docs/language.md in step with the code.
#
# - The rules of its table between `<!-- spec-rules: begin -->` and `<!-- spec-rules: end -->`
#   (first column, in backquotes) are exactly the rules of the `// expect-error: ... [RULE]`
#   lines of testdata/errors/*.t2s, which //tests/cli:errors_test holds t2s-gather to: every
#   documented spec rule has a negative spec, and every rule a negative spec produces is
#   documented.
# - The rules of its table between `<!-- other-rules: begin -->` and `<!-- other-rules: end -->`
#   (rules no spec triggers: IR-only, internal limits, execution errors) appear neither in the
#   first table nor in any negative spec.
# - The example of its section 1 (the first ```c++ block) goes through t2s-stt.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

DOC=docs/language.md
problems=()

[[ -f "$DOC" ]] || { echo "FAIL: $DOC not found" >&2; exit 1; }

# Rules in the first backquoted cell of each table row between two markers.
table_rules() {
  sed -n "/<!-- $1: begin -->/,/<!-- $1: end -->/p" "$DOC" |
    grep -E '^\|' | grep -vE '^\|[-[:space:]|]+$' |
    awk -F'|' '{print $2}' | grep -oE '`[^`]+`' | tr -d '`' | sort -u
}

mapfile -t documented < <(table_rules spec-rules)
mapfile -t excluded < <(table_rules other-rules)
mapfile -t produced < <(grep -hE '^[[:space:]]*//[[:space:]]*expect-error:' testdata/errors/*.t2s |
  sed -nE 's#.*\[([^]]+)\][[:space:]]*$#\1#p' | sort -u)

((${#documented[@]} >= 20)) ||
  problems+=("only ${#documented[@]} rules found in the spec-rules table of $DOC (markers missing?)")
((${#excluded[@]} >= 1)) ||
  problems+=("no rules found in the other-rules table of $DOC (markers missing?)")
((${#produced[@]} >= 20)) ||
  problems+=("only ${#produced[@]} rules found in testdata/errors/*.t2s")

contains() {
  local want="$1" x
  shift
  for x in "$@"; do [[ "$x" == "$want" ]] && return 0; done
  return 1
}

for r in "${documented[@]}"; do
  contains "$r" "${produced[@]}" ||
    problems+=("rule '$r' is in $DOC's error table but no testdata/errors/*.t2s expects it: add a negative spec (or move it to the other-rules table, with the reason)")
done
for r in "${produced[@]}"; do
  contains "$r" "${documented[@]}" ||
    problems+=("rule '$r' is expected by a testdata/errors spec ($(grep -lE "expect-error:.*\[$r\]" testdata/errors/*.t2s | head -n 1)) but missing from $DOC's error table")
done
for r in "${excluded[@]}"; do
  if contains "$r" "${documented[@]}"; then problems+=("rule '$r' is in both tables of $DOC"); fi
  if contains "$r" "${produced[@]}"; then
    problems+=("rule '$r' is in $DOC's other-rules table but a testdata/errors spec produces it")
  fi
done

# The example of section 1 is a valid spec.
example="$TMP/example.t2s"
awk '/^```c\+\+$/ {on = 1; next} on && /^```$/ {exit} on {print}' "$DOC" >"$example"
if [[ ! -s "$example" ]]; then
  problems+=("no \`\`\`c++ example found in $DOC")
else
  run_stt "$TMP/stdout" "$TMP/stderr" "$example" -o "$TMP/example.json"
  ((rc == 0)) || problems+=("the example of $DOC section 1 fails in t2s-stt: $(head -n 1 "$TMP/stderr")")
fi

if ((${#problems[@]})); then
  printf 'FAIL: %s\n' "${problems[@]}" >&2
  exit 1
fi
echo "language_doc_test: ${#documented[@]} spec rules documented and tested, ${#excluded[@]} other rules listed; example ok"
