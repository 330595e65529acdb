#!/usr/bin/env bash
# make demo: count the bundled demo workload with tally, show perf's
# numbers for the same events next to it, then profile it with tally
# record and read the profile back.
set -eu
BUILD=${BUILD:-build}
mkdir -p "$BUILD/demo"
cc -O2 -g -fno-omit-frame-pointer -o "$BUILD/demo/demo" demo/demo.c
T="$BUILD/tally"
D="$BUILD/demo/demo"
hr() { printf '\n=== %s ===\n' "$*"; }

hr "tally stat (default events) -- demo"
"$T" stat -- "$D"

hr "tally stat: exact kernel counts (tracepoints)"
"$T" stat -e syscalls:sys_enter_getpid,syscalls:sys_enter_mmap,page-faults,task-clock -- "$D"

hr "tally stat -j (JSON, one object per line)"
"$T" stat -j -e syscalls:sys_enter_getpid,page-faults -- "$D" 2>&1 >/dev/null | head -5

if command -v perf >/dev/null; then
	hr "perf stat, the same events, for comparison"
	perf stat -e syscalls:sys_enter_getpid,syscalls:sys_enter_mmap,page-faults,task-clock -- "$D"
fi

hr "tally and perf on the exact kernel counts (CSV)"
ev=syscalls:sys_enter_getpid,syscalls:sys_enter_munmap
t=$("$T" stat -x, -e "$ev" -- "$D" 2>&1 >/dev/null | cut -d, -f1,3)
echo "tally: $(echo $t)"
if command -v perf >/dev/null; then
	p=$(perf stat -x, -e "$ev" -- "$D" 2>&1 >/dev/null | cut -d, -f1,3)
	echo "perf:  $(echo $p)"
	[ "$t" = "$p" ] && echo "=> the same counts" || echo "=> counts differ"
fi

hr "self-monitoring: examples/selfmon_group.c reads its own counters around a loop"
"$BUILD/examples/selfmon_group" | head -12

hr "a bad event spec names the token and column"
"$T" stat -e 'task-clock,instrutions' -- "$D" || true

hr "tally list 'syscalls:sys_enter_get*' (first lines)"
"$T" list 'syscalls:sys_enter_get*' | head -8

hr "tally record -F 999 -g --html -- demo (a profile in perf.data format, and a page)"
"$T" record -F 999 -g -o "$BUILD/demo/perf.data" --html "$BUILD/demo/profile.html" -- "$D"

hr "tally report: the hottest functions, each with the call chains that reached it"
"$T" report --stdio --no-children -i "$BUILD/demo/perf.data" 2>&1 | grep -v '^#' |
	grep -v '^$' | head -24
if command -v perf >/dev/null; then
	hr "perf report reads tally's file: the hottest functions"
	perf report --stdio --no-children -g none --sort comm,dso,sym -i "$BUILD/demo/perf.data" 2>&1 |
		grep -v '^#' | grep -v '^$' | grep '%' | head -12
fi

hr "pictures from the same file: flame graph (SVG), pprof, collapsed stacks"
"$T" report -i "$BUILD/demo/perf.data" --flamegraph "$BUILD/demo/flamegraph.svg" \
	--pprof "$BUILD/demo/profile.pb.gz"
echo "page:        $BUILD/demo/profile.html (open it in a browser: functions, flame graph, callers)"
echo "flame graph: $BUILD/demo/flamegraph.svg (open it in a browser: click to zoom, Search)"
echo "pprof:       $BUILD/demo/profile.pb.gz (go tool pprof -top $BUILD/demo/profile.pb.gz)"
"$T" report -i "$BUILD/demo/perf.data" --folded | sort -t' ' -k2 -rn | head -3
if command -v go >/dev/null; then
	HOME=${HOME:-/root} go tool pprof -top -nodecount=5 "$BUILD/demo/profile.pb.gz" 2>/dev/null | tail -6
fi

hr "next"
echo "open $BUILD/demo/profile.html in a browser: the functions (click a column to sort),"
echo "the flame graph and the callers' icicle of the profile above"
