#!/bin/bash
# syntax_test.sh: every spec in testdata/specs through the opencl target (syntax_emit.sh says
# what is emitted and which refusals are expected):
#
#   t2s-parse | t2s-merge | t2s-stt; merged and stt stages, as placed and --all-device:
#   emit_opencl_driver device -> .cl, and at the stt stage emit_opencl_driver host -> host programs
#
# The compilers' checks (check_cl.sh on every .cl, check_host.sh on every host program: g++ for
# the placed one, clang++-14 for --all-device; a host-only program built) are build actions of
# :syntax_checks (syntax_checks.bzl, syntax_compile.sh), cached on the emitted files' bytes.
# This test runs the tools again and requires their files to be those the actions checked, an
# `ok` for every check, and each host-only program (no device kernel, so no OpenCL device
# needed) to write the same .npy as t2s-run on random inputs. Under the sanitizers (BUILD) it
# runs the instrumented tools only. --all-device places every kernel on the device, so that the
# FIFO and shift-register code of the host-placed specs (seed000_abc has FIFO registers) goes
# through clang too. First, the checkers must reject known-bad files, so that a checker that
# accepts everything fails here.
#
# Under `bazel test`, runs from the runfiles root of the `t2s` workspace. By hand, from the
# repository root after `bazel build //libs/backends/opencl:emit_opencl_driver
# //libs/backends/opencl:syntax_checks //tools:all`:
#   bash libs/backends/opencl/syntax_test.sh
set -u

if [[ -n "${TEST_SRCDIR:-}" && -d "${TEST_SRCDIR}/t2s" ]]; then
  cd "${TEST_SRCDIR}/t2s"
  bin=.
else
  cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
  bin=bazel-bin
  T2S_SYNTAX_CHECKS=${T2S_SYNTAX_CHECKS-bazel-bin/libs/backends/opencl/syntax_checks}
fi
PARSE=$bin/tools/t2s-parse
MERGE=$bin/tools/t2s-merge
STT=$bin/tools/t2s-stt
RUN=$bin/tools/t2s-run
DRIVER=$bin/libs/backends/opencl/emit_opencl_driver
TESTING=libs/backends/opencl/testing
HEADER=$TESTING/intel_fpga_channels.h
CHECK_CL=$TESTING/check_cl.sh
CHECK_HOST=$TESTING/check_host.sh
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
# T2S_SYNTAX_CHECKS (the plain build's setting, BUILD): the runfiles path of
# :syntax_checks, whose build actions emitted every spec's files with the exec configuration's
# tools and ran clang and g++ on them (syntax_checks.bzl). Unset (the sanitizer build, whose
# tools are instrumented while clang, g++ and what they build are not): the sanitized tools emit
# every spec's files and refuse what they must (syntax_emit.sh), nothing is compiled.
CHECKED=${T2S_SYNTAX_CHECKS:-}

for tool in "$PARSE" "$MERGE" "$STT" "$RUN" "$DRIVER"; do
  if [[ ! -x "$tool" ]]; then
    echo "FAIL: $tool not found" >&2
    exit 1
  fi
done

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# --- The checkers reject bad files. ---------------------------------------------------------
# (With the compilers only, under the sanitizers nothing is compiled; in the first shard.)
if [[ -n $CHECKED && ${TEST_SHARD_INDEX:-0} == 0 ]]; then
cat >"$TMP/bad_type.cl" <<'EOF'
#pragma OPENCL EXTENSION cl_intel_channels : enable
typedef struct { float data[5]; } float_vec5;
channel float ch __attribute__((depth(2)));
__kernel __attribute__((max_global_work_dim(0))) __attribute__((autorun))
void k() {
  float_vec5 v;
  float x = read_channel_intel(ch) + v;
  write_channel_intel(ch, x);
}
EOF
cat >"$TMP/bad_private_channel.cl" <<'EOF'
#pragma OPENCL EXTENSION cl_intel_channels : enable
__kernel __attribute__((max_global_work_dim(0))) __attribute__((autorun))
void k() {
  float not_a_channel = 1.0f;
  write_channel_intel(not_a_channel, 2.0f);
}
EOF
# good.cl: as with aoc's built-in functions, a written value may be a compound literal whose
# braces hold commas (a struct vector type, t2s-emit's widths other than 2, 3, 4, 8 and 16).
cat >"$TMP/good.cl" <<'EOF'
#pragma OPENCL EXTENSION cl_intel_channels : enable
typedef struct { float data[5]; } float_vec5;
channel float ch[2][3] __attribute__((depth(2)));
channel float_vec5 vch;
__kernel __attribute__((max_global_work_dim(0))) __attribute__((autorun))
void k() {
  float x = read_channel_intel(ch[1][2]) + 1.0f;
  write_channel_intel(ch[0][1], x);
  write_channel_intel(vch, (float_vec5){{x, x, 2.0f, x, 3.0f}});
  bool ok = write_channel_nb_intel(vch, (float_vec5){{x, x, x, x, x}});
  float_vec5 v = read_channel_intel(vch);
  write_channel_intel(ch[1][1], v.data[4]);
}
EOF
cat >"$TMP/bad_host.cpp" <<'EOF'
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
int main() {
  cl_uint count = 0;
  int unused_variable = 0;
  return clGetPlatformIDs(0, nullptr, &count);
}
EOF
cat >"$TMP/bad_link.cpp" <<'EOF'
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
cl_int t2s_not_defined_anywhere();
int main() { return t2s_not_defined_anywhere(); }
EOF
for bad in bad_type bad_private_channel; do
  if "$CHECK_CL" "$HEADER" "$TMP/$bad.cl" >"$TMP/$bad.log" 2>&1; then
    fail "check_cl.sh accepted $bad.cl"
  elif ! grep -q "error:" "$TMP/$bad.log"; then
    fail "check_cl.sh rejected $bad.cl without printing clang's error"
  fi
