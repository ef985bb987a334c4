#!/bin/bash
# tests/emit/emulation_errors_test.sh: the failure paths of the `cpp` emulation target. Each case
# is a real tool output with one edit (a consumer that reads more than is written, a FIFO
# register one value too shallow, ...); its emitted program, compiled with the system g++, must
# stop within a timeout (a hang fails the test) with exit status 1 and exactly
# `PROGRAM: error: MESSAGE`, where MESSAGE is the message the reference interpreter (t2s-run)
# gives for the same IR. A well-formed program is checked to succeed alongside, so a failure
# cannot come from a program that does not build or run at all.
#
# Under `bazel test`, the tools come from the runfiles; run by hand from the repository root
# (`bash tests/emit/emulation_errors_test.sh`) after `bazel build //tests/emit:emit_cpp_stage
# //tools:t2s-run`.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

# derive BASE NAME SED_SCRIPT: $TMP/NAME.json is BASE with exactly one line changed by the sed
# script (so that a changed base file fails here, not in a confusing way later).
derive() {
  local base="$1" name="$2" script="$3"
  sed "$script" "$DIR/$base" > "$TMP/$name.json"
  local changed
  changed=$(diff "$DIR/$base" "$TMP/$name.json" | grep -c '^<')
  if [[ "$changed" != 1 ]]; then
    fail "$name: the edit '$script' changed $changed lines of $base, not 1"
  fi
}

# Base files: the goldens of testdata/golden (the tools' output, which //testdata:golden_test
# holds them to; after scripts/update-goldens changes one, derive names the edit that no longer
# applies):
#   isolate_consumer/merged.json  t2s-parse testdata/specs/isolate_consumer.t2s | t2s-merge
#   seed000_abc/stt.json          t2s-parse testdata/specs/seed000_abc.t2s | t2s-merge | t2s-stt
#   gemm_inherit_drainer/stt.json the same for testdata/specs/gemm_inherit_drainer.t2s
# isolate_consumer: device kernels feederA -> A -> drainer -> collector over channels
# feederA_to_A (depth 0: room for 1), c_to_drainer (1) and drainer_to_collector (4); A reads 32
# values from feederA and sends 16, drainer forwards 16, collector stores 16.
# Line 218 is feederA's loop `k` (extent 8), line 458 collector's loop `j` (extent 4).
derive isolate_consumer/merged.json deadlock_read '218s/"extent": "8"/"extent": "7"/'
derive isolate_consumer/merged.json deadlock_write '458s/"extent": "4"/"extent": "2"/'
derive isolate_consumer/merged.json channel_leftover '458s/"extent": "4"/"extent": "3"/'
derive isolate_consumer/merged.json input_bounds '218s/"extent": "8"/"extent": "9"/'
# gemm_inherit_drainer (stt): the array A writes channel array c_to_drainer[3][4], one channel
# per PE; line 338 is the drainer's loop jj (extent 2): reading one tile of two, it leaves A
# blocked on the full channel of PE (0, 0).
derive gemm_inherit_drainer/stt.json array_deadlock_write '338s/"extent": "2"/"extent": "1"/'
# Line 297 is A's write_channel index jjj: jjj + 1 writes past the channel array (issue 16).
derive gemm_inherit_drainer/stt.json channel_index '297s/"jjj"/"jjj + 1"/'
# seed000_abc (stt): kernel A with FIFO registers A_fifo (depth 9), B_fifo (10), C_fifo (3).
derive seed000_abc/stt.json fifo_overflow 's/"depth": 9,/"depth": 8,/'
derive seed000_abc/stt.json fifo_empty 's/"if": "i < 9"/"if": "i < 0"/'
derive seed000_abc/stt.json fifo_leftover 's/"if": "j < 9"/"if": "j < 10"/'
derive seed000_abc/stt.json register_bounds \
  's/select(1 <= i, pop(A_fifo, i - 1), 0)/select(0 <= i, pop(A_fifo, i - 1), 0)/'
