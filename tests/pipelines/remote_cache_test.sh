#!/usr/bin/env bash
# tests/pipelines/remote_cache_test.sh: the pipelines against a real remote cache on loopback (a
# check of scripts/test, not a Bazel test: it runs Bazel itself; docs/pipelines.md "Remote
# caching and execution").
#
#   1. starts Debian's nginx (nginx-light, its WebDAV module; scripts/setup installs it) as the
#      current user on 127.0.0.1 and a free port, serving a PUT-able cache directory; its
#      configuration, pid file, logs and temporary files are all in a temporary directory;
#   2. builds the testdata pipelines (every t2s_pipeline of //testdata, or those named in
#      $T2S_REMOTE_PIPELINES) with `--config=remote --remote_cache=http://127.0.0.1:PORT/cache`
#      into a fresh output base, every action in Bazel's linux-sandbox with no network and the
#      strict action environment (`--spawn_strategy=linux-sandbox
#      --sandbox_default_allow_network=false`; --config=remote sets
#      --incompatible_strict_action_env): the actions read only their declared inputs;
#   3. builds them again from a second fresh output base: Bazel must report every action it ran
#      as a remote cache hit (its `N processes: ...` line: nothing but `remote cache hit` and
#      `internal`), and every output file of both builds (the pipelines' files and the tools)
#      must be byte-identical.
# No --disk_cache here, on purpose: Bazel counts a disk cache hit as a "remote cache hit" too, so
# the nginx server must be the only cache. The servers are shut down and the directory removed
# at the end, pass or fail.
# The cache's directory is kept between runs ($T2S_REMOTE_CACHE_DIR, default
# ~/.cache/t2s/remote-cache-test; emptied first when it holds more than 4 GB, or with
# T2S_REMOTE_CACHE_FRESH=1): the first build then downloads what an earlier run uploaded (the
# tools' compilation, some 2 minutes on 2 cores, when they did not change) and runs and uploads
# the rest, so the checks are on every action that ran (all in the linux-sandbox) and on the
# second build (every action a hit); entries are keyed by their inputs' digests, so a kept entry
# is the result of the same action.
# Prints `ok ...` lines and exits 0, or `FAIL: ...` lines and exits 1.
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/t2s-remote-cache.XXXXXX")"
KEEP="${T2S_KEEP_REMOTE_CACHE:-}"  # set to keep $WORK for debugging
NGINX_DIR="$WORK/nginx"
# --symlink_prefix=/: no bazel-* symlinks in the repository (they belong to its own server).
# -O0 for the tools (host configuration) and anything else compiled: the check is about the
# cache, not the tools' speed, and the first build compiles every tool from nothing in about
# half the time it takes with -O2 (both builds use the same flags, so their keys agree).
BUILD_FLAGS=(--color=no --curses=no --noshow_progress --symlink_prefix=/ --copt=-O0 --host_copt=-O0)

bazel_in() {  # bazel_in N ARGS...: Bazel with output base N of this test
  local n="$1"
  shift
  bazel --output_base="$WORK/base$n" --max_idle_secs=300 "$@"
}

stop_nginx() {
  local pid_file="$NGINX_DIR/nginx.pid"
  [[ -s "$pid_file" ]] || return 0
  local pid
  pid="$(cat "$pid_file")"
  kill -QUIT "$pid" 2>/dev/null || true
  for _ in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pid_file"
}

