#!/usr/bin/env bash
# tests/opencl/engine_test.sh: `t2s-run --engine opencl` (docs/opencl-executor.md) on specs as a
# user gives them, at the stage t2s-emit emits from: the output equals the interpreter's, byte
# for byte, on random inputs (--check also compares with the merged stage); a design that
# deadlocks is reported (exit 1, rule run-opencl, the kernels and channels), never a hang.
# Sharded (tests/opencl/BUILD): each case below is an item of libs/testing/shard.sh.
set -uo pipefail
source libs/testing/shard.sh
run=tools/t2s-run
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
export TMPDIR="$TMP"
failed=0
fail() {
  echo "FAIL: $*" >&2
  failed=$((failed + 1))
}

# same SPEC [ARGS...]: the OpenCL run equals the interpreter's (and passes --check).
same() {
  local spec="$1"
  shift
  local name
  name="$(basename "$spec" .t2s)"
  if ! "$run" --engine opencl --check --fill random --seed 11 "$@" "$spec" \
    -o "$TMP/$name.cl.npy" 2>"$TMP/$name.err"; then
    fail "$spec $*: --engine opencl failed:"
    cat "$TMP/$name.err" >&2
    return
  fi
  "$run" --engine interp --fill random --seed 11 "$@" "$spec" -o "$TMP/$name.ref.npy" ||
    fail "$spec: the interpreter failed"
  if cmp -s "$TMP/$name.ref.npy" "$TMP/$name.cl.npy"; then
    echo "ok   $spec $*"
  else
    fail "$spec $*: the OpenCL run's output differs from the interpreter's"
  fi
}

# A gathered two-level chain with a collector of its own transform; vectorized channels whose
# ends have different lanes; a general transform with a reverse mapping; a deeper channel.
shard_next && same testdata/specs/gemm_gather_a10.t2s -D COLLECTOR_STT=1
shard_next && same testdata/specs/vec_channel_narrow.t2s
shard_next && same testdata/specs/device_channel_lanes.t2s
shard_next && same testdata/specs/gemm_projection.t2s
shard_next && same tests/opencl/specs/drainer_two_step_projection.t2s -D DEEP

# A design that deadlocks: exit 1, the kernels and channels named, no output.
deadlock_is_reported() {
  local spec=tests/opencl/specs/drainer_two_step_projection.t2s rc=0
  timeout 300 "$run" --engine opencl "$spec" -o "$TMP/deadlock.npy" 2>"$TMP/deadlock.err" || rc=$?
  local expected="error: the OpenCL run failed: deadlock: every unfinished kernel is blocked: kernel 'fB' waits to write to channel 'fB_to_B' at (3) (full); kernel 'dc' waits to read from channel 'c_to_dc' at (0) (empty); kernel 'A' waits to write to channel 'c_to_dc' at (1) (full). Channel 'c_to_dc' is full at one element while 'dc' waits to read another: its ends visit the elements in different orders, further apart than the channel's depth; a deeper channel lets both run (A.min_depth(N), N the values one element must hold) [run-opencl]"
  if ((rc == 1)) && [[ "$(cat "$TMP/deadlock.err")" == "$expected" ]]; then
    echo "ok   $spec: the deadlock is reported"
  else
    fail "$spec: expected exit 1 and"
    echo "    $expected" >&2
    echo "  got exit $rc and" >&2
    sed 's/^/    /' "$TMP/deadlock.err" >&2
  fi
  [[ ! -e "$TMP/deadlock.npy" ]] || fail "$spec: an output was written although the run failed"
}
shard_next && deadlock_is_reported

# --profile: a line per kernel, its cycles, steps and per channel calls and cycles blocked (the
# design's, the same on every run: the executor's model of the FPGA clock), and its wall time (the
# machine's); without --engine opencl, a usage error.
profile_lines() {
  local spec=testdata/specs/gemm_host_chains.t2s rc=0
  if "$run" --engine opencl --profile "$spec" -o "$TMP/profile.npy" 2>"$TMP/profile.err"; then
    # A: 6 steps (k), each reading feedA_to_A and fB_to_B four times (one call a cycle on a
    # channel); loadA: a write a step, 96 steps, held back 11 cycles by feedA.
    for want in \
      "^t2s profile: device run 1: kernel 'A': 111 cycles, 6 steps \(ran [0-9.]+ ms\); writes 'c_to_drain' 16 \(blocked 0 cycles\); reads 'fB_to_B' 24 \(blocked 52 cycles\); reads 'feedA_to_A' 24 \(blocked 53 cycles\)$" \
      "^t2s profile: device run 1: kernel 'loadA': 107 cycles, 96 steps \(ran [0-9.]+ ms\); writes 'loadA_to_feedA' 24 \(blocked 11 cycles\)$"; do
      grep -Eq "$want" "$TMP/profile.err" || fail "$spec --profile: no line matching $want in:"
    done
    [[ $(grep -c '^t2s profile: ' "$TMP/profile.err") == 8 ]] ||
      fail "$spec --profile: expected a line for each of its 8 device kernels"
    cat "$TMP/profile.err"
  else
    fail "$spec --profile failed:"
    cat "$TMP/profile.err" >&2
  fi
  "$run" --profile "$spec" -o "$TMP/no.npy" 2>"$TMP/no.err" || rc=$?
  ((rc == 2)) && grep -q "error: --profile: needs --engine opencl" "$TMP/no.err" ||
    fail "--profile without --engine opencl: expected exit 2, got $rc: $(cat "$TMP/no.err")"
}
shard_next && profile_lines

echo "engine_test: $(shard_name): $shard_mine of $((shard_item + 1)) cases, $failed failed"
((failed == 0)) || exit 1
