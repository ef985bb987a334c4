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
line() { grep -qxF -- "$2" "$1" && echo 0 || echo 1; }  # an exact line of the report
# The sets behind the counts (issue 35 item 3).
check "domains: B's iteration domain" "$(line "$TMP/out" "  B          iteration   { B[q = 1, p] : 0 < p <= 5 }                       5 operations")"
check "domains: B's operand 2" "$(line "$TMP/out" "             operand 2   { a[i0, 5 - i0] : 0 <= i0 <= 4 }                   5 elements")"
check "domains: C's definition domain" "$(line "$TMP/out" "             definition  { b[i0, i1] : 0 < i0 <= 5 and 2 <= i1 <= 1 + i0 }  15 elements")"
check "basic set contents: a(0), the book's A2" "$(line "$TMP/out" "    a(0)  { a[i0, 5 - i0] : 0 < i0 <= 4 }                    4 elements")"
check "basic sets alive at the traversal's peak" "$(line "$TMP/out" "  alive at that peak (after producing a(1)): a(0) 4, a(1) 5")"
check "peak of the original order: where" "$(line "$TMP/out" "  original: 9 alive between step 15 (A[5, 1]) and step 16 (B[1, 1])")"
check "peak of the original order: which sets" "$(line "$TMP/out" "    basic sets: a(0) 4, a(1) 5")"
check "peak of the original order: the values B reads" "$(line "$TMP/out" "    a(1): a[1, 5], a[2, 4], a[3, 3], a[4, 2], a[5, 1]")"
check "peak of figure 3.13 at B (N + 3)" "$(line "$TMP/out" "  figure 3.13 (bad): 8 needed at step 14 (B[1, 4])")"
check "peak of figure 3.15: two registers" "$(line "$TMP/out" "    a(0): a[4, 1]")"
check "figure 3.29: costs of A2" "$(line "$TMP/out" "  a(0)   A B           4        18       14          14  A 4, B 14")"
check "figure 3.29: extended dependency graph" "$(line "$TMP/out" "  a(0)'s extended dependency graph: Loc(P -> C_A) 4, Loc(P -> C_B) 14, Loc(C_A <-> C_B) 10;")"
check "figure 3.29: its tree" "$(line "$TMP/out" "    minimum spanning tree 14 (P - C_A, C_A - C_B)")"
check "search: ranked, ties share a rank" "$(line "$TMP/out" "     1  (-x2, x1)        2        3")"
check "search: the last of the final placement's ranking" "$(line "$TMP/out" "    11  [1, 1]           9       14")"
check "search: illegal candidates counted" "$(line "$TMP/out" "  13 illegal candidates (a dependency runs backwards or within one step): not ranked")"
run testdata/explore/storage_estimation.json
check "chapter 4: the sets alive at the peak (C(0), B(1), B(3))" "$(line "$TMP/out" "  alive at that peak (after producing C(0)): B(1) 6, B(3) 6, C(0) 30")"
check "chapter 4: figure 4.6's B(2)" "$(grep -qE '^    B\(2\)  \{ B\[i0, i1, i2\] : 0 < i0 <= 4 and 0 <= i1 <= 1 and 0 <= i2 <= 2 \} +24 elements$' "$TMP/out" && echo 0 || echo 1)"
run testdata/explore/three_polytopes.json -P N=40 --placement final --no-basic-sets
check "peak listing: by array without basic sets" "$(line "$TMP/out" "    arrays: a 79")"
check "peak listing: capped at 64 values" "$(line "$TMP/out" "    ... and 15 more")"
run testdata/explore/three_polytopes.json --search --format json -o "$TMP/sets.json"
python3 - "$TMP/sets.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a, b = d["statements"][0], d["statements"][1]
assert a["operations"] == 15 and b["operations"] == 5, (a, b)
assert b["domain"] == "{ B[q = 1, p] : 0 < p <= 5 }", b
assert b["definition_domains"] == [{"array": "b", "set": "{ b[i0, 1] : 0 < i0 <= 5 }", "elements": 5}], b
assert [o["elements"] for o in b["operand_domains"]] == [5, 5], b
s0 = d["basic_sets"]["sets"][0]
assert s0["elements"] == "{ a[i0, 5 - i0] : 0 < i0 <= 4 }" and s0["element_count"] == 4, s0
assert d["basic_sets"]["peak"] == {"after": "a(1)", "alive": [{"set": "a(0)", "size": 4}, {"set": "a(1)", "size": 5}]}
g = d["placements"][0]["group_costs"][0]
assert g["set"] == "a(0)" and [t["locality"] for t in g["production_to"]] == [4, 14], g
assert g["extended_graph"]["consumers"][0]["locality"] == 10 and g["extended_graph"]["tree"] == 14, g
assert sum(x["data_reuse"] for x in d["placements"][0]["group_costs"]) == 75
peak = d["orderings"][0]["peak"]["between"]
assert peak["alive"] == 9 and peak["after"]["first"] == ["A[5, 1]"] and peak["more"] == 0, peak
assert {v["element"] for v in peak["values"]} == {"a[1, 4]", "a[2, 3]", "a[3, 2]", "a[4, 1]", "a[1, 5]", "a[2, 4]", "a[3, 3]", "a[4, 2]", "a[5, 1]"}
srch = d["placements"][2]["search"]
assert len(srch["ranked"]) == srch["legal"] == 11 and len(srch["illegal"]) == 13, srch
assert [r["rank"] for r in srch["ranked"]][:3] == [1, 1, 3] and srch["ranked"][-1]["order"] == "[1, 1]"
PY
check "JSON: domains, operations, contents, peaks, group costs, ranking" "$?"
run testdata/explore/three_polytopes.json --placement final --search-bound 12
check "--search-bound 12: exit 0" "$rc"
check "--search-bound 12: the candidates" "$(has "$TMP/out" "search on placement 'final': loop orders and ordering vectors in [-12, 12]^2: 376 candidates, 187 legal")"
for bad in -1 x 1.5 100001; do
  run testdata/explore/three_polytopes.json --search-bound "$bad"
  check "--search-bound $bad: exit 2" "$([[ $rc == 2 ]] && echo 0 || echo 1)"
