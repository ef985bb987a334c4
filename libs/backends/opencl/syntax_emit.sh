#!/bin/bash
# syntax_emit.sh PARSE MERGE STT DRIVER SPEC OUTDIR: one spec through the opencl target as
# syntax_test checks it, its files written to OUTDIR (created if missing):
#
#   t2s-parse | t2s-merge                  -> merged.json;  t2s-stt -> stt.json
#   merged, stt; as placed and --all-device: emit_opencl_driver device -> STAGE_VARIANT.cl
#   stt;         as placed and --all-device: emit_opencl_driver host   -> host_VARIANT.cpp
#
# and OUTDIR/checks.txt, one line per check the files need (syntax_compile.sh runs them):
#   cl FILE          the .cl through check_cl.sh
#   host CXX FILE    the host program through check_host.sh --cxx CXX (g++ for the placed one,
#                    as users build it; clang++-14 for --all-device, so both compilers see every
#                    spec's host code)
#   run FILE         a host-only program (no device kernel): built, run on random inputs and
#                    compared with t2s-run (by syntax_test)
# Expected refusals are checked here: as placed, a host-only stage has no device code
# ([emit-no-device]); a spec that says `// t2s-opencl-expect: RULE` among its first 40 lines
# must be refused at the stt stage with [RULE]. A spec's extra t2s-parse flags are the first
# `// t2s-parse-flags: ...` among its first 40 lines.
#
# Used by the T2sSyntaxEmit build action (syntax_checks.bzl, the exec configuration's tools) and
# by syntax_test.sh (the test's tools: sanitized in scripts/test's second pass). Prints what
# failed on standard error; exit status 0 when everything is as expected, 1 otherwise, 2 on
# wrong usage.
set -u
if (($# != 6)); then
  echo "usage: syntax_emit.sh PARSE MERGE STT DRIVER SPEC OUTDIR" >&2
  exit 2
fi
PARSE=$1 MERGE=$2 STT=$3 DRIVER=$4 spec=$5 dir=$6
name=$(basename "$spec" .t2s)
mkdir -p "$dir" || exit 2
failures=0
fail() {
  echo "FAIL: $name: $*" >&2
  failures=$((failures + 1))
}

first_directive() {  # KEY: the text after `// KEY:` on the first such line among 40
  head -n 40 "$spec" | grep -m1 -E "^//[[:space:]]*$1:" |
    sed -E "s#^//[[:space:]]*$1:[[:space:]]*##" || true
}

# shellcheck disable=SC2046
if ! "$PARSE" $(first_directive t2s-parse-flags) "$spec" >"$dir/parsed.json" 2>"$dir/err" ||
  ! "$MERGE" "$dir/parsed.json" >"$dir/merged.json" 2>>"$dir/err" ||
  ! "$STT" "$dir/merged.json" >"$dir/stt.json" 2>>"$dir/err"; then
  cat "$dir/err" >&2
  fail "the pipeline to the stt stage failed"
  exit 1
fi
expect=$(first_directive t2s-opencl-expect)
# A program whose Funcs all run on the host has no device code as placed (emit-no-device).
host_only=0
grep -q '"place": "device"' "$dir/stt.json" || host_only=1
: >"$dir/checks.txt"
for stage in merged stt; do
  for variant in placed all_device; do
    flag=()
    [[ $variant == all_device ]] && flag=(--all-device)
    out="${stage}_$variant.cl"
    # A refusal that is expected: as placed, a host-only stage has no device code; the stt stage
    # of a spec that says `t2s-opencl-expect: RULE` is refused with RULE.
    rule=""
    [[ $variant == placed && $host_only == 1 ]] && rule=emit-no-device
    [[ -z $rule && $stage == stt && -n $expect ]] && rule=$expect
    if [[ -n $rule ]]; then
      if "$DRIVER" device "${flag[@]}" <"$dir/$stage.json" >"$dir/$out" 2>"$dir/err"; then
        fail "emit_opencl_driver device ${flag[*]} accepted the $stage stage (expected [$rule])"
      elif ! grep -q "\[$rule\]" "$dir/err"; then
        cat "$dir/err" >&2
        fail "emit_opencl_driver device ${flag[*]} failed on the $stage stage without [$rule]"
      fi
      rm -f "$dir/$out"
      continue
    fi
    if ! "$DRIVER" device "${flag[@]}" <"$dir/$stage.json" >"$dir/$out" 2>"$dir/err"; then
      cat "$dir/err" >&2
      fail "emit_opencl_driver device ${flag[*]} failed on the $stage stage"
    else
      echo "cl $out" >>"$dir/checks.txt"
    fi
  done
done
for variant in placed all_device; do
  flag=(--all-device) cxx=clang++-14
  [[ $variant == placed ]] && flag=() cxx=g++
  out="host_$variant.cpp"
  if ! "$DRIVER" host "${flag[@]}" <"$dir/stt.json" >"$dir/$out" 2>"$dir/err"; then
    cat "$dir/err" >&2
    fail "emit_opencl_driver host ${flag[*]} failed"
    continue
  fi
  echo "host $cxx $out" >>"$dir/checks.txt"
done
if [[ -z $expect && $host_only == 1 ]]; then
  echo "run host_placed.cpp" >>"$dir/checks.txt"
fi
rm -f "$dir/err"
((failures == 0))
