#!/usr/bin/env bash
# t2s-explore's command-line contract (DESIGN.md section 5) and its report on the worked examples
# of DTSE chapters 3 and 4. Runs from the runfiles root under `bazel test`; by hand from the
# repository root (`bash tests/explore/explore_cli_test.sh`, with bazel-bin/tools/t2s-explore).
set -u
if [[ -n "${TEST_SRCDIR:-}" && -d "${TEST_SRCDIR}/t2s" ]]; then
  cd "${TEST_SRCDIR}/t2s"
else
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
fi
T="${T2S_EXPLORE:-$PWD/tools/t2s-explore}"
[[ -x "$T" ]] || T="$PWD/bazel-bin/tools/t2s-explore"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
check() {  # check DESCRIPTION STATUS(0 = pass)
  if [[ "$2" != 0 ]]; then
    echo "FAIL: $1" >&2
    failures=$((failures + 1))
  fi
}
has() { grep -qF -- "$2" "$1" && echo 0 || echo 1; }
run() {  # run ARGS... : stdout to $TMP/out, stderr to $TMP/err, status in $rc
  rc=0
  "$T" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
}

# --- the worked examples -------------------------------------------------------------------
run testdata/explore/three_polytopes.json --search
check "three polytopes: exit 0" "$rc"
check "figure 3.28 costs" "$(has "$TMP/out" "costs: locality 79, refined locality 75, data reuse 75")"
check "figure 3.31 costs" "$(has "$TMP/out" "costs: locality 38, refined locality 34, data reuse 34")"
check "figure 3.31 cone" "$(has "$TMP/out" "dependency cone: (1, 0); dimension 1, angle 0 degrees (0)")"
check "figure 3.28 cone" "$(has "$TMP/out" "angle 90 degrees (pi/2)")"
check "figure 3.13 storage" "$(grep -E '^  figure 3.13 \(bad\) .* yes +7 +8 ' "$TMP/out" >/dev/null && echo 0 || echo 1)"
check "figure 3.15 storage" "$(grep -E '^  figure 3.15 \(best\) .* yes +2 +3 ' "$TMP/out" >/dev/null && echo 0 || echo 1)"
check "search: best ordering" "$(has "$TMP/out" "smallest storage: 2 signals between steps")"
run testdata/explore/three_polytopes.json -P N=7 --placement final --order 1,1
check "--param and --order" "$(grep -E '^  --order 1,1 .* yes +13 ' "$TMP/out" >/dev/null && echo 0 || echo 1)"
run testdata/explore/storage_estimation.json --fix k
check "chapter 4: exit 0" "$rc"
check "chapter 4: total 42" "$(has "$TMP/out" "): 42")"
check "chapter 4: k outermost" "$(grep -E '^  part B\(2\) -> S3 +2 +8 ' "$TMP/out" >/dev/null && echo 0 || echo 1)"
check "chapter 4: estimate with k outermost" "$(grep -E '^  part B\(2\) -> S3 +2 +8 .* 2 \.\. 8$' "$TMP/out" >/dev/null && echo 0 || echo 1)"
run testdata/explore/storage_estimation.json --bounds
check "chapter 4: nothing fixed" "$(grep -E '^  part B\(2\) -> S3 +2 +24 ' "$TMP/out" >/dev/null && echo 0 || echo 1)"
run testdata/explore/loop_merging.json --format json -o "$TMP/report.json"
check "JSON report: exit 0" "$rc"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['t2s_explore_report'] == 1; assert [o['storage']['between'] for o in d['orderings']][1:] == [8, 1, 8, 2, 2]" "$TMP/report.json"
check "JSON report: loop merging N, 1, N, 2, 2" "$?"
run --starting-set 4
check "MASAI starting set" "$(has "$TMP/out" "65536 matrices, 22560 non-singular")"
run testdata/explore/three_polytopes.json --place --no-basic-sets
check "--place: exit 0" "$rc"
check "--place: ranks" "$(has "$TMP/out" "each alone at best 0 0 0 0 0; together 0 0 0 0 0")"
check "--place: as good as figure 3.31" "$(has "$TMP/out" "best (dependency cone of dimension 1, then locality, then data reuse): placement 'masai', locality 38, refined locality 34, data reuse 34, ranks 0 0 0 0 0")"
check "--place: figure 3.31's maps" "$(has "$TMP/out" "{ C[k, l] -> [-k + l + 7, k] }")"
check "--place: analysed" "$(has "$TMP/out" "placement 'masai' (common space x1, x2):")"
run testdata/explore/loop_merging.json --place --format json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); s=d['placement_search']; assert s['found'] and s['complete'] and s['costs']['locality'] == 8, s" "$TMP/out"
check "--place JSON: loop merging's merged placement (locality N)" "$?"

