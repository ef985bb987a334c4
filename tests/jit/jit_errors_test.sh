#!/bin/bash
# tests/jit/jit_errors_test.sh: t2s-run --engine jit fails as --engine interp does. Each case is a
# golden IR file with one edit (the cases of tests/emit/emulation_errors_test.sh, which documents
# each edit): both engines must exit 1 with the same located diagnostic on stderr. Then the
# engine's own refusals and options: headers missing (exit 1, a clear message), --engine usage
# (exit 2), --check, --print, --input and --timings under --engine jit.
#
# Run by hand from the repository root after `bazel build //tools:t2s-run`:
#   bash tests/jit/jit_errors_test.sh
set -uo pipefail
if [[ -n "${TEST_SRCDIR:-}" && -d "${TEST_SRCDIR}/t2s" ]]; then
  cd "${TEST_SRCDIR}/t2s"
  RUN="$PWD/tools/t2s-run"
else
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
  RUN="$PWD/bazel-bin/tools/t2s-run"
fi
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
DIR=testdata/golden
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

derive() {
  local base="$1" name="$2" script="$3"
  sed "$script" "$DIR/$base" > "$TMP/$name.json"
  local changed
  changed=$(diff "$DIR/$base" "$TMP/$name.json" | grep -c '^<')
  [[ "$changed" == 1 ]] || fail "$name: the edit '$script' changed $changed lines of $base, not 1"
}
derive isolate_consumer/merged.json deadlock_read '218s/"extent": "8"/"extent": "7"/'
derive isolate_consumer/merged.json channel_leftover '458s/"extent": "4"/"extent": "3"/'
derive isolate_consumer/merged.json input_bounds '218s/"extent": "8"/"extent": "9"/'
derive gemm_inherit_drainer/stt.json array_deadlock_write '338s/"extent": "2"/"extent": "1"/'
derive seed000_abc/stt.json fifo_overflow 's/"depth": 9,/"depth": 8,/'
derive seed000_abc/stt.json fifo_empty 's/"if": "i < 9"/"if": "i < 0"/'
derive seed000_abc/stt.json fifo_leftover 's/"if": "j < 9"/"if": "j < 10"/'
derive seed000_abc/stt.json register_bounds \
  's/select(1 <= i, pop(A_fifo, i - 1), 0)/select(0 <= i, pop(A_fifo, i - 1), 0)/'
declare -A rule=(
  [deadlock_read]=run-deadlock [channel_leftover]=run-channel-leftover
  [input_bounds]=run-input-bounds [array_deadlock_write]=run-deadlock
  [fifo_overflow]=run-fifo-overflow [fifo_empty]=run-fifo-empty
  [fifo_leftover]=run-fifo-leftover [register_bounds]=run-register-bounds
)
for name in deadlock_read channel_leftover input_bounds array_deadlock_write fifo_overflow \
  fifo_empty fifo_leftover register_bounds; do
  for engine in interp jit; do
    rm -f "$TMP/out.npy"
    # --jit-opt 0 (ignored by interp): these runs are about the errors, not the code's speed.
    timeout 120 "$RUN" "$TMP/$name.json" --engine "$engine" --jit-opt 0 -o "$TMP/out.npy" \
      > /dev/null 2> "$TMP/$name.$engine.err"
    rc=$?
    [[ $rc == 1 ]] || fail "$name --engine $engine: exit status $rc, not 1: $(head -c 2000 "$TMP/$name.$engine.err")"
    [[ ! -e "$TMP/out.npy" ]] || fail "$name --engine $engine: wrote an output despite the error"
  done
  grep -qE "^[^ ]+:[0-9]+:[0-9]+: error: .* \[${rule[$name]}\]$" "$TMP/$name.interp.err" ||
    fail "$name: interp says '$(head -n 1 "$TMP/$name.interp.err")', not a located [${rule[$name]}]"
  cmp -s "$TMP/$name.interp.err" "$TMP/$name.jit.err" ||
    fail "$name: jit says '$(cat "$TMP/$name.jit.err")', interp '$(cat "$TMP/$name.interp.err")'"
done

good="$DIR/gemm/gathered.json"
# Without clang's headers the engine refuses (exit 1, what to install), and never crashes.
T2S_LLVM_PREFIX="$TMP/no-llvm" "$RUN" "$good" --engine jit > /dev/null 2> "$TMP/nollvm.err"
rc=$?
[[ $rc == 1 ]] || fail "--engine jit without headers: exit status $rc, not 1"
grep -q "^t2s-run: error: --engine jit: clang's headers are missing (no $TMP/no-llvm/lib/clang/.*/include/stddef.h; install libclang-common-14-dev" \
  "$TMP/nollvm.err" || fail "--engine jit without headers: stderr is '$(cat "$TMP/nollvm.err")'"
# ... and auto runs the interpreter.
T2S_LLVM_PREFIX="$TMP/no-llvm" "$RUN" "$good" --engine auto -o "$TMP/auto.npy" ||
  fail "--engine auto without headers failed"

