#!/usr/bin/env bash
# //tests/cli:cli_test: the command-line contract of t2s-parse, t2s-merge and t2s-stt (DESIGN.md
# section 5): exit 0 success, 1 wrong input, 2 wrong command line; outputs are written
# atomically.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

SPEC=testdata/specs/gemm.t2s
passed=0
failed=0
check() {  # check DESCRIPTION CONDITION-RESULT(0/1) [DETAILS...]
  local what="$1" ok="$2"
  shift 2
  if ((ok == 0)); then
    passed=$((passed + 1))
    echo "ok   $what"
  else
    failed=$((failed + 1))
    echo "FAIL: $what" >&2
    local d
    for d in "$@"; do echo "    $d" >&2; done
    if [[ -s "$TMP/err" ]]; then
      echo "    --- stderr ---" >&2
      sed 's/^/    | /' "$TMP/err" | head -n 20 >&2
    fi
  fi
}
t() { "$@" && echo 0 || echo 1; }  # condition -> 0/1 without tripping set -e

# A wrong spec of our own, so this test does not depend on testdata/errors.
BAD="$TMP/bad_spec.t2s"
printf 'Var i;\nFunc f(Int(32), {i});\nf(i) = i +;\n' >"$BAD"

# --help
run_tool "$TMP/out" "$TMP/err" --help
cat "$TMP/out" "$TMP/err" >"$TMP/help"
check "--help exits 0" "$(t test "$rc" -eq 0)" "status $rc"
for opt in -o -D -I --version; do
  check "--help mentions $opt" "$(t grep -q -- "$opt" "$TMP/help")"
done

# --version
run_tool "$TMP/out" "$TMP/err" --version
check "--version exits 0" "$(t test "$rc" -eq 0)" "status $rc"
check "--version prints something" "$(t test -s "$TMP/out" -o -s "$TMP/err")"

# Bad command lines: exit 2.
run_tool "$TMP/out" "$TMP/err" --no-such-flag "$SPEC"
check "unknown flag exits 2" "$(t test "$rc" -eq 2)" "status $rc"
check "unknown flag: nothing on stdout" "$(t test ! -s "$TMP/out")"
run_tool "$TMP/out" "$TMP/err" "$SPEC" -D
check "-D without a value exits 2" "$(t test "$rc" -eq 2)" "status $rc"

# Success: to stdout, to -o, from stdin.
run_tool "$TMP/out" "$TMP/err" "$SPEC"
check "valid spec exits 0" "$(t test "$rc" -eq 0)" "status $rc"
check "valid spec writes JSON to stdout" "$(t grep -q '^[[:space:]]*{' "$TMP/out")"
cp "$TMP/out" "$TMP/stdout.json"

rm -rf "$TMP/okdir" && mkdir "$TMP/okdir"
run_tool "$TMP/out" "$TMP/err" "$SPEC" -o "$TMP/okdir/ir.json"
check "-o: exits 0" "$(t test "$rc" -eq 0)" "status $rc"
check "-o: nothing on stdout" "$(t test ! -s "$TMP/out")"
check "-o: same bytes as stdout" "$(t cmp -s "$TMP/okdir/ir.json" "$TMP/stdout.json")"
left="$(ls -A "$TMP/okdir" | tr '\n' ' ')"
check "-o: no temporary files left behind" "$(t test "$left" = "ir.json ")" "directory holds: $left"

run_tool "$TMP/out" "$TMP/err" - <"$SPEC"
check "stdin (-): exits 0" "$(t test "$rc" -eq 0)" "status $rc"
check "stdin (-): same bytes as the named file" "$(t cmp -s "$TMP/out" "$TMP/stdout.json")"

# Missing input file: exit 1, the message names the file.
missing=testdata/specs/no_such_spec.t2s
run_tool "$TMP/out" "$TMP/err" "$missing"
check "missing input file exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "missing input file: message names the file" "$(t grep -qF "$missing" "$TMP/err")"
check "missing input file: nothing on stdout" "$(t test ! -s "$TMP/out")"

# A directory as input: exit 1 with a message saying so (not an empty spec).
run_tool "$TMP/out" "$TMP/err" "$TMP"
check "directory as input exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "directory as input: says it is a directory" "$(t grep -qF "is a directory" "$TMP/err")"

