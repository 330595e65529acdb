#!/usr/bin/env bash
# bench/agent.sh: tally agent's own cost and the store's size (make bench;
# prints one markdown section). On a busy machine (two CPU-bound programs,
# burn and work spin, one per CPU, all along):
#  - tally agent at its defaults (every CPU, 19 Hz, -g, 10 s intervals)
#    into a real ClickHouse for AGENT_BENCH_SECS (60) seconds, against
#    `perf record -a -g -F 19` to a file over the same length: CPU time
#    (user + sys) and peak RSS from /usr/bin/time;
#  - the bytes the store keeps per host-hour (system.parts after OPTIMIZE);
#  - the workload's slowdown: `burn -r N` timed alone and under the agent,
#    paired runs, alternating;
#  - a fleet's hour: perf's recording replayed as AGENT_BENCH_HOSTS (100)
#    hosts x 1 hour, and `tally report --from` over all of it.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
HELPERS=${HELPERS:-$PWD/$BUILD/helpers}
SECS=${AGENT_BENCH_SECS:-60}
HOSTS=${AGENT_BENCH_HOSTS:-100}
PAIRS=${AGENT_BENCH_PAIRS:-5}

echo "## tally agent: its cost on a busy machine, the store's size (bench/agent.sh)"
echo
if ! command -v clickhouse-server >/dev/null || ! command -v perf >/dev/null; then
	echo "clickhouse-server or perf is missing (make deps): nothing measured."
	exit 0
fi
make --no-print-directory "$BUILD/helpers/burn" "$BUILD/helpers/work" >/dev/null
. tests/it/store_lib.sh
start_clickhouse P >/dev/null || { echo "clickhouse-server did not start."; exit 0; }
d=$(mktemp -d); _store_dirs="$_store_dirs $d"
q() { chq "$P" "$1"; }

"$HELPERS/burn" $(((SECS * 3 + 120) * 1000)) >/dev/null & b1=$!
"$HELPERS/work" spin $(((SECS * 3 + 120) * 1000)) & b2=$!
_store_pids="$_store_pids $b1 $b2"

cost() { awk '/^[0-9.]+ [0-9.]+ [0-9]+$/ { printf "%.2f %d", $1 + $2, $3 }' "$1"; }

/usr/bin/time -o "$d/t.agent" -f "%U %S %M" "$TALLY" agent --store "http://127.0.0.1:$P/?database=bench" \
	--host-name bench1 --duration "${SECS}s" 2>"$d/agent.err"
/usr/bin/time -o "$d/t.perf" -f "%U %S %M" perf record -q -a -g -F 19 -o "$d/perf.data" -- sleep "$SECS" \
	>/dev/null 2>&1
read -r ac ar <<<"$(cost "$d/t.agent")"
read -r pc pr <<<"$(cost "$d/t.perf")"
sent=$(sed -n 's/.* batches sent (\([0-9]*\) samples).*/\1/p' "$d/agent.err")
q "OPTIMIZE TABLE bench.samples FINAL" >/dev/null; q "OPTIMIZE TABLE bench.stacks FINAL" >/dev/null
bytes=$(q "SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'bench' AND active")
echo "Command: \`tally agent --store URL --duration ${SECS}s\` (every CPU, 19 Hz, -g, 10 s"
echo "intervals) and \`perf record -a -g -F 19 -o FILE -- sleep $SECS\`, one after the other, on a"
echo "machine kept busy by burn and work spin (one per CPU). CPU is user + sys of the whole run."
echo
echo "| | CPU s | % of one CPU | peak RSS MB |"
echo "|---|---|---|---|"
printf "| tally agent | %s | %.2f%% | %.1f |\n" "$ac" "$(echo "$ac * 100 / $SECS" | bc -l)" "$(echo "$ar / 1024" | bc -l)"
printf "| perf record | %s | %.2f%% | %.1f |\n" "$pc" "$(echo "$pc * 100 / $SECS" | bc -l)" "$(echo "$pr / 1024" | bc -l)"
printf "| ratio | %.2f | | %.2f |\n" "$(echo "$ac / $pc" | bc -l)" "$(echo "$ar / $pr" | bc -l)"
echo
printf "The store: %s samples in %s bytes on disk after OPTIMIZE, **%.0f KB per host-hour**\n" \
	"$sent" "$bytes" "$(echo "$bytes * 3600 / $SECS / 1024" | bc -l)"
