# bench/lib.sh: what the benchmark scripts share (sourced, not run).

# Builds `targets` with -c opt (without moving the bazel-bin symlink, which the tests use) and
# sets $bin to the directory of the optimised tools. Needs $work (a scratch directory).
build_opt_tools() {
  bazel build -c opt --symlink_prefix=/ --disk_cache=/tmp/t2s-disk-cache "$@" >"$work/build.log" 2>&1 ||
    { cat "$work/build.log"; exit 1; }
  bin="$(bazel info -c opt bazel-bin 2>/dev/null)/tools"
}

# Milliseconds of wall time of one command (its output discarded).
time_ms() {
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

# The median of the numbers on standard input, one per line.
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Milliseconds of CPU time (user + system) of one command (its output discarded): what a run
# costs whatever else the machine runs, unlike its wall time.
time_cpu_ms() {
  local TIMEFORMAT='%3U %3S' t
  t=$({ time "$@" >/dev/null 2>&1; } 2>&1)
  awk '{ printf "%d\n", ($1 + $2) * 1000 + 0.5 }' <<<"$t"
}
