#!/usr/bin/env bash
# run.sh: apart (it loads BPF programs on the syscall tracepoints: other tests' kernel call chains would pass through them)
# tally trace against perf trace 6.1 and strace: -s on one recording (ls,
# git status, a threaded program) read by both perf trace -i and tally
# trace -i gives each thread the same syscalls with the same counts and
# errors, but for the calls tally counts as strace does (a child's return
# from clone is no call, rt_sigreturn is one); the totals equal strace -c
# -f's on workloads whose calls are exact; git status run under strace -y
# and tally (one run) names the same file behind each fd; each line of ls
# equals perf's
# (name, decoded arguments, return value) once times, pointers, pids and
# fd paths are set aside; the path strings read through BPF equal
# strace's; tracepoints -e adds print as perf's lines, and --pf's page
# faults.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# One line per thread: its syscalls "name:calls:errors", sorted; the
# threads sorted too (tids differ from run to run).
tables() {
	awk '/ events, / { if (t) print t; t = "" }
	     $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ && NF == 8 { t = t " " $1 ":" $2 ":" $3 }
	     END { if (t) print t }' "$1" |
		while read -r l; do echo "$l" | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' '; echo; done |
		LC_ALL=C sort
}
# totals over threads, "name calls errors"
totals() { awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ && NF == 8 { c[$1] += $2; e[$1] += $3 }
		END { for (k in c) print k, c[k], e[k] }' "$1" | LC_ALL=C sort; }
strace_totals() { awk '$NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ && $NF != "total" {
		print $NF, $4, (NF == 6 ? $5 : 0) }' "$1" | LC_ALL=C sort; }
# same_tables PERF TALLY: perf trace -s -i and tally trace -s -i of one
# recording, thread by thread (the same tids): the same rows, but where
# tally counts as strace -c -f: perf counts a child's return from clone
# (its table has one clone more), and has no rt_sigreturn row
same_tables() {
	python3 - "$1" "$2" <<'PY'
import re, sys
def parse(f):
    t, cur = {}, None
    for line in open(f):
        m = re.match(r"^ (.*) \((\d+)\), (\d+) events", line)
        if m:
            cur = t.setdefault(m.group(2), {})
            continue
        w = line.split()
        if cur is not None and len(w) == 8 and w[1].isdigit() and w[2].isdigit():
            cur[w[0]] = (int(w[1]), int(w[2]))
    return t
p, o = parse(sys.argv[1]), parse(sys.argv[2])
bad, children = [], 0
if not p or set(p) != set(o):
    bad.append("threads: perf %s, tally %s" % (sorted(p), sorted(o)))
for tid in p:
    for name in sorted(set(p[tid]) | set(o.get(tid, {}))):
        pc, pe = p[tid].get(name, (0, 0))
        oc, oe = o.get(tid, {}).get(name, (0, 0))
        if name in ("clone", "clone3", "fork", "vfork") and pc - oc == 1 and pe == oe:
            children += 1
        elif not (name == "rt_sigreturn" and name not in p[tid]) and (pc, pe) != (oc, oe):
            bad.append("%s %s: perf %d:%d, tally %d:%d" % (tid, name, pc, pe, oc, oe))
if children != len(p) - 1:
    bad.append("%d children's returns from clone for %d threads" % (children, len(p)))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}
# -s of one recording of "$@" by perf, read by perf and tally: same_tables
recorded_tables() {
	perf record -q -m 4M -e 'raw_syscalls:*' -o "$tmp/rec.data" -- "$@" >/dev/null 2>&1 &&
		perf trace -s -i "$tmp/rec.data" >"$tmp/rec.p" 2>&1 &&
		$TALLY trace -s -i "$tmp/rec.data" 2>"$tmp/rec.t" &&
		same_tables "$tmp/rec.p" "$tmp/rec.t" >"$tmp/rec.diff" && return 0
	sed 's/^/# /' "$tmp/rec.diff" >&2
	return 1
}
# strip what differs between runs: times, durations, tids, pids, pointers, fd paths
# continued PERF OURS: where perf saw a call's exit without its entry (an
# ordering of its own, now and then: "ls/TID ... [continued]: openat()) =
# -1 ENOENT ..."), our line of the same call and result takes perf's form
continued() {
	python3 - "$1" "$2" <<'PY'
import re, sys
p = open(sys.argv[1]).read().split("\n")
o = open(sys.argv[2]).read().split("\n")
for i, line in enumerate(p):
    m = re.match(r"^(\S+) \.\.\. \[continued\]: (\w+)\(\)\) = (.*)$", line)
    if not m or i >= len(o):
        continue
    n = re.match(r"^(\S+) (\w+)\(.*\) = (.*)$", o[i])
    if n and n.groups() == m.groups():
        o[i] = line
open(sys.argv[2], "w").write("\n".join(o))
PY
}

norm() {
	sed -E 's/^ *([0-9.]+|\?) \(([ 0-9.]+ms| +)\): //; s/\/[0-9]+ /\/TID /; s/0x[0-9a-f]+/0xX/g;
		s/<[^>]*>//g; s/(pid: |= )[0-9]+ \(/\1PID (/g; s/ +/ /g' "$1"
}

if ! have_tp; then
	skip "no syscall tracepoints here"
	done_testing
	exit 0
fi

# a scratch repository (300 files committed, 4 touched or changed since)
# for git status; --no-optional-locks: no run refreshes the index
repo=
if command -v git >/dev/null; then
	repo=$tmp/repo
	mkdir -p "$repo"
	git -C "$repo" init -q
	for i in $(seq 1 300); do
		mkdir -p "$repo/d$((i % 10))"
		echo "$i" >"$repo/d$((i % 10))/f$i"
	done
	git -C "$repo" add -A
	git -C "$repo" -c user.email=t@t -c user.name=t commit -qm files
	touch "$repo/d1/f1" "$repo/d2/f2" "$repo/d3/f3"
	echo more >>"$repo/d4/f4"
fi

if have_perf; then
	check "-s on ls: perf's syscalls, counts and errors (one recording)" recorded_tables ls /
	$TALLY trace -s -o "$tmp/t" -- "$W" threads-join 4 200 300
	is "-s on 4 threads: 5 tables" "$(tables "$tmp/t" | wc -l)" "5"
	check "-s on 4 threads: perf's per-thread tables (one recording)" recorded_tables "$W" threads-join 4 200 300
	# git status in the scratch repository: perf's table. Its counts differ
	# from run to run (newfstatat 417 or 416): one recording read by both
	if [ -n "$repo" ]; then
		check "-s on git status: perf's syscalls, counts and errors (one recording)" \
			recorded_tables git -C "$repo" --no-optional-locks status
	else
		missing "git is not installed"
	fi
	# the lines: perf's, but for statx's flags and mask, which perf 6.1 prints empty
	$TALLY trace --no-strings -o "$tmp/l" -- ls / >/dev/null
	# (perf -o leaks its file into the workload as fd 3: its stderr instead)
	perf trace -- ls / >/dev/null 2>"$tmp/pl"
	norm "$tmp/l" | grep -v 'statx(' >"$tmp/ln"
	norm "$tmp/pl" | grep -v 'statx(' >"$tmp/pn"
	continued "$tmp/pn" "$tmp/ln"
	if diff "$tmp/pn" "$tmp/ln" >"$tmp/diff"; then
		ok "ls: every line as perf's ($(wc -l <"$tmp/ln") lines)"
	else
		fail "ls: every line as perf's"; head -20 "$tmp/diff" | sed 's/^/# /'
	fi
	# -e tracepoints mixed with syscalls: every line as perf's, the tracepoints'
	# fields through libtraceevent; 3 execs of itself, each opening its libraries
	tp=sched:sched_process_exec,sched:sched_process_exit,openat
	$TALLY trace --no-strings -e $tp -o "$tmp/tp" -- "$W" exec 3
	perf trace -e $tp -- "$W" exec 3 2>"$tmp/ptp"
	norm "$tmp/tp" >"$tmp/tpn"
	norm "$tmp/ptp" >"$tmp/ptpn"
	if [ "$(grep -c 'sched:sched_process_exec(filename: ' "$tmp/tpn")" = 4 ] &&
		diff "$tmp/ptpn" "$tmp/tpn" >"$tmp/diff"; then
		ok "-e $tp: every line as perf's ($(wc -l <"$tmp/tpn") lines)"
	else
		fail "-e $tp: every line as perf's"; head -20 "$tmp/diff" "$tmp/tpn" | sed 's/^/# /'
	fi
	# --filter on the -e before it, as perf's: the exits of a 5-thread process
	# filtered to the group's last (two runs: the lines, tids set aside)
	f='group_dead == 1'
	$TALLY trace -e sched:sched_process_exit --filter "$f" -o "$tmp/f" -- "$W" threads-join 4 200 300
	perf trace -e sched:sched_process_exit --filter "$f" -- "$W" threads-join 4 200 300 2>"$tmp/pf"
	# perf trace, live, now and then has no name yet for the exiting
	# thread and prints its pid as ":934/934": read that as the workload's
	is "--filter '$f': perf's lines" "$(grep sched: "$tmp/f" | norm /dev/stdin)" \
		"$(grep sched: "$tmp/pf" | norm /dev/stdin | sed -E 's/^( *[0-9.]+ ):[0-9]+\/TID /\1work\/TID /')"
	# -s: perf's table for the syscalls, the tracepoints' lines still shown (as perf's)
	$TALLY trace -s -e $tp -o "$tmp/tps" -- "$W" exec 3
	perf trace -s -e $tp -- "$W" exec 3 2>"$tmp/ptps"
	# (two runs: their tables are compared by their syscalls, not their counts,
	# which -S checks against its own lines)
	names() { tables "$1" | sed -E 's/:[0-9]+:[0-9]+//g'; }
	is "-s -e $tp: perf's tables' syscalls" "$(names "$tmp/tps")" "$(names "$tmp/ptps")"
	$TALLY trace -S -e $tp -o "$tmp/tpS" -- "$W" exec 3
	is "-S -e $tp: the table counts the openat lines, and their errors" \
		"$(totals "$tmp/tpS" | awk '$1 == "openat" { print $2, $3 }')" \
		"$(grep -c ' openat(.*= ' "$tmp/tpS") $(grep -c ' openat(.*= -1 ' "$tmp/tpS")"
	is "-s -e $tp: the tracepoints' lines, as perf's" "$(grep sched: "$tmp/tps" | norm /dev/stdin)" \
		"$(grep sched: "$tmp/ptps" | norm /dev/stdin)"
	# --pf: the faults of work pages N on its fresh pages, as perf prints them
	# (the loader's vary from run to run with the layout: not compared)
	$TALLY trace --pf=min -o "$tmp/pf" -- "$W" pages 30
	perf trace --pf=min -- "$W" pages 30 2>"$tmp/ppf"
	pfn() { grep ' minfault \[main+' "$1" | sed -E 's/^ *[0-9.]+ //; s/\/[0-9]+ /\/TID /; s/@0x[0-9a-f]+/@X/'; }
	if [ "$(pfn "$tmp/pf" | wc -l)" = 30 ] && diff <(pfn "$tmp/ppf") <(pfn "$tmp/pf") >"$tmp/diff"; then
		ok "--pf=min: main's 30 faults as perf's lines"
	else
		fail "--pf=min: main's 30 faults as perf's lines"; head -5 "$tmp/diff" "$tmp/pf" | sed 's/^/# /'
	fi
	# a fault in the kernel (the loader's arguments copied out): the symbol, no map, "k"
	grep -Eq ' minfault \[[a-z_]+\+0x[0-9a-f]+\] => 0x[0-9a-f]+ \(\?k\)$' "$tmp/pf" &&
		ok "--pf=min: kernel faults as perf's (?k)" || fail "--pf=min: kernel faults as perf's (?k)"
	# -i: a file of raw_syscalls, perf's or tally's, shown byte for byte as perf trace -i
	# (but for a child's return from clone: 0, where perf names pid 0 "swapper")
	perf record -q -e 'raw_syscalls:*' -o "$tmp/r.data" -- "$W" enoent 3 2>/dev/null
	$TALLY record -q -e 'raw_syscalls:*' -o "$tmp/t.data" -- "$W" fork 3
	# -s's total column: perf prints calls x running mean, which differs from the
	# sum in the last digit on a rounding tie; the file is made to hold ties
	apart=$(python3 "$(dirname "$0")/retime_syscalls.py" "$tmp/r.data" "$tmp/x.data")
	$TALLY trace -s -i "$tmp/x.data" 2>"$tmp/ti"
	perf trace -s -i "$tmp/x.data" >"$tmp/pi" 2>&1
	if [ "${apart:-0}" -gt 0 ] && cmp -s "$tmp/ti" "$tmp/pi"; then
		ok "-s on rounding ties ($apart rows): perf's totals"
	else
		fail "-s on rounding ties: perf's totals"; diff "$tmp/pi" "$tmp/ti" | head -10 | sed 's/^/# /'
	fi
	# (-s on tally's file: same_tables, its child's clone counted once)
	$TALLY trace -s -i "$tmp/t.data" 2>"$tmp/ti"
	perf trace -s -i "$tmp/t.data" >"$tmp/pi" 2>&1
	check "-i -s on tally's file: perf trace -s -i's tables" same_tables "$tmp/pi" "$tmp/ti"
	for f in r t; do
		for s in "" -s; do
			[ "$f$s" = t-s ] && continue
			$TALLY trace $s -i "$tmp/$f.data" 2>"$tmp/ti"
			perf trace $s -i "$tmp/$f.data" 2>&1 | sed 's/= 0 (swapper)$/= 0/' >"$tmp/pi"
			if cmp -s "$tmp/ti" "$tmp/pi"; then
				ok "-i $s on $([ $f = r ] && echo perf || echo tally)'s file: perf trace -i's output"
			else
				fail "-i $s on $f.data: perf trace -i's output"
				diff "$tmp/pi" "$tmp/ti" | head -10 | sed 's/^/# /'
			fi
		done
	done
else
	skip "perf is not installed"
fi

if command -v strace >/dev/null; then
	$TALLY trace -s -o "$tmp/t" -- ls / >/dev/null
	strace -c -f -o "$tmp/s" ls / >/dev/null
	if diff <(strace_totals "$tmp/s") <(totals "$tmp/t") >"$tmp/diff"; then
		ok "ls: strace -c -f's counts and errors"
	else
		fail "ls: strace -c -f's counts and errors"; sed 's/^/# /' "$tmp/diff"
	fi
	# calls whose counts are exact: a fork (its clone once, not again at the
	# child's return) and signals handled (an rt_sigreturn each)
	for wl in "fork 3" "signals 5"; do
		$TALLY trace -s -o "$tmp/t" -- "$W" $wl
		strace -c -f -o "$tmp/s" "$W" $wl
		if diff <(strace_totals "$tmp/s") <(totals "$tmp/t") >"$tmp/diff"; then
			ok "work $wl: strace -c -f's counts and errors"
		else
			fail "work $wl: strace -c -f's counts and errors"; sed 's/^/# /' "$tmp/diff"
		fi
	done
	# Threads: clone3 counted once, in the parent, as strace does. A join
	# waits on a futex only when its thread is still running at the join,
	# which strace's slowdown (and the sanitizers') decides: futex is left
	# out of both.
	$TALLY trace -s -o "$tmp/t" -- "$W" threads-join 4 200 300
	strace -c -f -o "$tmp/s" "$W" threads-join 4 200 300
	if diff <(strace_totals "$tmp/s" | awk '$1 != "futex"') \
		<(totals "$tmp/t" | awk '$1 != "futex"') >"$tmp/diff"; then
		ok "4 threads: strace -c -f's counts"
	else
		fail "4 threads: strace -c -f's counts"; sed 's/^/# /' "$tmp/diff"
	fi
	# the files behind the fds: git status run under strace -f -y, both
	# tracing the one run, each read and close of git names strace's file
	# (resolved as strace resolves it: /lib/x86_64-linux-gnu/libc.so.6 is
	# /usr/lib/...); tally's lines of strace itself and of its child before
	# the exec (comm strace) are not strace's to compare
	if [ -n "$repo" ]; then
		$TALLY trace -e read,close -o "$tmp/t" -- strace -f -y -qq -e trace=read,close -o "$tmp/s" \
			git -C "$repo" --no-optional-locks status >/dev/null 2>"$tmp/err"
		if grep -q 'shown as pointers' "$tmp/err"; then
			skip "no BPF here: $(cat "$tmp/err")"
		elif python3 - "$tmp/t" "$tmp/s" >"$tmp/diff" <<'PY'
import os, re, sys
def tally(f):
    for line in open(f):
        m = re.search(r" (?!strace/)\S+/(\d+) (read|close)\(fd: (\d+)(?:<([^>]*)>)?", line)
        if m:
            p = m.group(4)
            yield m.groups()[:3] + (os.path.realpath(p) if p and p[0] == "/" else p,)
def strace(f):
    for line in open(f):
        m = re.match(r"^(\d+) +(read|close)\((\d+)(?:<([^>]*)>)?", line)
        if m:
            yield m.groups()
s = list(strace(sys.argv[2]))
tids = {x[0] for x in s}
t = [x for x in tally(sys.argv[1]) if x[0] in tids]
bad = [(a, b) for a, b in zip(t, s) if a != b]
for a, b in bad[:10]:
    print("tally", a, "strace", b)
if len(t) != len(s) or len(s) < 50:
    print("tally %d calls, strace %d" % (len(t), len(s)))
sys.exit(1 if bad or len(t) != len(s) or len(s) < 50 else 0)
PY
		then
			ok "git status under strace -y: each read and close names strace's file ($(grep -c . "$tmp/s") calls)"
		else
			fail "git status under strace -y: each read and close names strace's file"; sed 's/^/# /' "$tmp/diff" "$tmp/err"
		fi
	fi
	# the paths, read through BPF, as strace shows them (execve's began before the trace)
	sc=openat,access,statfs,newfstatat,readlink
	$TALLY trace -e $sc -o "$tmp/t" -- ls / >/dev/null 2>"$tmp/err"
	strace -f -e trace=$sc -o "$tmp/s" ls / >/dev/null
	if grep -q 'shown as pointers' "$tmp/err"; then
		skip "no BPF here: $(cat "$tmp/err")"
	elif diff <(grep -o '"[^"]*"' "$tmp/s") <(grep -o '\(filename\|pathname\|path\): "[^"]*"' "$tmp/t" |
		sed 's/^[a-z]*: //') >"$tmp/diff"; then
		ok "ls: the path strings are strace's ($(grep -c '"' "$tmp/s") calls)"
	else
		fail "ls: the path strings are strace's"; head -20 "$tmp/diff" | sed 's/^/# /'
	fi
else
	missing "strace is not installed (scripts/deps.sh installs it)"
fi
done_testing