# -o naming the input itself: exit 1, the spec is left as it was.
cp "$SPEC" "$TMP/self.t2s"
run_tool "$TMP/out" "$TMP/err" "$TMP/self.t2s" -o "$TMP/self.t2s"
check "-o equal to the input exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "-o equal to the input: spec untouched" "$(t cmp -s "$SPEC" "$TMP/self.t2s")"

# -o into a directory that does not exist: fails (1 or 2), creates nothing.
run_tool "$TMP/out" "$TMP/err" "$SPEC" -o "$TMP/no_such_dir/ir.json"
check "-o into a missing directory fails with 1 or 2" "$(t test "$rc" -eq 1 -o "$rc" -eq 2)" "status $rc"
check "-o into a missing directory creates nothing" "$(t test ! -e "$TMP/no_such_dir")"

# A wrong spec: exit 1, nothing on stdout, a diagnostic naming the file.
run_tool "$TMP/out" "$TMP/err" "$BAD"
check "wrong spec exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "wrong spec: nothing on stdout" "$(t test ! -s "$TMP/out")"
check "wrong spec: first stderr line is PATH:LINE:COL: error: ..." \
  "$(t grep -qE "^$BAD:[0-9]+:[0-9]+: error: .+\[[^]]+\]\$" <(head -n 1 "$TMP/err"))" \
  "got: $(head -n 1 "$TMP/err")"

# Atomic output: on a wrong spec, a pre-existing -o file is left untouched and nothing is added.
rm -rf "$TMP/atomic" && mkdir "$TMP/atomic"
printf 'previous contents\n' >"$TMP/atomic/existing.json"
cp "$TMP/atomic/existing.json" "$TMP/existing.orig"
run_tool "$TMP/out" "$TMP/err" "$BAD" -o "$TMP/atomic/existing.json"
check "wrong spec with -o existing.json exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "wrong spec leaves existing -o file untouched" \
  "$(t cmp -s "$TMP/atomic/existing.json" "$TMP/existing.orig")"
left="$(ls -A "$TMP/atomic" | tr '\n' ' ')"
check "wrong spec leaves no temporary files" "$(t test "$left" = "existing.json ")" "directory holds: $left"

# t2s-merge on IR: diagnostics name the spec line; --spec shows the spec's line and a caret.
URE_BAD=testdata/errors/ure_simple_args.t2s
"$T2S_PARSE" "$URE_BAD" -o "$TMP/ure_bad.json"
run_merge "$TMP/out" "$TMP/err" "$TMP/ure_bad.json"
check "t2s-merge of wrong IR exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "t2s-merge of IR without --spec: <spec>:LINE:COL" \
  "$(t grep -q '^<spec>:5:1: error: .*\[ure-simple-args\]$' <(head -n 1 "$TMP/err"))" \
  "got: $(head -n 1 "$TMP/err")"
run_merge "$TMP/out" "$TMP/err" --spec "$URE_BAD" "$TMP/ure_bad.json"
check "t2s-merge --spec: names the spec file" \
  "$(t grep -q "^$URE_BAD:5:1: error: .*\[ure-simple-args\]\$" <(head -n 1 "$TMP/err"))" \
  "got: $(head -n 1 "$TMP/err")"
check "t2s-merge --spec: shows the source line" \
  "$(t test "$(sed -n 2p "$TMP/err")" = "$(sed -n 5p "$URE_BAD")")"
# A stage it does not take.
"$T2S_MERGE" "$SPEC" -o "$TMP/merged.json"
run_merge "$TMP/out" "$TMP/err" "$TMP/merged.json"
check "t2s-merge of merged IR exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "t2s-merge of merged IR: says which stage it takes" \
  "$(t grep -q "t2s-merge takes parsed IR, not the 'merged' stage \[stage\]" "$TMP/err")"
# Empty input (a pipe whose first tool failed): says the input is empty, not "no realize call".
: >"$TMP/empty"
run_merge "$TMP/out" "$TMP/err" - <"$TMP/empty"
check "t2s-merge of empty input exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "t2s-merge of empty input: says the input is empty" \
  "$(t grep -qxF "<stdin>: error: the input is empty; t2s-merge takes a spec or parsed IR (in a pipe, the tool before this one may have failed) [input-empty]" "$TMP/err")" \
  "got: $(head -n 1 "$TMP/err")"
