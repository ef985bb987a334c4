#!/bin/bash
# syntax_test.sh: every spec in testdata/specs through the opencl target, checked by the tools
# other tests use (libs/backends/opencl/testing):
#
#   t2s-parse | t2s-merge                 -> merged.json
#   t2s-stt                               -> stt.json
#   merged, stt; as placed and --all-device: emit_opencl_driver device -> check_cl.sh (as placed,
#                                         a host-only program is refused: emit-no-device)
#   stt;         as placed and --all-device: emit_opencl_driver host   -> check_host.sh (g++;
#                                         clang++-14 for --all-device)
#   stt, as placed, no device kernel: the host program (which then needs no OpenCL device) is
#   built and run on random inputs and must write the same .npy as t2s-run.
#
# --all-device places every kernel on the device, so that the FIFO and shift-register code of
# the host-placed specs (seed000_abc has FIFO registers) goes through clang too. First, the
# checkers must reject known-bad files, so that a checker that accepts everything fails here.
#
# Under `bazel test`, runs from the runfiles root of the `t2s` workspace. By hand, from the
# repository root after `bazel build //libs/backends/opencl:emit_opencl_driver //tools:all`:
#   bash libs/backends/opencl/syntax_test.sh
set -u

if [[ -n "${TEST_SRCDIR:-}" && -d "${TEST_SRCDIR}/t2s" ]]; then
  cd "${TEST_SRCDIR}/t2s"
  bin=.
else
  cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
  bin=bazel-bin
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
JOBS=$(nproc 2>/dev/null || echo 2)

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

# --- Every spec. ------------------------------------------------------------------------------
# Extra flags for a spec: the first `// t2s-parse-flags: ...` among its first 40 lines.
spec_flags() {
  head -n 40 "$1" | grep -m1 -E '^//[[:space:]]*t2s-parse-flags:' |
    sed -E 's#^//[[:space:]]*t2s-parse-flags:[[:space:]]*##' || true
}

# A spec whose stt stage the opencl target must refuse says so among its first 40 lines:
# `// t2s-opencl-expect: emit-channel` (a channel array read or written with an index of a
# vectorized loop, which only the vectorized stage turns into constants).
spec_opencl_expect() {
  head -n 40 "$1" | grep -m1 -E '^//[[:space:]]*t2s-opencl-expect:' |
    sed -E 's#^//[[:space:]]*t2s-opencl-expect:[[:space:]]*##' || true
}

# T2S_HOST_COMPILES=0 (the sanitizer build's setting, BUILD): the emitted host programs are
# emitted (by the sanitized driver) but not compiled: g++ and the programs it builds are not
# instrumented, and the plain build's run compiles and runs every one of them.
HOST_COMPILES=${T2S_HOST_COMPILES:-1}

# Host-program jobs (g++ is slow): JOBS at a time; each leaves NAME.status and NAME.log.
jobs_list=()
run_job() {  # NAME COMMAND...
  local name=$1
  shift
  ("$@" >"$TMP/$name.log" 2>&1; echo $? >"$TMP/$name.status") &
  jobs_list+=("$name")
  while (($(jobs -rp | wc -l) >= JOBS)); do wait -n; done
}

# Builds and runs a host-only program; its output must be t2s-run's, byte for byte.
run_host_program() {  # DIR
  local dir=$1
  g++ -std=c++17 -O1 -ffp-contract=off -pthread "$dir/host_placed.cpp" -o "$dir/host_program" \
    -lOpenCL || return 1
  "$dir/host_program" unused.aocx --fill random --seed 7 -o "$dir/host.npy" || return 1
  "$RUN" "$dir/stt.json" --fill random --seed 7 -o "$dir/ref.npy" || return 1
  cmp "$dir/host.npy" "$dir/ref.npy"
}

# Bazel's test sharding (shard_count in BUILD): shard K of N takes every N-th spec from the K-th.
shards=${TEST_TOTAL_SHARDS:-1}
shard=${TEST_SHARD_INDEX:-0}
[[ -z ${TEST_SHARD_STATUS_FILE:-} ]] || touch "$TEST_SHARD_STATUS_FILE"

