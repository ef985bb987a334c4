#!/usr/bin/env bash
# tests/opencl/fault_injection_test.sh: the OpenCL executor runs the emitted device code itself,
# so a fault in it shows. testdata/gemm_host_chains.cl runs with its host program (linked with
# the executor's OpenCL) and gives t2s-run's bytes; then two broken copies:
#   - a wrong index: A writes PE (i, j)'s result into channel c_to_drain[j][i] (the drainer
#     reads [i][j]): the output differs;
#   - a channel read twice: feedA reads loadA_to_feedA twice per value it sends: a deadlock,
#     reported with the kernels and channels (exit 1), never a hang.
set -uo pipefail
cl=testdata/gemm_host_chains.cl
ir=testdata/gemm_host_chains.gathered.json
host=testdata/gemm_host_chains_opencl_exec_test_host
run=tools/t2s-run
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
export TMPDIR="$TMP"
failed=0
fail() {
  echo "FAIL: $*" >&2
  failed=$((failed + 1))
}

# Random inputs: with sequential ones a and b are equal and the product is symmetric, so a
# transposed result would go unseen.
fill=(--fill random --seed 3)
"$run" "${fill[@]}" "$ir" -o "$TMP/ref.npy" || fail "t2s-run $ir"
"$host" "$cl" "${fill[@]}" -o "$TMP/ok.npy" 2>"$TMP/ok.err" || { fail "the unchanged device code failed:"; cat "$TMP/ok.err" >&2; }
cmp -s "$TMP/ref.npy" "$TMP/ok.npy" && echo "ok   the emitted device code gives t2s-run's bytes" ||
  fail "the unchanged device code gives other bytes than t2s-run"

# mutate NAME SED-EXPRESSION: a copy of the .cl with one line changed (the change must apply).
mutate() {
  sed "$2" "$cl" >"$TMP/$1.cl"
  if cmp -s "$cl" "$TMP/$1.cl"; then
    fail "$1: the mutation '$2' changed nothing (the emitted code changed: update this test)"
    return 1
  fi
}

if mutate wrong_index 's/write_channel_intel(c_to_drain\[i\]\[j\], C_val)/write_channel_intel(c_to_drain[j][i], C_val)/'; then
  rc=0
  "$host" "$TMP/wrong_index.cl" "${fill[@]}" -o "$TMP/wrong_index.npy" 2>"$TMP/wrong_index.err" || rc=$?
  if ((rc == 0)) && cmp -s "$TMP/ref.npy" "$TMP/wrong_index.npy"; then
    fail "wrong_index: the broken device code gave t2s-run's bytes"
  else
    echo "ok   wrong_index: caught (exit $rc, output differs from t2s-run's)"
  fi
fi

if mutate read_twice 's/write_channel_intel(feedA_to_A, read_channel_intel(loadA_to_feedA));/(void)read_channel_intel(loadA_to_feedA); write_channel_intel(feedA_to_A, read_channel_intel(loadA_to_feedA));/'; then
  rc=0
  timeout 120 "$host" "$TMP/read_twice.cl" "${fill[@]}" -o "$TMP/read_twice.npy" 2>"$TMP/read_twice.err" || rc=$?
  if ((rc == 1)) && grep -q "error: deadlock: every unfinished kernel is blocked: .*kernel 'feedA' waits to read from channel 'loadA_to_feedA' (empty)" "$TMP/read_twice.err"; then
    echo "ok   read_twice: $(cat "$TMP/read_twice.err")"
  else
    fail "read_twice: expected exit 1 and a deadlock of feedA on loadA_to_feedA, got exit $rc:"
    cat "$TMP/read_twice.err" >&2
  fi
fi

((failed == 0)) || exit 1
