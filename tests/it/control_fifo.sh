#!/usr/bin/env bash
# tally stat and record -D -1 --control (perf 6.1's): the counting starts disabled
# ("Events disabled") and another program turns it on and off through a
# FIFO or an inherited fd, each command answered "ack". Exact counts: the
# workload sleeps 400 ms, then makes 37 getpid calls; enabled during the
# sleep they are 37, enabled then disabled again none, never enabled
# "<not counted>"; record's samples likewise, the exec's maps kept
# meanwhile (a dummy event's). perf's words and its refusal of a bad spec.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
TP=syscalls:sys_enter_getpid
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_tp "$TP"; then skip "no $TP tracepoint here"; done_testing; exit 0; fi
mkfifo "$d/ctl" "$d/ack"
# the count column of the -x, line (stat writes to stderr, as perf)
count() { grep ",$TP," "$1" | head -1 | cut -d, -f1; }

# run CMDS...: stat in the background, each command sent and its ack read
run() {
	local out=$1; shift
	"$TALLY" stat -x, -D -1 --control "fifo:$d/ctl,$d/ack" -e $TP -- "$W" sleep-getpid 400 37 \
		>"$out" 2>"$out.err" &
	local pid=$!
	exec 8<"$d/ack"		# stat opens ack for writing: it waits for this reader
	for c in "$@"; do
		echo "$c" >"$d/ctl"
		read -r -t 5 a <&8 || a=none
		echo "$c:$a" >>"$out.acks"
	done
	wait "$pid"
	local rc=$?
	exec 8<&-
	return $rc
}

run "$d/on" enable
is "enable during the sleep: exit 0" "$?" 0
is "  each command answered" "$(cat "$d/on.acks")" "enable:ack"
is "  37 getpid counted" "$(count "$d/on.err")" 37
check "  perf's words: Events disabled, then enabled" \
	sh -c "grep -qx 'Events disabled' '$d/on.err' && grep -qx 'Events enabled' '$d/on.err'"

run "$d/off" enable disable
# (the workload asleep all the while, its counter may not have run at all: perf's "<not counted>")
c=$(count "$d/off.err")
check "enable then disable during the sleep: none counted ($c)" test "$c" = 0 -o "$c" = "<not counted>"
is "  both answered" "$(paste -sd' ' "$d/off.acks")" "enable:ack disable:ack"

run "$d/none" ping
is "never enabled: <not counted>" "$(count "$d/none.err")" "<not counted>"
is "  ping answered" "$(cat "$d/none.acks")" "ping:ack"

# fd: a descriptor the caller opened (a FIFO held open both ways), no ack
mkfifo "$d/ctl2"
exec 7<>"$d/ctl2"
"$TALLY" stat -x, -D -1 --control fd:7 -e $TP -- "$W" sleep-getpid 400 37 2>"$d/fd" &
pid=$!
sleep 0.1
echo enable >&7
wait "$pid"
exec 7>&-
is "--control fd:7: enabled, 37 counted" "$(count "$d/fd")" 37

"$TALLY" stat --control bogus -- true 2>"$d/err"
is "--control bogus: a usage error (129)" "$?" 129
check "  says the two forms" grep -q 'fifo:CTL' "$d/err"
"$TALLY" stat --control "fifo:$d/nonexistent" -- true 2>"$d/err"
is "--control of a missing FIFO: 1" "$?" 1
if have_perf; then
	perf stat --control bogus -- true >/dev/null 2>&1
	is "  perf refuses the bad spec too (129)" "$?" 129
fi

# record: the samples of the enabled window alone, their symbols found
rec() {
	local out=$1; shift
	"$TALLY" record -D -1 --control "fifo:$d/ctl,$d/ack" -e $TP -c 1 -o "$out" -- \
		"$W" sleep-getpid 400 37 >/dev/null 2>"$out.err" &
	local pid=$!
	exec 8<"$d/ack"
	for c in "$@"; do
		echo "$c" >"$d/ctl"
		read -r -t 5 a <&8 || a=none
	done
	wait "$pid"
	local rc=$?
	exec 8<&-
	return $rc
}
n_getpid() { "$TALLY" script -i "$1" -F event 2>/dev/null | grep -c sys_enter_getpid; }
rec "$d/r1.data" enable
is "record -D -1, enabled during the sleep: exit 0" "$?" 0
is "  37 samples" "$(n_getpid "$d/r1.data")" 37
check "  in libc (the maps of the exec kept while disabled)" \
	sh -c "'$TALLY' script -i '$d/r1.data' -F ip,dso 2>/dev/null | grep -q libc"
check "  perf's words" sh -c "grep -qx 'Events disabled' '$d/r1.data.err' && grep -qx 'Events enabled' '$d/r1.data.err'"
rec "$d/r2.data" ping
is "record never enabled: no sample" "$(n_getpid "$d/r2.data")" 0
have_perf && check "  perf reads the file" sh -c "perf script -i '$d/r1.data' >/dev/null 2>&1"
# record --switch-output: snapshot writes the file so far, as SIGUSR2 does
( cd "$d" && "$TALLY" record -q --switch-output --control "fifo:$d/ctl,$d/ack" -e cpu-clock \
	-o sw.data -- "$W" spin 600 ) &
pid=$!
exec 8<"$d/ack"
sleep 0.3
echo snapshot >"$d/ctl"
read -r -t 5 a <&8 || a=none
wait "$pid"
exec 8<&-
is "record snapshot: answered" "$a" ack
is "  two files: the snapshot's and the end's" "$(ls "$d" | grep -cE '^sw\.data\.[0-9]{16}$')" 2
done_testing