specs=0
index=-1
for spec in testdata/specs/*.t2s; do
  index=$((index + 1))
  ((index % shards == shard)) || continue
  name=$(basename "$spec" .t2s)
  dir="$TMP/$name"
  mkdir -p "$dir"
  specs=$((specs + 1))
  # shellcheck disable=SC2046
  if ! "$PARSE" $(spec_flags "$spec") "$spec" >"$dir/parsed.json" 2>"$dir/err" ||
    ! "$MERGE" "$dir/parsed.json" >"$dir/merged.json" 2>>"$dir/err" ||
    ! "$STT" "$dir/merged.json" >"$dir/stt.json" 2>>"$dir/err"; then
    cat "$dir/err" >&2
    fail "$name: the pipeline to the stt stage failed"
    continue
  fi
  expect=$(spec_opencl_expect "$spec")
  # A program whose Funcs all run on the host has no device code as placed (emit-no-device).
  host_only=0
  grep -q '"place": "device"' "$dir/stt.json" || host_only=1
  for stage in merged stt; do
    for variant in placed all_device; do
      flag=()
      [[ $variant == all_device ]] && flag=(--all-device)
      out="$dir/${stage}_$variant.cl"
      if [[ $variant == placed && $host_only == 1 ]]; then
        if "$DRIVER" device <"$dir/$stage.json" >"$out" 2>"$dir/err"; then
          fail "$name: emit_opencl_driver device accepted the host-only $stage stage"
        elif ! grep -q "\[emit-no-device\]" "$dir/err"; then
          cat "$dir/err" >&2
          fail "$name: emit_opencl_driver device failed on the host-only $stage stage without [emit-no-device]"
        fi
        continue
      fi
      if [[ $stage == stt && -n $expect ]]; then
        if "$DRIVER" device "${flag[@]}" <"$dir/$stage.json" >"$out" 2>"$dir/err"; then
          fail "$name: emit_opencl_driver device ${flag[*]} accepted the stt stage (expected [$expect])"
        elif ! grep -q "\[$expect\]" "$dir/err"; then
          cat "$dir/err" >&2
          fail "$name: emit_opencl_driver device ${flag[*]} failed without [$expect]"
        fi
        continue
      fi
      if ! "$DRIVER" device "${flag[@]}" <"$dir/$stage.json" >"$out" 2>"$dir/err"; then
        cat "$dir/err" >&2
        fail "$name: emit_opencl_driver device ${flag[*]} failed on the $stage stage"
      elif ! "$CHECK_CL" "$HEADER" "$out" >"$dir/cl.log" 2>&1; then
        cat "$dir/cl.log" >&2
        fail "$name: the $stage stage's .cl ($variant) does not pass check_cl.sh"
      fi
    done
  done
  for variant in placed all_device; do
    flag=()
    [[ $variant == all_device ]] && flag=(--all-device)
    out="$dir/host_$variant.cpp"
    if ! "$DRIVER" host "${flag[@]}" <"$dir/stt.json" >"$out" 2>"$dir/err"; then
      cat "$dir/err" >&2
      fail "$name: emit_opencl_driver host ${flag[*]} failed"
      continue
    fi
    # The placed host program with g++ (what users build it with), the --all-device one with
    # clang++-14: both compilers see every spec's host code, and clang takes half g++'s time.
    cxx=(--cxx g++)
    [[ $variant == all_device ]] && cxx=(--cxx clang++-14)
    [[ $HOST_COMPILES == 1 ]] && run_job "${name}_host_$variant" "$CHECK_HOST" "${cxx[@]}" "$out"
  done
  if [[ -z $expect && $host_only == 1 && $HOST_COMPILES == 1 ]]; then
    run_job "${name}_run" run_host_program "$dir"
  fi
done
wait
for job in "${jobs_list[@]}"; do
  status=$(cat "$TMP/$job.status" 2>/dev/null || echo missing)
  if [[ $status != 0 ]]; then
    cat "$TMP/$job.log" >&2
    fail "$job (status $status)"
  fi
done

if ((index < 0)); then
  fail "no specs found in testdata/specs"
fi
runs=$(printf '%s\n' "${jobs_list[@]}" | grep -c '_run$')
if ((failures > 0)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
if [[ $HOST_COMPILES == 1 ]]; then
  hosts="stt host programs through check_host.sh (placed with g++, --all-device with clang++-14), $runs host-only programs agree with t2s-run"
else
  hosts="stt host programs emitted (T2S_HOST_COMPILES=0: not compiled)"
fi
echo "PASS: $specs specs (shard $((shard + 1)) of $shards): merged and stt .cl (placed and --all-device) through check_cl.sh, $hosts"
