#!/usr/bin/env bash
# tests/pipelines/external_workspace_test.sh: the pipeline rules used from another workspace, as
# a user's build uses them (a check of scripts/test, not a Bazel test: it runs Bazel itself).
#
# Creates a temporary workspace whose WORKSPACE has `local_repository(name = "t2s", path = THIS
# REPOSITORY)`, the offline settings of this repository's WORKSPACE and .bazelrc (nothing is
# downloaded) and `t2s_dependencies()`, and whose BUILD names only t2s's public face (its
# top-level BUILD and the rules): it loads @t2s//pipelines:t2s.bzl, defines pipelines over its
# own copies of two specs (gemm, conv1d), and runs the tool @t2s//:t2s-emit in a genrule. Then:
#   0. the BUILD names no internal t2s label, @t2s//:tools holds the eight public tools, and the
#      pipeline rule's tools are those public names (bazel query);
#   1. `bazel build //...` builds them; every output exists, and gemm's (every stage, gemm.cl,
#      ...) equal this repository's own pipeline output (`bazel build //testdata:gemm` here,
#      with this repository's server), as does the genrule's t2s-emit --target text;
#   2. a second `bazel build` executes no action (its execution log is empty);
#   3. after editing gemm.t2s only, gemm's actions run again (parse through emit and the
#      genrule, per the execution log) and none of conv1d's.
#   4. after editing the text of a comment on its own line of conv1d.t2s, only conv1d's parse
#      action runs (one executed action: the later stages read the IR and the spec lines its
#      locations point at, which the edit leaves unchanged).
# The Bazel server has its own --output_user_root under the temporary directory (the main
# server is not disturbed) and is shut down at the end; the directory is removed.
# Prints `ok ...` lines and exits 0, or `FAIL: ...` lines and exits 1.
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/t2s-external.XXXXXX")"
WS="$WORK/user_ws"
BAZEL=(bazel --output_user_root="$WORK/bazel_root" --max_idle_secs=600)
KEEP="${T2S_KEEP_EXTERNAL_WS:-}"  # set to keep $WORK for debugging

cleanup() {
  if [[ -d "$WS" ]]; then
    (cd "$WS" && "${BAZEL[@]}" shutdown >/dev/null 2>&1) || true
  fi
  if [[ -z "$KEEP" ]]; then
    chmod -R u+w "$WORK" 2>/dev/null || true
    rm -rf "$WORK"
  else
    echo "kept $WORK"
  fi
}
trap cleanup EXIT

failed=0
ok() { echo "ok   $*"; }
fail() {
  echo "FAIL: $*" >&2
  failed=$((failed + 1))
}
die() {
  fail "$@"
  exit 1
}

# --- the user's workspace ---------------------------------------------------------------------
mkdir -p "$WS/specs"
cp "$REPO/testdata/specs/gemm.t2s" "$REPO/testdata/specs/conv1d.t2s" "$WS/specs/"

# The offline settings of this repository's WORKSPACE: its local_repository lines (Bazel 4's
# rules_cc shim, platforms, skylib, rules_java, the coverage stand-in), paths made absolute.
offline="$(grep -E '^local_repository\(' "$REPO/WORKSPACE" |
  sed -E "s#path = \"([^/\"][^\"]*)\"#path = \"$REPO/\\1\"#")"
[[ -n "$offline" ]] || die "no local_repository lines in $REPO/WORKSPACE to copy"
cat >"$WS/WORKSPACE" <<EOF
workspace(name = "user_ws")

local_repository(name = "t2s", path = "$REPO")

# Offline Bazel 4, as t2s's WORKSPACE.
$offline

load("@t2s//pipelines:deps.bzl", "t2s_dependencies")

t2s_dependencies()
EOF
cp "$REPO/.bazelrc" "$WS/.bazelrc"

cat >"$WS/BUILD" <<'EOF'
load("@t2s//pipelines:t2s.bzl", "t2s_pipeline")

t2s_pipeline(
    name = "gemm",
    src = "specs/gemm.t2s",
)

# conv1d's Funcs run on the host: no opencl target (emit-no-device).
t2s_pipeline(
    name = "conv1d",
    src = "specs/conv1d.t2s",
    targets = ["cpp", "dot", "text"],
)