cp "$DIR/isolate_consumer/merged.json" "$TMP/good_merged.json"
cp "$DIR/seed000_abc/stt.json" "$TMP/good_stt.json"

declare -A expected=(
  [deadlock_read]="deadlock: every unfinished kernel is blocked: kernel 'A' waits to read from channel 'feederA_to_A' (empty); kernel 'drainer' waits to read from channel 'c_to_drainer' (empty); kernel 'collector' waits to read from channel 'drainer_to_collector' (empty)"
  [deadlock_write]="deadlock: every unfinished kernel is blocked: kernel 'A' waits to write to channel 'c_to_drainer' (full); kernel 'drainer' waits to write to channel 'drainer_to_collector' (full)"
  [channel_leftover]="channel 'drainer_to_collector' still holds 4 unread values after its kernels finished"
  [array_deadlock_write]="deadlock: every unfinished kernel is blocked: kernel 'A' waits to write to channel 'c_to_drainer' at (0, 0) (full)"
  [channel_index]="index (0, 4) of channel 'c_to_drainer' is outside its dimensions (3, 4)"
  [input_bounds]="read of input 'a' at (0, 8) is outside its extents (4, 8)"
  [fifo_overflow]="FIFO 'A_fifo' of PE (0) overflows: it already holds its depth of 8 values"
  [fifo_empty]="pop from FIFO 'A_fifo' of PE (0), which is empty"
  [fifo_leftover]="FIFO 'B_fifo' of PE (0) still holds 10 values after kernel 'A' finished"
  [register_bounds]="pop from FIFO 'A_fifo' at (-1) is outside its PE array (10)"
)
cases=(deadlock_read deadlock_write channel_leftover array_deadlock_write channel_index input_bounds
  fifo_overflow fifo_empty fifo_leftover register_bounds)

# Sharded (tests/emit/BUILD), items of libs/testing/shard.sh: first the well-formed programs and
# the command line of an emulation, then each failure case.
source libs/testing/shard.sh
good=()
shard_next && good=(good_merged good_stt)
mine=()
for name in "${cases[@]}"; do shard_next && mine+=("$name"); done
# finish: the closing line and exit status of this shard.
finish() {
  if ((failures > 0)); then
    echo "$failures failure(s) ($(shard_name))" >&2
    exit 1
  fi
  echo "PASS: ${#mine[@]} failure paths and ${#good[@]} well-formed programs ($(shard_name))"
  exit 0
}

# Emit this shard's programs, then compile them two at a time.
names=("${mine[@]}" "${good[@]}")
for name in "${names[@]}"; do
  if ! "$EMIT" "$TMP/$name.json" -o "$TMP/$name.cpp" 2> "$TMP/$name.emit.err"; then
    fail "$name: emit_cpp failed: $(cat "$TMP/$name.emit.err")"
  fi
