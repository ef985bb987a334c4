#!/bin/sh
# embed.sh HEADER OUT.cc: writes a C++ source defining t2s_runtime_source(), which returns the
# text of HEADER byte for byte (libs/backends/runtime/runtime_source.h). The text goes in raw
# string literals of at most 8000 lines each, concatenated; fails when the delimiter occurs in
# the text, so that the literal can never end early.
set -eu
header="$1"
out="$2"
delimiter="t2s_rt_embed"
if grep -q ")$delimiter\"" "$header"; then
  echo "embed.sh: $header contains the raw-string delimiter )$delimiter\"" >&2
  exit 1
fi
{
  echo "// Generated from $header by libs/backends/runtime/embed.sh. Do not edit."
  echo '#include "libs/backends/runtime/runtime_source.h"'
  echo ''
  echo 'const char* t2s_runtime_source() {'
  echo '  static const char kText[] ='
  # One raw literal per 8000 lines: each piece ends at a line end, and adjacent literals
  # concatenate into one array.
  awk -v d="$delimiter" '
    NR % 8000 == 1 { if (NR > 1) printf ")%s\"\n", d; printf "R\"%s(", d }
    { print }
    END { if (NR == 0) printf "R\"%s(", d; printf ")%s\";\n", d }
  ' "$header"
  echo '  return kText;'
  echo '}'
} > "$out"