echo "(a busy 2-CPU host; an idle one's stacks repeat and cost less)."

# the workload's slowdown: paired runs of a fixed amount of work
rounds=${AGENT_BENCH_ROUNDS:-6000}
t_run() { local s e; s=$(date +%s.%N); "$HELPERS/burn" -r "$rounds" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
"$TALLY" agent --store "http://127.0.0.1:$P/?database=bench" --host-name bench2 2>/dev/null & ag=$!
sleep 1; kill -STOP $ag
alone=(); under=()
for ((i = 0; i < PAIRS; i++)); do
	alone+=("$(t_run)")
	kill -CONT $ag; under+=("$(t_run)"); kill -STOP $ag
done
kill -CONT $ag; kill -TERM $ag; wait $ag 2>/dev/null
med() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ma=$(med "${alone[@]}"); mu=$(med "${under[@]}")
echo
printf "Slowdown of \`burn -r %s\` (busy machine, %s paired runs, medians): alone %.3f s, under the agent %.3f s: **%+.1f%%**\n" \
	"$rounds" "$PAIRS" "$ma" "$mu" "$(echo "($mu - $ma) * 100 / $ma" | bc -l)"
kill $b1 $b2 2>/dev/null

# a fleet's hour: perf's recording as HOSTS hosts, each an hour long (60-s intervals: a batch a minute)
reps=$(((3600 + SECS - 1) / SECS))
# one host's hour first: the bytes a host-hour keeps once its stacks repeat
"$TALLY" agent --store "http://127.0.0.1:$P/?database=hour" --replay "$d/perf.data" \
	--host-name one --replay-repeat "$reps" 2>/dev/null
q "OPTIMIZE TABLE hour.samples FINAL" >/dev/null; q "OPTIMIZE TABLE hour.stacks FINAL" >/dev/null
hbytes=$(q "SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'hour' AND active")
printf "An hour of that host (its recording replayed %s times, 10-s batches): **%.0f KB per host-hour**;\n" \
	"$reps" "$(echo "$hbytes / 1024" | bc -l)"
printf "a month of 1,000 such hosts: %.1f TB.\n" "$(echo "$hbytes * 24 * 30 * 1000 / 1024^4" | bc -l)"
s=$(date +%s.%N)
pids=()
for ((h = 0; h < HOSTS; h++)); do
	"$TALLY" agent --store "http://127.0.0.1:$P/?database=fleet" --replay "$d/perf.data" \
		--host-name "host$h" --replay-repeat "$reps" --interval 60s 2>>"$d/replay.err" &
	pids+=($!)
	if (((h + 1) % 4 == 0)); then wait "${pids[@]}"; pids=(); fi
done
((${#pids[@]})) && wait "${pids[@]}"
e=$(date +%s.%N)
total=$(q "SELECT sum(value) FROM fleet.samples FINAL")
rows=$(q "SELECT count() FROM fleet.samples")
echo
printf "A fleet's hour: perf's %s-s recording replayed as %s hosts x %s repeats (\`tally agent --replay\`, 4 at a time) in %.1f s: %s samples in %s rows.\n" \
	"$SECS" "$HOSTS" "$reps" "$(echo "$e - $s" | bc -l)" "$total" "$rows"
if "$TALLY" report --help 2>/dev/null | grep -q -- '--from'; then
	for mode in "--stdio" "--flamegraph $d/f.svg"; do
		s=$(date +%s.%N)
		# shellcheck disable=SC2086
		"$TALLY" report --from "http://127.0.0.1:$P/?database=fleet" --since 2h $mode >/dev/null 2>"$d/rep.err"
		rc=$?
		e=$(date +%s.%N)
		printf -- "- \`tally report --from URL --since 2h %s\` over all %s hosts: %.2f s (exit %s)\n" \
			"${mode%% *}" "$HOSTS" "$(echo "$e - $s" | bc -l)" "$rc"
	done
fi