"$RUN" "$good" --engine fast > /dev/null 2> "$TMP/usage.err"
rc=$?
[[ $rc == 2 ]] || fail "--engine fast: exit status $rc, not 2"
grep -qF -- "--engine: fast not in {interp,jit,auto}" "$TMP/usage.err" ||
  grep -qF -- "--engine" "$TMP/usage.err" || fail "--engine fast: stderr is '$(cat "$TMP/usage.err")'"
# Into a file: `--help | grep -q` under pipefail fails when grep exits before t2s-run has
# written the rest of its help (SIGPIPE).
"$RUN" --help > "$TMP/help.txt" || fail "--help: exit status $?"
grep -q -- "--engine" "$TMP/help.txt" || fail "--help does not document --engine"
grep -q -- "--timings" "$TMP/help.txt" || fail "--help does not document --timings"

# The same options under jit: --input, --print, --check, --timings.
"$RUN" "$DIR/isolate_consumer/merged.json" --fill random --seed 9 -o "$TMP/c.npy" ||
  fail "writing an input"
"$RUN" "$DIR/gemm/gathered.json" --engine interp --input "a=$TMP/c.npy" > "$TMP/bad_input.interp" \
  2> "$TMP/bad_input.interp.err"
interp_rc=$?
"$RUN" "$DIR/gemm/gathered.json" --engine jit --input "a=$TMP/c.npy" > "$TMP/bad_input.jit" \
  2> "$TMP/bad_input.jit.err"
jit_rc=$?
[[ $interp_rc == 1 && $jit_rc == 1 ]] || fail "--input of the wrong shape: exit $interp_rc / $jit_rc"
cmp -s "$TMP/bad_input.interp.err" "$TMP/bad_input.jit.err" ||
  fail "--input of the wrong shape: jit says '$(cat "$TMP/bad_input.jit.err")'"
"$RUN" "$DIR/seed000_abc/gathered.json" --engine jit --check --timings --fill random --seed 4 \
  > "$TMP/check.jit" 2> "$TMP/check.jit.err" || fail "--engine jit --check: $(cat "$TMP/check.jit.err")"
"$RUN" "$DIR/seed000_abc/gathered.json" --engine interp --check --fill random --seed 4 \
  > "$TMP/check.interp" 2> "$TMP/check.interp.err" || fail "--engine interp --check failed"
cmp -s "$TMP/check.interp" "$TMP/check.jit" || fail "--engine jit --print differs from interp's"
grep -qE "^t2s-run: run: engine jit: compile [0-9.]+ s, run [0-9.]+ s$" "$TMP/check.jit.err" ||
  fail "--timings: stderr is '$(cat "$TMP/check.jit.err")'"
grep -qE "^t2s-run: check: engine jit: compile" "$TMP/check.jit.err" ||
  fail "--check runs the merged stage with the same engine: '$(cat "$TMP/check.jit.err")'"
grep -vE "^t2s-run: (run|check): engine" "$TMP/check.jit.err" > "$TMP/check.jit.note"
cmp -s "$TMP/check.interp.err" "$TMP/check.jit.note" ||
  fail "--check's note differs: '$(cat "$TMP/check.jit.note")' / '$(cat "$TMP/check.interp.err")'"

# --max-memory counts the storage of the engine that runs: GEMM's merged stage realizes A, B, C
# over 4 x 4 x 8 (3856 bytes in all for the interpreter); the JIT's emulation folds them along k
# to 4 x 4 x 1, 1 and 2 (976 bytes; docs/emulation.md, "Storage folding").
"$RUN" "$DIR/gemm/merged.json" --engine interp --max-memory 2000 -o "$TMP/mem.interp.npy" \
  2> "$TMP/mem.interp.err"
rc=$?
[[ $rc == 1 ]] && grep -qF "error: the run needs 3856 bytes of storage (the largest, realize of 'A': 1152 bytes), more than the limit of 2000 bytes (t2s-run --max-memory) [run-memory]" "$TMP/mem.interp.err" ||
  fail "--engine interp --max-memory 2000: exit $rc, '$(cat "$TMP/mem.interp.err")'"
"$RUN" "$DIR/gemm/merged.json" --engine jit --max-memory 2000 --fill random -o "$TMP/mem.jit.npy" ||
  fail "--engine jit --max-memory 2000 refused the folded storage"
"$RUN" "$DIR/gemm/merged.json" --engine interp --fill random -o "$TMP/mem.interp.npy" ||
  fail "--engine interp without a memory limit"
cmp -s "$TMP/mem.jit.npy" "$TMP/mem.interp.npy" || fail "folded storage: jit differs from interp"
"$RUN" "$DIR/gemm/merged.json" --engine jit --max-memory 900 -o "$TMP/mem.jit.npy" \
  2> "$TMP/mem.jit.err"
rc=$?
[[ $rc == 1 ]] && grep -qF "error: the run needs 976 bytes of storage (the largest, realize of 'C': 288 bytes), more than the limit of 900 bytes (t2s-run --max-memory) [run-memory]" "$TMP/mem.jit.err" ||
  fail "--engine jit --max-memory 900: exit $rc, '$(cat "$TMP/mem.jit.err")'"

if ((failures > 0)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "PASS: 8 run-time errors equal, headers missing, usage and options, --max-memory per engine"
