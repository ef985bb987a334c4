#!/bin/bash
# check_host.sh [--cxx COMPILER] FILE.cpp: compiles an OpenCL host program (C++17) against the
# system's OpenCL headers (Debian: opencl-c-headers, ocl-icd-opencl-dev) and links it with the
# ICD loader:
#   g++ -std=c++17 -Wall -Werror -pthread -c FILE.cpp, then g++ ... -lOpenCL
# in a temporary directory (removed afterwards); --cxx uses another compiler in g++'s place
# (clang++-14: syntax_test builds each spec's second host program with it). Prints the
# compiler's diagnostics; exit status 0 when both steps succeed, 1 when one fails, 2 on wrong
# usage or a missing tool or file.
set -u
cxx=g++
if [ $# -eq 3 ] && [ "$1" = --cxx ]; then
  cxx=$2
  shift 2
fi
if [ $# -ne 1 ]; then
  echo "usage: check_host.sh [--cxx COMPILER] FILE.cpp" >&2
  exit 2
fi
file=$1
if [ ! -f "$file" ]; then
  echo "check_host.sh: no such file: $file" >&2
  exit 2
fi
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "check_host.sh: $cxx is not on PATH" >&2
  exit 2
fi
if [ ! -f /usr/include/CL/cl.h ]; then
  echo "check_host.sh: /usr/include/CL/cl.h is missing (install opencl-c-headers and ocl-icd-opencl-dev)" >&2
  exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_host.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
# -x c++: C++ whatever FILE is called.
if ! "$cxx" -std=c++17 -Wall -Werror -pthread -x c++ -c "$file" -o "$tmp/host.o"; then
  echo "check_host.sh: $file: does not compile ($cxx)" >&2
  exit 1
fi
if ! "$cxx" -pthread "$tmp/host.o" -o "$tmp/host" -lOpenCL; then
  echo "check_host.sh: $file: does not link with -lOpenCL ($cxx)" >&2
  exit 1
fi