# --- schedules of a spec ---------------------------------------------------------------------
run testdata/specs/gemm.t2s --best
check "GEMM --best: exit 0" "$rc"
check "GEMM --best: the directive to paste" "$(grep -E '^  A\..*space_time_transform\(.*\);$' "$TMP/out" >/dev/null && echo 0 || echo 1)"
run testdata/specs/gemm.t2s --format json --keep-order
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); g=d['groups'][0]; assert g['func'] == 'A' and g['ranked'][0]['legal']" "$TMP/out"
check "GEMM JSON" "$?"
run testdata/specs/gemm_tiled.t2s
check "tiled GEMM: exit 0" "$rc"
check "tiled GEMM: its own loop order (9 loops)" "$(has "$TMP/out" "39 enumerated (the spec's loop order, up to 3 innermost loops to space")"
check "tiled GEMM: the channel write reads C" "$(has "$TMP/out" "C -> c_to_drainer (C)")"
run testdata/specs/gemm.t2s --no-enumerate --order k,j,i
check "GEMM --order: the group's loop nest" "$(grep -E '^  --order k,j,i +loops +\(k, j, i\) +yes +21 ' "$TMP/out" >/dev/null && echo 0 || echo 1)"
run testdata/explore/matvec_1d.t2s --best
check "ranking: the fastest within the spec's array" "$(has "$TMP/out" "8 PEs, 6 time steps")"
run testdata/explore/matvec_1d.t2s --best --max-pes 6
check "ranking: --max-pes" "$(has "$TMP/out" "X.reorder(k, i).space_time_transform(k);")"
run testdata/specs/seed000_2d.t2s --no-enumerate --try "space_time_transform(j)"
check "refused --try: exit 1" "$( ((rc == 1)) && echo 0 || echo 1)"
check "refused --try: the reason" "$(has "$TMP/err" "error: --try 'A.space_time_transform(j);' on merge group 'A' is refused: space_time_transform of 'A': space loop must be the innermost loop, but 'j' is loop 2 from the inside (loops, innermost first: i, j); reorder the loops first [stt-space-loops]")"
check "refused --try: no report" "$( [[ ! -s $TMP/out ]] && echo 0 || echo 1)"
run testdata/specs/seed000_2d.t2s --no-enumerate --try "space_time_transform(i)" --try "space_time_transform(q)"
check "a refused --try among accepted ones: exit 1" "$( ((rc == 1)) && echo 0 || echo 1)"
check "a refused --try among accepted ones: the reason" "$(has "$TMP/err" "error: --try 'A.space_time_transform(q);' on merge group 'A' is refused")"

# --- errors ----------------------------------------------------------------------------------
cat >"$TMP/bad.json" <<'JSON'
{"t2s_explore": 1,
 "statements": [
   {"name": "S", "domain": "{ S[i] : 0 <= i < }"}]}
JSON
run "$TMP/bad.json" -o "$TMP/never"
check "bad isl text: exit 1" "$([[ $rc == 1 ]] && echo 0 || echo 1)"
check "bad isl text: located" "$(has "$TMP/err" "$TMP/bad.json:3:28: error: the domain of 'S': isl cannot read it: syntax error [explore-set]")"
check "bad isl text: caret" "$(sed -n 3p "$TMP/err" | grep -qE '^ {27}\^$' && echo 0 || echo 1)"
check "bad isl text: no output" "$([[ ! -e "$TMP/never" ]] && echo 0 || echo 1)"
printf '{"t2s_explore": 1, "statements": [}' >"$TMP/syntax.json"
run "$TMP/syntax.json"
check "malformed JSON: located" "$(has "$TMP/err" "syntax.json:1:35: error: malformed JSON: unexpected character '}', expected a value [json]")"
run testdata/explore/three_polytopes.json --placement nowhere
check "unknown placement: exit 2" "$([[ $rc == 2 ]] && echo 0 || echo 1)"
check "unknown placement: message" "$(has "$TMP/err" "no placement 'nowhere'")"
run testdata/explore/three_polytopes.json --order x3
check "unknown loop: exit 2" "$([[ $rc == 2 ]] && echo 0 || echo 1)"
run testdata/specs/gemm.t2s --rank-by speed
check "unknown ranking key: exit 2" "$([[ $rc == 2 ]] && echo 0 || echo 1)"
run testdata/explore/three_polytopes.json --bound 99
check "bound out of range: exit 2" "$([[ $rc == 2 ]] && echo 0 || echo 1)"
printf 'Var i;\nFunc f;\nf(i) = i +;\nf.realize({4});\n' >"$TMP/bad.t2s"
run "$TMP/bad.t2s"
check "bad spec: exit 1" "$([[ $rc == 1 ]] && echo 0 || echo 1)"
check "bad spec: located" "$(grep -qE "bad.t2s:3:[0-9]+: error: .*\[syntax\]" "$TMP/err" && echo 0 || echo 1)"
run testdata/explore/three_polytopes.json --max-points 10
check "limit: exit 1" "$([[ $rc == 1 ]] && echo 0 || echo 1)"
check "limit: rule" "$(has "$TMP/err" "[explore-limit]")"

# --- --help documents every option ---------------------------------------------------------
run --help
check "--help: exit 0" "$rc"
for opt in --output --format --param --placement --order --search --bound --bounds --fix \
  --reversals --no-basic-sets --max-points --starting-set --coefficients --spec --define \
  --include-dir --no-t2s-macros --group --best --try --no-enumerate --rank-by --chain \
  --keep-order --all-orders --max-space --min-pes --max-pes --top --show-refused --polyhedral \
  --place --place-overlap --place-locality-first --place-radius --place-limit --version; do
  check "--help documents $opt" "$(has "$TMP/out" "$opt")"
done

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "PASS"