# A spec and its parsed IR merge to the same bytes.
"$T2S_PARSE" "$SPEC" | "$T2S_MERGE" - >"$TMP/merged_pipe.json"
check "t2s-parse | t2s-merge equals t2s-merge SPEC" "$(t cmp -s "$TMP/merged.json" "$TMP/merged_pipe.json")"

# t2s-stt: its options, --report, the stages it takes, atomic output, stdin.
run_stt "$TMP/out" "$TMP/err" --help
cat "$TMP/out" "$TMP/err" >"$TMP/help"
check "t2s-stt --help exits 0" "$(t test "$rc" -eq 0)" "status $rc"
for opt in --report -o --spec; do
  check "t2s-stt --help mentions $opt" "$(t grep -q -- "$opt" "$TMP/help")"
done

run_stt "$TMP/stt.json" "$TMP/err" "$SPEC"
check "t2s-stt SPEC exits 0" "$(t test "$rc" -eq 0)" "status $rc"
check "t2s-stt SPEC: nothing on stderr" "$(t test ! -s "$TMP/err")"
check "t2s-stt SPEC writes the stt stage" "$(t grep -q '"stage": "stt"' "$TMP/stt.json")"
run_stt "$TMP/stt_report.json" "$TMP/report" --report "$SPEC"
check "t2s-stt --report exits 0" "$(t test "$rc" -eq 0)" "status $rc"
check "t2s-stt --report: same IR on stdout as without --report" \
  "$(t cmp -s "$TMP/stt.json" "$TMP/stt_report.json")"
check "t2s-stt --report: the table is on stderr (PE array, registers, totals)" \
  "$(t grep -q '^kernel A: PE array j 4 x i 4 (16 PEs), 8 time steps' "$TMP/report")" \
  "stderr: $(head -n 1 "$TMP/report")"
check "t2s-stt --report: the table lists the registers and the totals" \
  "$(t grep -qE '^  total: [0-9]+ values naive, [0-9]+ allocated$' "$TMP/report")"
check "t2s-stt --report: no JSON on stderr" "$(t test "$(grep -c '"stage"' "$TMP/report")" -eq 0)"

# From merged IR (as in a pipe), from parsed IR, from stdin: the same bytes.
run_stt "$TMP/out" "$TMP/err" "$TMP/merged.json"
check "t2s-stt of merged IR equals t2s-stt SPEC" "$(t cmp -s "$TMP/out" "$TMP/stt.json")"
"$T2S_PARSE" "$SPEC" -o "$TMP/parsed.json"
run_stt "$TMP/out" "$TMP/err" "$TMP/parsed.json"
check "t2s-stt of parsed IR equals t2s-stt SPEC" "$(t cmp -s "$TMP/out" "$TMP/stt.json")"
run_stt "$TMP/out" "$TMP/err" - <"$SPEC"
check "t2s-stt - < SPEC: exits 0" "$(t test "$rc" -eq 0)" "status $rc"
check "t2s-stt - < SPEC: same bytes as the named spec" "$(t cmp -s "$TMP/out" "$TMP/stt.json")"
"$T2S_MERGE" "$SPEC" | "$T2S_STT" - >"$TMP/stt_pipe.json"
check "t2s-merge SPEC | t2s-stt - equals t2s-stt SPEC" "$(t cmp -s "$TMP/stt_pipe.json" "$TMP/stt.json")"

# A stage it does not take: its own output.
run_stt "$TMP/out" "$TMP/err" "$TMP/stt.json"
check "t2s-stt of stt IR exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "t2s-stt of stt IR: nothing on stdout" "$(t test ! -s "$TMP/out")"
check "t2s-stt of stt IR: says which stage it takes" \
  "$(t grep -q "t2s-stt takes parsed or merged IR, not the 'stt' stage \[stage\]" "$TMP/err")"

# A spec that t2s-stt refuses: exit 1, a located stt diagnostic, no -o file, nothing left over.
STT_BAD=testdata/errors/stt_space_loops_not_innermost.t2s
rm -rf "$TMP/sttdir" && mkdir "$TMP/sttdir"
run_stt "$TMP/out" "$TMP/err" "$STT_BAD" -o "$TMP/sttdir/out.json"
check "t2s-stt of a wrong spec exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "t2s-stt of a wrong spec: PATH:LINE:COL: error: ... [stt-space-loops]" \
  "$(t grep -qE "^$STT_BAD:[0-9]+:[0-9]+: error: .+\[stt-space-loops\]\$" <(head -n 1 "$TMP/err"))" \
  "got: $(head -n 1 "$TMP/err")"
