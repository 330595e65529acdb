#!/usr/bin/env bash
# run.sh: apart (it loads BPF programs on the syscall tracepoints: other tests' kernel call chains would pass through them)
# tally trace on workloads whose syscalls are known exactly: N getpid
# calls -> N lines and -s counts N; N failed openat (ENOENT) -> N errors;
# a forked child's calls under the child's tid; --failure shows exactly
# the failing calls; the workload's exit status; -e typos; --duration;
# -p on a process that exits mid-trace; Ctrl-C still prints the summary;
# tracepoints: one line per hit; --pf: one line per fresh page touched.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# calls and errors of syscall $1 in the -s table of file $2, summed over threads
calls() { awk -v sc="$1" '$1 == sc && $2 ~ /^[0-9]+$/ { n += $2 } END { print n + 0 }' "$2"; }
errors() { awk -v sc="$1" '$1 == sc && $3 ~ /^[0-9]+$/ { n += $3 } END { print n + 0 }' "$2"; }

if ! have_tp; then
	skip "no syscall tracepoints here"
	done_testing
	exit 0
fi

N=1234
$TALLY trace -e getpid -o "$tmp/l" -- "$W" getpid $N
is "N getpid -> N lines" "$(grep -c ' getpid() *= [0-9]' "$tmp/l")" "$N"
is "-e getpid: no other syscall" "$(grep -vc ' getpid() *= [0-9]' "$tmp/l")" "0"
# each line's return value is the pid the line names
is "every getpid returns its own tid" \
	"$(awk '{ split($0, a, "/"); split(a[2], b, " "); if ($NF != b[1]) bad++ } END { print bad + 0 }' "$tmp/l")" "0"
$TALLY trace -s -o "$tmp/s" -- "$W" getpid $N
is "-s counts N getpid" "$(calls getpid "$tmp/s")" "$N"
is "-s: no getpid failed" "$(errors getpid "$tmp/s")" "0"
grep -q '^ Summary of events:$' "$tmp/s" && ok "-s prints perf's title" || fail "-s prints perf's title"
is "-s prints no lines" "$(grep -c ' = ' "$tmp/s")" "0"

N=37
$TALLY trace -s -o "$tmp/e" -- "$W" enoent $N
is "N failed openat -> N errors" "$(errors openat "$tmp/e")" "$N"
$TALLY trace -s --errno-summary -o "$tmp/ee" -- "$W" enoent $N
is "--errno-summary: N ENOENT" "$(awk '/^   openat/ { f = 1; next } f && /ENOENT:/ { print $2; exit }' "$tmp/ee")" "$N"

# --failure: exactly the calls that failed, as the summary of the same run counts them
$TALLY trace -S --failure -o "$tmp/f" -- "$W" enoent 5
nl=$(grep -c ') *= ' "$tmp/f")
is "--failure: every line failed" "$(grep ') *= ' "$tmp/f" | grep -vc '= -1 E')" "0"
is "--failure: as many lines as errors" "$nl" \
	"$(awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ { n += $3 } END { print n + 0 }' "$tmp/f")"
is "--failure: the 5 openat" "$(grep -c 'openat(.*= -1 ENOENT' "$tmp/f")" "5"

