#!/usr/bin/env bash
# bench/top.sh: tally top against perf top (make bench; prints one
# markdown section). Both system-wide at perf top's 4000 Hz with --stdio
# and -d 2, for TOP_BENCH_SECS (20) seconds each of a busy machine (two
# CPU-bound programs, burn and work spin, running all along), stdin a
# pipe that stays open (perf top reads keys from it; /dev/null would spin
# its key loop). Cost is the tool's own CPU time (user + sys) and peak
# RSS from /usr/bin/time; the orders alternate between rounds.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
HELPERS=${HELPERS:-$PWD/$BUILD/helpers}
SECS=${TOP_BENCH_SECS:-20}
ROUNDS=${TOP_BENCH_ROUNDS:-1}

echo "## tally top vs perf top (bench/top.sh)"
echo
if ! command -v perf >/dev/null; then
	echo "perf is missing: nothing to compare."
	exit 0
fi
make --no-print-directory "$BUILD/helpers/burn" "$BUILD/helpers/work" >/dev/null
d=$(mktemp -d)
"$HELPERS/burn" $(((SECS + 2) * ROUNDS * 4 * 1000 + 5000)) >/dev/null & b1=$!
"$HELPERS/work" spin $(((SECS + 2) * ROUNDS * 4 * 1000 + 5000)) & b2=$!
trap 'kill $b1 $b2 2>/dev/null; rm -rf "$d"' EXIT

# one NAME ARGS...: SECS seconds of it; appends "cpu_s rss_kb" to $d/NAME
one() {
	local name=$1; shift
	sleep $((SECS + 5)) | /usr/bin/time -o "$d/t" -f "%U %S %M" \
		timeout -s INT "$SECS" "$@" >/dev/null 2>&1
	awk '/^[0-9.]+ [0-9.]+ [0-9]+$/ { printf "%.2f %d\n", $1 + $2, $3 }' "$d/t" >>"$d/$name"
}

for mode in "" "-g"; do
	: >"$d/tally"; : >"$d/perf"
	for ((r = 0; r < ROUNDS; r++)); do
		if ((r % 2 == 0)); then
			one tally "$TALLY" top --stdio -d 2 $mode
			one perf perf top --stdio -d 2 $mode
		else
			one perf perf top --stdio -d 2 $mode
			one tally "$TALLY" top --stdio -d 2 $mode
		fi
	done
	echo "### \`top --stdio -d 2 $mode\`, ${SECS} s system-wide of a busy machine ($ROUNDS round(s))"
	echo
	echo "| | CPU time (s) | peak RSS (MiB) |"
	echo "|---|---|---|"
	awk -v n=tally '{ c += $1; m = $2 > m ? $2 : m; k++ } END { printf "| %s | %.2f | %.1f |\n", n, c / k, m / 1024 }' "$d/tally"
	awk -v n=perf '{ c += $1; m = $2 > m ? $2 : m; k++ } END { printf "| %s | %.2f | %.1f |\n", n, c / k, m / 1024 }' "$d/perf"
	paste "$d/tally" "$d/perf" | awk '{ c += $1 / $3; r += $2 / $4; k++ } END { printf "| tally / perf | %.2f | %.2f |\n", c / k, r / k }'
	echo
done
echo "The goal (issue 20): tally top's CPU time at most a third of perf top's,"
echo "peak RSS at most half."
