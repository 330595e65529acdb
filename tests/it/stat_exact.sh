#!/usr/bin/env bash
# tally stat through the CLI on events with exactly known counts:
# N getpid() -> N syscalls:sys_enter_getpid in human, CSV and JSON output;
# N stores -> N on a mem:ADDR:w:u breakpoint; -p on a running process;
# -a with cpu-clock and msr/tsc; -I intervals; -r stddev; exit status.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
TP=syscalls:sys_enter_getpid
# Count column of the row for event $1 in human output (separators dropped).
human_count() { awk -v ev="$1" '$0 ~ ev && $1 ~ /^[0-9.,]+$/ { gsub(/,/, "", $1); print $1; exit }'; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Wait until background pid $1 runs `work` (bash forks, then execs: the
# fork's own syscalls must not be counted).
wait_exec() { local _; for _ in $(seq 200); do [ "$(cat /proc/$1/comm 2>/dev/null)" = work ] && return; sleep 0.01; done; }

if have_tp; then
	N=12345
	$TALLY stat -e $TP -- "$W" getpid $N 2>"$tmp/h"
	is "human: exactly $N getpid" "$(human_count "$TP" <"$tmp/h")" "$N"
	$TALLY stat -x, -e $TP -- "$W" getpid $N 2>"$tmp/c"
	is "CSV: exactly $N getpid" "$(awk -F, -v ev=$TP '$3 == ev { print $1 }' "$tmp/c")" "$N"
	$TALLY stat -x';' -e $TP -- "$W" getpid $N 2>"$tmp/c2"
	is "CSV with ';': exactly $N getpid" "$(awk -F';' -v ev=$TP '$3 == ev { print $1 }' "$tmp/c2")" "$N"
	$TALLY stat -j -e $TP -- "$W" getpid $N 2>"$tmp/j"
	got=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["event"] == sys.argv[2]: print(int(float(o["counter-value"])))' "$tmp/j" $TP)
	is "JSON: exactly $N getpid" "$got" "$N"
	# Other events beside it do not disturb it; 0 getpid is 0, not <not counted>.
	$TALLY stat -x, -e task-clock,$TP,page-faults -- "$W" getpid 0 2>"$tmp/z"
	is "zero getpid counts 0" "$(awk -F, -v ev=$TP '$3 == ev { print $1 }' "$tmp/z")" "0"
	# --filter reaches the kernel: a pid that is not the workload's matches nothing.
	$TALLY stat -x, -e $TP --filter 'common_pid == 1' -- "$W" getpid 500 2>"$tmp/f"
	is "--filter excludes every event" "$(awk -F, -v ev=$TP '$3 == ev { print $1 }' "$tmp/f")" "0"
	# threads are inherited (and not with --no-inherit)
	$TALLY stat -x, -e $TP -- "$W" threads 4 1000 2>"$tmp/t"
	is "inherit: 4 threads x 1000" "$(awk -F, '{ print $1 }' "$tmp/t")" "4000"
	$TALLY stat -x, --no-inherit -e $TP -- "$W" threads 4 1000 2>"$tmp/t"
	is "--no-inherit: the main thread made no getpid" "$(awk -F, '{ print $1 }' "$tmp/t")" "0"
else
	for _ in 1 2 3 4 5 6 7 8; do skip "no syscalls:sys_enter_getpid tracepoint"; done
fi

# mem:ADDR:w:u: a write breakpoint counts exactly the stores.
A=$("$W" addr)
if $TALLY stat -x, -e "mem:$A:w:u" -- "$W" write 777 2>"$tmp/m"; then
	v=$(awk -F, 'NR==1 { print $1 }' "$tmp/m")
	if [ "$v" = "<not supported>" ]; then
		skip "breakpoint PMU not usable here"
	else
		is "mem:$A:w:u counts 777 stores" "$v" "777"
	fi
else
	fail "mem breakpoint run failed: $(cat "$tmp/m")"
fi

# uprobe on a function: exactly the calls (entry and return probes).
if [ -d /sys/bus/event_source/devices/uprobe ]; then
	$TALLY stat -x, -e "uprobe:$W:tally_target_fn" -- "$W" call 4242 2>"$tmp/u"
	is "uprobe: exactly 4242 calls" "$(awk -F, 'NR==1 { print $1 }' "$tmp/u")" "4242"
	$TALLY stat -x, -e "uretprobe:$W:tally_target_fn" -- "$W" call 42 2>"$tmp/u"
	is "uretprobe: exactly 42 returns" "$(awk -F, 'NR==1 { print $1 }' "$tmp/u")" "42"
else
	skip "no uprobe PMU"; skip "no uprobe PMU"
fi

# -p and -t on a running process: it sleeps, then does 2000 getpid
# after we have attached; we stop when it exits.
if have_tp; then
	"$W" sleep-getpid 300 2000 &
	target=$!
	wait_exec $target
	$TALLY stat -x, -p $target -e $TP 2>"$tmp/p"
	rc=$?
	wait $target
	is "-p exits 0 when the process ends" "$rc" "0"
	is "-p counts the process's 2000 getpid" "$(awk -F, -v ev=$TP '$3 == ev { print $1 }' "$tmp/p")" "2000"
	"$W" sleep-getpid 300 1500 &
	target=$!
	wait_exec $target
	$TALLY stat -x, -t $target -e $TP 2>"$tmp/p"
	rc=$?
	wait $target
	is "-t exits 0 when the thread ends" "$rc" "0"
	is "-t counts the thread's 1500 getpid" "$(awk -F, -v ev=$TP '$3 == ev { print $1 }' "$tmp/p")" "1500"
	"$W" sleep-getpid 300 700 &
	target=$!
	wait_exec $target
	$TALLY stat -x, -p $target --per-thread -e $TP 2>"$tmp/p"
	wait $target
	is "-p --per-thread: one row, comm-tid, 700" "$(cut -d, -f1,2,4 "$tmp/p")" "work-$target,700,$TP"
else
	for _ in 1 2 3 4 5; do skip "no tracepoint"; done
fi

# --timeout on a process that outlives it; the pid keeps running.
"$W" sleep 3000 &
victim=$!
$TALLY stat -x, -p $victim -e task-clock --timeout 200 2>"$tmp/to"
rc=$?
is "--timeout ends counting with status 0" "$rc" "0"
check "--timeout prints the task-clock row" grep -q ',task-clock,' "$tmp/to"
check "the attached process is still alive" kill -0 $victim
kill $victim; wait $victim 2>/dev/null

# -a with cpu-clock and msr/tsc: cpu-clock sums ~ nCPU x elapsed.
$TALLY stat -a -x, -e cpu-clock -e msr/tsc/ -- "$W" sleep 200 2>"$tmp/a"
ncpu=$(nproc)
cc=$(awk -F, '$3 == "cpu-clock" { print $1 }' "$tmp/a")
if [ -n "$cc" ] && awk -v c="$cc" -v n="$ncpu" 'BEGIN { exit !(c > n * 200 * 0.8 && c < n * 200 * 1.5) }'; then
	ok "-a cpu-clock is about $ncpu x 200 msec ($cc)"
else
	fail "-a cpu-clock $cc not about $ncpu x 200 msec"
fi
tsc=$(awk -F, '$3 == "msr/tsc/" { print $1 }' "$tmp/a")
if [ "$tsc" = "<not supported>" ] || [ -z "$tsc" ]; then
	skip "msr/tsc not available"
else
	check "-a msr/tsc counts ($tsc)" test "$tsc" -gt 1000000
fi
$TALLY stat -a -A -x, -e cpu-clock -- "$W" sleep 50 2>"$tmp/aa"
is "-A: one row per online CPU" "$(grep -c '^CPU[0-9]*,' "$tmp/aa")" "$ncpu"

$TALLY stat -C 0 -x, -e cpu-clock --timeout 200 2>"$tmp/c0"
cc=$(awk -F, '$3 == "cpu-clock" { print $1 }' "$tmp/c0")
if [ -n "$cc" ] && awk -v c="$cc" 'BEGIN { exit !(c > 200 * 0.8 && c < 200 * 1.5) }'; then
	ok "-C 0 --timeout 200: one CPU's 200 msec ($cc)"
else
	fail "-C 0 --timeout 200: cpu-clock $cc not about 200 msec"
fi
$TALLY stat -C 0 -e cpu-clock --timeout 50 2>"$tmp/c0"
check "-C 0: perf's header names the CPUs" grep -q "Performance counter stats for 'CPU(s) 0':" "$tmp/c0"

# -I 100 on a 550 ms workload: 6 intervals (5 full, 1 partial), +-1.
$TALLY stat -I 100 -x, -e task-clock -- "$W" sleep 550 2>"$tmp/i"
n=$(grep -c ',task-clock,' "$tmp/i")
check "-I 100 over 550 ms prints 6 (+-1) intervals (got $n)" test "$n" -ge 5 -a "$n" -le 7
check "-I rows start with a timestamp" grep -Eq '^ +[0-9]+\.[0-9]{9},' "$tmp/i"
$TALLY stat -I 100 -j -e task-clock -- "$W" sleep 250 2>"$tmp/ij"
check "-I with --json has an interval key" grep -q '^{"interval" : 0\.[0-9]\{9\}, "counter-value"' "$tmp/ij"
# --interval-count on a command, as perf: no more intervals after N, but
# the command is left to finish and its status is tally's.
$TALLY stat -I 100 --interval-count 2 -x, -e task-clock -- sh -c "'$W' sleep 450; exit 4" 2>"$tmp/ic"
is "--interval-count 2: the command finishes, its status (4) is tally's" "$?" "4"
is "--interval-count 2 stops after 2 intervals" "$(grep -c ',task-clock,' "$tmp/ic")" "2"
# --timeout on a command, as perf: SIGTERM ends it, perf's psignal line,
# the counts, and status 0 (counting stopped as asked).
$TALLY stat --timeout 100 -x, -e task-clock -- "$W" sleep 5000 2>"$tmp/tc"
is "--timeout on a command: status 0, as perf" "$?" "0"
check "--timeout on a command: '$W: Terminated'" grep -qx "$W: Terminated" "$tmp/tc"
check "--timeout on a command: the counts" grep -q ',task-clock,' "$tmp/tc"
# one that catches that SIGTERM and exits 4: its own status, as perf 6.1
# (issue 29: the status of a command --timeout ended, both ways)
$TALLY stat --timeout 100 -x, -e task-clock -- sh -c 'trap "exit 4" TERM; while :; do sleep 0.05; done' \
	2>"$tmp/tc4"
is "--timeout, the command catches SIGTERM and exits 4: status 4" "$?" "4"
if have_perf; then
	perf stat --timeout 100 -x, -e task-clock -- sh -c 'trap "exit 4" TERM; while :; do sleep 0.05; done' \
		2>/dev/null
	is "  perf 6.1's status there too" "$?" "4"
	perf stat --timeout 100 -x, -e task-clock -- "$W" sleep 5000 2>/dev/null
	is "  and perf's 0 when the SIGTERM ended it" "$?" "0"
else
	skip "no perf"; skip "no perf"
fi

# -I below 10 ms (perf 6.1 takes -I 1 here) and -I 0 (no intervals).
$TALLY stat -I 5 -x, -e task-clock -- "$W" sleep 60 2>"$tmp/i5"
n=$(grep -c ',task-clock,' "$tmp/i5")
check "-I 5 over 60 ms: several intervals (got $n)" test "$n" -ge 4
$TALLY stat -I 0 -x, -e task-clock -- "$W" sleep 10 2>"$tmp/i0"
check "-I 0: no intervals, the totals row" grep -q '^[0-9.]*,msec,task-clock,' "$tmp/i0"

# -I with -r (perf 6.1 takes it): every run prints its own intervals,
# timestamps from that run's start; exact counts add up over the runs.
if have_tp; then
	$TALLY stat -I 100 -r 2 -x, -e $TP -- "$W" getpid-sleep 50 250 2>"$tmp/ir"
	is "-I 100 -r 2: exit status 0" "$?" "0"
	is "-I 100 -r 2: intervals of both runs add up to 2 x 50" \
	   "$(awk -F, -v ev=$TP '$4 == ev && $2 ~ /^[0-9]+$/ { s += $2 } END { print s + 0 }' "$tmp/ir")" "100"
	is "-I 100 -r 2: the timestamps restart once (two runs)" \
	   "$(awk -F, '{ t = $1 + 0; if (NR > 1 && t < last) n++; last = t } END { print n + 0 }' "$tmp/ir")" "1"
	check "-I 100 -r 2: no totals after the intervals" sh -c "! grep -qv '^ *[0-9]*\.[0-9]*,' '$tmp/ir'"
else
	for _ in 1 2 3 4; do skip "no tracepoint"; done
fi

# --summary: after the intervals, the run's totals (human, CSV, JSON).
if have_tp; then
	$TALLY stat -I 100 --summary -e $TP -- "$W" getpid-sleep 60 150 2>"$tmp/s"
	check "-I --summary: the totals block follows the intervals" grep -q 'Performance counter stats' "$tmp/s"
	is "-I --summary: human total exactly 60" \
	   "$(sed -n '/Performance counter stats/,$p' "$tmp/s" | human_count "$TP")" "60"
	$TALLY stat -I 100 --summary -x, -e $TP -- "$W" getpid-sleep 60 150 2>"$tmp/s"
	is "-I --summary: CSV summary row exactly 60" \
	   "$(awk -F, -v ev=$TP '$1 ~ /^ +summary$/ && $4 == ev { print $2 }' "$tmp/s")" "60"
	$TALLY stat -I 100 --summary -j -e $TP -- "$W" getpid-sleep 60 150 2>"$tmp/s"
	is "-I --summary: JSON totals line (no interval key) exactly 60" \
	   "$(grep -v '"interval"' "$tmp/s" | grep -o '"counter-value" : "[0-9]*' | grep -o '[0-9]*$')" "60"
else
	for _ in 1 2 3 4; do skip "no tracepoint"; done
fi

# -r 5: stddev on task-clock and on elapsed; exact events stay exact.
if have_tp; then ev="-e task-clock -e $TP"; else ev="-e task-clock"; fi
$TALLY stat -r 5 $ev -- "$W" getpid 3000 2>"$tmp/r"
check "-r 5 says (5 runs)" grep -q "(5 runs):" "$tmp/r"
check "-r 5 prints +- stddev for elapsed" grep -Eq '\+- [0-9.]+ seconds time elapsed' "$tmp/r"
check "-r 5 prints ( +- x.xx% ) on task-clock" grep -Eq 'task-clock.*\( \+- +[0-9]+\.[0-9]{2}% \)' "$tmp/r"
if have_tp; then
	is "-r 5: exact mean, no noise" "$(human_count "$TP" <"$tmp/r")" "3000"
	check "-r 5: no +- on an exact count" sh -c "! grep '$TP' '$tmp/r' | grep -q '+-'"
else
	skip "no tracepoint"; skip "no tracepoint"
fi
$TALLY stat -r 3 -x, -e task-clock -- "$W" getpid 10 2>"$tmp/rc"
check "-r with CSV: variance column" grep -Eq '^[0-9.]+,msec,task-clock,[0-9.]+%,[0-9]+,100.00,' "$tmp/rc"

# -a --per-thread (perf 6.1): every thread of the system on any CPU; rows
# for the workload (named by its command) and for a process that was
# already running; threads that counted 0 are left out, as perf.
if have_tp; then
	# a name of its own: the tests beside this one run work too
	WU=$tmp/wpt$$; cp "$W" "$WU"
	$TALLY stat -a --per-thread -x, -e $TP -- "$WU" getpid 4321 2>"$tmp/apt"
	rc=$?
	is "-a --per-thread: exit status" "$rc" "0"
	is "-a --per-thread: the workload's row, by its command name, exactly 4321" \
	   "$(awk -F, -v ev=$TP -v c="wpt$$" '$1 ~ "^" c "-[0-9]+$" && $4 == ev { print $2 }' "$tmp/apt")" "4321"
	is "-a --per-thread: no thread that counted 0 is listed" \
	   "$(awk -F, '$2 == "0"' "$tmp/apt" | wc -l | tr -d ' ')" "0"
	check "-a --per-thread: rows are comm-tid,value,unit,event" \
	      grep -Eq "^wpt$$-[0-9]+,4321,,$TP," "$tmp/apt"
else
	for _ in 1 2 3 4; do skip "no tracepoint"; done
fi
# An already-running process, attached by -a --per-thread (not a child).
if have_tp; then
	"$W" sleep-getpid 400 777 & victim=$!
	wait_exec $victim
	$TALLY stat -a --per-thread -x, -e $TP --timeout 900 2>"$tmp/apt3"
	wait $victim
	is "-a --per-thread: a running process's thread counted exactly (777)" \
	   "$(awk -F, -v ev=$TP -v t="work-$victim" '$1 == t && $4 == ev { print $2 }' "$tmp/apt3")" "777"
else
	skip "no tracepoint"
fi
$TALLY stat -a --per-thread -j -e task-clock -- "$W" sleep 30 2>"$tmp/aptj"
check "-a --per-thread --json: a thread key per row" grep -q '^{"thread" : "[^"]*-[0-9]*", "counter-value"' "$tmp/aptj"
$TALLY stat -C 0 --per-thread -e task-clock -- true 2>/dev/null
is "--per-thread with -C: usage error (129), as perf refuses it" "$?" "129"

# -r without a command (perf accepts it): each run counts until --timeout.
$TALLY stat -r 3 -a -e cpu-clock --timeout 60 2>"$tmp/ra"
is "-r 3 -a --timeout: exit 0" "$?" "0"
check "-r 3 -a --timeout: (3 runs) and +- on elapsed" \
      sh -c "grep -q \"'system wide' (3 runs):\" '$tmp/ra' && grep -Eq '\+- [0-9.]+ seconds time elapsed' '$tmp/ra'"
"$W" sleep 3000 & victim=$!
wait_exec $victim
$TALLY stat -r 2 -p $victim -x, -e task-clock --timeout 60 2>"$tmp/rp"
is "-r 2 -p --timeout: exit 0" "$?" "0"
check "-r 2 -p: CSV with the variance column" grep -Eq '^[^,]*,msec,task-clock,[0-9.]+%,' "$tmp/rp"
kill $victim; wait $victim 2>/dev/null

# -r N -p PID: a pid that exits ends the repeats (not an error): the runs
# so far are printed, exit 0.
"$W" sleep 150 & victim=$!
wait_exec $victim
$TALLY stat -r 5 -p $victim -e task-clock --timeout 1000 2>"$tmp/rx"
is "-r 5 -p on a pid that exits in run 1: exit 0" "$?" "0"
check "-r 5 -p on a pid that exits: the counts of the run it had" grep -q 'task-clock' "$tmp/rx"
wait $victim 2>/dev/null

# -r 0 (perf's "forever"): run after run, each printing its own counts,
# until Ctrl-C.
if have_tp; then
	# (-k: one that did not stop on the INT is killed and said, not left to
	# hang the suite: seen once under ASan in the parallel pool)
	timeout -k 10 -s INT 0.6 $TALLY stat -r 0 -x, -e $TP -- "$W" getpid-sleep 7 50 2>"$tmp/r0"
	rc=$?
	check "-r 0: Ctrl-C ends it (rc $rc: timeout's 124, not 137 for a kill)" test "$rc" -ne 137
	n=$(grep -c ",$TP," "$tmp/r0")
	check "-r 0: several runs printed, one row each (got $n)" test "$n" -ge 2
	# (all but the last: Ctrl-C can land in the last run before its 7 calls)
	is "-r 0: every whole run's count is exactly 7" \
	   "$(grep ",$TP," "$tmp/r0" | sed '$d' | awk -F, '$1 != 7' | wc -l | tr -d ' ')" "0"
else
	skip "no tracepoint"; skip "no tracepoint"
fi

# perf's tool events: duration_time is the elapsed time of the run (the
# same nanoseconds as "seconds time elapsed", as perf), user_time the
# command's user time; -I gives each interval its share.
$TALLY stat -e duration_time,user_time,task-clock -- "$W" spin 60 2>"$tmp/tool"
dt=$(awk '$3 == "duration_time" { print $1 }' "$tmp/tool" | tr -d ',.')
el=$(awk '/seconds time elapsed/ { print $1 }' "$tmp/tool" | tr -d ',.' | sed 's/^0*//')
is "duration_time == the elapsed time, in ns" "$dt" "$el"
ut=$(awk '$3 == "user_time" { print $1 }' "$tmp/tool" | tr -d ',.')
check "user_time of a spin is counted, not <not counted> (got $ut)" test "${ut:-0}" -gt 0 2>/dev/null
$TALLY stat -I 30 -x, -e duration_time -- "$W" spin 80 2>"$tmp/tooli"
check "-I 30: duration_time counted in every interval" \
      awk -F, 'NF < 4 || $2 !~ /^[0-9]+$/ || $2 == 0 { bad = 1 } END { exit bad || NR < 2 }' "$tmp/tooli"

# Exit status is the workload's.
$TALLY stat -e task-clock -- "$W" exit 3 2>/dev/null
is "workload exit 3 -> 3" "$?" "3"
$TALLY stat -e task-clock -- sh -c 'kill -TERM $$' 2>"$tmp/sig"
is "workload killed by SIGTERM -> 143" "$?" "143"
check "a workload killed by a signal: perf's psignal line 'sh: Terminated'" grep -qx 'sh: Terminated' "$tmp/sig"

# The default event set: 8 rows, the hardware ones <not supported> here.
$TALLY stat -x, -- true 2>"$tmp/d"
is "default set: 8 rows" "$(wc -l <"$tmp/d" | tr -d ' ')" "8"
is "default set: perf's order" "$(cut -d, -f3 "$tmp/d" | tr '\n' ' ')" \
   "task-clock context-switches cpu-migrations page-faults cycles instructions branches branch-misses "

done_testing
