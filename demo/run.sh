#!/usr/bin/env bash
# make demo: count the bundled demo workload with tally, then show perf's
# numbers for the same events next to it.
set -eu
BUILD=${BUILD:-build}
mkdir -p "$BUILD/demo"
cc -O2 -g -o "$BUILD/demo/demo" demo/demo.c
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

hr "tally list 'syscalls:sys_enter_get*' (first lines)"
"$T" list 'syscalls:sys_enter_get*' | head -8
