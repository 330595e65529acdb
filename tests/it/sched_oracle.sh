#!/usr/bin/env bash
# tally sched against what the workload did: a child blocked in read() on
# a pipe, woken by N one-byte writes 1 ms apart (each written once the
# child sleeps again), shows N wake-ups of it in timehist -w and N
# switches away from it in timehist (give or take its start and exit:
# the wake-up of a new task, the one at EOF), in tally's recording and in
# perf's, both read by tally. (latency counts no sched_waking wake-up,
# as perf 6.1: no oracle there; sched_parity compares it with perf.)
. "$(dirname "$0")/lib.sh"
PW=$HELPERS/pipewake
N=60
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if [ "$(id -u)" != 0 ]; then skip "sched record is system-wide: it needs root"; done_testing; exit 0; fi

# within NAME GOT LO HI
within() { if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then ok "$1 ($2)"; else fail "$1 (got $2, want $3..$4)"; fi; }

oracle() {
	local who=$1 F=$2 pid=$3 wakes outs
	# by the writer (the waker that woke it most): on a loaded machine
	# the kernel wakes it now and then too (a fault's I/O, state D)
	wakes=$("$TALLY" sched timehist -w -i "$F" 2>/dev/null | grep "awakened: pipewake\[$pid\]$" |
		awk '{ n[$3]++ } END { for (w in n) if (n[w] > m) m = n[w]; print m + 0 }')
	within "$who: timehist -w shows the reader woken N times by the writer" "$wakes" $N $((N + 2))
	# the switches where it went to sleep in read() (--state S): on a
	# loaded machine it is also preempted (R) or waits on a fault (D)
	outs=$("$TALLY" sched timehist --state -i "$F" 2>/dev/null |
		awk -v t="pipewake[$pid]" '$3 == t && $NF == "S"' | wc -l)
	within "$who: timehist shows N switches away from the reader to sleep" "$outs" $N $((N + 3))
}

"$TALLY" sched record -q -o "$d/t.data" -- "$PW" wake $N >"$d/t.out" 2>"$d/t.err"
is "tally sched record exits with the workload's status" "$?" 0
oracle "tally's file" "$d/t.data" "$(awk '/^reader/ { print $2 }' "$d/t.out")"
if have_perf; then
	perf sched record -q -o "$d/p.data" -- "$PW" wake $N >"$d/p.out" 2>/dev/null
	oracle "perf's file" "$d/p.data" "$(awk '/^reader/ { print $2 }' "$d/p.out")"
else
	skip "perf is not installed: no perf recording to read"
fi
done_testing