done
compile() {
  timeout 300 "$CXX" -std=c++17 -O2 -pthread -ffp-contract=off -Wall -Wextra -Werror \
    "$TMP/$1.cpp" -o "$TMP/$1" 2> "$TMP/$1.cc.err"
}
for ((i = 0; i < ${#names[@]}; i += 2)); do
  compile "${names[i]}" &
  first=$!
  if ((i + 1 < ${#names[@]})); then
    compile "${names[i + 1]}" || fail "${names[i + 1]}: does not compile: $(head -c 2000 "$TMP/${names[i + 1]}.cc.err")"
  fi
  wait "$first" || fail "${names[i]}: does not compile: $(head -c 2000 "$TMP/${names[i]}.cc.err")"
done

# Each failure: exit status 1, exactly the interpreter's message, no output file; repeated,
# since a deadlock must be found at every interleaving of the threads.
for name in "${mine[@]}"; do
  message="${expected[$name]}"
  # The interpreter agrees: `LOC: error: MESSAGE [rule]`.
  "$RUN" "$TMP/$name.json" -o "$TMP/ref.npy" > /dev/null 2> "$TMP/$name.run.err"
  interpreted=$(head -n 1 "$TMP/$name.run.err" | sed -E 's/^[^ ]*: error: //; s/ \[[a-z-]+\]$//')
  [[ "$interpreted" == "$message" ]] ||
    fail "$name: t2s-run says '$interpreted', the test expects '$message'"
  for attempt in 1 2 3 4 5; do
    rm -f "$TMP/out.npy"
    timeout 60 "$TMP/$name" -o "$TMP/out.npy" > "$TMP/$name.out" 2> "$TMP/$name.err"
    rc=$?
    if [[ $rc == 124 ]]; then
      fail "$name: still running after 60 s (a hang)"
      break
    fi
    [[ $rc == 1 ]] || fail "$name (run $attempt): exit status $rc, not 1"
    actual=$(cat "$TMP/$name.err")
    [[ "$actual" == "$name: error: $message" ]] ||
      fail "$name (run $attempt): stderr is '$actual', not '$name: error: $message'"
    [[ ! -e "$TMP/out.npy" ]] || fail "$name (run $attempt): wrote an output despite the error"
  done
done

# The well-formed programs run and agree with t2s-run.
for name in "${good[@]}"; do
  for fill in "--fill sequential" "--fill random --seed 7"; do
    rm -f "$TMP/ref.npy" "$TMP/out.npy"
    "$RUN" "$TMP/$name.json" $fill -o "$TMP/ref.npy" || fail "$name: t2s-run failed"
    timeout 60 "$TMP/$name" $fill -o "$TMP/out.npy"
    rc=$?
    [[ $rc == 0 ]] || fail "$name [$fill]: exit status $rc"
    cmp -s "$TMP/ref.npy" "$TMP/out.npy" || fail "$name [$fill]: output differs from t2s-run's"
  done
done

# The command line of an emulation program (with the well-formed programs).
((${#good[@]})) || finish
prog="$TMP/good_merged"
"$prog" --help > "$TMP/help.out" 2>&1
rc=$?
[[ $rc == 0 ]] || fail "--help: exit status $rc"
for option in --input -o,--output --fill --seed --print -h,--help; do
  grep -q -- "$option" "$TMP/help.out" || fail "--help does not document $option"
done
"$prog" --fill bogus > /dev/null 2> "$TMP/usage.err"
rc=$?
[[ $rc == 2 ]] || fail "--fill bogus: exit status $rc, not 2"
grep -q "^good_merged: error: --fill: 'bogus' is not one of sequential, random$" "$TMP/usage.err" ||
  fail "--fill bogus: stderr is '$(cat "$TMP/usage.err")'"
"$prog" --input nothere=x.npy > /dev/null 2> "$TMP/unknown.err"
rc=$?
[[ $rc == 1 ]] || fail "--input nothere=...: exit status $rc, not 1"
[[ "$(cat "$TMP/unknown.err")" == "good_merged: error: an array is given for 'nothere', which is not an input" ]] ||
  fail "--input nothere=...: stderr is '$(cat "$TMP/unknown.err")'"
# An input file smaller than the region read (the output of a run, 4x4, for input a, read over
# 4x8; tests/emit/input_shapes_test.sh has the other cases).
"$prog" -o "$TMP/c.npy" > /dev/null
"$prog" --input "a=$TMP/c.npy" > /dev/null 2> "$TMP/shape.err"
rc=$?
[[ $rc == 1 ]] || fail "--input a=<4x4 array>: exit status $rc, not 1"
[[ "$(cat "$TMP/shape.err")" == "good_merged: error: input 'a' is read over [0, 4) x [0, 8), but the array given for it has shape (4, 4)" ]] ||
  fail "--input a=<4x4 array>: stderr is '$(cat "$TMP/shape.err")'"
# The printed form is t2s-run's.
"$RUN" "$TMP/good_merged.json" --fill random --seed 3 > "$TMP/ref.txt" || fail "t2s-run --print"
"$prog" --fill random --seed 3 > "$TMP/out.txt" || fail "emulation --print"
cmp -s "$TMP/ref.txt" "$TMP/out.txt" || fail "the printed output differs from t2s-run's"
# t2s-run and the emulation refuse the same seeds (exit 2) and report a failed write of the
# printed output (exit 1), instead of going on silently.
for seed in -1 18446744073709551616 1x; do
  "$RUN" "$TMP/good_merged.json" --fill random --seed "$seed" > /dev/null 2> "$TMP/seed.err"
  rc=$?
  [[ $rc == 2 ]] || fail "t2s-run --seed $seed: exit status $rc, not 2"
  grep -qF -- "--seed: '$seed' is not an unsigned 64-bit integer" "$TMP/seed.err" ||
    fail "t2s-run --seed $seed: stderr is '$(cat "$TMP/seed.err")'"
  "$prog" --fill random --seed "$seed" > /dev/null 2> "$TMP/seed.err"
  rc=$?
  [[ $rc == 2 ]] || fail "emulation --seed $seed: exit status $rc, not 2"
done
"$RUN" "$TMP/good_merged.json" --seed 18446744073709551615 --fill random > /dev/null ||
  fail "t2s-run --seed 2^64 - 1"
# The emulation's -o respects what is at the path as the tools' -o does (libs/runtime/
# file.h): a read-only file is refused and left as it was.
echo ro > "$TMP/ro.npy" && chmod 444 "$TMP/ro.npy"
"$prog" -o "$TMP/ro.npy" > /dev/null 2> "$TMP/ro.err"
rc=$?
[[ $rc == 1 ]] || fail "emulation -o read-only file: exit status $rc, not 1"
[[ "$(cat "$TMP/ro.npy")" == ro ]] || fail "emulation -o read-only file: the file changed"
grep -qF "cannot write '$TMP/ro.npy': it is read-only" "$TMP/ro.err" ||
  fail "emulation -o read-only file: stderr is '$(cat "$TMP/ro.err")'"
if [[ -w /dev/full ]]; then
  "$RUN" "$TMP/good_merged.json" --print > /dev/full 2> "$TMP/full.err"
  rc=$?
  [[ $rc == 1 ]] || fail "t2s-run --print > /dev/full: exit status $rc, not 1"
  [[ "$(cat "$TMP/full.err")" == "t2s-run: error: cannot write to standard output" ]] ||
    fail "t2s-run --print > /dev/full: stderr is '$(cat "$TMP/full.err")'"
fi

# Hostile inputs and sizes (issue 16): /dev/zero given as a .npy input is refused at once, by
# t2s-run and the emulation alike (no out-of-memory); t2s-run refuses a program that needs more
# than --max-memory before allocating anything.
for tool in "$RUN $TMP/good_merged.json" "$TMP/good_merged"; do
  timeout 10 $tool --input a=/dev/zero -o "$TMP/zero.npy" > /dev/null 2> "$TMP/zero.err"
  rc=$?
  [[ $rc == 1 ]] || fail "${tool##*/} --input a=/dev/zero: exit status $rc, not 1"
  grep -qF "error: /dev/zero: not a .npy file (bad magic string)" "$TMP/zero.err" ||
    fail "${tool##*/} --input a=/dev/zero: stderr is '$(head -c 500 "$TMP/zero.err")'"
done
"$RUN" "$TMP/good_merged.json" --max-memory 64 > /dev/null 2> "$TMP/mem.err"
rc=$?
[[ $rc == 1 ]] || fail "t2s-run --max-memory 64: exit status $rc, not 1"
grep -qE "error: the run needs [0-9]+ bytes of storage \(the largest, .*\), more than the limit of 64 bytes \(t2s-run --max-memory\) \[run-memory\]$" "$TMP/mem.err" ||
  fail "t2s-run --max-memory 64: stderr is '$(cat "$TMP/mem.err")'"

finish
