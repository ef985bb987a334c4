#!/usr/bin/env bash
# tests/layers_test.sh [ROOT]: every `#include "libs/..."` of the non-test C++ sources under
# ROOT/libs and ROOT/tools goes to the file's own layer or to one below it, the layers being the
# rows of the table in ROOT/docs/architecture.md ("## Layers"), top to bottom, each with the
# directories of its second column (a file belongs to the longest directory that contains it).
# Test code may use any layer: *_test.cc, *_testing.h, libs/testing/ (and tests/, not read).
# Also fails on a source under no directory of the table, and on a directory of the table that
# does not exist. The same table as Bazel visibility: ROOT/layers/BUILD's package_groups must
# be the table's layers (check_visibility below), and every package of libs/ and tools/ visible
# to its own layer's group (so `bazel build` itself refuses a dependency pointing up). ROOT
# defaults to the repository; run by scripts/test (a check outside Bazel,
# like clang-format: it reads the tree as it is). Before checking ROOT, it checks itself on a
# small tree with one include pointing up and one public package, which must be refused (so
# the check can fail).
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
  check_visibility "$root" "$table" || failures=$((failures + $?))
  if ((failures > 0)); then
    echo "$failures layering violation(s) in $files files" >&2
    return 1
  fi
  echo "ok: $includes includes of $files files follow the $(wc -l <<<"$table")-directory layer table of docs/architecture.md, and so do the Bazel visibility groups of layers/BUILD and the packages of libs/ and tools/"
}

# sorted_words WORD...: the words, sorted, space-separated.
sorted_words() {
  printf '%s\n' "$@" | LC_ALL=C sort | paste -sd' ' -
}

