#!/usr/bin/env bash
# run.sh: apart (it loads BPF programs on the syscall tracepoints: other tests' kernel call chains would pass through them)
# tally trace record (issue 32): perf trace record's file (raw_syscalls'
# sys_enter/sys_exit, -c 1, our own pid filtered off, --pf's fault
# events, then record's options and the command), which tally trace -i
# and perf trace -i read alike, line for line, from the one recording
# (tally's with --no-strings: the path strings record keeps are
# trace_record_strings.sh's).
# Before it, "record" was taken for the command to trace (exit 127).
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

if ! have_tp; then
	skip "no syscall tracepoints here"
	done_testing
	exit 0
fi

$TALLY trace record -o "$tmp/g.data" -- "$W" getpid 50 >/dev/null 2>"$tmp/err"; rc=$?
is "record: exit 0" "$rc" "0"
$TALLY trace -i "$tmp/g.data" -o "$tmp/gi" 2>"$tmp/err"
is "-i: the 50 getpid calls" "$(grep -c ' getpid() *= [0-9]' "$tmp/gi")" "50"
is "-i: the workload's exit_group" "$(grep -c ' exit_group(' "$tmp/gi")" "1"

# the same file through perf: every line, but statx's flags and mask (perf 6.1 prints them empty)
if have_perf; then
	$TALLY trace record -o "$tmp/ls.data" -- ls / >/dev/null 2>&1
	perf trace -i "$tmp/ls.data" >"$tmp/p" 2>&1
	$TALLY trace --no-strings -i "$tmp/ls.data" >"$tmp/t" 2>&1
	grep -v 'statx(' "$tmp/p" >"$tmp/pn"
	grep -v 'statx(' "$tmp/t" >"$tmp/tn"
	if [ "$(wc -l <"$tmp/tn")" -gt 20 ] && diff "$tmp/pn" "$tmp/tn" >"$tmp/diff"; then
		ok "ls: perf trace -i's lines ($(wc -l <"$tmp/tn"))"
	else
		fail "ls: perf trace -i's lines"; head -20 "$tmp/diff" | sed 's/^/# /'
	fi
	perf trace -s -i "$tmp/ls.data" >"$tmp/ps" 2>&1
	$TALLY trace -s -i "$tmp/ls.data" >"$tmp/ts" 2>&1
	# the calls perf and tally both count: openat, read, mmap, close
	for sc in openat read mmap close; do
		is "ls -s: $sc as perf's" "$(awk -v s="$sc" '$1 == s { print $2, $3 }' "$tmp/ts")" \
			"$(awk -v s="$sc" '$1 == s { print $2, $3 }' "$tmp/ps")"
	done
else
	skip "no perf: perf trace -i's lines"
fi

# -a: tally's own calls (writing the file) filtered off, the workload's kept
$TALLY trace record -a -o "$tmp/a.data" -- "$W" getpid 20 >/dev/null 2>&1 &
tpid=$!
wait $tpid
$TALLY trace -i "$tmp/a.data" -o "$tmp/ai" 2>/dev/null
is "-a: none of tally's own calls" "$(grep -c "/$tpid " "$tmp/ai")" "0"
# (whole lines, or ended by "... [continued]: getpid()) = N" where another
# CPU's line came between the call's entry and exit: 18 whole ones once)
check "-a: the workload's getpid calls" [ "$(grep -cE ' getpid\(\) *= [0-9]|\[continued\]: getpid\(\)\) *= [0-9]' "$tmp/ai")" -ge 20 ]

# record's options after record: -e adds an event, as perf's
$TALLY trace record -e sched:sched_process_exec -o "$tmp/e.data" -- "$W" getpid 1 >/dev/null 2>&1
is "record -e: the event is recorded" \
	"$($TALLY script -i "$tmp/e.data" -F event 2>/dev/null | grep -c 'sched:sched_process_exec')" "1"
# --pf before record: the fault events too
$TALLY trace --pf=all record -o "$tmp/pf.data" -- "$W" getpid 1 >/dev/null 2>&1
is "--pf=all record: both fault events in the file" \
	"$($TALLY report --header-only -i "$tmp/pf.data" 2>/dev/null |
		grep -Eo '^# event : name = (major|minor)-faults' | cut -d' ' -f6 | tr '\n' ' ')" \
	"major-faults minor-faults "
# trace's own -e before record is refused (perf would drop it silently)
$TALLY trace -e getpid record -o "$tmp/x.data" -- true 2>"$tmp/err"; rc=$?
is "-e before record: usage error 129" "$rc" "129"
check "-e before record: says where it goes" grep -q "after 'record'" "$tmp/err"
done_testing
