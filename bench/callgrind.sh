#!/usr/bin/env bash
# tally report's instruction counts (valgrind --tool=callgrind: the same
# on every run, unlike wall times on a shared machine) in each of its
# modes, on one -g recording: the histogram's cost, row by row. BASE=an
# older tally binary adds its counts and the ratio (before/after a change);
# FILE=a perf.data to use instead of a fresh recording.
set -eu
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
HELPERS=${HELPERS:-$PWD/$BUILD/helpers}
BASE=${BASE:-}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

echo "## tally report's instruction counts (bench/callgrind.sh)"
echo
if ! command -v valgrind >/dev/null || ! command -v perf >/dev/null; then
	echo "skipped: valgrind or perf is missing"
	exit 0
fi
file=${FILE:-}
if [ -z "$file" ]; then
	file=$d/perf.data
	# a mix of user and kernel chains: a compute loop, file hashing, an interpreter
	make --no-print-directory "$BUILD/helpers/burn" >/dev/null 2>&1 || true
	perf record -q -F 1999 -g -o "$file" -- sh -c "$HELPERS/burn -r 3000 >/dev/null;
		find /usr/lib -name '*.so*' 2>/dev/null | head -3000 | xargs md5sum >/dev/null 2>&1;
		python3 -c 'sum(i*i for i in range(3000000))'" >/dev/null 2>&1 || true
	if [ ! -s "$file" ]; then
		echo "skipped: perf record -g could not record here"
		exit 0
	fi
fi
count() {	# count TALLY ARGS...: instructions of one report run
	local t=$1; shift
	"$t" report -i "$file" --stdio >/dev/null 2>&1	# the kallsyms cache, warm
	# one reading thread: the counts do not depend on scheduling
	TALLY_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$d/out" \
		"$t" report -i "$file" "$@" >/dev/null 2>"$d/err" || { cat "$d/err" >&2; exit 1; }
	sed -n 's/^summary: *//p' "$d/out"
}
samples=$("$TALLY" report -i "$file" --stdio 2>/dev/null | sed -n "s/^# Samples: \([0-9]*[KM]*\).*/\1/p" | head -1)
echo "Command: \`TALLY_THREADS=1 valgrind --tool=callgrind tally report -i FILE MODE\`, FILE a"
echo "\`perf record -F 1999 -g\` of a compute loop, md5sum over /usr/lib and python3"
echo "($samples samples${FILE:+, $FILE})."
echo
if [ -n "$BASE" ]; then
	echo "| mode | before | after | after/before |"
	echo "|---|---|---|---|"
else
	echo "| mode | instructions |"
	echo "|---|---|"
fi
for mode in "--stdio --no-children -g none" "--stdio" "--stdio --no-children" "--stdio -g folded" \
	    "--flamegraph $d/f.svg"; do
	# shellcheck disable=SC2086
	after=$(count "$TALLY" $mode)
	name=${mode/$d\//}
	if [ -n "$BASE" ]; then
		# shellcheck disable=SC2086
		before=$(count "$BASE" $mode)
		echo "| \`$name\` | $before | $after | $(awk -v a="$after" -v b="$before" 'BEGIN { printf "%.3f", a / b }') |"
	else
		echo "| \`$name\` | $after |"
	fi
done
