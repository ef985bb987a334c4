#!/bin/bash
# check_cl.sh HEADER FILE.cl: syntax-checks Intel FPGA OpenCL device code with clang as OpenCL C
# 2.0, with HEADER (intel_fpga_channels.h) declaring the Intel channel built-ins:
#   clang-14 -x cl -cl-std=CL2.0 -fsyntax-only -Werror -include HEADER FILE.cl
# Uses clang-14, else clang, from PATH. Prints clang's diagnostics; exit status 0 when the file is
# accepted, 1 when clang rejects it, 2 on wrong usage or a missing tool or file.
set -u
if [ $# -ne 2 ]; then
  echo "usage: check_cl.sh HEADER FILE.cl" >&2
  exit 2
fi
header=$1
file=$2
for f in "$header" "$file"; do
  if [ ! -f "$f" ]; then
    echo "check_cl.sh: no such file: $f" >&2
    exit 2
  fi
done
if command -v clang-14 >/dev/null 2>&1; then
  clang=clang-14
elif command -v clang >/dev/null 2>&1; then
  clang=clang
else
  echo "check_cl.sh: neither clang-14 nor clang is on PATH" >&2
  exit 2
fi
if ! "$clang" -x cl -cl-std=CL2.0 -fsyntax-only -Werror -include "$header" "$file"; then
  echo "check_cl.sh: $file: rejected by $clang" >&2
  exit 1
fi
