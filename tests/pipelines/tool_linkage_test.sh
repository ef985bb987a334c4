#!/usr/bin/env bash
# //tests/pipelines:tool_linkage_test: every tool needs only the C library of the machine that
# runs it (libc.so.6, libm.so.6 and the dynamic loader), so that a remote execution worker needs
# nothing installed: isl, GMP and the C++ runtime are linked statically (third_party/isl.BUILD,
# tools/BUILD). Reads each tool's NEEDED entries with readelf -d.
# Usage: tool_linkage_test.sh TOOL...
set -euo pipefail

# The sanitizer runtimes are allowed too: a `--config=asan` build (scripts/test --config=asan)
# links them, and such tools are for testing here, not for workers.
ALLOWED='^(libc\.so\.6|libm\.so\.6|ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1|lib(asan|ubsan|tsan|lsan)\.so\.[0-9]+)$'
status=0
(($#)) || { echo "FAIL: no tool given" >&2; exit 1; }
for tool in "$@"; do
  if ! needed="$(readelf -d "$tool" | sed -nE 's/.*\(NEEDED\).*\[(.*)\]$/\1/p')"; then
    echo "FAIL: readelf -d $tool failed" >&2
    status=1
    continue
  fi
  extra="$(grep -vE "$ALLOWED" <<<"$needed" || true)"
  if [[ -n "$extra" ]]; then
    echo "FAIL: $tool needs shared libraries a bare worker may lack: $(tr '\n' ' ' <<<"$extra")" >&2
    status=1
  else
    echo "ok   $tool needs only: $(tr '\n' ' ' <<<"$needed")"
  fi
done
exit "$status"
