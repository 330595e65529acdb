#!/usr/bin/env bash
# run.sh: alone (it counts lost samples or CPU time on a machine it keeps busy itself: other tests beside it starve its reader)
# tally top -p of a process of 200 busy threads: the samples between two
# screens are what the target's own CPU time over the same screens gives
# at 4000 Hz (/proc/PID/stat, the kernel's count of it), and a signal
# ends top at once with 128 + N (SIGTERM 143, SIGINT 130), as perf top.
# The target runs at nice 19 so that top itself is not starved.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
d=$(mktemp -d)
tgt= tp=
# only this shell cleans up: a child forked for a background job that is
# signalled before it execs would run the EXIT trap too (bash runs it on
# SIGTERM), killing the target and removing $d under the test
trap '[ "$BASHPID" = $$ ] || exit; kill $tgt $tp 2>/dev/null; rm -rf "$d"' EXIT

nice -n 19 "$W" spin-threads 200 60000 & tgt=$!
for ((i = 0; i < 300; i++)); do
	[ "$(ls /proc/$tgt/task 2>/dev/null | wc -l)" -ge 201 ] && break
	sleep 0.1
done
is "the target runs 200 threads" "$(ls /proc/$tgt/task | wc -l)" 201

screens() { tr '\033' '\n' <"$1" | grep -ac 'PerfTop:'; }
# the last screen's total of samples (lost + taken): "lost: L/TOTAL"
total() { tr '\033' '\n' <"$1" | grep -a 'PerfTop:' | tail -1 | sed 's/.*lost: [0-9]*\/\([0-9]*\) .*/\1/'; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$tgt/stat"; }
# wait_screens FILE N [TENTHS]: FILE holds N screens
wait_screens() {
	local i
	for ((i = 0; i < ${3:-300}; i++)); do
		[ "$(screens "$1")" -ge "$2" ] && return 0
		sleep 0.02
	done
	return 1
}

"$TALLY" top --stdio -d 1 -p "$tgt" >"$d/top.txt" 2>"$d/top.err" & tp=$!
check "the first screen" wait_screens "$d/top.txt" 1 1500
# from a screen's appearance to the fourth after: samples against CPU time
wait_screens "$d/top.txt" 2
c0=$(cpu_ticks); s0=$(total "$d/top.txt")
wait_screens "$d/top.txt" 6
c1=$(cpu_ticks); s1=$(total "$d/top.txt")
hz=$(getconf CLK_TCK)
want=$(((c1 - c0) * 4000 / hz)) got=$((s1 - s0))
echo "# samples $got, the target's CPU time says $want"
check "the samples are the target's CPU time at 4000 Hz (within 25%: $got for $want)" \
	test "$want" -gt 0 -a "$((got * 100))" -ge "$((want * 75))" -a "$((got * 100))" -le "$((want * 125))"
is "lost nothing" "$(tr '\033' '\n' <"$d/top.txt" | grep -a 'PerfTop:' | tail -1 | sed 's/.*lost: \([0-9]*\)\/.*/\1/')" 0

t0=$(date +%s%N)
kill -TERM $tp; wait $tp; rc=$?; tp=
ms=$((($(date +%s%N) - t0) / 1000000))
is "SIGTERM: exit 143" "$rc" 143
check "  within 2 s ($ms ms)" test "$ms" -le 2000

"$TALLY" top --stdio -d 1 -p "$tgt" >"$d/int.txt" 2>/dev/null & tp=$!
wait_screens "$d/int.txt" 1 1500
kill -INT $tp; wait $tp; rc=$?; tp=
is "SIGINT: exit 130" "$rc" 130
# a signal during the setup (a thread's events per CPU, /proc read): no wait for it to end;
# sent once tally runs (before its exec it would reach the forked shell)
"$TALLY" top --stdio -d 1 -p "$tgt" >/dev/null 2>&1 & tp=$!
for ((i = 0; i < 500; i++)); do
	[ "$(readlink "/proc/$tp/exe" 2>/dev/null)" = "$TALLY" ] && break
	sleep 0.01
done
sleep 0.05
t0=$(date +%s%N)
kill -TERM $tp; wait $tp; rc=$?; tp=
ms=$((($(date +%s%N) - t0) / 1000000))
is "SIGTERM while opening: exit 143" "$rc" 143
check "  within 2 s ($ms ms)" test "$ms" -le 2000
kill $tgt 2>/dev/null; wait $tgt 2>/dev/null

# one busy thread: its rings wake top rarely (the watermark), yet each
# screen counts the second before it (not the one before that: a round
# held back; the first screen showed 0), its samples the target's CPU
# time of that second
nice -n 19 "$W" spin 60000 & tgt=$!
"$TALLY" top --stdio -d 1 -p "$tgt" >"$d/one.txt" 2>/dev/null & tp=$!
wait_screens "$d/one.txt" 1 1500
first=$(total "$d/one.txt")
check "the first screen counts the first second (${first:-no} samples)" test "${first:-0}" -gt 0
bad=0 seen=
for n in 2 3 4 5; do
	wait_screens "$d/one.txt" "$n" || break
	c=$(cpu_ticks) s=$(total "$d/one.txt")
	if [ -n "$seen" ]; then
		want=$(((c - c_prev) * 4000 / hz)) got=$((s - s_prev))
		echo "# screen $n: $got samples, the CPU time says $want"
		[ "$want" -gt 0 ] && [ $((got * 100)) -ge $((want * 70)) ] && [ $((got * 100)) -le $((want * 130)) ] || bad=$((bad + 1))
	fi
	seen=1 c_prev=$c s_prev=$s
done
is "each screen's samples are its second's CPU time at 4000 Hz (within 30%)" "$bad" 0
kill -TERM $tp; wait $tp; tp=
done_testing
