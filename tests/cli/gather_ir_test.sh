#!/usr/bin/env bash
# //tests/cli:gather_ir_test: t2s-gather on the channel-array documents of testdata/ir
# (gather_*.json, vectorized-stage IR in the form t2s-gather takes; testdata/ir/BUILD says where
# each comes from) through the tools:
#   - t2s-gather --report exits 0 and prints each gather and its FIFOs with their depths;
#   - t2s-run --check passes on the document and on the gathered program (both against the
#     merged reference of the document's funcs), and both write the same .npy bytes;
#   - the cpp emulation of the gathered program, compiled with g++, writes t2s-run's bytes;
#   - its OpenCL passes check_cl.sh and its host program check_host.sh;
#   - text and dot show the FIFOs between the PEs of one kernel;
#   - shallower FIFOs than t2s-gather made deadlock, in t2s-run and in the emulation alike (the
#     PEs of a kernel run one after another).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

CXX="${CXX:-g++}"
CHECKS=libs/backends/opencl/testing
source "$(dirname "${BASH_SOURCE[0]}")/ir_checks.sh"
build_emulation() {  # build_emulation IR NAME
  run tools/t2s-emit --target cpp "$1" -o "$TMP/$2_emu.cpp"
  expect "$2: cpp emits" 0
  check "$2: the emulation compiles" "$CXX" -std=c++17 -O1 -pthread -ffp-contract=off -Wall \
    -Wextra -Werror "$TMP/$2_emu.cpp" -o "$TMP/$2_emu"
}

