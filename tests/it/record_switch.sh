#!/usr/bin/env bash
# tally record's perf 6.1 options for long and special recordings:
#  --switch-output=SIZE: a new file each time SIZE bytes were written,
#  every getpid of the workload in exactly one of them (the exact oracle);
#  --switch-output=TIME with --switch-max-files N: the last N files kept;
#  -r PRIO: the recorder at SCHED_FIFO PRIO, the command at its own;
#  --no-buffering: a wake-up per sample;
#  -u USER: the threads of USER's processes (nobody's burn), not others.
# Each file is read by perf.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
W=$HELPERS/work
TP=syscalls:sys_enter_getpid
d=$(mktemp -d); trap 'rm -rf "$d"; pkill -u nobody -f "$B" 2>/dev/null' EXIT
perf_ok() { ! have_perf || perf script -i "$1" >/dev/null 2>&1; }

# SIZE: 30,000 getpid, 200 KiB a file
if have_tp; then
	mkdir "$d/sz"
	# one process (each new file names it again: its children would be ":PID" there, as in perf's)
	"$TALLY" record -e $TP -c 1 -m 1024 --switch-output=200K -o "$d/sz/p.data" -- \
		"$W" getpid 30000 >/dev/null 2>"$d/sz.err"
	check "--switch-output=200K: nothing lost (a 4 MiB ring for 1.7 MB)" sh -c "! grep -q Lost '$d/sz.err'"
	n=$(ls "$d/sz" | grep -c '^p\.data\.')
	check "--switch-output=200K: several files ($n)" test "$n" -ge 2
	total=0 small=0
	for f in "$d"/sz/p.data.*; do
		c=$("$TALLY" script -i "$f" -F comm 2>/dev/null | grep -c work)
		total=$((total + c))
		[ "$f" != "$(ls "$d"/sz/p.data.* | tail -1)" ] && [ "$(stat -c %s "$f")" -lt 204800 ] && small=$((small + 1))
		perf_ok "$f" || fail "perf reads $(basename "$f")"
	done
	is "--switch-output=200K: every getpid in one file" "$total" 30000
	is "--switch-output=200K: each file but the last past 200K" "$small" 0
	check "--switch-output=200K: no unswitched FILE left" test ! -e "$d/sz/p.data"
else
	skip "the getpid tracepoint cannot be used here"
fi

# TIME, the last two kept
mkdir "$d/tm"
"$TALLY" record -q -F 99 --switch-output=1s --switch-max-files 2 -o "$d/tm/p.data" -- sleep 3.4 >/dev/null 2>&1
is "--switch-output=1s --switch-max-files 2: two files kept" "$(ls "$d/tm" | grep -c '^p\.data\.')" 2
for f in "$d"/tm/p.data.*; do check "perf reads $(basename "$f")" perf_ok "$f"; done
"$TALLY" record -q --switch-output=10X -o "$d/x.data" -- true 2>"$d/err"
is "--switch-output=10X: a usage error" "$?" 129
check "--switch-output=10X: the kinds named" grep -q "a size (10M" "$d/err"

# -r: the recorder SCHED_FIFO 10, the command forked before at its own policy
if command -v chrt >/dev/null; then
	"$TALLY" record -q -r 10 -o "$d/rt.data" -- sh -c 'chrt -p $$; chrt -p $PPID' >"$d/rt" 2>&1
	check "-r 10: the command at SCHED_OTHER" sh -c "sed -n 1p '$d/rt' | grep -q SCHED_OTHER"
	check "-r 10: the recorder at SCHED_FIFO" sh -c "sed -n 3p '$d/rt' | grep -q SCHED_FIFO"
	check "-r 10: priority 10" sh -c "sed -n 4p '$d/rt' | grep -q ': 10$'"
else
	skip "no chrt"; skip "no chrt"; skip "no chrt"
fi

# --no-buffering: a wake-up per sample (100 samples over 100 ms)
"$TALLY" record --no-buffering -F 999 -o "$d/nb.data" -- "$B" 100 >/dev/null 2>"$d/nb"
wk=$(sed -n 's/.*Woken up \([0-9]*\) times.*/\1/p' "$d/nb")
ns=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$d/nb")
check "--no-buffering: woken up about once a sample ($wk for $ns)" test "$wk" -ge $((ns / 2))
"$TALLY" record -F 999 -o "$d/b.data" -- "$B" 100 >/dev/null 2>"$d/b"
check "without it: far fewer ($(sed -n 's/.*Woken up \([0-9]*\) times.*/\1/p' "$d/b"))" \
	test "$(sed -n 's/.*Woken up \([0-9]*\) times.*/\1/p' "$d/b")" -lt $((wk / 4))

# -u: nobody's burn recorded, nobody else's program
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$B" 3000 >/dev/null 2>&1 &
	for _ in $(seq 100); do pgrep -u nobody -f "$B" >/dev/null && break; sleep 0.01; done
	"$B" 3000 >/dev/null 2>&1 &	# root's: not to be recorded
	"$TALLY" record -q -u nobody -F 999 -o "$d/u.data" -- sleep 0.3 >/dev/null 2>&1
	is "-u nobody: exits 0" "$?" 0
	upid=$(pgrep -u nobody -f "$B" | head -1)
	"$TALLY" script -i "$d/u.data" -F comm,pid 2>/dev/null | sort -u >"$d/u"
	check "-u nobody: nobody's burn sampled" sh -c "awk '\$1 == \"burn\" && \$2 == $upid' '$d/u' | grep -q ."
	is "-u nobody: nothing else" "$(awk -v p="$upid" '!($1 == "burn" && $2 == p)' "$d/u" | wc -l)" 0
	check "-u nobody: perf reads it" perf_ok "$d/u.data"
	pkill -u nobody -f "$B"; wait 2>/dev/null
else
	for _ in 1 2 3 4; do skip "no setpriv or no user nobody"; done
fi
"$TALLY" record -q -u no_such_user_x -o "$d/n.data" -- true 2>"$d/err"
is "-u no_such_user_x: fails" "$?" 1
check "-u no_such_user_x: perf's words" grep -q "Invalid User: no_such_user_x" "$d/err"
"$TALLY" record -q -u nobody -p $$ -o "$d/n.data" -- sleep 0.01 2>"$d/err"
check "-u with -p: the pid wins, said as perf says it" grep -q "PID/TID switch overriding UID" "$d/err"
done_testing
