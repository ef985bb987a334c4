#!/usr/bin/env bash
# tests/layers_test.sh [ROOT]: every `#include "libs/..."` of the non-test C++ sources under
# ROOT/libs and ROOT/tools goes to the file's own layer or to one below it, the layers being the
# rows of the table in ROOT/docs/architecture.md ("## Layers"), top to bottom, each with the
# directories of its second column (a file belongs to the longest directory that contains it).
# Test code may use any layer: *_test.cc, *_testing.h, libs/testing/ (and tests/, not read).
# Also fails on a source under no directory of the table, and on a directory of the table that
# does not exist. The same table as Bazel visibility: ROOT/layers/BUILD's package_groups must
# be the table's layers (check_visibility below), and every package of libs/ and tools/ visible
# to its own layer's group (so `bazel build` itself refuses a dependency pointing up). And the
# section "Measured include graph" of ROOT/docs/architecture.md must be the measurement of these
# includes (`scripts/include-graph --check`; `--write` rewrites it). ROOT defaults to the
# repository; run by scripts/test (a check outside Bazel, like clang-format: it reads the tree
# as it is). Before checking ROOT, it checks itself on two small trees in temporary
# directories: one with an include pointing up and a public package, one whose measured include
# graph is stale, which must be refused (so the check can fail), the second accepted once
# scripts/include-graph --write has rewritten its section.
# Prints `ok: ...` and exits 0, or one `ROOT/FILE:LINE: ...` line per violation (a stale include
# graph: its diff and one line) and exits 1.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The layer table's reading, the layer of a path and the includes of the sources, shared with
# scripts/include-graph (sourced: it defines functions only).
source "$REPO/scripts/include-graph" || exit 1