left="$(ls -A "$TMP/sttdir" | tr '\n' ' ')"
check "t2s-stt of a wrong spec writes no -o file" "$(t test -z "$left")" "directory holds: $left"
check "t2s-stt of a wrong spec: nothing on stdout" "$(t test ! -s "$TMP/out")"

# IR of a wrong spec: without --spec the diagnostic says <spec>; with --spec it names the file.
"$T2S_MERGE" "$STT_BAD" -o "$TMP/stt_bad_merged.json"
run_stt "$TMP/out" "$TMP/err" "$TMP/stt_bad_merged.json"
check "t2s-stt of wrong merged IR exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "t2s-stt of merged IR without --spec: <spec>:LINE:COL" \
  "$(t grep -qE '^<spec>:[0-9]+:[0-9]+: error: .*\[stt-space-loops\]$' <(head -n 1 "$TMP/err"))" \
  "got: $(head -n 1 "$TMP/err")"
run_stt "$TMP/out" "$TMP/err" --spec "$STT_BAD" "$TMP/stt_bad_merged.json"
check "t2s-stt --spec: names the spec file" \
  "$(t grep -qE "^$STT_BAD:[0-9]+:[0-9]+: error: .*\[stt-space-loops\]\$" <(head -n 1 "$TMP/err"))" \
  "got: $(head -n 1 "$TMP/err")"

# t2s-emit --host: both outputs or neither.
T2S_EMIT_BIN="$(dirname "$T2S_STT")/t2s-emit"
E="$TMP/emit_outputs" && rm -rf "$E" && mkdir "$E"
rc=0
"$T2S_EMIT_BIN" --target opencl "$SPEC" -o "$E/nodir/k.cl" --host "$E/h.cpp" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "t2s-emit -o into a missing directory exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "t2s-emit: the failed -o leaves no --host file" "$(t test ! -e "$E/h.cpp")"
rc=0
"$T2S_EMIT_BIN" --target opencl "$SPEC" -o "$E/x" --host "$E/./x" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "t2s-emit -o and --host at one path exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "t2s-emit -o and --host at one path: the message" \
  "$(t grep -qxF "t2s-emit: error: '$E/./x' is given for two outputs of one run; refusing to write either" "$TMP/err")" \
  "got: $(cat "$TMP/err")"
check "t2s-emit -o and --host at one path: nothing written" "$(t test -z "$(ls -A "$E")")"
rc=0
"$T2S_EMIT_BIN" --target opencl "$SPEC" -o "$E/k.cl" --host "$E/h.cpp" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "t2s-emit -o and --host: both written" "$(t test "$rc" -eq 0 -a -s "$E/k.cl" -a -s "$E/h.cpp")"

# t2s-emit --checked (cpp only): every access through the checked accessors; without it, GEMM's
# accesses are all proved in bounds (docs/emulation.md).
rc=0
"$T2S_EMIT_BIN" --target opencl --checked "$SPEC" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "t2s-emit --checked with --target opencl exits 2" "$(t test "$rc" -eq 2)" "status $rc"
"$T2S_EMIT_BIN" --target cpp --checked "$SPEC" -o "$E/checked.cpp"
"$T2S_EMIT_BIN" --target cpp "$SPEC" -o "$E/proved.cpp"
check "t2s-emit --checked: checked register reads" \
  "$(t grep -qF 't2s_C_shreg_rg.read({i, j, 0})' "$E/checked.cpp")"
check "t2s-emit: GEMM's register reads proved, unchecked" \
  "$(t grep -qF 't2s_C_shreg_rg.get(i + 4 * j)' "$E/proved.cpp")"
check "t2s-emit: no checked access left in GEMM's kernel" \
  "$(t test -z "$(sed -n '/^void t2s_A_kn/,/^}/p' "$E/proved.cpp" | grep -E 'read\(\{|locate_write')")"