cleanup() {
  stop_nginx
  for n in 1 2; do
    if [[ -d "$WORK/base$n" ]]; then
      (cd "$REPO" && bazel_in "$n" shutdown >/dev/null 2>&1) || true
    fi
  done
  if [[ -z "$KEEP" ]]; then
    chmod -R u+w "$WORK" 2>/dev/null || true
    rm -rf "$WORK"
  else
    echo "kept $WORK"
  fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

failed=0
ok() { echo "ok   $*"; }
fail() {
  echo "FAIL: $*" >&2
  failed=$((failed + 1))
}
die() {
  fail "$@"
  exit 1
}

start=$SECONDS
# --- 1. the server ----------------------------------------------------------------------------
NGINX="$(command -v nginx || true)"
[[ -z "$NGINX" && -x /usr/sbin/nginx ]] && NGINX=/usr/sbin/nginx
[[ -n "$NGINX" ]] || die "no nginx on PATH or at /usr/sbin/nginx (scripts/setup installs nginx-light)"
"$NGINX" -V 2>&1 | grep -q -- '--with-http_dav_module' ||
  die "$NGINX has no WebDAV module (nginx -V lacks --with-http_dav_module)"

# A port nothing listens on (bash's /dev/tcp connects, or fails); nginx may still lose a race
# for it, so the start below tries a few.
free_port() {
  local port
  for _ in $(seq 200); do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}
# The cache directory, kept between runs (see the top): NGINX_DIR/www/cache links to it.
CACHE_DIR="${T2S_REMOTE_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/t2s/remote-cache-test}"
mkdir -p "$CACHE_DIR" || die "cannot create the cache directory $CACHE_DIR"
cache_kb="$(du -sk "$CACHE_DIR" | cut -f1)"
if [[ "${T2S_REMOTE_CACHE_FRESH:-}" == 1 ]] || ((cache_kb > 4 * 1024 * 1024)); then
  find "$CACHE_DIR" -mindepth 1 -delete || die "cannot empty $CACHE_DIR"
fi
mkdir -p "$NGINX_DIR"/{logs,tmp,www}
ln -s "$CACHE_DIR" "$NGINX_DIR/www/cache"
# As root, nginx's workers would run as `nobody`, who cannot write here: keep the current user.
user_line=""
if [[ "$(id -u)" == 0 ]]; then user_line="user $(id -un) $(id -gn);"; fi
write_conf() {
  cat >"$NGINX_DIR/nginx.conf" <<EOF
# A Bazel HTTP cache: GET and PUT of /cache/ac/HASH and /cache/cas/HASH (WebDAV PUT).
$user_line
daemon on;
worker_processes 1;
pid $NGINX_DIR/nginx.pid;
error_log $NGINX_DIR/logs/error.log warn;
events {
  worker_connections 128;
}
http {
  access_log $NGINX_DIR/logs/access.log;
  client_body_temp_path $NGINX_DIR/tmp/body;
  proxy_temp_path $NGINX_DIR/tmp/proxy;
  fastcgi_temp_path $NGINX_DIR/tmp/fastcgi;
  uwsgi_temp_path $NGINX_DIR/tmp/uwsgi;
  scgi_temp_path $NGINX_DIR/tmp/scgi;
  server {
    listen 127.0.0.1:$1;
    location /cache/ {
      root $NGINX_DIR/www;
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw;
      client_max_body_size 0;
    }
  }
}
EOF
}
started=""
for _ in 1 2 3 4 5; do
  PORT="$(free_port)" || die "cannot find a free port on 127.0.0.1"
  write_conf "$PORT"
  if "$NGINX" -p "$NGINX_DIR/" -c "$NGINX_DIR/nginx.conf" -e "$NGINX_DIR/logs/error.log" \
    >"$NGINX_DIR/start.log" 2>&1; then
    started=1
    break
  fi
  grep -q 'Address already in use' "$NGINX_DIR/start.log" "$NGINX_DIR/logs/error.log" \
    2>/dev/null || break
done
if [[ -z "$started" ]]; then
  cat "$NGINX_DIR/start.log" "$NGINX_DIR/logs/error.log" 2>/dev/null | tail -n 20 >&2
  die "nginx did not start (configuration $NGINX_DIR/nginx.conf)"
fi
URL="http://127.0.0.1:$PORT/cache"
probe_ok=""
for _ in $(seq 50); do
  if curl -fsS -X PUT --data-binary 'probe' "$URL/probe/x" >/dev/null 2>&1 &&
    [[ "$(curl -fsS "$URL/probe/x" 2>/dev/null)" == probe ]]; then
    probe_ok=1
    break
  fi
  sleep 0.1
done
[[ -n "$probe_ok" ]] || die "nginx on 127.0.0.1:$PORT does not take a PUT and give it back"
rm -rf "$CACHE_DIR/probe"
ok "nginx $("$NGINX" -v 2>&1 | sed 's#.*/##') with WebDAV PUT on $URL (pid $(cat "$NGINX_DIR/nginx.pid"))"

# --- 2. first build: every action not in the cache runs, sandboxed, and is uploaded -------------
cd "$REPO" || die "cannot cd to $REPO"
if [[ -n "${T2S_REMOTE_PIPELINES:-}" ]]; then
  read -r -a names <<<"$T2S_REMOTE_PIPELINES"
  targets=("${names[@]/#/\/\/testdata:}")
else
  if ! bazel_in 1 query --color=no --curses=no --noshow_progress \
    'kind("_t2s_pipeline rule", //testdata:all)' >"$WORK/pipelines.txt" 2>"$WORK/query.log"; then
    tail -n 20 "$WORK/query.log" >&2
    die "bazel query for the t2s_pipeline targets of //testdata failed"
  fi
  mapfile -t targets <"$WORK/pipelines.txt"
fi
((${#targets[@]})) || die "no pipeline to build"

REMOTE=(--config=remote "--remote_cache=$URL")
SANDBOX=(--spawn_strategy=linux-sandbox --sandbox_default_allow_network=false)
t=$SECONDS
if ! bazel_in 1 build "${BUILD_FLAGS[@]}" "${REMOTE[@]}" "${SANDBOX[@]}" "${targets[@]}" \
  >"$WORK/build1.log" 2>&1; then
  grep -vE '^[0-9]+\.[0-9]+: src/main/tools/' "$WORK/build1.log" | tail -n 40 >&2
  die "the first build (${#targets[@]} pipelines, --config=remote, linux-sandbox without network) failed"
fi
processes1="$(grep -oE '[0-9]+ process(es)?: [^.]*' "$WORK/build1.log" | tail -n 1)"
ok "first build: ${#targets[@]} pipelines in the linux-sandbox, no network, strict action" \
  "environment, uploaded to the cache ($((SECONDS - t)) s; $processes1)"
# "N processes: A remote cache hit, B internal, C linux-sandbox": an action run any other way
# (processwrapper-sandbox, local) would not have been checked for undeclared inputs.
unsandboxed="$(sed -E 's/^[0-9]+ process(es)?: //' <<<"$processes1" | tr ',' '\n' |
  sed -E 's/^ +//' | grep -vE '^[0-9]+ (remote cache hit|internal|linux-sandbox)$' || true)"
if [[ -z "$processes1" ]]; then
  fail "the first build printed no 'N processes: ...' line"
elif [[ -n "$unsandboxed" ]]; then
  fail "the first build ran actions outside the linux-sandbox: $processes1"
fi
BIN1="$(bazel_in 1 info "${REMOTE[@]}" bazel-bin 2>/dev/null)"
[[ -d "$BIN1" ]] || die "bazel info bazel-bin gave '$BIN1'"
bazel_in 1 shutdown >/dev/null 2>&1 || true
cache_files="$(find "$CACHE_DIR" -type f | wc -l)"
((cache_files > 0)) || die "the cache directory is empty after the first build"
ok "the cache holds $cache_files entries ($(du -sh "$CACHE_DIR" | cut -f1), $CACHE_DIR)"

# --- 3. second build, fresh output base: nothing runs, everything comes from the cache ------
t=$SECONDS
if ! bazel_in 2 build "${BUILD_FLAGS[@]}" "${REMOTE[@]}" "${targets[@]}" \
  >"$WORK/build2.log" 2>&1; then
  tail -n 40 "$WORK/build2.log" >&2
  die "the second build (fresh output base) failed"
fi
processes2="$(grep -oE '[0-9]+ process(es)?: [^.]*' "$WORK/build2.log" | tail -n 1)"
# "N processes: A remote cache hit, B internal": anything else ran locally.
local_kinds="$(sed -E 's/^[0-9]+ process(es)?: //' <<<"$processes2" | tr ',' '\n' |
  sed -E 's/^ +//' | grep -vE '^[0-9]+ (remote cache hit|internal)$' || true)"
hits="$(grep -oE '[0-9]+ remote cache hit' <<<"$processes2" | grep -oE '^[0-9]+' || echo 0)"
if [[ -z "$processes2" ]]; then
  fail "the second build printed no 'N processes: ...' line"
elif [[ -n "$local_kinds" ]]; then
  fail "the second build executed actions itself: $processes2"
elif ((hits == 0)); then
  fail "the second build had no remote cache hit: $processes2"
else
  ok "second build (fresh output base): no action executed, $hits remote cache hits" \
    "($((SECONDS - t)) s; $processes2)"
fi
BIN2="$(bazel_in 2 info "${REMOTE[@]}" bazel-bin 2>/dev/null)"
[[ -d "$BIN2" ]] || die "bazel info bazel-bin gave '$BIN2'"

# Every output file of the first build: the same bytes in the second.
# Under bazel-out/: the pipelines' files (k8-fastbuild/bin/testdata) and the tools with their
# objects (built for the execution platform, in another configuration's bin). Left out: what
# Bazel writes itself rather than an action (parameter files, runfiles manifests, which hold
# absolute paths of the output base).
OUT1="$(cd "$BIN1/../.." && pwd)"
OUT2="$(cd "$BIN2/../.." && pwd)"
(cd "$OUT1" && find . -path './*/bin/*' -type f ! -name '*.params' ! -name '*runfiles_manifest' \
  ! -path '*.runfiles/MANIFEST' | sed 's#^\./##' | sort) >"$WORK/files1.txt"
compared=0
differ=()
missing=()
while read -r f; do
  if [[ ! -f "$OUT2/$f" ]]; then
    missing+=("$f")
  elif ! cmp -s "$OUT1/$f" "$OUT2/$f"; then
    differ+=("$f")
  fi
  compared=$((compared + 1))
done <"$WORK/files1.txt"
pipeline_files="$(grep -c '/bin/testdata/' "$WORK/files1.txt")"
((pipeline_files > 0)) || fail "the first build left no file under bazel-bin/testdata"
if ((${#missing[@]})); then
  fail "${#missing[@]} output file(s) of the first build are missing in the second: ${missing[*]:0:10}"
fi
if ((${#differ[@]})); then
  fail "${#differ[@]} output file(s) differ between the output bases: ${differ[*]:0:10}"
fi
if ((${#missing[@]} == 0 && ${#differ[@]} == 0)); then
  ok "all $compared output files byte-identical across the output bases ($pipeline_files of" \
    "the pipelines, the rest the tools and their objects)"
fi

echo "remote cache test: $((SECONDS - start)) s, ${#targets[@]} pipelines, $failed failure(s)"
((failed == 0))