# check ROOT: the check itself.
check() {
  local root="$1" doc="$1/docs/architecture.md"
  [[ -f "$doc" ]] || { echo "$doc: missing" >&2; return 1; }
  # "RANK LAYER DIR" per directory of the table, in table order.
  local table
  table="$(layer_table "$doc")"
  [[ -n "$table" ]] || { echo "$doc: no layer table under '## Layers'" >&2; return 1; }
  local failures=0 rank layer dir
  while read -r rank layer dir; do
    [[ -d "$root/$dir" ]] || {
      echo "$doc: the table's directory '$dir' (layer $layer) does not exist" >&2
      failures=$((failures + 1))
    }
  done <<<"$table"

  # One record per source and per include (include_records, scripts/include-graph).
  local records files=0 includes=0 kind file line target here_rank here_layer there_rank there_layer
  records="$(include_records "$root" "$table")"
  while IFS=$'\t' read -r kind file line target here_rank here_layer there_rank there_layer; do
    [[ -n "$kind" ]] || continue # no sources at all
    if [[ "$kind" == source ]]; then
      files=$((files + 1))
      if [[ "$here_rank" == - ]]; then
        echo "$root/$file:1: in no layer of docs/architecture.md's table" >&2
        failures=$((failures + 1))
      fi
      continue
    fi
    [[ "$here_rank" != - ]] || continue # a file in no layer is said once, above
    includes=$((includes + 1))
    if [[ "$there_rank" == - ]]; then
      echo "$root/$file:$line: includes $target, which is in no layer of the table" >&2
      failures=$((failures + 1))
    elif ((there_rank < here_rank)); then
      echo "$root/$file:$line: layer '$here_layer' includes $target of layer '$there_layer', which is above it" >&2
      failures=$((failures + 1))
    fi
  done <<<"$records"
  check_visibility "$root" "$table" || failures=$((failures + $?))
  # The section "Measured include graph" of the document is the measurement.
  include_graph_check "$root" "$table" "$records" || failures=$((failures + 1))
  if ((failures > 0)); then
    echo "$failures layering violation(s) in $files files" >&2
    return 1
  fi
  echo "ok: $includes includes of $files files follow the $(wc -l <<<"$table")-directory layer table of docs/architecture.md, which holds their measured include graph, and so do the Bazel visibility groups of layers/BUILD and the packages of libs/ and tools/"
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
    found_layer="$(layers_of "$table" <<<"${file%BUILD}")"
    found_layer="${found_layer##*$'\t'}"
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

# small_tree DIR: a tree of three layers (tools, cli, ir) that follows its table (libs/cli/b.h
# includes libs/ir/a.h, one layer down; a test of ir includes cli), with the table's visibility
# groups and each package visible to its layer, but whose measured include graph is stale (an
# empty section).
small_tree() {
  local tmp="$1"
  mkdir -p "$tmp/docs" "$tmp/libs/ir" "$tmp/libs/cli" "$tmp/tools" "$tmp/layers"
  printf '%s\n' '## Layers' '' '| layer | directory | what |' '|---|---|---|' '| tools | `tools/` | x |' \
    '| cli | `libs/cli/` | x |' '| ir | `libs/ir/` | x |' '' '## Measured include graph' '' \
    '<!-- BEGIN include-graph (scripts/include-graph --write) -->' '<!-- END include-graph -->' '' \
    '## Stages' >"$tmp/docs/architecture.md"
  printf '#include "libs/ir/a.h"\n' >"$tmp/libs/cli/b.h"
  printf '#pragma once\n' >"$tmp/libs/ir/a.h"
  printf '#include "libs/cli/b.h"\n' >"$tmp/libs/ir/a_test.cc"
  printf 'package_group(\n    name = "tools",\n    packages = [\n        "//",\n        "//tools/...",\n    ],\n)\n\npackage_group(\n    name = "cli",\n    includes = [":tools"],\n    packages = ["//libs/cli/..."],\n)\n\npackage_group(\n    name = "ir",\n    includes = [":cli"],\n    packages = ["//libs/ir/..."],\n)\n' \
    >"$tmp/layers/BUILD"
  local layer
  for layer in cli ir; do
    printf 'package(default_visibility = [\n    "//layers:%s",\n    "//layers:tests",\n])\n' "$layer" \
      >"$tmp/libs/$layer/BUILD"
  done
}

# self_test NAME CHECK: runs CHECK (a function of the temporary tree's path) on a small_tree in
# a temporary directory, removed after; prints `FAIL: the self-test NAME ...` and what CHECK
# printed, and fails, when CHECK fails.
self_test() {
  local tmp out rc=0
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/t2s-layers.XXXXXX")" || return 1
  small_tree "$tmp"
  out="$("$2" "$tmp" 2>&1)" || rc=$?
  rm -rf "$tmp"
  if ((rc != 0)); then
    echo "FAIL: the self-test $1 (tests/layers_test.sh):" >&2
    echo "$out" >&2
    return 1
  fi
}

# The check refuses an include that points up and a public package, names the file and line,
# and accepts an include down, a test's include up and a package visible to its layer.
refuses_violations() {
  local tmp="$1" out rc=0
  printf '#pragma once\n#include "libs/cli/b.h"\n' >"$tmp/libs/ir/a.h"
  printf 'package(default_visibility = ["//visibility:public"])\n' >"$tmp/libs/ir/BUILD"
  out="$(check "$tmp" 2>&1)" || rc=$?
  local want="$tmp/libs/ir/a.h:2: layer 'ir' includes libs/cli/b.h of layer 'cli', which is above it"
  local want_public="$tmp/libs/ir/BUILD:1: a public target in layer 'ir' (its layer's group and tests only)"
  if ((rc != 1)) || ! grep -qxF -- "$want" <<<"$out" || ! grep -qxF -- "$want_public" <<<"$out" ||
    grep -q "a_test.cc\|b.h:1\|cli/BUILD\|layers/BUILD" <<<"$out"; then
    echo "the tree with one include pointing up and a public package gave exit $rc and:"
    echo "$out"
    return 1
  fi
}

# The check refuses a stale measured include graph, and only that, with the diff;
# scripts/include-graph --write makes it the measurement, which the check then accepts.
refuses_stale_graph() {
  local tmp="$1" out rc=0
  out="$(check "$tmp" 2>&1)" || rc=$?
  local want="$tmp/docs/architecture.md: its measured include graph is stale (the diff above): run scripts/include-graph --write"
  if ((rc != 1)) || ! grep -qxF -- "$want" <<<"$out" ||
    ! grep -qxF -- '+| `libs/cli/` | cli | `libs/ir/` |' <<<"$out" ||
    ! grep -qxF -- "1 layering violation(s) in 2 files" <<<"$out"; then
    echo "the tree with a stale include graph gave exit $rc and:"
    echo "$out"
    return 1
  fi
  "$REPO/scripts/include-graph" --root "$tmp" --write || return 1
  out="$(check "$tmp" 2>&1)" || {
    echo "the tree after scripts/include-graph --write gave exit $? and:"
    echo "$out"
    return 1
  }
  grep -q '^## Stages$' "$tmp/docs/architecture.md" || {
    echo "scripts/include-graph --write lost the rest of the document:"
    cat "$tmp/docs/architecture.md"
    return 1
  }
}

self_test "refuses_violations" refuses_violations || exit 1
self_test "refuses_stale_graph" refuses_stale_graph || exit 1
check "${1:-$REPO}"
