#!/bin/bash
# check_host.sh FILE.cpp: compiles an OpenCL host program (C++17) against the system's OpenCL
# headers (Debian: opencl-c-headers, ocl-icd-opencl-dev) and links it with the ICD loader:
#   g++ -std=c++17 -Wall -Werror -pthread -c FILE.cpp, then g++ ... -lOpenCL
# in a temporary directory (removed afterwards). Prints the compiler's diagnostics; exit status 0
# when both steps succeed, 1 when one fails, 2 on wrong usage or a missing tool or file.
set -u
if [ $# -ne 1 ]; then
  echo "usage: check_host.sh FILE.cpp" >&2
  exit 2
fi
file=$1
if [ ! -f "$file" ]; then
  echo "check_host.sh: no such file: $file" >&2
  exit 2
fi
if ! command -v g++ >/dev/null 2>&1; then
  echo "check_host.sh: g++ is not on PATH" >&2
  exit 2
fi
if [ ! -f /usr/include/CL/cl.h ]; then
  echo "check_host.sh: /usr/include/CL/cl.h is missing (install opencl-c-headers and ocl-icd-opencl-dev)" >&2
  exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_host.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
# g++ picks the language from the suffix: compile through a .cpp name whatever FILE is called.
if ! g++ -std=c++17 -Wall -Werror -pthread -x c++ -c "$file" -o "$tmp/host.o"; then
  echo "check_host.sh: $file: does not compile" >&2
  exit 1
fi
if ! g++ -pthread "$tmp/host.o" -o "$tmp/host" -lOpenCL; then
  echo "check_host.sh: $file: does not link with -lOpenCL" >&2
  exit 1
fi
