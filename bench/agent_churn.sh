#!/usr/bin/env bash
# bench/agent_churn.sh: tally agent's memory over a long run on a host that
# churns short-lived processes and big DSOs (make bench; prints one
# markdown section). For AGENT_CHURN_SECS (300) seconds, while a loop runs
# sh, awk, gcc (cc1, as), clickhouse-client (its 82 MB libclickhouse) and
# a copy of a small program at a new path each round (a container's
# files, each a DSO of its own), the agent samples at its defaults into a
# real ClickHouse; its VmRSS and VmHWM are read every AGENT_CHURN_STEP (30)
# seconds, its CPU time (user + sys) at the end. AGENT_CHURN_ARGS adds
# options to the agent's command line.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
HELPERS=${HELPERS:-$PWD/$BUILD/helpers}
SECS=${AGENT_CHURN_SECS:-300}
STEP=${AGENT_CHURN_STEP:-30}
ARGS=${AGENT_CHURN_ARGS:-}

echo "## tally agent: its memory over ${SECS} s of process churn (bench/agent_churn.sh)"
echo
if ! command -v clickhouse-server >/dev/null || ! command -v gcc >/dev/null; then
	echo "clickhouse-server or gcc is missing (make deps): nothing measured."
	exit 0
fi
make --no-print-directory "$BUILD/helpers/work" >/dev/null
. tests/it/store_lib.sh
start_clickhouse P >/dev/null || { echo "clickhouse-server did not start."; exit 0; }
d=$(mktemp -d /tmp/tally-churn.XXXXXX); _store_dirs="$_store_dirs $d"

printf 'int f(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * x; return s; }\n' >"$d/f.c"
(
	i=0
	while :; do
		sh -c 'echo a b c | awk "{ print \$2 }"' >/dev/null
		gcc -O2 -c "$d/f.c" -o "$d/f.o" 2>/dev/null
		command -v clickhouse-client >/dev/null && clickhouse-client --version >/dev/null 2>&1
		cp "$HELPERS/work" "$d/work-$i" && "$d/work-$i" spin 20 && rm -f "$d/work-$i"
		i=$((i + 1))
	done
) & churn=$!
_store_pids="$_store_pids $churn"

# shellcheck disable=SC2086
"$TALLY" agent --store "http://127.0.0.1:$P/?database=churn" --host-name churn1 \
	--duration "${SECS}s" $ARGS 2>"$d/agent.err" & ag=$!
echo "Command: \`tally agent --store URL --duration ${SECS}s${ARGS:+ $ARGS}\` (defaults: every CPU, 19 Hz,"
echo "-g, 10 s intervals) while a loop runs sh | awk, gcc -O2 -c, clickhouse-client --version and a"
echo "copy of a small program at a new path each round."
echo
echo "| s | VmRSS MB | VmHWM MB |"
echo "|---|---|---|"
t=0
while kill -0 $ag 2>/dev/null; do
	sleep "$STEP"; t=$((t + STEP))
	st=$(cat /proc/$ag/status 2>/dev/null) || break
	rss=$(awk '/^VmRSS/ { print $2 }' <<<"$st"); hwm=$(awk '/^VmHWM/ { print $2 }' <<<"$st")
	cpu=$(awk '{ print $14 + $15 }' /proc/$ag/stat 2>/dev/null)
	[ -n "$rss" ] && printf "| %d | %.1f | %.1f |\n" "$t" "$(echo "$rss / 1024" | bc -l)" "$(echo "$hwm / 1024" | bc -l)"
	[ -n "$cpu" ] && last_cpu=$cpu
done
wait $ag
kill $churn 2>/dev/null
tck=$(getconf CLK_TCK)
echo
printf "CPU (user + sys) at the last reading: %.2f s, %.2f%% of one CPU.\n" \
	"$(echo "${last_cpu:-0} / $tck" | bc -l)" "$(echo "${last_cpu:-0} * 100 / $tck / $t" | bc -l)"
echo "End line: \`$(tail -1 "$d/agent.err")\`"
st=$(grep -m1 'symbol tables:' "$d/agent.err") && echo "With -v: \`$st\`"