# A public tool used directly: the pipeline's text output again, from its last stage.
genrule(
    name = "gemm_public_text",
    srcs = [":gemm.gathered.json"],
    outs = ["gemm_public.txt"],
    cmd = "$(location @t2s//:t2s-emit) --target text $(location :gemm.gathered.json) -o $@",
    exec_tools = ["@t2s//:t2s-emit"],
)
EOF

cd "$WS" || die "cannot cd to $WS"

# build LOG EXECLOG: `bazel build //...` with its execution log; returns Bazel's status.
# -O0 (the tools are in the host configuration): the check is about the rules, not the tools'
# speed, and the first build compiles every tool from nothing in about half the time it takes
# with -O2; its outputs must still equal those of this repository's own -O2 tools.
# The disk cache of scripts/test ($T2S_DISK_CACHE): after the first run on a machine, the tools'
# compilations of the first build come from it (about 2 minutes on 2 cores otherwise). The
# checks below are about which actions a build needs, not where their results come from: the
# execution log lists an action served by the disk cache as one it ran (remoteCacheHit: true),
# and this workspace's own output base (a fresh --output_user_root) is what makes the first
# build need every action.
DISK_CACHE="${T2S_DISK_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/t2s/bazel-disk-cache}"
build() {
  "${BAZEL[@]}" build --color=no --curses=no --noshow_progress --copt=-O0 --host_copt=-O0 \
    --disk_cache="$DISK_CACHE" --execution_log_json_file="$2" //... >"$1" 2>&1
}
# spawns EXECLOG: one `MNEMONIC OUTPUT...` line per action the build needed, run or found in the
# disk cache (the log is a sequence of pretty-printed SpawnExec JSON objects, listedOutputs
# before mnemonic).
spawns() {
  awk '
    /^ *"listedOutputs": / { o = $0; sub(/^ *"listedOutputs": \[/, "", o); sub(/\],?$/, "", o)
                             gsub(/[",]/, "", o) }
    /^ *"mnemonic": / { m = $0; sub(/^ *"mnemonic": "/, "", m); sub(/",?$/, "", m)
                        print m " " o; o = "" }
  ' "$1"
}

TOOLS=(t2s-parse t2s-merge t2s-stt t2s-vec t2s-gather t2s-emit t2s-run t2s-explore)

# --- 0. only public names -------------------------------------------------------------------
start=$SECONDS
internal="$(grep -oE '@t2s//[^:"]*' BUILD | grep -vxE '@t2s//(pipelines)?' || true)"
if [[ -n "$internal" ]]; then
  fail "the user's BUILD names internal t2s packages: $internal"
else
  ok "the user's BUILD names only @t2s//pipelines:t2s.bzl and @t2s//:NAME"
fi
QUERY=(query --color=no --curses=no --noshow_progress)
if "${BAZEL[@]}" "${QUERY[@]}" 'labels(srcs, @t2s//:tools)' >"$WORK/tools.txt" \
  2>"$WORK/query.log"; then
  expected="$(printf '@t2s//:%s\n' "${TOOLS[@]}" | sort)"
  if [[ "$(sort "$WORK/tools.txt")" == "$expected" ]]; then
    ok "@t2s//:tools is the eight public tools (${TOOLS[*]})"
  else
    fail "@t2s//:tools holds $(tr '\n' ' ' <"$WORK/tools.txt"), not @t2s//:{${TOOLS[*]}}"
  fi
else
  tail -n 20 "$WORK/query.log" >&2
  fail "bazel query 'labels(srcs, @t2s//:tools)' failed"
fi
# The rule's implicit tool attributes are the public aliases.
if "${BAZEL[@]}" "${QUERY[@]}" 'deps(//:gemm, 1)' >"$WORK/gemm_deps.txt" 2>"$WORK/query.log"; then
  missing_tools=()
  for tool in t2s-parse t2s-merge t2s-stt t2s-vec t2s-gather t2s-emit; do
    grep -qx "@t2s//:$tool" "$WORK/gemm_deps.txt" || missing_tools+=("$tool")
  done
  if ((${#missing_tools[@]})); then
    fail "t2s_pipeline's direct dependencies lack @t2s//:{${missing_tools[*]}}:" \
      "$(grep t2s- "$WORK/gemm_deps.txt" | tr '\n' ' ')"
  else
    ok "t2s_pipeline's tools are @t2s//:t2s-parse ... @t2s//:t2s-emit"
  fi
else
  tail -n 20 "$WORK/query.log" >&2
  fail "bazel query 'deps(//:gemm, 1)' failed"
fi

# --- 1. build, outputs, same bytes as this repository's pipeline -----------------------------
if build "$WORK/build1.log" "$WORK/exec1.json"; then
  ok "bazel build //... in a workspace that loads @t2s//pipelines:t2s.bzl ($((SECONDS - start)) s)"
else
  tail -n 40 "$WORK/build1.log" >&2
  die "bazel build //... failed in the external workspace ($WS)"
fi
BIN="$("${BAZEL[@]}" info bazel-bin 2>/dev/null)"
[[ -d "$BIN" ]] || die "bazel info bazel-bin gave '$BIN'"

# The reference: this repository's own pipeline for gemm, built by its own server (a no-op after
# `bazel test //...` in scripts/test).
if ! (cd "$REPO" && bazel build --color=no --curses=no --noshow_progress //testdata:gemm) \
  >"$WORK/main_build.log" 2>&1; then
  tail -n 40 "$WORK/main_build.log" >&2
  die "bazel build //testdata:gemm failed in $REPO"
fi
MAIN_BIN="$(cd "$REPO" && bazel info bazel-bin 2>/dev/null)/testdata"
for out in gemm.parsed.json gemm.merged.json gemm.stt.json gemm.vectorized.json \
  gemm.gathered.json gemm.cl gemm_host.cpp gemm_emu.cpp gemm.dot gemm.txt; do
  ref="$MAIN_BIN/$out"
  if [[ ! -s "$BIN/$out" ]]; then
    fail "bazel-bin/$out was not built"
  elif [[ ! -f "$ref" ]]; then
    fail "no $ref (//testdata:gemm of $REPO) to compare bazel-bin/$out with"
  elif ! cmp -s "$ref" "$BIN/$out"; then
    fail "bazel-bin/$out differs from $REPO's own //testdata:gemm ($ref):"
    diff -u "$ref" "$BIN/$out" | head -n 30 >&2
  else
    ok "bazel-bin/$out equals $REPO's //testdata:gemm output"
  fi
done
for out in conv1d.parsed.json conv1d.merged.json conv1d.stt.json conv1d.vectorized.json \
  conv1d.gathered.json conv1d_emu.cpp conv1d.dot conv1d.txt; do
  [[ -s "$BIN/$out" ]] || fail "bazel-bin/$out was not built"
done
ok "conv1d's 8 outputs were built"
if cmp -s "$BIN/gemm.txt" "$BIN/gemm_public.txt"; then
  ok "the genrule's @t2s//:t2s-emit --target text equals the pipeline's gemm.txt"
else
  fail "bazel-bin/gemm_public.txt (genrule, @t2s//:t2s-emit) differs from bazel-bin/gemm.txt"
fi

# The actions of the first build: one per stage and target, with the rules' mnemonics.
spawns "$WORK/exec1.json" >"$WORK/spawns1"
for m in T2sParse T2sMerge T2sStt T2sVec T2sGather T2sEmitOpencl T2sEmitCpp T2sEmitDot \
  T2sEmitText; do
  n="$(grep -c "^$m " "$WORK/spawns1")"
  # conv1d has no opencl target (its Funcs run on the host): gemm's is the one OpenCL action.
  want=2 who="gemm, conv1d"
  [[ "$m" == T2sEmitOpencl ]] && want=1 who="gemm"
  if [[ "$n" == "$want" ]]; then
    ok "first build: $want $m action(s) ($who)"
  else
    fail "first build: $n $m actions, expected $want ($who):"
    grep "^$m " "$WORK/spawns1" | sed 's/^/    /' >&2
  fi
done

# --- 2. nothing to do the second time -------------------------------------------------------
if ! build "$WORK/build2.log" "$WORK/exec2.json"; then
  tail -n 40 "$WORK/build2.log" >&2
  die "the second bazel build //... failed"
fi
spawns "$WORK/exec2.json" >"$WORK/spawns2"
if [[ -s "$WORK/spawns2" ]]; then
  fail "the second build, with nothing changed, executed $(wc -l <"$WORK/spawns2") action(s):"
  sed 's/^/    /' "$WORK/spawns2" >&2
else
  ok "the second build executed no action ($(grep -oE '[0-9]+ process(es)?: [^.]*' \
    "$WORK/build2.log" | head -n 1))"
fi

# --- 3. edit one spec: only its actions run -------------------------------------------------
sed -i -E 's/^#define K 8$/#define K 6/' specs/gemm.t2s
grep -q '^#define K 6$' specs/gemm.t2s || die "could not edit specs/gemm.t2s (no '#define K 8')"
if ! build "$WORK/build3.log" "$WORK/exec3.json"; then
  tail -n 40 "$WORK/build3.log" >&2
  die "the build after editing specs/gemm.t2s failed"
fi
spawns "$WORK/exec3.json" >"$WORK/spawns3"
others="$(grep -vE '^(T2s[A-Za-z]+|Genrule) bazel-out/[^/]+/bin/gemm(\.[a-z]+\.json|\.cl|_host\.cpp|_emu\.cpp|\.dot|\.txt|_public\.txt)( |$)' \
  "$WORK/spawns3" || true)"
if [[ -n "$others" ]]; then
  fail "after editing specs/gemm.t2s, actions other than gemm's ran:"
  sed 's/^/    /' <<<"$others" >&2
fi
missing=()
for m in T2sParse T2sMerge T2sStt T2sVec T2sGather T2sEmitOpencl T2sEmitCpp T2sEmitDot \
  T2sEmitText Genrule; do
  grep -q "^$m " "$WORK/spawns3" || missing+=("$m")
done
if ((${#missing[@]})); then
  fail "after editing specs/gemm.t2s (K 8 -> 6), these gemm actions did not run: ${missing[*]}"
fi
if [[ -z "$others" && ${#missing[@]} -eq 0 ]]; then
  ok "after editing specs/gemm.t2s, exactly gemm's $(wc -l <"$WORK/spawns3") actions ran" \
    "(none of conv1d's)"
fi
if cmp -s "$MAIN_BIN/gemm.stt.json" "$BIN/gemm.stt.json"; then
  fail "bazel-bin/gemm.stt.json did not change when K went from 8 to 6"
fi

# --- 4. edit a comment of one spec: only its parse action runs ---------------------------------
# The later stages read the parsed IR and the spec lines its locations point at, not the spec:
# a comment on its own line (same number of lines) changes neither, and Bazel skips an action
# whose inputs are unchanged.
comment_line="$(grep -nE '^//' specs/conv1d.t2s | head -n 1 | cut -d: -f1)"
[[ -n "$comment_line" ]] || die "specs/conv1d.t2s has no comment on a line of its own"
lines_before="$(wc -l <specs/conv1d.t2s)"
sed -i -E "${comment_line}s#^//.*#// conv1d, its comment edited by external_workspace_test.sh#" \
  specs/conv1d.t2s
[[ "$(wc -l <specs/conv1d.t2s)" == "$lines_before" ]] || die "editing the comment changed the line count"
if ! build "$WORK/build4.log" "$WORK/exec4.json"; then
  tail -n 40 "$WORK/build4.log" >&2
  die "the build after editing a comment of specs/conv1d.t2s failed"
fi
spawns "$WORK/exec4.json" >"$WORK/spawns4"
expected_spawn="^T2sParse bazel-out/[^/]+/bin/conv1d\.parsed\.json bazel-out/[^/]+/bin/conv1d\.spec_lines\.json$"
if [[ "$(wc -l <"$WORK/spawns4")" == 1 ]] && grep -qE "$expected_spawn" "$WORK/spawns4"; then
  ok "after editing a comment (line $comment_line) of specs/conv1d.t2s, only conv1d's parse" \
    "action ran (1 executed action)"
else
  fail "after editing a comment of specs/conv1d.t2s, expected conv1d's T2sParse action only;" \
    "the build executed $(wc -l <"$WORK/spawns4"):"
  sed 's/^/    /' "$WORK/spawns4" >&2
fi

echo "external workspace test: $((SECONDS - start)) s, $failed failure(s)"
((failed == 0))
