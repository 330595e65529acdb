#!/usr/bin/env bash
# tally record's perf 6.1 options of when and what it records, against
# exact counts of the workload's getpid calls where there are:
#  - -D MS: the events start MS after the command (each getpid a sample
#    with -c 1): N calls made after a sleep longer than MS are N samples,
#    N made before it none; the maps made meanwhile are in the file (a
#    dummy event carries the side-band from the exec, as perf's), so the
#    samples have their symbols; with -p too;
#  - --all-user / --all-kernel: every event excludes the kernel / user
#    space (the attr bits perf writes for the same options);
#  - --user-callchains / --kernel-callchains: the chains hold no kernel /
#    no user frame (exclude_callchain_kernel/_user, perf's bits);
#  - --max-size: the recording stops past the size, said, the command
#    sent SIGTERM (its status then, 143), the file whole and readable;
#  - --timestamp-filename: FILE.YYYYMMDDHHMMSScc, as perf names it;
#  - -P, -R: PERIOD, RAW (with CPU and TIME) in every sample's fields;
#  - --dry-run: the options and events checked, nothing written;
#  - perf reads the files.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
TP=syscalls:sys_enter_getpid
d=$(mktemp -d); trap 'rm -rf "$d"; [ -n "${P:-}" ] && kill "$P" 2>/dev/null' EXIT

if ! have_tp "$TP"; then skip "no $TP tracepoint here"; done_testing; exit 0; fi
n_getpid() { "$TALLY" script -i "$1" -F event 2>/dev/null | grep -c 'sys_enter_getpid'; }

"$TALLY" record -q -D 150 -e $TP -c 1 -o "$d/after.data" -- "$W" sleep-getpid 500 37 2>"$d/err"
is "-D 150: exits with the command's status" "$?" 0
is "-D 150: 37 getpid after a 500 ms sleep are 37 samples" "$(n_getpid "$d/after.data")" 37
"$TALLY" record -q -D 150 -e $TP -c 1 -o "$d/before.data" -- "$W" getpid-sleep 41 500 2>/dev/null
is "-D 150: 41 getpid before a 500 ms sleep are none" "$(n_getpid "$d/before.data")" 0
"$TALLY" record -q -e $TP -c 1 -o "$d/all.data" -- "$W" getpid-sleep 41 500 2>/dev/null
is "without -D: the same 41 are 41" "$(n_getpid "$d/all.data")" 41
check "-D: the samples' addresses have their symbols (the exec's maps kept)" \
	sh -c "'$TALLY' script -i '$d/after.data' -F ip,dso 2>/dev/null | grep -q 'libc'"
if have_perf; then
	check "perf script reads the -D file: 37 samples" \
		sh -c "[ \$(perf script -i '$d/after.data' -F event 2>/dev/null | grep -c sys_enter_getpid) = 37 ]"
	perf evlist -v -i "$d/after.data" >"$d/evlist" 2>/dev/null
	check "-D: a dummy event starts at the exec, the tracepoint disabled" \
		sh -c "grep -q '^dummy:u.*enable_on_exec: 1' '$d/evlist' && ! grep '^syscalls' '$d/evlist' | grep -q enable_on_exec"
fi

"$W" sleep-getpid 700 23 & P=$!
sleep 0.1
"$TALLY" record -q -D 100 -p "$P" -e $TP -c 1 -o "$d/p.data" 2>/dev/null
is "-p PID -D 100: its 23 getpid after the delay" "$(n_getpid "$d/p.data")" 23
P=

"$TALLY" record -q --all-user -e cpu-clock -c 100000 -o "$d/u.data" -- "$W" enoent 100000 2>/dev/null
"$TALLY" script -i "$d/u.data" -F ip 2>/dev/null >"$d/u.ip"
check "--all-user: samples" test -s "$d/u.ip"
is "--all-user: none in the kernel" "$(grep -c '^[[:space:]]*ffffffff' "$d/u.ip")" 0
"$TALLY" record -q --all-kernel -e cpu-clock -c 100000 -o "$d/k.data" -- "$W" enoent 100000 2>/dev/null
"$TALLY" script -i "$d/k.data" -F ip 2>/dev/null >"$d/k.ip"
check "--all-kernel: samples" test -s "$d/k.ip"
is "--all-kernel: none in user space" "$(grep -vc '^[[:space:]]*ffffffff' "$d/k.ip")" 0
if have_perf; then
	for o in --all-user --all-kernel; do
		perf record -q $o -e cpu-clock -c 100000 -o "$d/pf.data" -- "$W" getpid 10 >/dev/null 2>&1
		"$TALLY" record -q $o -e cpu-clock -c 100000 -o "$d/tf.data" -- "$W" getpid 10 2>/dev/null
		bits() { perf evlist -v -i "$1" 2>/dev/null | grep '^cpu-clock' | grep -o 'exclude_[a-z]*: 1' | sort | tr '\n' ' '; }
		is "$o: perf's exclude bits" "$(bits "$d/tf.data")" "$(bits "$d/pf.data")"
	done