# -o respects what is already at the path (all inside $TMP): a FIFO is written through and
# stays a FIFO, a symbolic link is followed (the link stays, its target gets the output), a
# read-only file, a directory and a dangling link are refused (exit 1) and left as they were,
# and a replaced file keeps its permissions.
W="$TMP/outputs" && rm -rf "$W" && mkdir "$W"
mkfifo "$W/fifo"
cat "$W/fifo" >"$W/fifo.out" &
reader=$!
run_tool "$TMP/out" "$TMP/err" "$SPEC" -o "$W/fifo"
wait "$reader"
check "-o FIFO exits 0" "$(t test "$rc" -eq 0)" "status $rc"
check "-o FIFO: still a FIFO" "$(t test -p "$W/fifo")"
check "-o FIFO: the output went through it" "$(t cmp -s "$W/fifo.out" "$TMP/stdout.json")"
echo old >"$W/target.json"
ln -s target.json "$W/link"
run_tool "$TMP/out" "$TMP/err" "$SPEC" -o "$W/link"
check "-o symlink exits 0" "$(t test "$rc" -eq 0)" "status $rc"
check "-o symlink: still a link" "$(t test -L "$W/link")"
check "-o symlink: its target has the output" "$(t cmp -s "$W/target.json" "$TMP/stdout.json")"
echo ro >"$W/ro.json" && chmod 444 "$W/ro.json"
run_tool "$TMP/out" "$TMP/err" "$SPEC" -o "$W/ro.json"
check "-o read-only file exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "-o read-only file: the message" \
  "$(t grep -qxF "t2s-parse: error: cannot write '$W/ro.json': it is read-only" "$TMP/err")" \
  "got: $(cat "$TMP/err")"
check "-o read-only file: left as it was" "$(t test "$(cat "$W/ro.json")" = ro)"
mkdir "$W/dir"
run_tool "$TMP/out" "$TMP/err" "$SPEC" -o "$W/dir"
check "-o directory exits 1" "$(t test "$rc" -eq 1)" "status $rc"
ln -s missing "$W/dangling"
run_tool "$TMP/out" "$TMP/err" "$SPEC" -o "$W/dangling"
check "-o dangling link exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "-o dangling link: still dangling" "$(t test -L "$W/dangling" -a ! -e "$W/dangling")"
echo x >"$W/rw.json" && chmod 640 "$W/rw.json"
run_tool "$TMP/out" "$TMP/err" "$SPEC" -o "$W/rw.json"
check "-o existing file keeps its permissions" "$(t test "$(stat -c %a "$W/rw.json")" = 640)"

# t2s-vec and t2s-gather: the whole pipe passes a program without vectorize / gather through
# (only the stage changes); t2s-vec vectorizes a program with vectorize directives.
T2S_VEC="$(dirname "$T2S_STT")/t2s-vec"
T2S_GATHER="$(dirname "$T2S_STT")/t2s-gather"
rc=0
"$T2S_STT" "$SPEC" | "$T2S_VEC" | "$T2S_GATHER" >"$TMP/gathered.json" 2>"$TMP/err" || rc=$?
check "t2s-stt | t2s-vec | t2s-gather exits 0" "$(t test "$rc" -eq 0)" "status $rc: $(cat "$TMP/err")"
check "t2s-gather writes the gathered stage" \
  "$(t grep -q '"stage": "gathered"' "$TMP/gathered.json")"
"$T2S_STT" "$SPEC" -o "$TMP/stt_ref.json"
check "t2s-vec and t2s-gather change nothing but the stage" \
  "$(t cmp -s <(grep -v '"stage"' "$TMP/stt_ref.json") <(grep -v '"stage"' "$TMP/gathered.json"))"
VG=testdata/specs/vectorize_gather.t2s
rc=0
"$T2S_STT" "$VG" -o "$TMP/vg_stt.json"
"$T2S_VEC" --report --spec "$VG" "$TMP/vg_stt.json" -o "$TMP/vg_vec.json" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "t2s-vec vectorizes a program with vectorize directives (exit 0)" "$(t test "$rc" -eq 0)" \
  "status $rc: $(cat "$TMP/err")"
check "t2s-vec writes the vectorized stage" "$(t grep -q '"stage": "vectorized"' "$TMP/vg_vec.json")"
check "t2s-vec --report: the chain computed lane by lane" \
  "$(t grep -qF "kernel A: kk 4 (innermost first): 4 lanes, vectorized" "$TMP/err")" "$(cat "$TMP/err")"
# Several vectorized loops: tensors, one dimension per loop (innermost first).
rc=0
"$T2S_VEC" --report testdata/specs/vec_tensor.t2s -o "$TMP/tensor.json" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "t2s-vec --report vec_tensor.t2s exits 0" "$(t test "$rc" -eq 0)" "status $rc: $(cat "$TMP/err")"
check "t2s-vec --report: a tensor of 4 x 4 lanes" \
  "$(t grep -qxF "kernel A: kkk 4 x jjj 4 (innermost first): 16 lanes, vectorized as tensors of 4 x 4" "$TMP/err")" \
  "$(cat "$TMP/err")"