# -e a tracepoint: one line per hit, its fields decoded: N + 1 execs (the first
# too), each of the one pid, and no syscall at all (no duration column, as perf)
$TALLY trace -e sched:sched_process_exec -o "$tmp/x" -- "$W" exec 5
is "5 re-execs -> 6 sched_process_exec lines" "$(grep -c 'sched:sched_process_exec(' "$tmp/x")" "6"
is "each names its file and pid" "$(grep -Ec '\(filename: "(/proc/self/exe|[^"]*/work)", pid: ([0-9]+) \([a-z]+\), old_pid: [0-9]+ ' "$tmp/x")" "6"
is "-e with only a tracepoint: no syscall, no duration" "$(grep -c '(  \|ms)' "$tmp/x")" "0"
$TALLY trace -e 'sched:sched_process_e*,getpid' -o "$tmp/x" -- "$W" getpid 3
is "-e 'sys:glob' with a syscall: exec and exit, and the 3 getpid" \
	"$(grep -c 'sched:sched_process_exec(' "$tmp/x") $(grep -c 'sched:sched_process_exit(' "$tmp/x") $(grep -c ' getpid() *= ' "$tmp/x")" "1 1 3"
# a tracepoint's line cuts the call it fires in, even with -s (as perf's):
# the sleep switches the thread out inside clock_nanosleep
$TALLY trace -s -e sched:sched_switch,clock_nanosleep -o "$tmp/x" -- "$W" sleep 50
is "-s: the sleep's call cut by its switch-out, once" \
	"$(grep -A1 ' clock_nanosleep(.*) *\.\.\.$' "$tmp/x" | grep -c 'sched:sched_switch(prev_comm: "work", ')" "1"
$TALLY trace -e sched:nonesuch -- "$W" getpid 1 2>"$tmp/err"
is "-e an unknown tracepoint: usage error" "$?" "129"
grep -q "unknown tracepoint 'sched:nonesuch'" "$tmp/err" && ok "-e an unknown tracepoint: said" ||
	fail "-e an unknown tracepoint: said ($(cat "$tmp/err"))"

# --pf: work pages N writes N fresh pages of an anonymous map, one fault
# each, from main; -S's count is the lines'; alone, --pf traces no syscall
N=40
$TALLY trace --pf=min -S -o "$tmp/pf" -- "$W" pages $N
main_pf() { grep -E 'minfault \[main\+0x[0-9a-f]+\] => //anon@0x[0-9a-f]+000 \(d\.\)$' "$1"; }
is "--pf: N faults from main, each on a page of //anon" "$(main_pf "$tmp/pf" | wc -l)" "$N"
is "--pf: N distinct pages" "$(main_pf "$tmp/pf" | awk '{ print $NF, $(NF-1) }' | sort -u | wc -l)" "$N"
is "--pf -S: the summary counts every fault line" \
	"$(awk '/ events, / { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^minfaults/) print $i }' "$tmp/pf")" \
	"$(grep -c ' minfault \[' "$tmp/pf")"
is "--pf alone: no syscall" "$(grep -c ') *= ' "$tmp/pf")" "0"
$TALLY trace --pf=all --syscalls -e getpid -o "$tmp/pf" -- "$W" getpid 3
is "--pf with -e getpid: the 3 calls too" "$(grep -c ' getpid() *= ' "$tmp/pf")" "3"
grep -q ' minfault \[.*\] => .* ([d?][.k])$' "$tmp/pf" && ok "--pf=all with syscalls: fault lines" ||
	fail "--pf=all with syscalls: fault lines"
$TALLY trace --pf=bad -- "$W" getpid 1 2>"$tmp/err"
is "--pf=bad: usage error" "$?" "129"

# a forked child's calls are the child's: its tid, the clone's return value
$TALLY trace -e clone,getpid -o "$tmp/k" -- "$W" fork 7
child=$(awk '/ clone\(.*= [0-9]+/ { print $(NF-1); exit }' "$tmp/k")
parent=$(awk '/ clone\(/ { split($0, a, "/"); split(a[2], b, " "); print b[1]; exit }' "$tmp/k")
is "the child made 7 getpid" "$(grep -c "/$child getpid() *= $child\$" "$tmp/k")" "7"
is "the parent made none" "$(grep -c "/$parent getpid()" "$tmp/k")" "0"
[ -n "$child" ] && [ "$child" != "$parent" ] && ok "child $child is not parent $parent" || fail "child tid"
$TALLY trace -s -o "$tmp/ks" -- "$W" fork 7
is "-s: the child's table counts its 7 getpid" \
	"$(awk -v c="($child" '/events,/ { t = $2 } $1 == "getpid" { print t, $2 }' "$tmp/ks" | awk '{ print $2 }')" "7"

is "-s: the fork's clone counted once (not again at the child's return), as strace -c" \
	"$(calls clone "$tmp/ks")" "1"

# a call that does not return to its caller is one line: rt_sigreturn's exit
# says syscall -1, with the value it restored (kill's 0), as strace shows it
N=5
$TALLY trace -S -e kill,rt_sigreturn -o "$tmp/sig" -- "$W" signals $N
is "N signals handled -> N rt_sigreturn lines, each whole" "$(grep -Ec ' rt_sigreturn\(\) += 0$' "$tmp/sig")" "$N"
is "rt_sigreturn: no [exit lost], no syscall_-1" "$(grep -Ec 'exit lost|syscall_-1' "$tmp/sig")" "0"
is "-S counts N rt_sigreturn, N kill" "$(calls rt_sigreturn "$tmp/sig") $(calls kill "$tmp/sig")" "$N $N"
# left out, its exit (-1) is too: no "syscall_-1" line
$TALLY trace -e '!rt_sigreturn' -o "$tmp/sig" -- "$W" signals $N
is "-e '!rt_sigreturn': no rt_sigreturn, no syscall_-1" "$(grep -Ec 'rt_sigreturn|syscall_-1' "$tmp/sig")" "0"

# a thread but the leader execs: its execve returns as the leader (the kernel
# gives it the leader's tid), still one call of the thread that made it
$TALLY trace -S -e execve,clone3,getpid -o "$tmp/te" -- "$W" thread-exec
th=$(awk '/ clone3\(.*= [0-9]+/ { print $(NF-1); exit }' "$tmp/te")
is "a thread's execve: one line of that thread, = 0" "$(grep -Ec "/$th (execve\(.*|  \.\.\. \[continued\]: execve\(\)\)) += 0\$" "$tmp/te")" "1"
leader=$(awk '/ clone3\(/ { split($0, a, "/"); split(a[2], b, " "); print b[1]; exit }' "$tmp/te")
is "a thread's execve: not continued as the leader's (but the first, begun before the trace)" \
	"$(grep -c "/$leader  \.\.\. \[continued\]: execve" "$tmp/te")" "1"
is "a thread's execve: not left open" "$(grep -c "/$th execve(.*\.\.\.\$" "$tmp/te")" \
	"$(grep -c "/$th  \.\.\. \[continued\]: execve" "$tmp/te")"
is "a thread's execve: the new program's getpid" "$(grep -c ' getpid() *= ' "$tmp/te")" "1"
is "-S: 2 execve, the thread's in its table" \
	"$(calls execve "$tmp/te") $(awk -v p="($th)," '/events,/ { t = $2 } $1 == "execve" && t == p { print $2 }' "$tmp/te")" "2 1"

# exit calls print at their entry, "= ?"
grep -q 'exit_group(error_code: 3) *= ?$' "$tmp/k" || $TALLY trace -o "$tmp/k2" -- "$W" fork 1
grep -qh 'exit_group(error_code: 3) *= ?$' "$tmp/k" "$tmp/k2" 2>/dev/null &&
	ok "exit_group prints with '= ?'" || fail "exit_group prints with '= ?'"

# the workload's exit status is tally's; 127 when it cannot run
$TALLY trace -s -o "$tmp/x" -- "$W" exit 7; is "exit status of the workload" "$?" "7"
$TALLY trace -s -o "$tmp/x" -- /nonexistent/cmd 2>/dev/null; is "not found: 127" "$?" "127"

# -e: a typo says the closest syscall, as a usage error
$TALLY trace -e getpidd -- true 2>"$tmp/err"; rc=$?
is "unknown syscall: exit 129" "$rc" "129"
grep -q "did you mean 'getpid'" "$tmp/err" && ok "unknown syscall: did you mean" ||
	fail "unknown syscall: did you mean ($(cat "$tmp/err"))"
# globs and '!': openat but not close
$TALLY trace -e 'open*,!close' -o "$tmp/g" -- "$W" enoent 3
is "-e glob: the 3 failing openat" "$(grep -c 'openat(.*ENOENT' "$tmp/g")" "3"
is "-e glob: no close, no mmap" "$(grep -Ec ' (close|mmap)\(' "$tmp/g")" "0"

# --duration: only the long call
$TALLY trace --duration 50 -o "$tmp/d" -- "$W" sleep 120
is "--duration 50: one line" "$(grep -c ') *= ' "$tmp/d")" "1"
grep -q 'nanosleep(' "$tmp/d" && ok "--duration: it is the sleep" || fail "--duration: $(cat "$tmp/d")"

# -p: a process that exits mid-trace ends the trace cleanly, counted whole
"$W" sleep-getpid 400 321 &
pid=$!
sleep 0.1
timeout 20 $TALLY trace -s -p $pid -o "$tmp/p"; rc=$?
wait $pid
is "-p: ends when the process exits" "$rc" "0"
is "-p: its 321 getpid" "$(calls getpid "$tmp/p")" "321"

# Ctrl-C: the summary so far
$TALLY trace -s -o "$tmp/c" -- "$W" getpid-sleep 100 10000 &
tp=$!
for _ in $(seq 100); do grep -q . "$tmp/c" 2>/dev/null; pgrep -P $tp >/dev/null && break; sleep 0.05; done
sleep 0.5
kill -INT $tp
wait $tp; rc=$?
is "Ctrl-C: the workload's death by SIGINT" "$rc" "130"
is "Ctrl-C: the summary so far" "$(calls getpid "$tmp/c")" "100"

# -a: every task; one of them shows its calls exactly (as "work": the
# forked shell's own getpid before the exec is bash's)
$TALLY trace -S -a -e getpid -o "$tmp/a" &
tp=$!
sleep 0.5
"$W" getpid 345 & wp=$!; wait $wp
sleep 0.3
kill -INT $tp; wait $tp
# (a call another CPU's line cut in two ends as "... [continued]: getpid())")
is "-a: the workload's 345 getpid" \
	"$(grep -Ec " work/$wp ( \.\.\. \[continued\]: )?getpid\(\)\)? *= $wp\$" "$tmp/a")" "345"
is "-a: tally's own calls are left out" "$(grep -c "($tp)," "$tmp/a")" "0"

# -u: the processes a user runs now
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	# 2 s before its calls: on a machine four tests keep busy, trace's
	# start once took longer than 0.4 s, and the calls came before it
	setpriv --reuid=65534 --regid=65534 --clear-groups "$W" sleep-getpid 2000 55 &
	up=$!
	sleep 0.1
	timeout 20 $TALLY trace -s -u 65534 -o "$tmp/u"; wait $up
	is "-u: the user's process and its 55 getpid" \
		"$(awk -v p="($up)," '/events,/ { t = $2 } $1 == "getpid" && t == p { print $2 }' "$tmp/u")" "55"
	grep -q "^ work ($up)" "$tmp/u" && ok "-u: its comm, though it was gone when the table was made" ||
		fail "-u: comm ($(grep events, "$tmp/u"))"
else
	skip "-u needs root and setpriv"
fi
# non-root where tracefs is not readable: what to do, not an event syntax error
# in an event nobody typed (perf: "No permissions to read .../raw_syscalls/sys_(enter|exit)")
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	if nobody test -r /sys/kernel/tracing/events/raw_syscalls/sys_enter/id; then
		skip "non-root: tracefs is readable here"
	else
		(cd / && nobody $TALLY trace -- "$W" getpid 1) 2>"$tmp/err"; rc=$?
		is "non-root, tracefs not readable: exit 1" "$rc" "1"
		grep -q '^tally trace: no permission to read /sys/kernel/tracing/events/raw_syscalls/sys_(enter|exit)$' "$tmp/err" &&
			grep -q "^hint: as root, 'mount -o remount,mode=755 /sys/kernel/tracing/'.*perf_event_paranoid" "$tmp/err" &&
			! grep -q 'event syntax error' "$tmp/err" &&
			ok "non-root: says tracefs is not readable and what to do" ||
			fail "non-root: says tracefs is not readable ($(cat "$tmp/err"))"
	fi
else
	skip "non-root tracefs message: needs root and setpriv"
fi
$TALLY trace -u no_such_user_here 2>/dev/null; is "-u: an unknown user is a usage error" "$?" "129"

# Lost records (a one-page ring under a flood): said, and no exit is
# paired with another call's enter: getpid always returns the pid, getppid
# the parent's, whatever was lost between them.
$TALLY trace -m 1 -e getpid,getppid -o "$tmp/lost" -- "$W" mix 100000 2>"$tmp/lerr"
grep -q 'LOST [0-9]* events' "$tmp/lerr" && ok "losses are said" || skip "no loss this time"
wpid=$(awk '/ getpid\(\) *= [0-9]+$/ { print $NF; exit }' "$tmp/lost")
is "no getpid paired with a getppid's exit" \
	"$(grep ' getpid().* = ' "$tmp/lost" | grep -vc "= $wpid\( \[enter lost\]\)\?\$")" "0"
is "no getppid paired with a getpid's exit" "$(grep ' getppid()' "$tmp/lost" | grep -c "= $wpid")" "0"
# how many survive a one-page ring depends on the reader's speed: not
# asked of the sanitized build (several times slower, it may keep none)
if [ -n "${SAN:-}" ]; then
	skip "the calls not lost are shown: the sanitized build's reader is too slow to count on"
else
	# (some: a loaded machine's reader kept 100 or fewer of 100000 once in CI)
	n=$(grep -c ' getpid()' "$tmp/lost")
	check "the calls not lost are shown ($n)" test "$n" -gt 0
fi

# Path strings through BPF; without the right to load it, pointers and why, once
$TALLY trace -e openat -o "$tmp/s" -- "$W" enoent 4 2>"$tmp/err"
is "BPF: the missing file's name, 4 times" "$(grep -c 'filename: "/nonexistent/tally-work"' "$tmp/s")" "4"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	setpriv --bounding-set -bpf,-sys_admin $TALLY trace -e openat -o "$tmp/s" -- "$W" enoent 4 2>"$tmp/err"
	is "no CAP_BPF: said once" "$(grep -c 'path arguments shown as pointers: .*Operation not permitted' "$tmp/err")" "1"
	is "no CAP_BPF: pointers, the calls all there" "$(grep -c 'filename: 0x[0-9a-f]*) *= -1 ENOENT' "$tmp/s")" "4"
fi
$TALLY trace --no-strings -e openat -o "$tmp/s" -- "$W" enoent 4 2>"$tmp/err"
is "--no-strings: pointers, as perf" "$(grep -c 'filename: 0x[0-9a-f]*) *= -1 ENOENT' "$tmp/s")" "4"
is "--no-strings: nothing said" "$(wc -c <"$tmp/err")" "0"

# --filter (issue 32): on every tracepoint of the -e just before it, as perf's
$TALLY trace -e sched:sched_process_exit -o "$tmp/x" -- "$W" threads-join 4 200 300
is "no --filter: the 5 threads' exits" "$(grep -c 'sched:sched_process_exit(' "$tmp/x")" "5"
$TALLY trace -e sched:sched_process_exit --filter 'group_dead == 1' -o "$tmp/x" -- \
	"$W" threads-join 4 200 300; rc=$?
is "--filter: exit 0" "$rc" "0"
is "--filter 'group_dead == 1': the group's last exit" \
	"$(grep -c 'sched:sched_process_exit(.*group_dead: 1)' "$tmp/x") $(grep -c 'sched:' "$tmp/x")" "1 1"
# two -e, each with its own: the exec kept, the exits all filtered off; the syscalls unfiltered
$TALLY trace -e sched:sched_process_exec --filter 'pid > 0' -e getpid \
	-e sched:sched_process_exit --filter 'pid == 1' -o "$tmp/x" -- "$W" getpid 3
is "--filter per -e: exec kept, exit filtered, 3 getpid" \
	"$(grep -c 'sched_process_exec(' "$tmp/x") $(grep -c 'sched_process_exit(' "$tmp/x") $(grep -c ' getpid() *= ' "$tmp/x")" \
	"1 0 3"
# -a: the user's filter and ours (tally's own pid) together
# (a name of its own: other tests' `work` exit on the machine meanwhile)
cp "$W" "$tmp/wfx$$"
$TALLY trace -a -e sched:sched_process_exit --filter 'group_dead == 1' -o "$tmp/x" -- \
	"$tmp/wfx$$" threads-join 4 200 300
is "-a --filter: the workload's one exit" "$(grep -c "wfx$$/.*sched:sched_process_exit(" "$tmp/x")" "1"
$TALLY trace -e getpid --filter 'common_pid > 0' -- true 2>"$tmp/err"; rc=$?
is "--filter after syscalls only: usage error 129" "$rc" "129"
check "--filter after syscalls only: says so" grep -q "must follow a tracepoint event" "$tmp/err"
$TALLY trace --filter 'common_pid > 0' -- true 2>"$tmp/err"; rc=$?
is "--filter with no -e: usage error 129" "$rc" "129"
$TALLY trace -e sched:sched_process_exit --filter 'nosuchfield == 1' -- true 2>"$tmp/err"; rc=$?
is "--filter the kernel rejects: exit 1, said" "$rc $(grep -c 'nosuchfield' "$tmp/err")" "1 1"

# -i: a file of syscalls:sys_enter_NAME/sys_exit_NAME (perf trace -i shows none)
$TALLY record -q -e syscalls:sys_enter_getpid,syscalls:sys_exit_getpid -o "$tmp/g.data" -- "$W" getpid 77
$TALLY trace -i "$tmp/g.data" -o "$tmp/gi"
is "-i: 77 getpid lines" "$(grep -c ' getpid() *= [0-9]' "$tmp/gi")" "77"
$TALLY trace -i - <"$tmp/g.data" -o "$tmp/gp"
check "-i -: a pipe reads as the file" cmp -s "$tmp/gi" "$tmp/gp"
# the session trace reads through resolves no address: kallsyms is not read ahead
if command -v strace >/dev/null 2>&1; then
	strace -f -qq -e trace=openat -o "$tmp/st" $TALLY trace -i "$tmp/g.data" -o /dev/null
	is "-i: /proc/kallsyms not read" "$(grep -c kallsyms "$tmp/st")" "0"
	strace -f -qq -e trace=openat -o "$tmp/st" $TALLY trace -e getpid -o /dev/null -- "$W" getpid 3
	is "live: /proc/kallsyms not read" "$(grep -c kallsyms "$tmp/st")" "0"
else
	skip "no strace: kallsyms not read"
	skip "no strace: kallsyms not read, live"
fi
$TALLY trace -i /etc/passwd 2>"$tmp/err"; rc=$?
is "-i on a file that is not perf.data: exit 255, as perf" "$rc" "255"
grep -q "incompatible file format: /etc/passwd: not a perf.data file" "$tmp/err" && ok "-i: says why" || fail "-i: says why ($(cat "$tmp/err"))"
$TALLY record -q -e task-clock -o "$tmp/n.data" -- "$W" getpid 1
$TALLY trace -i "$tmp/n.data" 2>"$tmp/err" && fail "-i: a file with no syscall events" ||
	grep -q "no syscall events" "$tmp/err" && ok "-i: a file with no syscall events says so" ||
	fail "-i: a file with no syscall events says so ($(cat "$tmp/err"))"
done_testing