fi

"$TALLY" record -q -D -2 -o "$d/x.data" -- true 2>"$d/err"
is "-D -2: a usage error (129)" "$?" 129
check "and says -D" grep -q -- '-D\|--delay' "$d/err"

"$TALLY" record -q -g --user-callchains -e cpu-clock -c 100000 -o "$d/uc.data" -- "$W" enoent 100000 2>/dev/null
"$TALLY" script -i "$d/uc.data" -F ip 2>/dev/null >"$d/uc.ip"
check "--user-callchains: chains" test "$(grep -c . "$d/uc.ip")" -gt 10
is "--user-callchains: no kernel frame" "$(grep -c '^[[:space:]]*ffffffff' "$d/uc.ip")" 0
"$TALLY" record -q -g --kernel-callchains -e cpu-clock -c 100000 -o "$d/kc.data" -- "$W" enoent 100000 2>/dev/null
"$TALLY" script -i "$d/kc.data" -F ip 2>/dev/null >"$d/kc.ip"
check "--kernel-callchains: kernel frames" grep -q '^[[:space:]]*ffffffff' "$d/kc.ip"
is "--kernel-callchains: no user frame" "$(grep -v "^[[:space:]]*ffffffff" "$d/kc.ip" | grep -c "[0-9a-f]")" 0
if have_perf; then
	perf evlist -v -i "$d/uc.data" 2>/dev/null | grep -q 'exclude_callchain_kernel: 1'
	is "--user-callchains: perf's exclude_callchain_kernel bit" "$?" 0
	perf evlist -v -i "$d/kc.data" 2>/dev/null | grep -q 'exclude_callchain_user: 1'
	is "--kernel-callchains: perf's exclude_callchain_user bit" "$?" 0
fi
"$TALLY" record -g --user-callchains --kernel-callchains -o "$d/x.data" -- true 2>/dev/null
is "both: a usage error (129)" "$?" 129

"$TALLY" record --max-size 100K -F 4000 -g -o "$d/ms.data" -- "$W" spin 20000 2>"$d/ms.err"
is "--max-size 100K: the command's status, SIGTERM (143)" "$?" 143
check "  said: size limit reached" grep -q 'size limit reached' "$d/ms.err"
sz=$(stat -c %s "$d/ms.data")
check "  stopped soon past it: $sz bytes (under 2 MB of a 20 s run)" test "$sz" -gt 102400 -a "$sz" -lt 2097152
check "  the file reads to its end" sh -c "'$TALLY' report --stats -i '$d/ms.data' >/dev/null 2>&1"
have_perf && check "  perf reads it" sh -c "perf report --stdio -i '$d/ms.data' >/dev/null 2>&1"
"$TALLY" record --max-size 12X -o "$d/x.data" -- true 2>"$d/err"
is "--max-size 12X: a usage error (129)" "$?" 129

( cd "$d" && "$TALLY" record -q --timestamp-filename -o ts.data -- "$W" getpid 10 2>/dev/null )
n=$(ls "$d" | grep -cE '^ts\.data\.[0-9]{16}$')
is "--timestamp-filename: ts.data.YYYYMMDDHHMMSScc, perf's 16 digits" "$n" 1
check "  and no ts.data left" test ! -e "$d/ts.data"

"$TALLY" record -q -P -R -e cpu-clock -c 100000 -o "$d/pr.data" -- "$W" spin 200 2>/dev/null
if have_perf; then
	st=$(perf evlist -v -i "$d/pr.data" 2>/dev/null | head -1 | grep -o 'sample_type: [A-Z_|]*')
	check "-P -R: PERIOD, RAW, CPU and TIME in the samples ($st)" \
		sh -c "echo '$st' | grep -q PERIOD && echo '$st' | grep -q RAW && echo '$st' | grep -q CPU && echo '$st' | grep -q TIME"
fi

( cd "$d" && "$TALLY" record --dry-run -e cpu-clock -- "$W" getpid 5 >/dev/null 2>&1 )
is "--dry-run: exit 0" "$?" 0
check "  nothing written" test ! -e "$d/perf.data"
"$TALLY" record --dry-run -e nosuch -- true 2>"$d/err"
is "--dry-run -e nosuch: the event's error (129), as perf" "$?" 129
check "  named" grep -q nosuch "$d/err"
done_testing