done
run testdata/explore/three_polytopes.json --search-bound 300
check "--search-bound 300: too many vectors, exit 2" "$([[ $rc == 2 ]] && echo 0 || echo 1)"
check "--search-bound 300: why" "$(has "$TMP/err" "361201 ordering vectors in [-300, 300]^2 are too many (at most 200000); lower --search-bound")"
run --starting-set 4 --format json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d == {'t2s_explore_starting_set': 1, 'dims': 4, 'coefficients': [0, 1], 'matrices': 65536, 'nonsingular': 22560}, d" "$TMP/out"
check "--starting-set --format json" "$?"
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
# Issue 35: statements kept apart in 3-D are placed, and a search cut by a limit says which.
run testdata/explore/four_nests.json --place --no-basic-sets --place-radius 4
check "--place four nests: exit 0" "$rc"
check "--place four nests: a cone of dimension 2" "$(has "$TMP/out" "best (dependency cone of dimension 2, then locality")"
check "--place four nests: complete" "$(grep -q "stopped at a limit\|no placement" "$TMP/out" && echo 1 || echo 0)"
run testdata/explore/storage_estimation.json --place --no-basic-sets --format json
python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['placement_search']; assert s['found'] and s['complete'] and s['stopped_by'] == [] and s['cone_dimension'] == 1 and s['costs']['locality'] == 252, s" "$TMP/out"
check "--place JSON: figure 4.3 kept apart, one direction, complete" "$?"
run testdata/explore/four_nests.json --place --no-basic-sets --place-checks 1
check "--place-checks 1: exit 0" "$rc"
check "--place-checks 1: the limit named" "$(has "$TMP/out" "the search stopped at a limit: translations checked per linear placement (1): ")"
check "--place-checks 1: still a placement" "$(has "$TMP/out" "placement 'masai' (common space x1, x2, x3):")"
run testdata/explore/four_nests.json --place --no-basic-sets --place-checks 1 --format json
python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['placement_search']; assert s['found'] and not s['complete'] and s['stopped_by'][0].startswith('translations checked per linear placement (1)'), s" "$TMP/out"
check "--place-checks 1 JSON: complete false, stopped_by" "$?"
run testdata/explore/three_polytopes.json --place --no-basic-sets --place-limit 1 --format json
python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['placement_search']; assert not s['complete'] and s['stopped_by'] == ['linear placements meeting the final ranks (--place-limit 1)'], s" "$TMP/out"
check "--place-limit 1 JSON: the limit named" "$?"
run testdata/explore/four_nests.json --place --no-basic-sets --place-radius 0
check "--place-radius 0: no placement, exhaustively" "$(has "$TMP/out" "no placement exists: no linear placement meeting the final ranks has a translation within radius 0")"

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
for opt in --output --format --param --placement --order --search --search-bound --bound --bounds --fix \
  --reversals --no-basic-sets --max-points --starting-set --coefficients --spec --define \
  --include-dir --no-t2s-macros --group --best --try --no-enumerate --rank-by --chain \
  --keep-order --all-orders --max-space --min-pes --max-pes --top --show-refused --polyhedral \
  --place --place-overlap --place-locality-first --place-radius --place-limit --place-checks \
  --version; do
  check "--help documents $opt" "$(has "$TMP/out" "$opt")"
done

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "PASS"
