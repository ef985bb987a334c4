# libs/testing/shard.sh: Bazel's test sharding for the sh_tests that check a list of items
# (specs, pipelines, documents); sourced, not run. A target with `shard_count = N` runs as N
# processes with TEST_TOTAL_SHARDS=N and TEST_SHARD_INDEX=K; shard K checks items K, K + N,
# K + 2N, ... of the list, so every item is checked by exactly one shard. Run by hand (no
# TEST_TOTAL_SHARDS) there is one shard, which checks everything.
#
# Touching TEST_SHARD_STATUS_FILE tells Bazel the test knows about sharding (without it, Bazel
# runs the whole test in every shard).
[[ -z ${TEST_SHARD_STATUS_FILE:-} ]] || touch "$TEST_SHARD_STATUS_FILE"
shard_count=${TEST_TOTAL_SHARDS:-1}
shard_index=${TEST_SHARD_INDEX:-0}

# shard_owns INDEX: true when item INDEX (0-based) of the test's list is this shard's.
shard_owns() {
  (($1 % shard_count == shard_index))
}

# shard_next: true when the test's next item is this shard's, for a test whose items are checks
# written one after another (`shard_next && check ...`, `if shard_next; then ...; fi`): the items
# are counted from 0 in the order the test reaches them, which must not depend on the shard.
# shard_mine counts the items that were this shard's.
shard_item=-1
shard_mine=0
shard_next() {
  shard_item=$((shard_item + 1))
  shard_owns "$shard_item" || return 1
  shard_mine=$((shard_mine + 1))
}

# shard_of ARRAY: the items of the array named ARRAY that are this shard's, in order, one per
# line (for `mapfile -t mine < <(shard_of all)`).
shard_of() {
  local -n all_items="$1"
  local i
  for ((i = shard_index; i < ${#all_items[@]}; i += shard_count)); do
    printf '%s\n' "${all_items[i]}"
  done
}

# "shard K of N" (1-based), for a test's closing line.
shard_name() {
  echo "shard $((shard_index + 1)) of $shard_count"
}
