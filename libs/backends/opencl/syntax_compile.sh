#!/bin/bash
# syntax_compile.sh CHECK_CL CHECK_HOST HEADER INDIR OUTDIR: the compiler checks that
# INDIR/checks.txt (written by syntax_emit.sh) lists for INDIR's files:
#   cl FILE         check_cl.sh HEADER INDIR/FILE (clang's OpenCL C front end)
#   host CXX FILE   check_host.sh --cxx CXX INDIR/FILE (compiled and linked with -lOpenCL)
#   run FILE        the host-only program built as its users build it (g++ -O1, no FMA
#                   contraction, -lOpenCL) into OUTDIR/host_program, for syntax_test to run
# OUTDIR/log gets an `ok ...` line per check that passed. The T2sSyntaxCompile build action
# (syntax_checks.bzl): its inputs are the emitted files only, so a change of the tools that
# leaves them byte-identical finds the result in Bazel's cache. Prints the compilers'
# diagnostics and exits 1 when a check fails; 2 on wrong usage.
set -u
if (($# != 5)); then
  echo "usage: syntax_compile.sh CHECK_CL CHECK_HOST HEADER INDIR OUTDIR" >&2
  exit 2
fi
CHECK_CL=$1 CHECK_HOST=$2 HEADER=$3 in=$4 out=$5
if [[ ! -f $in/checks.txt ]]; then
  echo "syntax_compile.sh: no $in/checks.txt" >&2
  exit 2
fi
mkdir -p "$out" || exit 2
: >"$out/log"
failures=0
# check OK_LINE FAILURE COMMAND...: runs COMMAND; OK_LINE to the log when it succeeds, else its
# output and FAILURE on standard error.
check() {
  local ok_line=$1 failure=$2
  shift 2
  if "$@" </dev/null >"$out/check.log" 2>&1; then
    echo "$ok_line" >>"$out/log"
  else
    cat "$out/check.log" >&2
    echo "FAIL: $failure" >&2
    failures=$((failures + 1))
  fi
}
while read -r kind a b; do
  case $kind in
    cl) check "ok cl $a" "$in/$a does not pass check_cl.sh" "$CHECK_CL" "$HEADER" "$in/$a" ;;
    host)
      check "ok host $a $b" "$in/$b does not pass check_host.sh --cxx $a" \
        "$CHECK_HOST" --cxx "$a" "$in/$b"
      ;;
    run)
      check "ok built $a" "$in/$a does not build with g++ -O1" \
        g++ -std=c++17 -O1 -ffp-contract=off -pthread "$in/$a" -o "$out/host_program" -lOpenCL
      ;;
    *)
      echo "syntax_compile.sh: $in/checks.txt: unknown check '$kind'" >&2
      exit 2
      ;;
  esac
done <"$in/checks.txt"
rm -f "$out/check.log"
((failures == 0))
