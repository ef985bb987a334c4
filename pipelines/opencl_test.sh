#!/usr/bin/env bash
# pipelines/opencl_test.sh: what t2s_opencl_test (t2s.bzl) runs, from the runfiles root of the
# main workspace.
#
#   opencl_test.sh --check-cl CHECK_CL.sh --check-host CHECK_HOST.sh --header HEADER.h
#                  --cl NAME.cl --host NAME_host.cpp
#
# Runs `CHECK_CL.sh HEADER.h NAME.cl` (the device code is valid OpenCL, given a header that
# declares the Intel channel built-ins) and `CHECK_HOST.sh NAME_host.cpp` (the host program
# compiles); both must exit 0.
#
#   opencl_test.sh --report NAME.opencl_checks.log
#
# What the test itself runs: t2s_opencl_test runs the checks above as a build action (they read
# nothing but the emitted files and the checks, so Bazel caches them as it caches a compile, and
# a failing check fails the test target's build with the checks' output); the test prints the
# action's log and passes when it records both checks passed.
set -uo pipefail

if [[ $# == 2 && "$1" == --report ]]; then
  cat "$2" || exit 1
  grep -q '^ok   .*check_cl.sh ' "$2" && grep -q '^ok   .*check_host.sh ' "$2" && exit 0
  echo "FAIL: $2 does not record both checks passed" >&2
  exit 1
fi

check_cl="" check_host="" header="" cl="" host=""
while (($#)); do
  case "$1" in
    --check-cl) check_cl="$2"; shift 2 ;;
    --check-host) check_host="$2"; shift 2 ;;
    --header) header="$2"; shift 2 ;;
    --cl) cl="$2"; shift 2 ;;
    --host) host="$2"; shift 2 ;;
    *) echo "opencl_test.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
for v in check_cl check_host header cl host; do
  if [[ -z "${!v}" ]]; then
    echo "opencl_test.sh: --${v//_/-} is required" >&2
    exit 2
  fi
done

failed=0
rc=0
bash "$check_cl" "$header" "$cl" || rc=$?
if ((rc == 0)); then
  echo "ok   $check_cl $header $cl"
else
  echo "FAIL: \`$check_cl $header $cl\` exited with status $rc" >&2
  failed=$((failed + 1))
fi
rc=0
bash "$check_host" "$host" || rc=$?
if ((rc == 0)); then
  echo "ok   $check_host $host"
else
  echo "FAIL: \`$check_host $host\` exited with status $rc" >&2
  failed=$((failed + 1))
fi
((failed == 0))
