#!/bin/sh
# bench-compare.sh: build the test binary of a package at two commits, run
# their benchmarks alternately and print, per benchmark and unit, the median
# of each side and the median (min-max) of the round-by-round ratios
# HEAD/BASE. Needs only git, go and a POSIX shell with awk. See
# docs/performance.md ("Comparing two commits").
#
#   scripts/bench-compare.sh BASE [HEAD]
#
# HEAD is a commit, or empty for the working tree as it is (uncommitted
# changes included). Environment (make bench-compare passes its variables):
#   BENCH      -test.bench pattern      (default 'UnevenZones')
#   BENCHTIME  -test.benchtime          (default 3x)
#   ROUNDS     rounds, each running both binaries, the order alternating
#              round by round (default 5)
#   PKG        the package              (default ./statefulset)
#   UNITS      units to print, space separated (default 'ns/call cpu-ns/call allocs/call')
#   BENCH_FILES files taken from HEAD into BASE's tree when BASE lacks them
#              (default statefulset/uneven_bench_test.go), so that an
#              older commit runs the same benchmark
set -eu

base=${1:?usage: bench-compare.sh BASE [HEAD]}
head=${2:-}
BENCH=${BENCH:-UnevenZones}
BENCHTIME=${BENCHTIME:-3x}
ROUNDS=${ROUNDS:-5}
PKG=${PKG:-./statefulset}
UNITS=${UNITS:-ns/call cpu-ns/call allocs/call}
BENCH_FILES=${BENCH_FILES:-statefulset/uneven_bench_test.go}

top=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-compare.XXXXXX")
trees=""
cleanup() {
	for t in $trees; do git -C "$top" worktree remove --force "$t" >/dev/null 2>&1 || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# checkout REV DIR: a detached worktree of REV at DIR.
checkout() {
	git -C "$top" worktree add --detach --quiet "$2" "$1"
	trees="$trees $2"
}

checkout "$base" "$tmp/base"
if [ -n "$head" ]; then
	checkout "$head" "$tmp/head"
	headdir=$tmp/head
else
	headdir=$top
	head="working tree"
fi
for f in $BENCH_FILES; do
	if [ ! -e "$tmp/base/$f" ] && [ -e "$headdir/$f" ]; then
		echo "bench-compare: $f is not in $base: taking HEAD's" >&2
		cp "$headdir/$f" "$tmp/base/$f"
	fi
done
echo "bench-compare: building $PKG at $base and $head" >&2
(cd "$tmp/base" && go test -c -o "$tmp/base.test" "$PKG")
(cd "$headdir" && go test -c -o "$tmp/head.test" "$PKG")

# Both binaries run in HEAD's package directory (testdata).
rundir=$headdir/$PKG
round=1
while [ "$round" -le "$ROUNDS" ]; do
	order="base head"
	[ $((round % 2)) -eq 0 ] && order="head base"
	for side in $order; do
		echo "bench-compare: round $round/$ROUNDS: $side" >&2
		(cd "$rundir" && "$tmp/$side.test" -test.run '^$' -test.bench "$BENCH" -test.benchtime "$BENCHTIME") |
			awk -v side="$side" -v round="$round" '/^Benchmark/ { print side, round, $0 }' >>"$tmp/results"
	done
	round=$((round + 1))
done

echo "BASE $base, HEAD $head; $ROUNDS rounds of -test.bench '$BENCH' -test.benchtime $BENCHTIME"
awk -v units="$UNITS" '
function median(list, n,   a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
BEGIN { nu = split(units, want, " ") }
{
	side = $1; round = $2; name = $3; sub(/-[0-9]+$/, "", name)
	if (!(name in seen)) { seen[name] = 1; names[++nn] = name }
	for (i = 5; i < NF; i += 2) val[side, round, name, $(i+1)] = $i
	rounds[round] = 1
}
END {
	printf "%-44s %-12s %12s %12s %8s %17s\n", "benchmark", "unit", "BASE", "HEAD", "HEAD/BASE", "(rounds min-max)"
	for (k = 1; k <= nn; k++) for (u = 1; u <= nu; u++) {
		name = names[k]; unit = want[u]; b = ""; h = ""; r = ""; lo = ""; hi = ""
		for (rd in rounds) {
			if (!(("base", rd, name, unit) in val) || !(("head", rd, name, unit) in val)) continue
			bv = val["base", rd, name, unit]; hv = val["head", rd, name, unit]
			b = b " " bv; h = h " " hv
			if (bv + 0 == 0) continue
			q = hv / bv; r = r " " q
			if (lo == "" || q < lo) lo = q
			if (hi == "" || q > hi) hi = q
		}
		if (b == "") continue
		printf "%-44s %-12s %12.1f %12.1f %8s %17s\n", name, unit, median(b), median(h),
			(r == "" ? "-" : sprintf("%.3f", median(r))), (r == "" ? "" : sprintf("(%.2f-%.2f)", lo, hi))
	}
}' "$tmp/results"
