#!/usr/bin/env bash
# //tests/cli:vector_gemm_structure_test: the OpenCL of T2SP's Arria-10 GEMM shape
# (testdata/specs/gemm_vec_a10.t2s: 10 x 8 PEs, kkk vectorized with 16 lanes) has, per PE and
# per time step, one 16-lane vector multiply and one chain of 16 scalar adds (the dot product an
# FPGA builds), and no loop over the lanes (issue 13's acceptance). The partial sum register
# keeps the lane that is read back only (a float, not a float16). Built fresh from the spec with
# t2s-vec, t2s-gather and t2s-emit, not from a golden file.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

BIN="$(dirname "$T2S_STT")"
SPEC=testdata/specs/gemm_vec_a10.t2s
"$BIN/t2s-vec" --report "$SPEC" -o "$TMP/vec.json" 2>"$TMP/report"
"$BIN/t2s-gather" "$TMP/vec.json" -o "$TMP/gathered.json"
"$BIN/t2s-emit" --target opencl "$TMP/gathered.json" -o "$TMP/gemm.cl"

# The checks below test conditions and record the result (check DESCRIPTION $?).
set +e
failed=0
check() {  # check DESCRIPTION CONDITION-STATUS
  if [[ "$2" -eq 0 ]]; then
    echo "ok   $1"
  else
    echo "FAIL: $1" >&2
    failed=$((failed + 1))
  fi
}
count() { grep -cE -- "$1" "$2" || true; }

# The device kernel's body (kernel A: the only __kernel with loops over the PEs).
awk '/^void A\(/,/^}/' "$TMP/gemm.cl" >"$TMP/kernelA.cl"
[[ -s "$TMP/kernelA.cl" ]]
check "kernel A found" $?

# Loops: the time loops kk, ii, jj, the unrolled PE loops iii, jjj, and the shift of the
# partial-sum register; nothing runs over the 16 lanes.
loops="$(grep -oE 'for \(int [A-Za-z_0-9]+ = [^;]+; [^;]+;' "$TMP/kernelA.cl" | sed -E 's/for \(int ([A-Za-z_0-9]+) .*/\1/' | tr '\n' ' ')"
[[ "$loops" == "kk ii jj iii jjj t2s_s " ]]
check "loops are kk ii jj iii jjj t2s_s (got: $loops)" $?
[[ "$(count '< 16;|kkk' "$TMP/kernelA.cl")" -eq 0 ]]
check "no loop over the 16 lanes" $?

# One vector multiply of the A and B vectors per PE and step.
[[ "$(count '^ *const float16 C_val_v = A_val \* B_val;$' "$TMP/kernelA.cl")" -eq 1 ]]
check "one 16-lane vector multiply" $?
# Every other product is index arithmetic (an integer literal times a loop variable).
others="$(grep -oE '[A-Za-z_0-9.]+ \* [A-Za-z_0-9(]+' "$TMP/kernelA.cl" | grep -vE '^A_val \* B_val$|^[0-9]+ \* |\* [0-9]+$' || true)"
[[ -z "$others" ]]
check "no other multiply of values (got: $others)" $?

# The chain: lane l adds lane l of the product to lane l - 1's sum (lane 0 to the register's
# value from the previous step); lanes are OpenCL's .s0 ... .sf.
hex=(0 1 2 3 4 5 6 7 8 9 a b c d e f)
chain_ok=0
for l in $(seq 0 15); do
  if [[ $l -eq 0 ]]; then
    pattern="^ *const float C_val_0 = \(kk == 0 \? 0\.0f : C_shreg\[iii\]\[jjj\]\[3\]\) \+ C_val_v\.s0;$"
  else
    pattern="^ *const float C_val_$l = C_val_$((l - 1)) \+ C_val_v\.s${hex[$l]};$"
  fi
  if [[ "$(count "$pattern" "$TMP/kernelA.cl")" -ne 1 ]]; then
    echo "    lane $l: no line matching $pattern" >&2
    chain_ok=1
  fi
done
check "a chain of 16 adds, lane after lane" $chain_ok

# The partial sum register holds the last lane only, written from the chain's end.
[[ "$(count '^ *float C_shreg\[10\]\[8\]\[4\];$' "$TMP/kernelA.cl")" -eq 1 ]]
check "C_shreg holds floats (the lane read back)" $?
[[ "$(count '^ *C_shreg\[iii\]\[jjj\]\[0\] = C_val_15;$' "$TMP/kernelA.cl")" -eq 1 ]]
check "C_shreg is written the chain's last lane" $?
# A's rows are contiguous: one vload16 per step at the array's edge.
[[ "$(count 'vload16\(0, a \+' "$TMP/kernelA.cl")" -eq 1 ]]
check "A is loaded with vload16" $?

# The report says what was done.
grep -q "'C_val' is computed lane by lane" "$TMP/report"
check "report: the chain is computed lane by lane" $?
grep -q "register C_shreg: keeps lane 15 only" "$TMP/report"
check "report: C_shreg keeps lane 15" $?

if [[ $failed -ne 0 ]]; then
  echo "--- kernel A:" >&2
  sed 's/^/    | /' "$TMP/kernelA.cl" >&2
  exit 1
fi
echo "all checks passed"