docs=(testdata/ir/gather_*.json)
((${#docs[@]} >= 9)) || {
  echo "FAIL: only ${#docs[@]} gather documents in testdata/ir" >&2
  exit 1
}
# Sharded (tests/cli/BUILD): each document is an item of libs/testing/shard.sh, and the checks
# after the loop on a document's files run in the shard that checked it.
source libs/testing/shard.sh
declare -A mine=()
for IR in "${docs[@]}"; do
  name=$(basename "$IR" .json)
  shard_next || continue
  mine[$name]=1
  G="$TMP/$name.gathered.json"
  run tools/t2s-gather --report "$IR" -o "$G"
  expect "$name: t2s-gather --report" 0 "^gather drainer: [cp] along [ij], (Up|Down), " "$TMP/err"
  expect "$name: the report gives the FIFO's depth and why" 0 \
    "^  FIFO drainer_gather_fifo: .*, depth [0-9]+ \(.+\)$" "$TMP/err"
  check "$name: t2s-run --check of the document" tools/t2s-run --check "$IR" -o "$TMP/in.npy"
  check "$name: t2s-run --check of the gathered program" tools/t2s-run --check "$G" \
    -o "$TMP/$name.run.npy"
  check "$name: the gathered program writes the document's bytes" cmp "$TMP/in.npy" \
    "$TMP/$name.run.npy"
  build_emulation "$G" "$name"
  for fill in sequential random; do
    run tools/t2s-run "$G" --fill "$fill" --seed 3 -o "$TMP/$name.run.npy"
    expect "$name: t2s-run ($fill)" 0
    run "$TMP/${name}_emu" --fill "$fill" --seed 3 -o "$TMP/$name.emu.npy"
    expect "$name: the emulation runs ($fill)" 0
    check "$name: the emulation writes t2s-run's bytes ($fill)" \
      cmp "$TMP/$name.run.npy" "$TMP/$name.emu.npy"
  done
  run tools/t2s-emit --target opencl "$G" -o "$TMP/$name.cl" --host "$TMP/${name}_host.cpp"
  expect "$name: opencl emits" 0
  expect "$name: the FIFOs are a channel array with their depth" 0 \
    '^channel [a-z0-9]+ drainer_gather_fifo(\[[0-9]+\])+ __attribute__\(\(depth\([0-9]+\)\)\);  // drainer -> drainer$' \
    "$TMP/$name.cl"
  check "$name: the .cl passes check_cl.sh" "$CHECKS/check_cl.sh" \
    "$CHECKS/intel_fpga_channels.h" "$TMP/$name.cl"
  check "$name: the host program passes check_host.sh" "$CHECKS/check_host.sh" \
    "$TMP/${name}_host.cpp"
  run tools/t2s-emit --target text "$G" -o "$TMP/$name.txt"
  expect "$name: text names the FIFOs between the PEs of drainer" 0 \
    '^  drainer_gather_fifo: .*, drainer -> drainer, depth [0-9]+, dims .*, between the PEs of drainer$' \
    "$TMP/$name.txt"
  expect "$name: text gives the depth's reason" 0 '^    depth [0-9]+: ' "$TMP/$name.txt"
  run tools/t2s-emit --target dot "$G" -o "$TMP/$name.dot"
  expect "$name: dot draws the FIFOs from PE to PE" 0 \
    '^  "drainer_pe(_[0-9]+)+" -> "drainer_pe(_[0-9]+)+" \[x?label="drainer_gather_fifo fifo depth' \
    "$TMP/$name.dot"
done

# owns NAME: the document NAME is this shard's (a document missing from testdata/ir fails).
owns() {
  [[ " ${docs[*]} " == *" testdata/ir/$1.json "* ]] || {
    echo "FAIL: no document testdata/ir/$1.json" >&2
    failed=$((failed + 1))
    return 1
  }
  [[ -n ${mine[$1]:-} ]]
}

# Down along i (3 PEs): PE 0 writes the values of PEs 2, 1, 0 in ascending order of i, one a
# step of t, which runs around the PEs; each FIFO holds the one value a PE passes in a step
# until the next PE, run right after it, reads it.
if owns gather_2d_i_down; then
  expect "2d_i_down: PE 1 passes one value a step" 0 \
    '^  "drainer_pe_0_0" -> "drainer_pe_1_0" \[xlabel="drainer_gather_fifo fifo depth 1"' \
    "$TMP/gather_2d_i_down.dot"
  expect "2d_i_down: the exit PE runs last" 0 '^          let i = 2 - i_pe$' \
    "$TMP/gather_2d_i_down.txt"
  expect "2d_i_down: t runs around the PEs" 0 '^    for t in \[0, 3\) serial:$' \
    "$TMP/gather_2d_i_down.txt"
fi

# The depth matters: the output channel at its depth before gathering (1 value) deadlocks, in
# t2s-run and in the emulation alike, with the same message: the exit PE writes one value of
# each of the 4 elements a step, where the collector takes the 3 values of an element in a row.
# (A gather FIFO cannot be shallower than its one value: t2s-run and the emulation give every
# channel room for at least one.)
shallow() {  # shallow NAME CHANNEL FROM TO
  sed -e "/\"name\": \"$2\"/,/\"depth\"/s/\"depth\": $3,/\"depth\": $4,/" \
    "$TMP/$1.gathered.json" >"$TMP/$1_shallow.json"
  run tools/t2s-run "$TMP/$1_shallow.json" -o "$TMP/shallow.npy"
  expect "$1: $2 at depth $4 deadlocks in t2s-run" 1 \
    "error: deadlock: every unfinished kernel is blocked: .*\[run-deadlock\]$" "$TMP/err"
  local message
  message=$(sed -E 's/^<spec>:[0-9:]+: error: (.*) \[[a-z-]+\]$/\1/' "$TMP/err")
  build_emulation "$TMP/$1_shallow.json" "$1_shallow"
  run "$TMP/$1_shallow_emu" -o "$TMP/shallow.npy"
  expect "$1: $2 at depth $4 deadlocks in the emulation" 1
  if ! grep -qxF "$1_shallow_emu: error: $message" "$TMP/err"; then
    echo "FAIL: $1: the emulation's error is not the interpreter's: $message" >&2
    sed 's/^/    | /' "$TMP/err" | head -n 5 >&2
    failed=$((failed + 1))
  else
    echo "ok   $1: the emulation's message is the interpreter's"
  fi
}
if owns gather_2d_i_up; then shallow gather_2d_i_up drainer_to_collector 3 0; fi

echo "gather_ir_test: $(shard_name): $shard_mine of ${#docs[@]} documents, $failed failed"
if ((failed > 0)); then
  echo "$failed check(s) failed" >&2
  exit 1
fi
