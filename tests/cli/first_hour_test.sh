#!/usr/bin/env bash
# //tests/cli:first_hour_test: what a new user meets first (issue 31), each with its exact
# message and exit status:
#   - `t2s-run SPEC --check` runs the last stage (gathered) and compares it with the merged stage;
#     `--stage` picks another; a merged run with --check, or a stage before the input's, is a
#     usage error (exit 2);
#   - a malformed --input is a usage error (exit 2);
#   - `t2s-emit --target opencl` (and report) of a program with no device Func: emit-no-device
#     at the realized Func's declaration, no output file; --target cpp still emits it;
#   - `-D N=8` with the spec's `#define N 16`: cc's warning with both places, the spec wins;
#   - `-o -` writes to standard output for every tool (no file named "-").
# Cost: about 15 tool runs on 4-element programs, a few seconds.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
BIN="$(dirname "$T2S_PARSE")"
RUN="$BIN/t2s-run"
EMIT="$BIN/t2s-emit"

failures=0
checks=0
# expect DESCRIPTION STATUS WANTED_STATUS [FILE LINE]: the status, and LINE (exactly) in FILE.
expect() {
  checks=$((checks + 1))
  if [[ "$2" != "$3" ]]; then
    echo "FAIL: $1: exit status $2, not $3" >&2
    [[ $# -ge 4 ]] && sed 's/^/    /' "$4" >&2
    failures=$((failures + 1))
    return
  fi
  if [[ $# -ge 5 ]] && ! grep -qxF -- "$5" "$4"; then
    echo "FAIL: $1: no line '$5' in:" >&2
    sed 's/^/    /' "$4" >&2
    failures=$((failures + 1))
  fi
}

cd "$TMP" || exit 1
SPEC="$OLDPWD/testdata/specs/isolate_consumer.t2s"

# --- t2s-run: --check checks the last stage ---------------------------------------------------
rc=0
"$RUN" "$SPEC" --check -o out.npy 2>err || rc=$?
expect "t2s-run SPEC --check" "$rc" 0 err \
  "t2s-run: check passed: collector of the gathered stage equals the merged reference (16 elements, bit for bit)"
rc=0
"$RUN" "$SPEC" --check --stage stt -o out.npy 2>err || rc=$?
expect "t2s-run SPEC --check --stage stt" "$rc" 0 err \
  "t2s-run: check passed: collector of the stt stage equals the merged reference (16 elements, bit for bit)"
rc=0
"$RUN" "$SPEC" --check --stage merged -o out.npy 2>err || rc=$?
expect "t2s-run SPEC --check --stage merged" "$rc" 2 err \
  "t2s-run: error: --check compares the run with the merged stage, and this run is of the merged stage itself: run a later stage (--stage stt, vectorized or gathered)"
[[ ! -e out2.npy ]] || expect "no output on a usage error" 1 0
"$BIN/t2s-stt" "$SPEC" -o stt.json
rc=0
"$RUN" stt.json --stage merged -o out.npy 2>err || rc=$?
expect "t2s-run stt.json --stage merged" "$rc" 2 err \
  "t2s-run: error: --stage merged: the input is already at the 'stt' stage (t2s-run lowers its input, never raises it)"
rc=0
"$RUN" stt.json --check -o out.npy 2>err || rc=$?
expect "t2s-run stt.json --check (IR runs at its own stage)" "$rc" 0 err \
  "t2s-run: check passed: collector of the stt stage equals the merged reference (16 elements, bit for bit)"

# --- t2s-run: a malformed --input is a usage error ---------------------------------------------
for bad in a a= =a.npy; do
  rc=0
  "$RUN" "$SPEC" --input "$bad" 2>err >/dev/null || rc=$?
  expect "t2s-run --input $bad" "$rc" 2 err "t2s-run: error: --input expects NAME=FILE.npy, not '$bad'"
done
rc=0
"$RUN" "$SPEC" --input a=x.npy --input a=y.npy 2>err >/dev/null || rc=$?
expect "t2s-run --input twice" "$rc" 2 err "t2s-run: error: --input gives 'a' twice"
rc=0
"$RUN" "$SPEC" --input a=missing.npy 2>err >/dev/null || rc=$?
expect "t2s-run --input of a missing file (exit 1: the file, not the command line)" "$rc" 1

# --- a program with no device Func --------------------------------------------------------------
cat >host.t2s <<'SPEC_END'
#define N 16
ImageParam x(Int(32), 1, "x");
Var i;
Func y(Int(32), {i}, Place::Host);
y(i) = x(i) * 2;
y.set_bounds(i, 0, N);
y.realize({N});
SPEC_END
for target in opencl report report-json; do
  rc=0
  "$EMIT" --target "$target" host.t2s -o host.out 2>err || rc=$?
  expect "t2s-emit --target $target of a host-only spec" "$rc" 1 err \
    "host.t2s:4:6: error: no Func of this program runs on the device, so the $([[ $target == opencl ]] && echo opencl || echo "report") target$([[ $target == opencl ]] || echo " (a model of the device)") has nothing to emit: place the systolic array on the device (Place::Device, or PLACE1 as T2SP's tests write it, in the declaration of 'y' and of the Funcs merged with it), or emit C++ for the host with --target cpp [emit-no-device]"
  [[ ! -e host.out ]] || expect "t2s-emit --target $target: no output file" 1 0
done
rc=0
"$RUN" --engine opencl host.t2s -o out.npy 2>err || rc=$?
expect "t2s-run --engine opencl of a host-only spec" "$rc" 1
grep -qF "[emit-no-device]" err || expect "t2s-run --engine opencl: emit-no-device" 1 0 err
rc=0
"$EMIT" --target cpp host.t2s -o host.cpp 2>err || rc=$?
expect "t2s-emit --target cpp of a host-only spec" "$rc" 0 err

# --- -D against the spec's #define --------------------------------------------------------------
rc=0
"$RUN" host.t2s -D N=8 --print >out 2>err || rc=$?
expect "-D N=8 with #define N 16: exit 0" "$rc" 0 err
expect "-D N=8 with #define N 16: the warning" 0 0 err \
  "host.t2s:1:9: warning: 'N' redefined; the later definition is used [macro-redefined]"
expect "-D N=8 with #define N 16: the note" 0 0 err \
  "note: the previous definition of 'N' is on the command line: -D N=8 (a spec's #define replaces a -D, as in cc; to let -D win, write #ifndef N around the #define)"
expect "-D N=8 with #define N 16: the spec wins" 0 0 out "y(15) = 30"
printf '#define M 2\n#define M 2\n#define M 3\n' >twice.t2s
cat host.t2s >>twice.t2s
rc=0
"$BIN/t2s-parse" twice.t2s -o twice.json 2>err || rc=$?
expect "#define M twice: exit 0" "$rc" 0 err
expect "#define M twice with another body: the warning" 0 0 err \
  "twice.t2s:3:9: warning: 'M' redefined; the later definition is used [macro-redefined]"
expect "#define M twice: the note at the first" 0 0 err \
  "twice.t2s:2:9: note: the previous definition of 'M' is here"
[[ $(grep -c warning err) == 1 ]] || expect "the same body again is silent" 1 0 err
rc=0
"$BIN/t2s-parse" host.t2s -D PLACE1=Place::Device -o p.json 2>err || rc=$?
[[ ! -s err ]] || expect "a -D equal to the builtin PLACE1: no warning" 1 0 err

# --- -o - is standard output ---------------------------------------------------------------------
for tool in t2s-parse t2s-merge t2s-stt t2s-vec t2s-gather; do
  rc=0
  "$BIN/$tool" "$SPEC" -o - >out 2>err || rc=$?
  expect "$tool -o -" "$rc" 0 err
  grep -q '"t2s_ir"' out || expect "$tool -o -: the IR on standard output" 1 0 out
done
rc=0
"$EMIT" "$SPEC" --target opencl -o - --host host_prog.cpp >out 2>err || rc=$?
expect "t2s-emit -o -" "$rc" 0 err
grep -q "__kernel" out || expect "t2s-emit -o -: the .cl on standard output" 1 0 out
rc=0
"$RUN" "$SPEC" -o - >out 2>err || rc=$?
expect "t2s-run -o - prints the elements" "$rc" 0 out "collector(3, 3) = 3908.0"
[[ ! -e ./- ]] || expect "no file named '-'" 1 0

if ((failures > 0)); then
  echo "first_hour_test: $failures of $checks checks failed" >&2
  exit 1
fi
echo "PASS: first_hour_test: $checks checks"
