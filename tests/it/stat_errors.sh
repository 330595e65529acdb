#!/usr/bin/env bash
# tally stat on bad input: unknown events and modifiers (exit 129 as perf's
# usage errors, the token and its column, nothing run), bad pids, no permission (as nobody with
# perf_event_paranoid 2: the message names it), a command that does not
# exist (127) or cannot be run (126), bad options (129), and the
# workload's own status passed through.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
tmp=$(mktemp -d)
saved_paranoid=
cleanup() {
	[ -n "$saved_paranoid" ] && echo "$saved_paranoid" >/proc/sys/kernel/perf_event_paranoid
	rm -rf "$tmp"
}
trap cleanup EXIT

# Unknown event: exit 129 (perf's usage status), perf-style caret under the token, a suggestion,
# and the command never runs.
$TALLY stat -e instrutions -- touch "$tmp/ran" 2>"$tmp/e"
is "unknown event: exit 129" "$?" "129"
check "unknown event: perf's 'event syntax error' line" grep -q "^event syntax error: 'instrutions'" "$tmp/e"
check "unknown event: names the token" grep -q "unknown event 'instrutions'" "$tmp/e"
check "unknown event: suggests instructions" grep -q "did you mean 'instructions'" "$tmp/e"
# the caret (\___) sits under column 0 of the spec: 21 = len("event syntax error: '")
is "unknown event: caret under the token" \
   "$(awk '/\\___/ { print index($0, "\\___") - 1; exit }' "$tmp/e")" "21"
check "unknown event: the command did not run" test ! -e "$tmp/ran"

# The bad token in the middle of a list: the caret moves to its column.
$TALLY stat -e task-clock,bogus-event -- true 2>"$tmp/e"
is "second event unknown: exit 129" "$?" "129"
is "second event unknown: caret at its column" \
   "$(awk '/\\___/ { print index($0, "\\___") - 1; exit }' "$tmp/e")" "$((21 + 11))"

# A bad spec longer than 1 KB: perf's window on it ('..' at the cut ends,
# one 80-column line when not on a terminal), the caret and the reason kept.
long=$(printf 'minor-faults,%.0s' $(seq 100))bogus$(printf ',major-faults%.0s' $(seq 100))
env -u LINES -u COLUMNS $TALLY stat -e "$long" -- true 2>"$tmp/e" </dev/null
is "long bad spec: exit 129" "$?" "129"
check "long bad spec: the window around the token, '..' at both ends" \
	grep -qx "event syntax error: '\.\..*,bogus,.*\.\.'" "$tmp/e"
is "long bad spec: one 80-column line" "$(head -1 "$tmp/e" | awk '{ print length($0) }')" 80
is "long bad spec: the caret under the token, with the reason" \
	"$(awk '/\\___/ { print index($0, "\\___") - 1 ":" substr($0, index($0, "\\___") + 5); exit }' "$tmp/e")" \
	"$(awk 'NR == 1 { print index($0, ",bogus") ":unknown event '"'"'bogus'"'"'" }' "$tmp/e")"
if have_perf; then
	env -u LINES -u COLUMNS perf stat -e "$long" -- true 2>"$tmp/pe" </dev/null
	is "long bad spec: perf's line" "$(head -1 "$tmp/e")" "$(head -1 "$tmp/pe")"
	is "long bad spec: perf's caret column" "$(awk '/\\___/ { print index($0, "\\___"); exit }' "$tmp/e")" \
		"$(awk '/\\___/ { print index($0, "\\___"); exit }' "$tmp/pe")"
else
	skip "no perf"; skip "no perf"
fi

# A --filter the kernel refuses: exit 1 with perf's message, not a run
# that counts nothing (<not supported>) and exits 0.
if have_tp; then
	$TALLY stat -x, -e syscalls:sys_enter_getpid --filter 'nosuchfield == 1' -e task-clock \
		-- touch "$tmp/ran" 2>"$tmp/e"
	is "bad --filter: exit 1" "$?" "1"
	check "bad --filter: perf's 'failed to set filter' line" \
	      grep -qF 'failed to set filter "nosuchfield == 1" on event syscalls:sys_enter_getpid with 22 (Invalid argument)' "$tmp/e"
	check "bad --filter: no counts printed" sh -c "! grep -q task-clock '$tmp/e'"
	check "bad --filter: the command did not run" test ! -e "$tmp/ran"
else
	for _ in 1 2 3 4; do skip "no getpid tracepoint"; done
fi

# Bad modifier.
$TALLY stat -e task-clock:zq -- true 2>"$tmp/e"
is "bad modifier: exit 129" "$?" "129"
check "bad modifier: says modifier" grep -qi "modifier" "$tmp/e"
$TALLY stat -e 'cpu/event=0xzz/' -- true 2>/dev/null
is "bad PMU term: exit 129" "$?" "129"
$TALLY stat -e '{task-clock' -- true 2>/dev/null
is "unclosed group: exit 129" "$?" "129"

# Unsupported hardware events are rows, not failures.
$TALLY stat -x, -e cycles,task-clock -- true 2>"$tmp/e"
is "unsupported event: run succeeds" "$?" "0"
if grep -q '^<not supported>,,cycles,' "$tmp/e"; then
	ok "unsupported event: a <not supported> row"
elif grep -q '^[0-9]*,,cycles,' "$tmp/e"; then
	skip "this machine has a hardware PMU: cycles counts"
else
	fail "no cycles row: $(cat "$tmp/e")"
fi