# check_visibility ROOT TABLE: ROOT/layers/BUILD has one package_group per layer of TABLE, in
# its order, named after the layer, holding `//DIR...` for each of its directories (and `//`, the
# root package's aliases, for tools) and including the group of the layer above; every BUILD
# under ROOT/libs and ROOT/tools (libs/testing aside: test-only) makes its targets visible to
# exactly its own layer's group and `//layers:tests`, and none is public. Returns the number of
# violations (each printed).
check_visibility() {
  local root="$1" table="$2" build="$1/layers/BUILD" bad=0
  if [[ ! -f "$build" ]]; then
    echo "$build: missing (the layer table as Bazel visibility)" >&2
    return 1
  fi
  # "NAME|INCLUDES|PACKAGES" per package_group, in file order (lists sorted, space-separated).
  local groups
  groups="$(awk '
    /^package_group\(/ { in_group = 1; name = ""; inc = ""; pk = ""; next }
    in_group && /^\)/ {
      print name "|" inc "|" pk
      in_group = 0
      next
    }
    in_group && /name = "/ { match($0, /"[^"]*"/); name = substr($0, RSTART + 1, RLENGTH - 2); next }
    in_group && /includes = / {
      rest = $0
      while (match(rest, /":[^"]*"/)) {
        inc = inc (inc == "" ? "" : " ") substr(rest, RSTART + 2, RLENGTH - 3)
        rest = substr(rest, RSTART + RLENGTH)
      }
      next
    }
    in_group {
      rest = $0
      while (match(rest, /"\/\/[^"]*"/)) {
        pk = pk (pk == "" ? "" : " ") substr(rest, RSTART + 1, RLENGTH - 2)
        rest = substr(rest, RSTART + RLENGTH)
      }
    }' "$build" | grep -v '^tests|')"
  # The same lines, as the table says they must be.
  local want="" rank layer dir previous="" current_rank="" current_layer="" packages=""
  while read -r rank layer dir; do
    if [[ "$rank" != "$current_rank" ]]; then
      [[ -n "$current_rank" ]] && want+="$current_layer|$previous|$(sorted_words $packages)"$'\n'
      [[ -n "$current_rank" ]] && previous="$current_layer"
      current_rank="$rank"
      current_layer="$layer"
      packages=""
      [[ "$rank" == 1 ]] && packages="//"
    fi
    packages+=" //${dir%/}/..."
  done <<<"$table"
  want+="$current_layer|$previous|$(sorted_words $packages)"
  local name inc pk normalized=""
  while IFS='|' read -r name inc pk; do
    normalized+="$name|$inc|$(sorted_words $pk)"$'\n'
  done <<<"$groups"
  groups="${normalized%$'\n'}"
  if [[ "$groups" != "$want" ]]; then
    echo "$build: its package_groups (other than tests) are not the layer table's; want, per line NAME|INCLUDES|PACKAGES:" >&2
    echo "$want" >&2
    echo "have:" >&2
    echo "$groups" >&2
    bad=$((bad + 1))
  fi
  local file dir found_layer vis
  while IFS= read -r -d '' file; do
    file="${file#"$root"/}"
    case "$file" in libs/testing/*) continue ;; esac
    found_layer="$(awk -v path="${file%BUILD}" '
      index(path, $3) == 1 && length($3) > best { best = length($3); found = $2 }
      END { print found }' <<<"$table")"
    vis="$(tr -d ' \n' <"$root/$file" | grep -o 'package(default_visibility=\[[^]]*\]' || true)"
    if [[ "$vis" != "package(default_visibility=[\"//layers:$found_layer\",\"//layers:tests\",]" ]]; then
      echo "$root/$file:1: its package must be visible to [\"//layers:$found_layer\", \"//layers:tests\"] (layer '$found_layer'); it says: ${vis:-nothing}" >&2
      bad=$((bad + 1))
    fi
    if grep -n '//visibility:public' "$root/$file" >/dev/null; then
      echo "$root/$file:$(grep -n '//visibility:public' "$root/$file" | head -1 | cut -d: -f1): a public target in layer '$found_layer' (its layer's group and tests only)" >&2
      bad=$((bad + 1))
    fi
  done < <(find "$root/libs" "$root/tools" -name BUILD -type f -print0 | sort -z)
  return "$bad"
}

# The check refuses an include that points up and a public package, names the file and line,
# and accepts an include down and a package visible to its layer.
self_test() {
  local tmp
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/t2s-layers.XXXXXX")" || return 1
  mkdir -p "$tmp/docs" "$tmp/libs/ir" "$tmp/libs/cli" "$tmp/tools"
  printf '## Layers\n\n| layer | directory | what |\n|---|---|---|\n| tools | `tools/` | x |\n| cli | `libs/cli/` | x |\n| ir | `libs/ir/` | x |\n\n## Stages\n' \
    >"$tmp/docs/architecture.md"
  printf '#include "libs/ir/a.h"\n' >"$tmp/libs/cli/b.h"
  printf '#pragma once\n#include "libs/cli/b.h"\n' >"$tmp/libs/ir/a.h"
  printf '#include "libs/cli/b.h"\n' >"$tmp/libs/ir/a_test.cc"
  # The visibility groups as the table says, a package of the right layer, and a public one.
  mkdir -p "$tmp/layers"
  printf 'package_group(\n    name = "tools",\n    packages = [\n        "//",\n        "//tools/...",\n    ],\n)\n\npackage_group(\n    name = "cli",\n    includes = [":tools"],\n    packages = ["//libs/cli/..."],\n)\n\npackage_group(\n    name = "ir",\n    includes = [":cli"],\n    packages = ["//libs/ir/..."],\n)\n' \
    >"$tmp/layers/BUILD"
  printf 'package(default_visibility = [\n    "//layers:cli",\n    "//layers:tests",\n])\n' >"$tmp/libs/cli/BUILD"
  printf 'package(default_visibility = ["//visibility:public"])\n' >"$tmp/libs/ir/BUILD"
  local out rc=0
  out="$(check "$tmp" 2>&1)" || rc=$?
  rm -rf "$tmp"
  local want="$tmp/libs/ir/a.h:2: layer 'ir' includes libs/cli/b.h of layer 'cli', which is above it"
  local want_public="$tmp/libs/ir/BUILD:1: a public target in layer 'ir' (its layer's group and tests only)"
  if ((rc != 1)) || ! grep -qxF -- "$want" <<<"$out" || ! grep -qxF -- "$want_public" <<<"$out" ||
    grep -q "a_test.cc\|b.h:1\|cli/BUILD\|layers/BUILD" <<<"$out"; then
    echo "FAIL: the self-test tree (one include pointing up) gave exit $rc and:" >&2
    echo "$out" >&2
    return 1
  fi
}

self_test || exit 1
check "${1:-$REPO}"