check "vec_tensor's registers are tensors" \
  "$(t grep -qF '"type": "float32x4x4"' "$TMP/tensor.json")" "$(cat "$TMP/tensor.json")"
# Channel lane matching (seed 002 1.1): a reader wider than the writer concatenates reads, a
# narrower one takes the writer's vector as slices; --report says which.
for pair in "vec_channel_widen:channel loadA_to_A: float32x4 (the reader concatenates 2 reads of 4)" \
  "vec_channel_narrow:channel c_to_drain: float32x4 (the writer sends its 8 lanes as 2 slices of 4)"; do
  spec="testdata/specs/${pair%%:*}.t2s"
  rc=0
  "$T2S_VEC" --report "$spec" -o "$TMP/lanes.json" >"$TMP/out" 2>"$TMP/err" || rc=$?
  check "t2s-vec --report $spec exits 0" "$(t test "$rc" -eq 0)" "status $rc: $(cat "$TMP/err")"
  check "t2s-vec --report $spec: how the channel's lanes were matched" \
    "$(t grep -qxF "${pair#*:}" "$TMP/err")" "$(cat "$TMP/err")"
done
# A width OpenCL cannot express (more than 32 lanes): emit-type at the vectorize directive,
# with a note where the value is computed, and no output file; the cpp target emits it.
T2S_EMIT="$(dirname "$T2S_STT")/t2s-emit"
cat >"$TMP/w48.t2s" <<'SPEC_END'
ImageParam x(Float(32), 2, "x");
Var i, j;
Func f(Place::Device);
f(i, j) = x(i, j) * 2.0f;
f.vectorize(i);
f.realize({48, 3});
SPEC_END
rc=0
"$T2S_EMIT" --target opencl "$TMP/w48.t2s" -o "$TMP/w48.cl" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "t2s-emit --target opencl of 48 lanes exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "48 lanes: emit-type at the vectorize directive" \
  "$(t grep -qxF "$TMP/w48.t2s:5:3: error: vectorize: the opencl target cannot express 48 lanes (vector type int32x48; it takes 2 to 32 lanes) [emit-type]" "$TMP/err")" \
  "$(cat "$TMP/err")"
check "48 lanes: a note where the value is computed" \
  "$(t grep -qxF "$TMP/w48.t2s:4:1: note: a value of that type is computed here" "$TMP/err")" \
  "$(cat "$TMP/err")"
check "48 lanes: no OpenCL file" "$(t test ! -e "$TMP/w48.cl")"
rc=0
"$T2S_EMIT" --target cpp "$TMP/w48.t2s" -o "$TMP/w48.cpp" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "the cpp target emits 48 lanes" "$(t test "$rc" -eq 0)" "status $rc: $(cat "$TMP/err")"
# Tensors (two vectorized loops): rows of a native width lift the 32-lane limit (16 x 4 = 64
# lanes emit); rows of 5 lanes do not (5 x 8 = 40: emit-type at the vectorize directive).
cat >"$TMP/t64.t2s" <<'SPEC_END'
ImageParam x(Float(32), 2, "x");
Var i, j;
Func f(Place::Device);
f(i, j) = x(i, j) * 2.0f;
f.vectorize(i).vectorize(j);
f.realize({16, 4});
SPEC_END
rc=0
"$T2S_EMIT" --target opencl "$TMP/t64.t2s" -o "$TMP/t64.cl" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "t2s-emit --target opencl of a 16 x 4 tensor exits 0" "$(t test "$rc" -eq 0)" \
  "status $rc: $(cat "$TMP/err")"
check "16 x 4 tensor: rows loaded with vload16" "$(t grep -qF "vload16(0, x + 0 + 16 * 1)" "$TMP/t64.cl")" \
  "$(cat "$TMP/t64.cl" 2>/dev/null)"
sed -e 's/16, 4/5, 8/' "$TMP/t64.t2s" >"$TMP/t40.t2s"
rc=0
"$T2S_EMIT" --target opencl "$TMP/t40.t2s" -o "$TMP/t40.cl" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "t2s-emit --target opencl of a 5 x 8 tensor exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "5 x 8 tensor: emit-type at the vectorize directive" \
  "$(t grep -qxF "$TMP/t40.t2s:5:3: error: vectorize: the opencl target cannot express 40 lanes (tensor type int32x5x8: its rows of 5 lanes have no native type, and a struct of lanes takes 2 to 32) [emit-type]" "$TMP/err")" \
  "$(cat "$TMP/err")"
check "5 x 8 tensor: no OpenCL file" "$(t test ! -e "$TMP/t40.cl")"
rc=0
"$T2S_VEC" "$TMP/gathered.json" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "t2s-vec of gathered IR exits 1" "$(t test "$rc" -eq 1)" "status $rc"
# t2s-emit: the Unix pipe gives the .cl the Bazel pipeline gives (//testdata:gemm.cl).
T2S_EMIT="$(dirname "$T2S_STT")/t2s-emit"
T2S_PARSE_BIN="$(dirname "$T2S_STT")/t2s-parse"
T2S_MERGE_BIN="$(dirname "$T2S_STT")/t2s-merge"
rc=0
"$T2S_PARSE_BIN" "$SPEC" | "$T2S_MERGE_BIN" | "$T2S_STT" | "$T2S_VEC" | "$T2S_GATHER" |
  "$T2S_EMIT" --target opencl >"$TMP/pipe.cl" 2>"$TMP/err" || rc=$?
check "t2s-parse | ... | t2s-emit --target opencl exits 0" "$(t test "$rc" -eq 0)" \
  "status $rc: $(cat "$TMP/err")"
check "the pipe's .cl equals the Bazel pipeline's testdata/gemm.cl" \
  "$(t cmp -s "$TMP/pipe.cl" testdata/gemm.cl)"
rc=0
"$T2S_EMIT" "$SPEC" --target opencl --host "$TMP/host.cpp" -o "$TMP/spec.cl" 2>"$TMP/err" || rc=$?
check "t2s-emit SPEC lowers it through every stage (same .cl)" \
  "$(t cmp -s "$TMP/spec.cl" testdata/gemm.cl)" "status $rc: $(cat "$TMP/err")"
check "t2s-emit --host writes the Bazel pipeline's host program" \
  "$(t cmp -s "$TMP/host.cpp" testdata/gemm_host.cpp)"
rc=0
"$T2S_EMIT" "$SPEC" --target cpp --host "$TMP/h2.cpp" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "t2s-emit --host without --target opencl exits 2" "$(t test "$rc" -eq 2)" "status $rc"
check "t2s-emit --host without opencl: says why" \
  "$(t grep -qF -- '--host: only valid with --target opencl' "$TMP/err")" "$(cat "$TMP/err")"
check "t2s-emit usage error writes nothing" "$(t test ! -s "$TMP/out" -a ! -e "$TMP/h2.cpp")"
rc=0
"$T2S_EMIT" "$SPEC" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "t2s-emit without --target exits 2" "$(t test "$rc" -eq 2)" "status $rc"
rc=0
GN=testdata/errors/gather_not_a_loop.t2s
"$T2S_EMIT" "$GN" --target cpp -o "$TMP/gn.cpp" 2>"$TMP/err" || rc=$?
check "t2s-emit of a spec t2s-gather refuses exits 1" "$(t test "$rc" -eq 1)" "status $rc"
check "t2s-emit: t2s-gather's located gather-loop error" \
  "$(t grep -qxF "$GN:17:9: error: gather: 'drainer' has no loop 'k' around its read of channel 'c_to_drainer'; its loops there are j, i [gather-loop]" "$TMP/err")" \
  "$(cat "$TMP/err")"
check "t2s-emit writes nothing when it fails" "$(t test ! -e "$TMP/gn.cpp")"
# vectorize_gather's drainer reads the channel array of A's PEs (inherited schedule) and
# gathers it along i: the whole pipe emits it.
rc=0
"$T2S_EMIT" "$VG" --target cpp -o "$TMP/vg.cpp" 2>"$TMP/err" || rc=$?
check "t2s-emit of vectorize_gather (gathered) exits 0" "$(t test "$rc" -eq 0)" "status $rc: $(cat "$TMP/err")"
rc=0
"$T2S_EMIT" "$TMP/stt_ref.json" --target text >"$TMP/stt.txt" 2>"$TMP/err" || rc=$?
check "t2s-emit of stt IR emits that stage as it is" \
  "$(t grep -q 'stage stt' "$TMP/stt.txt")" "status $rc: $(cat "$TMP/err")"

# Input size limit (issue 16, docs/limits.md): an input larger than 16 MiB is refused after
# reading that much (/dev/zero, a file or standard input), exit 1.
run_tool "$TMP/out" "$TMP/err" /dev/zero
check "t2s-parse /dev/zero: exit 1, the limit named" \
  "$( ((rc == 1)) && t grep -qxF "t2s-parse: error: cannot read '/dev/zero': it is larger than \
16777216 bytes, the limit for this input" "$TMP/err" || echo 1)" "status $rc: $(cat "$TMP/err")"
rc=0
head -c 16777217 /dev/zero | "$T2S_PARSE" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "t2s-parse of 16 MiB + 1 on standard input: exit 1" \
  "$( ((rc == 1)) && t grep -qF "cannot read standard input: it is larger than" "$TMP/err" || echo 1)" \
  "status $rc: $(cat "$TMP/err")"

# The driver's options (docs/tools.md, "The lowering options"): --dump-after prints the IR of a
# stage as its pass makes it (the bytes the stage's tool writes, after a header line), a stage no
# pass made gets a note, and --time-passes lists the passes run, failed runs included.
rc=0
"$T2S_STT" "$SPEC" -o "$TMP/stt_tool.json" 2>"$TMP/err" || rc=$?
"$T2S_MERGE" "$SPEC" -o "$TMP/merged_tool.json" 2>>"$TMP/err" || rc=$?
check "t2s-stt and t2s-merge of $SPEC exit 0" "$(t test "$rc" -eq 0)" "status $rc"
rc=0
"$T2S_EMIT" --target text --dump-after stt --dump-after merged "$SPEC" -o "$TMP/dumped.txt" \
  2>"$TMP/dump.err" || rc=$?
{ echo "// t2s-emit --dump-after merged"; cat "$TMP/merged_tool.json"
  echo "// t2s-emit --dump-after stt"; cat "$TMP/stt_tool.json"; } >"$TMP/dump.want"
check "t2s-emit --dump-after stt --dump-after merged: exit 0, each stage's IR as its tool writes it, in pass order" \
  "$( ((rc == 0)) && t cmp -s "$TMP/dump.err" "$TMP/dump.want" || echo 1)" \
  "status $rc: $(diff "$TMP/dump.want" "$TMP/dump.err" | head -n 5)"
rc=0
"$T2S_VEC" --dump-after merged --dump-after vectorized "$TMP/stt_tool.json" -o "$TMP/vec.json" \
  2>"$TMP/dump.err" || rc=$?
check "t2s-vec of stt IR --dump-after merged: a note (no pass made it), the vectorized stage dumped" \
  "$( ((rc == 0)) &&
    grep -qxF 't2s-vec: note: --dump-after merged: no pass of this run made the merged stage' \
      "$TMP/dump.err" && grep -qxF '// t2s-vec --dump-after vectorized' "$TMP/dump.err" &&
    echo 0 || echo 1)" \
  "status $rc: $(head -c 300 "$TMP/dump.err")"
rc=0
"$T2S_EMIT" --target text --dump-after staged "$SPEC" >"$TMP/out" 2>"$TMP/err" || rc=$?
check "--dump-after with a stage that does not exist exits 2" "$(t test "$rc" -eq 2)" "status $rc"
rc=0
"$T2S_GATHER" --time-passes "$SPEC" -o "$TMP/gathered.json" 2>"$TMP/times.err" || rc=$?
check "t2s-gather --time-passes: exit 0, one line per pass and the total" \
  "$( ((rc == 0)) && t test "$(grep -cE '^  (merge|stt|vec|gather|total) +[0-9]+\.[0-9]{3} ms$' "$TMP/times.err")" -eq 5 || echo 1)" \
  "status $rc: $(cat "$TMP/times.err")"
rc=0
"$T2S_STT" --time-passes "$BAD" -o "$TMP/out.json" 2>"$TMP/times.err" || rc=$?
check "t2s-stt --time-passes of a wrong spec: exit 1, the error, then the times (no pass ran)" \
  "$( ((rc == 1)) && t grep -qxF '  (no pass ran)' "$TMP/times.err" || echo 1)" \
  "status $rc: $(cat "$TMP/times.err")"

echo "cli_test: $passed ok, $failed failed"
((failed == 0))
