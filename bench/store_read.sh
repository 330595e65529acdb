#!/usr/bin/env bash
# bench/store_read.sh: tally report --from over a fleet's hour (prints one
# markdown section): a ClickHouse started here (tests/it/store_lib.sh), a
# whole-machine recording at the agent's rate (-a -g -F 19, 10 s) replayed
# by `tally agent --replay` as a host of an hour (the file 360 times back
# to back, 10 s batches), its rows copied in the server as HOSTS-1 more
# hosts (STORE_BENCH_REPLAY_ALL=1 replays each one: 8 s a host here), then
# the merged report's time: the rows (--stdio), the flame graph, -g, and
# one host of the hundred.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
HOSTS=${STORE_BENCH_HOSTS:-100}
REPEAT=${STORE_BENCH_REPEAT:-360}
ROUNDS=${STORE_BENCH_ROUNDS:-3}
. "$(dirname "$0")/../tests/it/store_lib.sh"

echo "## tally report --from: $HOSTS hosts x 1 hour"
echo
if ! have_clickhouse; then
	echo "clickhouse-server is missing: nothing to measure."
	exit 0
fi
start_clickhouse P || exit 1
d=$(mktemp -d); _store_dirs="$_store_dirs $d"
URL="http://127.0.0.1:$P/?database=bench"
"$TALLY" record -q -a -g -F 19 -o "$d/a.data" -- sleep 10 >/dev/null 2>&1
t0=$(date +%s.%N)
for h in $(seq "$HOSTS"); do
	if [ "$h" -gt 1 ] && [ "${STORE_BENCH_REPLAY_ALL:-0}" != 1 ]; then
		chq "$P" "INSERT INTO bench.samples SELECT date, time, 'host$h', batch_id + $h * 1000000000, row, kind, event, pid, tid, comm, thread, exe, cgroup, stack_id, value, period FROM bench.samples WHERE host = 'host1'"
		continue
	fi
	"$TALLY" agent --store "$URL" --replay "$d/a.data" --replay-repeat "$REPEAT" \
		--host-name "host$h" --interval 10s 2>>"$d/agent.err" || { tail -3 "$d/agent.err"; exit 1; }
done
t1=$(date +%s.%N)
rows=$(chq "$P" "SELECT count() FROM bench.samples")
samples=$(chq "$P" "SELECT sum(value) FROM bench.samples")
bytes=$(chq "$P" "SELECT sum(bytes) FROM system.parts WHERE database = 'bench' AND active")
printf 'Stored: %s samples in %s rows (%s batches of 10 s), %s bytes on disk; replayed in %.0f s.\n\n' \
	"$samples" "$rows" "$(chq "$P" "SELECT uniqExact(host, batch_id) FROM bench.samples")" "$bytes" \
	"$(echo "$t1 - $t0" | bc)"
echo "| command | median of $ROUNDS (s) |"
echo "|---|---|"
med() {
	local t=()
	for _ in $(seq "$ROUNDS"); do
		local a b
		a=$(date +%s.%N)
		"$@" >/dev/null 2>"$d/err" || { echo "failed: $* $(cat "$d/err")" >&2; return 1; }
		b=$(date +%s.%N)
		t+=("$(echo "$b - $a" | bc)")
	done
	printf '%s\n' "${t[@]}" | sort -n | sed -n "$(( (ROUNDS + 1) / 2 ))p" | xargs printf '%.2f'
}
# one untimed run: the server's caches and the parts' merges after the copies
"$TALLY" report --from "$URL" --stdio >/dev/null 2>&1
for args in "--stdio --no-children -g none" "--flamegraph $d/f.svg" "--stdio" \
	"--stdio --where host=host1"; do
	printf '| `tally report --from URL %s` | %s |\n' "${args/$d\//}" "$(med "$TALLY" report --from "$URL" $args)"
done
echo