# Bad pids.
$TALLY stat -p 2147483 -e task-clock 2>"$tmp/e"
is "pid that does not exist: exit 1" "$?" "1"
check "pid that does not exist: says so" grep -q "no such process" "$tmp/e"
$TALLY stat -p abc -e task-clock 2>"$tmp/e"
is "pid that is not a number: exit 1" "$?" "1"
$TALLY stat -t 12x -e task-clock 2>/dev/null
is "bad tid list: exit 1" "$?" "1"
$TALLY stat -C 99999 -e cpu-clock -- true 2>/dev/null
rc=$?
check "CPU that does not exist: fails (rc $rc)" test "$rc" -ne 0

# Commands that cannot run.
$TALLY stat -e task-clock -- /nonexistent/cmd 2>"$tmp/e"
is "missing command: exit 127" "$?" "127"
check "missing command: perf-style message" grep -q "command '/nonexistent/cmd' not found" "$tmp/e"
check "missing command: no counts printed" sh -c "! grep -q 'task-clock' '$tmp/e'"
$TALLY stat -e task-clock -- no-such-command-xyz 2>/dev/null
is "command not in PATH: exit 127" "$?" "127"
printf '#!/bin/sh\nexit 0\n' >"$tmp/noexec"; chmod 644 "$tmp/noexec"
$TALLY stat -e task-clock -- "$tmp/noexec" 2>"$tmp/e"
is "not executable: exit 126" "$?" "126"
check "not executable: says why" grep -q "Permission denied" "$tmp/e"

# Workload status passes through.
for code in 0 3 77; do
	$TALLY stat -e task-clock -- "$W" exit $code 2>/dev/null
	is "workload exit $code -> $code" "$?" "$code"
done

# Usage errors: perf's 129.
$TALLY stat -e task-clock --filter 'x' -- true 2>/dev/null
is "--filter after a non-tracepoint: exit 129" "$?" "129"
$TALLY stat --no-such-option -- true 2>/dev/null
is "unknown option: exit 129" "$?" "129"
$TALLY stat 2>/dev/null
is "nothing to count: exit 129" "$?" "129"
$TALLY stat -r -1 -- true 2>/dev/null
is "-r -1: exit 129 (-r 0 is perf's forever)" "$?" "129"
$TALLY stat --help >"$tmp/h" 2>&1
is "--help: exit 0" "$?" "0"
check "--help lists -e" grep -q -- "--event" "$tmp/h"

# No command (-a, -p): a signal ends counting; the counts are printed, then
# tally dies by the signal as perf does (the shell sees 128 + signal).
for sig in INT TERM; do
	$TALLY stat -x, -a -e task-clock 2>"$tmp/s" &
	pid=$!
	sleep 0.5
	kill -$sig $pid
	wait $pid
	rc=$? want=$((128 + $(kill -l $sig)))
	is "-a ended by SIG$sig: dies by it ($want)" "$rc" "$want"
	check "-a ended by SIG$sig: the counts printed first" grep -q ',task-clock,' "$tmp/s"
done
"$W" spin 5000 &
spin=$!
$TALLY stat -x, -p $spin -e task-clock 2>"$tmp/s" &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
is "-p ended by SIGINT: dies by it (130)" "$?" "130"
check "-p ended by SIGINT: the counts printed first" grep -q ',task-clock,' "$tmp/s"
kill $spin; wait $spin 2>/dev/null
if have_perf; then
	perf stat -a -e task-clock 2>/dev/null &
	pid=$!
	sleep 0.5
	kill -INT $pid
	wait $pid
	is "perf -a ended by SIGINT: the same status" "$?" "130"
else
	skip "no perf"
fi

# No permission: as nobody with perf_event_paranoid 2, system-wide counting
# is refused and the message names perf_event_paranoid; a per-task count
# falls back to user space only (":u"), as perf does.
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	for _ in 1 2 3 4; do skip "needs root and setpriv to test as nobody"; done
else
	saved_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	if ! echo 2 >/proc/sys/kernel/perf_event_paranoid 2>/dev/null; then
		saved_paranoid=
		for _ in 1 2 3 4; do skip "cannot set perf_event_paranoid"; done
	else
		mkdir -p "$tmp/bin"; cp "$TALLY" "$W" "$tmp/bin/"; chmod -R a+rx "$tmp"
		asnobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
		asnobody "$tmp/bin/tally" stat -a -e cpu-clock -- true 2>"$tmp/e"
		is "nobody -a: exit 1" "$?" "1"
		check "nobody -a: names perf_event_paranoid" grep -q perf_event_paranoid "$tmp/e"
		asnobody "$tmp/bin/tally" stat -x, -e task-clock -- "$tmp/bin/work" getpid 10 2>"$tmp/e"
		is "nobody per-task: runs" "$?" "0"
		check "nobody per-task: user-space only, named task-clock:u" grep -q ',task-clock:u,' "$tmp/e"
		# hints that fit the case: no ':u' advice where ':u' would not help
		asnobody "$tmp/bin/tally" stat -a -e cpu-clock:u -- true 2>"$tmp/e"
		check "nobody -a cpu-clock:u: no ':u' advice" sh -c "! grep -q \"with ':u'\" '$tmp/e'"
		check "nobody -a: the cause named (system-wide)" grep -q 'Counting system-wide' "$tmp/e"
		asnobody "$tmp/bin/tally" stat -e cpu-clock -p 1 2>"$tmp/e"
		check "nobody -p 1: another user's process named" grep -q 'Process 1 belongs to another user' "$tmp/e"
		check "nobody -p 1: no ':u' advice" sh -c "! grep -q \"with ':u'\" '$tmp/e'"
		asnobody "$tmp/bin/tally" stat -e cpu-clock:k -- true 2>"$tmp/e"
		check "nobody cpu-clock:k: ':u' is the advice" grep -q "with ':u'" "$tmp/e"
	fi
fi

done_testing
