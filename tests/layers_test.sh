#!/usr/bin/env bash
# tests/layers_test.sh [ROOT]: every `#include "libs/..."` of the non-test C++ sources under
# ROOT/libs and ROOT/tools goes to the file's own layer or to one below it, the layers being the
# rows of the table in ROOT/docs/architecture.md ("## Layers"), top to bottom, each with the
# directories of its second column (a file belongs to the longest directory that contains it).
# Test code may use any layer: *_test.cc, *_testing.h, libs/testing/ (and tests/, not read).
# Also fails on a source under no directory of the table, and on a directory of the table that
# does not exist. ROOT defaults to the repository; run by scripts/test (a check outside Bazel,
# like clang-format: it reads the tree as it is). Before checking ROOT, it checks itself on a
# small tree with one include pointing up, which must be refused (so the check can fail).
# Prints `ok: ...` and exits 0, or one `ROOT/FILE:LINE: ...` line per violation and exits 1.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# check ROOT: the check itself.
check() {
  local root="$1" doc="$1/docs/architecture.md"
  [[ -f "$doc" ]] || { echo "$doc: missing" >&2; return 1; }
  # "RANK LAYER DIR" per directory of the table, in table order.
  local table
  table="$(awk '
    /^## Layers/ { in_layers = 1; next }
    /^## / { in_layers = 0 }
    in_layers && /^\| / && !/^\| layer \|/ && !/^\|---/ {
      n = split($0, col, "|")
      layer = col[2]; gsub(/[ `]/, "", layer)
      rank++
      rest = col[3]
      while (match(rest, /`[^`]+`/)) {
        print rank, layer, substr(rest, RSTART + 1, RLENGTH - 2)
        rest = substr(rest, RSTART + RLENGTH)
      }
    }' "$doc")"
  [[ -n "$table" ]] || { echo "$doc: no layer table under '## Layers'" >&2; return 1; }
  local failures=0 rank layer dir
  while read -r rank layer dir; do
    [[ -d "$root/$dir" ]] || {
      echo "$doc: the table's directory '$dir' (layer $layer) does not exist" >&2
      failures=$((failures + 1))
    }
  done <<<"$table"

  # layer_of PATH: sets `found` to "RANK LAYER" of the longest table directory containing PATH,
  # or to nothing (remembered per directory of PATH).
  local -A layer_of_dir=()
  local found
  layer_of() {
    local d="${1%/*}/"
    if [[ -z "${layer_of_dir[$d]+set}" ]]; then
      layer_of_dir[$d]="$(awk -v path="$d" '
        index(path, $3) == 1 && length($3) > best { best = length($3); found = $1 " " $2 }
        END { if (found != "") print found }' <<<"$table")"
    fi
    found="${layer_of_dir[$d]}"
  }

  local files=0 includes=0 file here here_rank here_layer line target there there_rank there_layer
  while IFS= read -r -d '' file; do
    file="${file#"$root"/}"
    case "$file" in
      *_test.cc | *_testing.h | libs/testing/*) continue ;;
    esac
    files=$((files + 1))
    layer_of "$file"
    here="$found"
    if [[ -z "$here" ]]; then
      echo "$root/$file:1: in no layer of docs/architecture.md's table" >&2
      failures=$((failures + 1))
      continue
    fi
    read -r here_rank here_layer <<<"$here"
    while IFS=: read -r line target; do
      includes=$((includes + 1))
      layer_of "$target"
      there="$found"
      if [[ -z "$there" ]]; then
        echo "$root/$file:$line: includes $target, which is in no layer of the table" >&2
        failures=$((failures + 1))
        continue
      fi
      read -r there_rank there_layer <<<"$there"
      if ((there_rank < here_rank)); then
        echo "$root/$file:$line: layer '$here_layer' includes $target of layer '$there_layer', which is above it" >&2
        failures=$((failures + 1))
      fi
    done < <(grep -noE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"libs/[^"]+"' "$root/$file" |
      sed -E 's/^([0-9]+):.*"(libs\/[^"]+)"/\1:\2/')
  done < <(find "$root/libs" "$root/tools" -type f \( -name '*.cc' -o -name '*.h' \) -print0 |
    sort -z)
  if ((failures > 0)); then
    echo "$failures layering violation(s) in $files files" >&2
    return 1
  fi
  echo "ok: $includes includes of $files files follow the $(wc -l <<<"$table")-directory layer table of docs/architecture.md"
}

# The check refuses an include that points up, names the file and line, and accepts one down.
self_test() {
  local tmp
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/t2s-layers.XXXXXX")" || return 1
  mkdir -p "$tmp/docs" "$tmp/libs/ir" "$tmp/libs/cli" "$tmp/tools"
  printf '## Layers\n\n| layer | directory | what |\n|---|---|---|\n| tools | `tools/` | x |\n| cli | `libs/cli/` | x |\n| ir | `libs/ir/` | x |\n\n## Stages\n' \
    >"$tmp/docs/architecture.md"
  printf '#include "libs/ir/a.h"\n' >"$tmp/libs/cli/b.h"
  printf '#pragma once\n#include "libs/cli/b.h"\n' >"$tmp/libs/ir/a.h"
  printf '#include "libs/cli/b.h"\n' >"$tmp/libs/ir/a_test.cc"
  local out rc=0
  out="$(check "$tmp" 2>&1)" || rc=$?
  rm -rf "$tmp"
  local want="$tmp/libs/ir/a.h:2: layer 'ir' includes libs/cli/b.h of layer 'cli', which is above it"
  if ((rc != 1)) || ! grep -qxF -- "$want" <<<"$out" || grep -q "a_test.cc\|b.h:1" <<<"$out"; then
    echo "FAIL: the self-test tree (one include pointing up) gave exit $rc and:" >&2
    echo "$out" >&2
    return 1
  fi
}

self_test || exit 1
check "${1:-$REPO}"
