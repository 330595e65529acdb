#!/usr/bin/env bash
# perf stat's options that scripts use: --no-merge, --scale/--no-scale,
# --percore-show-thread, --td-level taken as perf takes them; -M with the
# built-in metrics (and a clear word where the machine cannot count them);
# --topdown and --metric-only refused where perf would show nothing.
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
check "-M unknown: named, with the known ones" grep -q "'nosuch': no such metric (tally knows IPC" "$d/e"
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
"$TALLY" stat --metric-only -e task-clock -- true 2>"$d/e"; rc=$?
is "--metric-only without metrics: usage error, not an empty table" "$rc" 129
done_testing
