#!/bin/bash
# tests/emit/input_shapes_test.sh: t2s-run and the `cpp` emulation take exactly the same input
# arrays (the runtime's rule, t2s_rt::check_input_array). For two golden programs (merged
# stage), with a .npy file given for input `a`:
#   - an array larger than the region read (Input::extents) in every dimension is accepted by
#     both, and both write the same output bytes as with the exact-size array holding the same
#     leading values (the extra elements are not read);
#   - an array smaller than the region in one dimension, with another number of dimensions or
#     of another type is refused by both, with exit status 1 and the same message.
# The .npy files are written here, in the test's temporary directory, by a small writer below
# (numpy's format 1.0, Fortran order).
#
# Under `bazel test`, the tools come from the runfiles; run by hand from the repository root
# (`bash tests/emit/input_shapes_test.sh`) after `bazel build //tests/emit:emit_cpp_stage
# //tools:t2s-run`.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

# The bits of float32 n, a non-negative integer below 2^24 (exact).
float_bits() {
  local n=$1 e=0
  ((n == 0)) && {
    echo 0
    return
  }
  while (((n >> (e + 1)) > 0)); do e=$((e + 1)); done
  echo $((((127 + e) << 23) | ((n - (1 << e)) << (23 - e))))
}

# write_npy FILE DESCR D0 [D1]: a .npy file of 4-byte elements ('<i4' or '<f4'), Fortran order,
# element (i, j) holding 100 * i + j + 1 (so that arrays of different shapes agree on their
# common leading region).
write_npy() {
  local file=$1 descr=$2 d0=$3 d1=${4:-}
  local shape="($d0,)" cols=1
  if [[ -n "$d1" ]]; then
    shape="($d0, $d1)"
    cols=$d1
  fi
  local header="{'descr': '$descr', 'fortran_order': True, 'shape': $shape, }"
  while (((10 + ${#header} + 1) % 64 != 0)); do header+=" "; done
  header+=$'\n'
  local len=${#header}
  local data="" i j v bits
  for ((j = 0; j < cols; ++j)); do
    for ((i = 0; i < d0; ++i)); do
      v=$((100 * i + j + 1))
      if [[ "$descr" == "<f4" ]]; then bits=$(float_bits "$v"); else bits=$v; fi
      data+=$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((bits & 255)) $(((bits >> 8) & 255)) \
        $(((bits >> 16) & 255)) $(((bits >> 24) & 255)))
    done
  done
  {
    printf '\x93NUMPY\x01\x00'
    printf "\\x$(printf %02x $((len & 255)))\\x$(printf %02x $((len >> 8)))"
    printf '%s' "$header"
    printf "$data"
  } > "$file"
}

# The programs: NAME GOLDEN DESCR OTHER_DESCR D0 D1 (input a's type and region read [0, D0) x
# [0, D1), as its extents in the golden say).
#   seed001_wrap_image  g(i, j) = a(i, j): the output is a's region itself
#   isolate_consumer    c = a * b over device kernels and channels (b generated)
programs=("seed001_wrap_image seed001_wrap_image <i4 <f4 4 3 int32 float32"
  "isolate_consumer isolate_consumer <f4 <i4 4 8 float32 int32")

for p in "${programs[@]}"; do
  read -r name golden _ <<< "$p"
  grep -A8 '"name": "a"' "$DIR/$golden/merged.json" > "$TMP/$name.input_a"
  cp "$DIR/$golden/merged.json" "$TMP/$name.json"
  "$EMIT" "$TMP/$name.json" -o "$TMP/$name.cpp" 2> "$TMP/$name.emit.err" ||
    fail "$name: emit_cpp failed: $(cat "$TMP/$name.emit.err")"
done
compile() {
  timeout 300 "$CXX" -std=c++17 -O2 -pthread -ffp-contract=off -Wall -Wextra -Werror \
    "$TMP/$1.cpp" -o "$TMP/$1" 2> "$TMP/$1.cc.err"
}
compile seed001_wrap_image &
first=$!
compile isolate_consumer || fail "isolate_consumer: does not compile: $(head -c 2000 "$TMP/isolate_consumer.cc.err")"
wait "$first" || fail "seed001_wrap_image: does not compile: $(head -c 2000 "$TMP/seed001_wrap_image.cc.err")"

# run_both NAME CASE: t2s-run and the emulation with --input a=$TMP/NAME.CASE.npy, each writing
# $TMP/NAME.CASE.{run,emu}.npy, stderr in .err, exit status in RUN_RC / EMU_RC.
run_both() {
  local name=$1 case=$2 base="$TMP/$1.$2"
  rm -f "$base.run.npy" "$base.emu.npy"
  "$RUN" "$TMP/$name.json" --input "a=$base.npy" -o "$base.run.npy" > /dev/null 2> "$base.run.err"
  RUN_RC=$?
  timeout 60 "$TMP/$name" --input "a=$base.npy" -o "$base.emu.npy" > /dev/null 2> "$base.emu.err"
  EMU_RC=$?
}

for p in "${programs[@]}"; do
  read -r name golden descr other d0 d1 dtype other_dtype <<< "$p"
  # The region in the golden is what this test assumes.
  grep -q "\"$dtype\"" "$TMP/$name.input_a" || fail "$name: input a is not $dtype in $golden"
  [[ "$(tr -d ' \n' < "$TMP/$name.input_a")" == *"\"extents\":[\"$d0\",\"$d1\"]"* ]] ||
    fail "$name: input a's extents in $golden are not [$d0, $d1]"

  write_npy "$TMP/$name.exact.npy" "$descr" "$d0" "$d1"
  write_npy "$TMP/$name.large.npy" "$descr" $((d0 + 2)) $((d1 + 3))
  write_npy "$TMP/$name.wide.npy" "$descr" "$d0" $((d1 + 5))

  # Accepted: the exact-size array, and larger ones give the same output bytes.
  run_both "$name" exact
  [[ $RUN_RC == 0 ]] || fail "$name exact: t2s-run exit status $RUN_RC: $(cat "$TMP/$name.exact.run.err")"
  [[ $EMU_RC == 0 ]] || fail "$name exact: emulation exit status $EMU_RC: $(cat "$TMP/$name.exact.emu.err")"
  cmp -s "$TMP/$name.exact.run.npy" "$TMP/$name.exact.emu.npy" ||
    fail "$name exact: the emulation's output differs from t2s-run's"
  for case in large wide; do
    run_both "$name" "$case"
    [[ $RUN_RC == 0 ]] || fail "$name $case: t2s-run exit status $RUN_RC: $(cat "$TMP/$name.$case.run.err")"
    [[ $EMU_RC == 0 ]] || fail "$name $case: emulation exit status $EMU_RC: $(cat "$TMP/$name.$case.emu.err")"
    cmp -s "$TMP/$name.exact.run.npy" "$TMP/$name.$case.run.npy" ||
      fail "$name $case: t2s-run's output differs from its output with the exact-size array"
    cmp -s "$TMP/$name.exact.run.npy" "$TMP/$name.$case.emu.npy" ||
      fail "$name $case: the emulation's output differs from t2s-run's with the exact-size array"
  done

  # Refused, with the same message: smaller in either dimension, 1-D, another type.
  region="[0, $d0) x [0, $d1)"
  write_npy "$TMP/$name.short0.npy" "$descr" $((d0 - 1)) $((d1 + 4))
  write_npy "$TMP/$name.short1.npy" "$descr" $((d0 + 4)) $((d1 - 1))
  write_npy "$TMP/$name.flat.npy" "$descr" $((d0 * d1))
  write_npy "$TMP/$name.type.npy" "$other" "$d0" "$d1"
  declare -A expected=(
    [short0]="input 'a' is read over $region, but the array given for it has shape ($((d0 - 1)), $((d1 + 4)))"
    [short1]="input 'a' is read over $region, but the array given for it has shape ($((d0 + 4)), $((d1 - 1)))"
    [flat]="input 'a' has 2 dimensions, but the array given for it has 1"
    [type]="input 'a' has type $dtype, but the array given for it holds $other_dtype"
  )
  for case in short0 short1 flat type; do
    message="${expected[$case]}"
    run_both "$name" "$case"
    [[ $RUN_RC == 1 ]] || fail "$name $case: t2s-run exit status $RUN_RC, not 1"
    [[ $EMU_RC == 1 ]] || fail "$name $case: emulation exit status $EMU_RC, not 1"
    # t2s-run: `LOC: error: MESSAGE [rule]`; the emulation: `PROGRAM: error: MESSAGE`.
    interpreted=$(head -n 1 "$TMP/$name.$case.run.err" | sed -E 's/^[^ ]*: error: //; s/ \[[a-z-]+\]$//')
    [[ "$interpreted" == "$message" ]] ||
      fail "$name $case: t2s-run says '$interpreted', the test expects '$message'"
    actual=$(cat "$TMP/$name.$case.emu.err")
    [[ "$actual" == "$name: error: $message" ]] ||
      fail "$name $case: the emulation says '$actual', not '$name: error: $message'"
    [[ ! -e "$TMP/$name.$case.run.npy" ]] || fail "$name $case: t2s-run wrote an output"
    [[ ! -e "$TMP/$name.$case.emu.npy" ]] || fail "$name $case: the emulation wrote an output"
  done
  unset expected
done

# seed001_wrap_image's output is a's region: element (i, j) = 100 * i + j + 1, printed.
"$TMP/seed001_wrap_image" --input "a=$TMP/seed001_wrap_image.large.npy" --print > "$TMP/printed.txt" ||
  fail "seed001_wrap_image --print failed"
expected_text=""
for ((i = 0; i < 4; ++i)); do
  for ((j = 0; j < 3; ++j)); do expected_text+="g($i, $j) = $((100 * i + j + 1))"$'\n'; done
done
[[ "$(cat "$TMP/printed.txt")"$'\n' == "$expected_text" ]] ||
  fail "seed001_wrap_image with the large array prints '$(cat "$TMP/printed.txt")'"

if ((failures > 0)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "PASS: larger arrays accepted and smaller ones refused alike by t2s-run and the emulation"