done
if ! "$CHECK_CL" "$HEADER" "$TMP/good.cl" >"$TMP/good.log" 2>&1; then
  cat "$TMP/good.log" >&2
  fail "check_cl.sh rejected good.cl"
fi
for bad in bad_host bad_link; do
  if "$CHECK_HOST" "$TMP/$bad.cpp" >"$TMP/$bad.log" 2>&1; then
    fail "check_host.sh accepted $bad.cpp"
  fi
done
fi

# --- Every spec. ------------------------------------------------------------------------------
# Each spec through the test's own tools (syntax_emit.sh); with T2S_SYNTAX_CHECKS, their files
# must be the build actions' bytes (so what the compilers checked is what these tools emit), the
# action's log must hold an `ok` line for every check, and a host-only program must write the
# same .npy as t2s-run.
EMIT=libs/backends/opencl/syntax_emit.sh

# Bazel's test sharding (shard_count in BUILD): shard K of N takes every N-th spec from the K-th.
source libs/testing/shard.sh

specs=0
compiled=0
runs=0
index=-1
for spec in testdata/specs/*.t2s; do
  index=$((index + 1))
  shard_owns "$index" || continue
  name=$(basename "$spec" .t2s)
  dir="$TMP/$name"
  specs=$((specs + 1))
  if ! "$EMIT" "$PARSE" "$MERGE" "$STT" "$DRIVER" "$spec" "$dir"; then
    fail "$name: syntax_emit.sh"
    continue
  fi
  [[ -n $CHECKED ]] || continue
  emitted="$CHECKED/$name.emitted"
  checked="$CHECKED/$name.checked"
  for f in "$dir"/*; do
    base=$(basename "$f")
    if [[ ! -f "$emitted/$base" ]]; then
      fail "$name: the build action wrote no $base (this test's tools did)"
    elif ! cmp -s "$f" "$emitted/$base"; then
      fail "$name: $base differs between the build action's tools and this test's"
    fi
  done
  while read -r kind a b; do
    case $kind in
      cl) want="ok cl $a" ;;
      host) want="ok host $a $b" ;;
      run) want="ok built $a" ;;
      *) fail "$name: unknown check '$kind' in checks.txt"; continue ;;
    esac
    if ! grep -qxF "$want" "$checked/log"; then
      fail "$name: $checked/log has no '$want'"
      continue
    fi
    compiled=$((compiled + 1))
    if [[ $kind == run ]]; then
      runs=$((runs + 1))
      if ! "$checked/host_program" unused.aocx --fill random --seed 7 -o "$dir/host.npy" ||
        ! "$RUN" "$dir/stt.json" --fill random --seed 7 -o "$dir/ref.npy"; then
        fail "$name: the host-only program or t2s-run failed"
      elif ! cmp -s "$dir/host.npy" "$dir/ref.npy"; then
        fail "$name: the host-only program's output differs from t2s-run's"
      fi
    fi
  done <"$dir/checks.txt"
done

if ((index < 0)); then
  fail "no specs found in testdata/specs"
fi
if ((failures > 0)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
if [[ -n $CHECKED ]]; then
  what="the same files as the build actions', whose $compiled clang and g++ checks passed ($runs host-only programs agree with t2s-run)"
else
  what="emitted by the sanitized tools (T2S_SYNTAX_CHECKS unset: nothing compiled)"
fi
echo "PASS: $specs specs ($(shard_name)): merged and stt .cl (placed and --all-device) and stt host programs $what"
