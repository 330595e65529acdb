#!/usr/bin/env bash
# perf stat's options that scripts use: --no-merge, --scale/--no-scale,
# --percore-show-thread, --td-level taken as perf takes them; -M with the
# built-in metrics (and a clear word where the machine cannot count them);
# --topdown refused where perf would show nothing; --metric-only's table
# (its values need a PMU: test_stat_output checks them on synthetic rows).
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
names() { grep -E '^ +([0-9.,]+|<not supported>|<not counted>) ' "$1" | sed -E 's/^ +(<not supported>|<not counted>|[0-9.,]+)( msec)? +//' | awk '$1 != "seconds" { print $1 }' | tr '\n' ' '; }

for o in --no-merge --scale --no-scale --percore-show-thread "--td-level 1"; do
	"$TALLY" stat $o -e task-clock,page-faults -- "$W" getpid 10 2>"$d/t"; rc=$?
	is "$o: exits 0" "$rc" 0
	is "$o: the events' rows" "$(names "$d/t")" "task-clock page-faults "
	if have_perf; then
		perf stat $o -e task-clock,page-faults -- "$W" getpid 10 2>"$d/p"
		is "$o: the rows perf prints" "$(names "$d/t")" "$(names "$d/p")"
	fi
done
# -M: a built-in metric's events; a machine without a PMU says it cannot
"$TALLY" stat -M IPC -- "$W" getpid 10 2>"$d/t"; rc=$?
is "-M IPC: exits 0" "$rc" 0
is "-M IPC: its events" "$(names "$d/t")" "cycles instructions "
if "$TALLY" stat -e cycles -- true 2>&1 | grep -q 'not supported'; then
	check "-M IPC without a PMU: says the metric cannot be shown" \
		grep -q 'metric IPC needs cycles,instructions.*cannot be shown' "$d/t"
else
	check "-M IPC with a PMU: insn per cycle shown" grep -q 'insn per cycle' "$d/t"
fi
"$TALLY" stat -M nosuch -- true 2>"$d/e"; rc=$?
is "-M unknown: usage error" "$rc" 129
check "-M unknown: named, with the known ones" grep -q "'nosuch': no such metric (tally's own: IPC" "$d/e"
# perf's metrics for this CPU (perf list metric): -M knows them; where an
# event of theirs cannot be counted here, the error names it and says why
if have_perf && perf list --details metric 2>/dev/null | grep -q '^  [a-z]'; then
	perf list --details metric 2>/dev/null | awk '/^  [^ ]/ { m = $1; n = 0; next }
		/^       \[/ { if (++n == 2) { sub(/^ *\[(d_ratio\()?\(?/, ""); split($0, w, /[ ,)]/); print m, w[1] } }' >"$d/pm"
	bad=0
	while read -r m ev; do
		"$TALLY" stat -M "$m" -- true 2>"$d/e"; rc=$?
		if [ "$rc" = 0 ]; then
			continue	# countable here (a PMU): counted, not an error
		fi
		grep -q "'$m': perf's metric needs event '$ev', which this machine cannot count: " "$d/e" ||
			{ bad=$((bad + 1)); echo "# -M $m (want event $ev):"; sed 's/^/#   /' "$d/e"; }
	done <"$d/pm"
	is "-M each of perf's $(wc -l <"$d/pm") metrics: known, the first uncountable event named" "$bad" 0
	grp=$(perf list metricgroup 2>/dev/null | awk 'NF && !/:$/ { print; exit }')
	"$TALLY" stat -M "$grp" -- true 2>"$d/e"
	check "-M a metric group ($grp): known" sh -c "! grep -q 'no such metric' '$d/e'"
else
	"$TALLY" stat -M all_l2_cache_hits -- true 2>"$d/e"
	check "-M: no perf metrics for this CPU, said so" grep -q 'perf 6.1 has no metric table for this CPU' "$d/e"
	skip "perf lists no metrics here"
fi
"$TALLY" stat --metric-group branch_miss_rate -- true 2>"$d/t"
is "--metric-group: perf's other name for -M" "$(names "$d/t")" "branches branch-misses "
# --topdown: system-wide only (perf's words), and only where the CPU has the events
"$TALLY" stat --topdown -- true 2>"$d/e"; rc=$?
is "--topdown without -a: usage error" "$rc" 129
check "--topdown without -a: perf's reason" grep -q 'requires system-wide mode (-a)' "$d/e"
if [ ! -e /sys/bus/event_source/devices/cpu/events/topdown-retiring ]; then
	"$TALLY" stat -a --topdown -- true 2>"$d/e"; rc=$?
	is "--topdown on a CPU without topdown events: refused" "$rc" 129
	check "--topdown: says the CPU has none" grep -q 'this CPU has no topdown events' "$d/e"
fi
# --metric-only: a header of the metrics' units, one line of values, no count rows
"$TALLY" stat --metric-only -e task-clock,cycles,instructions -- "$W" getpid 10 2>"$d/t"; rc=$?
is "--metric-only: exits 0" "$rc" 0
check "--metric-only: the header names GHz and insn per cycle" grep -qE '^ +GHz +insn per cycle $' "$d/t"
is "--metric-only: no count rows" "$(names "$d/t")" ""
if "$TALLY" stat -e cycles -- true 2>&1 | grep -q 'not supported'; then
	is "--metric-only without a PMU: the values line is blank" \
		"$(grep -A1 'GHz' "$d/t" | tail -1 | tr -d ' ')" ""
else
	check "--metric-only with a PMU: values under the header" \
		grep -qE '^ +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{2} +$' "$d/t"
fi
"$TALLY" stat --metric-only -x, -a -A -e cycles -- sleep 0.05 2>"$d/t"
is "--metric-only -x, -A: perf's header, a line per CPU" "$(head -1 "$d/t")" "cpu,GHz,"
is "--metric-only -x, -A: CPU0 first" "$(sed -n 2p "$d/t" | cut -d, -f1)" "CPU0"
"$TALLY" stat --metric-only -j -e cycles,instructions -- true 2>"$d/t"
check "--metric-only -j: one object naming the metrics" grep -q '^{"GHz" : "[0-9.]*", "insn per cycle" : "[0-9.]*"}$' "$d/t"
for o in "--per-thread -p $$" "-r 2"; do
	"$TALLY" stat --metric-only $o -- true 2>"$d/e"; rc=$?
	is "--metric-only $o: refused as perf refuses it" "$rc" 129
	if have_perf; then
		perf stat --metric-only $o -- true 2>"$d/p"
		check "--metric-only $o: perf's words" grep -qF -e "$(head -1 "$d/p")" "$d/e"
	fi
done
done_testing
