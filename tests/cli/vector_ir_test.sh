#!/usr/bin/env bash
# //tests/cli:vector_ir_test: vectorized-stage IR with vector values (docs/ir.md, "Vector
# values"; the documents of testdata/ir) through the tools:
#   - t2s-run executes each document, and the cpp target's emulation, compiled with g++, writes
#     the same .npy bytes for sequential and random inputs (so the same bits, lane for lane);
#   - the opencl target's device code passes check_cl.sh (clang as OpenCL C 2.0) and its host
#     program check_host.sh; 64 lanes, which OpenCL cannot express, are a located emit-type
#     error and no file is written;
#   - an error in a vector program stops the emulation with the interpreter's message;
#   - the text and dot backends print the vector types of channels and registers and the lanes
#     of each kernel.
# vector_gemm.json also checks laziness: its selects with a scalar condition read a vector
# channel or a shift register of another PE only where they pick that value (an eager read
# would read outside the PE array or leave values in the channel).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

CXX="${CXX:-g++}"
CHECKS=libs/backends/opencl/testing
source "$(dirname "${BASH_SOURCE[0]}")/ir_checks.sh"

# The emulation of IR: emitted, compiled (warnings are errors), in $TMP/NAME_emu.
build_emulation() {  # build_emulation IR NAME
  run tools/t2s-emit --target cpp "$1" -o "$TMP/$2_emu.cpp"
  expect "$2: cpp emits" 0
  check "$2: the emulation compiles" "$CXX" -std=c++17 -O1 -pthread -ffp-contract=off -Wall \
    -Wextra -Werror "$TMP/$2_emu.cpp" -o "$TMP/$2_emu"
}

for IR in testdata/ir/vector_*.json; do
  name=$(basename "$IR" .json)
  build_emulation "$IR" "$name"
  for fill in sequential random; do
    run tools/t2s-run "$IR" --fill "$fill" --seed 7 -o "$TMP/$name.run.npy"
    expect "$name: t2s-run ($fill)" 0
    run "$TMP/${name}_emu" --fill "$fill" --seed 7 -o "$TMP/$name.emu.npy"
    expect "$name: the emulation runs ($fill)" 0
    check "$name: the emulation writes t2s-run's bytes ($fill)" \
      cmp "$TMP/$name.run.npy" "$TMP/$name.emu.npy"
  done
  [[ $name == vector_wide64 ]] && continue
  run tools/t2s-emit --target opencl "$IR" -o "$TMP/$name.cl" --host "$TMP/${name}_host.cpp"
  expect "$name: opencl emits" 0
  check "$name: the .cl passes check_cl.sh" "$CHECKS/check_cl.sh" \
    "$CHECKS/intel_fpga_channels.h" "$TMP/$name.cl"
  check "$name: the host program passes check_host.sh" "$CHECKS/check_host.sh" \
    "$TMP/${name}_host.cpp"
done

# The OpenCL code uses the native forms where they fit.
expect "gemm: contiguous reads are vload16" 0 'vload16\(0, b \+ ko \* 16 \+ 32 \* jjj\)' \
  "$TMP/vector_gemm.cl"
expect "gemm: contiguous writes are vstore8" 0 'vstore8\(v\.s01234567, 0, c' "$TMP/vector_gemm.cl"
expect "gemm: float16 channels" 0 '^channel float16 ch_A\[2\]' "$TMP/vector_gemm.cl"
expect "gemm: a lazy select of a channel read" 0 \
  'A_val = jjj == 0 \? read_channel_intel\(ch_A\[iii\]\) : A_shreg' "$TMP/vector_gemm.cl"
expect "int: integer division lane by lane" 0 't2s_vdiv_i32x12\(q, d\)' "$TMP/vector_int.cl"
expect "wide: 32 lanes are a struct" 0 '^typedef struct \{ float data\[32\]; \} float_vec32;' \
  "$TMP/vector_wide.cl"

# More than 32 lanes: OpenCL cannot express them.
run tools/t2s-emit --target opencl testdata/ir/vector_wide64.json -o "$TMP/wide64.cl"
expect "opencl refuses 64 lanes at their location" 1 \
  '^<spec>:8:3: error: the opencl target cannot express 64 lanes \(vector type float32x64; .*\[emit-type\]$' \
  "$TMP/err"
[[ ! -e "$TMP/wide64.cl" ]] || {
  echo "FAIL: output written on error" >&2
  failed=$((failed + 1))
}

# Errors: the emulation stops with the interpreter's message (which counts the lanes of values
# left in a vector channel or FIFO register).
error_case() {  # error_case NAME IR SED-SCRIPT
  sed -e "$3" "$2" >"$TMP/$1.json"
  run tools/t2s-run "$TMP/$1.json" --fill random -o "$TMP/$1.npy"
  expect "$1: t2s-run fails" 1
  local message
  message=$(sed -E 's/^<spec>:[0-9:]+: error: (.*) \[[a-z-]+\]$/\1/' "$TMP/err")
  build_emulation "$TMP/$1.json" "$1"
  run "$TMP/$1_emu" --fill random -o "$TMP/$1.npy"
  expect "$1: the emulation fails" 1
  if ! grep -qxF "$1_emu: error: $message" "$TMP/err"; then
    echo "FAIL: $1: the emulation's error is not the interpreter's: $message" >&2
    sed 's/^/    | /' "$TMP/err" | head -n 5 >&2
    failed=$((failed + 1))
  else
    echo "ok   $1: the emulation's message is the interpreter's"
  fi
}
error_case vector_channel_leftover testdata/ir/vector_gemm.json \
  '/"for": "p"/{n;n;s/"extent": "4"/"extent": "3"/}'
error_case vector_gather_bounds testdata/ir/vector_int.json 's/i \* 12 + 30, -2/i * 12 + 40, -2/'

# text and dot show the lanes.
IR=testdata/ir/vector_dot.json
run tools/t2s-emit --target text "$IR" -o "$TMP/ir.txt"
expect "text prints ramps and gathers" 0 'e\(ramp\(0, 1, 4\)\) = c\(ramp\(0, 1, 4\)\)' "$TMP/ir.txt"
expect "text prints vector channel types" 0 'ch: float32x4' "$TMP/ir.txt"
expect "text prints the lanes of a kernel" 0 '^kernel C \(device, vector lanes 4\):$' "$TMP/ir.txt"
run tools/t2s-emit --target dot "$IR" -o "$TMP/ir.dot"
expect "dot prints vector IR" 0 'digraph' "$TMP/ir.dot"
expect "dot labels vector channels" 0 'label="ch \(depth 0\), float32x4"' "$TMP/ir.dot"
expect "dot labels vector registers" 0 'label="V shift x1, float32x4[ "]' "$TMP/ir.dot"
expect "dot labels the lanes of a kernel" 0 'vector lanes: 4' "$TMP/ir.dot"

if ((failed > 0)); then
  echo "$failed check(s) failed" >&2
  exit 1
fi
