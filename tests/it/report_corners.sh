#!/usr/bin/env bash
# Corners of report and script against perf 6.1. Threads: the "pid" key is
# the thread (its tid and the name it ends with, under perf's
# "    Pid:Command" header); a thread sampled before its first COMM is
# ":TID" in script's lines of that time and under its later name in
# report's rows (-c filters by the name of the sample's time); a file
# without EVENT_DESC names its event as perf
# derives it ("cpu-clock:HG"). A call chain holding a context marker perf
# does not know (garbage of a frame-pointer walk) is dropped whole, as perf
# drops it: the sample keeps its own ip. -n, --show-total-period, -q, and a
# file of two events (one preamble, a block each). A file of tracepoints
# only: perf's default key is the trace text ("Trace output", a lone row
# cut to the header's width). A sample in the PLT: the entry's name@plt, or
# _init where perf's symbol tree finds the sizeless _init first. A row at
# address 0 is sized as any unresolved one.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
# report's header and rows; perf's closing tip and tally's unresolved summary aside
out() { "$1" report --stdio "${@:3}" -i "$2" 2>/dev/null | grep -v '^$' | grep -v '^#$' |
	grep -v -e '^# (Tip' -e '^# Addresses without' -e '^#   [/[]'; }
same() {	# NAME FILE OPTS...
	local n=$1 f=$2; shift 2
	out perf "$f" "$@" >"$d/p"; out "$TALLY" "$f" "$@" >"$d/t"
	cmp -s "$d/p" "$d/t" || diff "$d/p" "$d/t" | head -8 | sed 's/^/# /'
	check "$n $*: header and rows are perf's ($(grep -c '%' "$d/p") rows)" cmp -s "$d/p" "$d/t"
}
if have_tp; then
	for who in perf tally; do
		if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
		$rec -q -e syscalls:sys_enter_getpid -c 1 -o "$d/$who.data" -- "$HELPERS/work" threads 3 40 \
			>/dev/null 2>&1
		is "$who-written, 3 threads: a row per thread" \
			"$(out perf "$d/$who.data" --sort pid | grep -c '%')" 3
		for s in pid comm,pid pid,comm pid,dso,sym; do
			same "$who-written, 3 threads:" "$d/$who.data" --sort $s
		done
	done
else
	skip "the getpid tracepoint cannot be used here"
fi
python3 "$HERE/craft_data.py" late-comm "$d/late.data"
for s in comm pid comm,pid comm,dso; do
	same "late COMM:" "$d/late.data" --sort $s
done
# -c tests the name the thread had at each sample (perf's filter as it
# reads), the rows show the later name; a row made of both kinds keeps
# the verdict of the name first in perf's order (":5000" before "late")
for c in late :5000 late,:5000 later :5001 late,later "late --sort dso,comm" ":5000 --sort dso" \
	 "late,later --no-children"; do
	same "late COMM -c:" "$d/late.data" --comm $c
done
is "late COMM: perf's rows carry the later name" \
	"$(out perf "$d/late.data" --sort comm | grep -c ':5000')" 0
perf script -i "$d/late.data" >"$d/ps" 2>/dev/null
"$TALLY" script -i "$d/late.data" >"$d/ts" 2>/dev/null
check "late COMM: script lines are perf's ($(wc -l <"$d/ps") lines)" cmp -s "$d/ps" "$d/ts"
is "late COMM: script's lines before the COMM are ':5000'" "$(grep -c '^ *:5000 ' "$d/ts")" 3
# a fork passes on a name a COMM gave, not the parent's ":PID" default
python3 "$HERE/craft_data.py" fork-unnamed "$d/fork.data"
perf script -i "$d/fork.data" >"$d/ps" 2>/dev/null
"$TALLY" script -i "$d/fork.data" >"$d/ts" 2>/dev/null
check "fork of an unnamed thread: script lines are perf's ($(wc -l <"$d/ps") lines)" cmp -s "$d/ps" "$d/ts"
is "fork of an unnamed thread: the children keep ':TID'" "$(grep -Ec '^ *:510[12] +510[12] ' "$d/ts")" 2
is "fork after a COMM: the child carries the name" "$(grep -Ec '^ *named +5103 ' "$d/ts")" 1
same "fork of an unnamed thread:" "$d/fork.data" --sort comm,pid
# -n, --show-total-period and -q; two events: the preamble once, then a block each
perf record -q -e cpu-clock,task-clock -F 999 -g -o "$d/two.data" -- "$HELPERS/burn" 200 >/dev/null 2>&1
for o in "-n" "-n --no-children" "--show-total-period -n -g none" "-q" "-q --no-children -g none" \
	 "-q -F overhead,sym"; do
	same "two events:" "$d/two.data" $o
done
is "two events: one preamble, two blocks" \
	"$("$TALLY" report --stdio -i "$d/two.data" 2>/dev/null | grep -c -e '^# Total Lost' -e '^# Samples:' | tr -d ' ')" 3
is "-q: no '#' line" "$("$TALLY" report --stdio -q -i "$d/two.data" 2>/dev/null | grep -c '^#')" 0
if have_tp; then
	for who in perf tally; do
		if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
		$rec -q -e sched:sched_switch -o "$d/$who-sw.data" -- sh -c 'sleep 0.01; sleep 0.01' >/dev/null 2>&1
		$rec -q -e syscalls:sys_enter_getpid,syscalls:sys_exit_getpid -g -o "$d/$who-tp.data" -- \
			"$HELPERS/work" getpid 5 >/dev/null 2>&1
		for o in "" "--no-children" "--sort trace,comm" "-n --sort comm,trace"; do
			same "$who-written sched_switch:" "$d/$who-sw.data" $o
			same "$who-written getpid, two tracepoints:" "$d/$who-tp.data" $o
		done
		check "$who-written sched_switch: the trace key by default" \
			grep -q '% *prev_comm=sh prev_pid=' <(out "$TALLY" "$d/$who-sw.data")
	done
else
	skip "tracepoints cannot be used here"
fi
# every 4 bytes of .plt, in programs of 1, 2, 3 and 9 entries and the helpers
plt_addrs() {
	readelf -SW "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i == ".plt") print $(i + 2), $(i + 4) }' |
		while read -r a n; do python3 -c "print(' '.join('%x' % x for x in range(0x$a, 0x$a + 0x$n, 4)))"; done
}
calls=(abs labs atoi atol strlen strcmp memcmp puts rand)
args=(c c 'v[0]' 'v[0]' 'v[0]' 'v[0],"a"' 'v[0],"ab",c' '""' '')
for k in 1 2 3 9; do
	{
		echo '#include <stdlib.h>'; echo '#include <string.h>'; echo '#include <stdio.h>'
		echo 'int main(int c, char **v) { long s = 0;'
		for ((i = 0; i < k; i++)); do echo "s += (long)${calls[i]}(${args[i]});"; done
		echo 'return s & 1; }'
	} >"$d/plt$k.c"
	cc -O1 -fno-builtin -w -o "$d/plt$k" "$d/plt$k.c"
done
for b in "$d/plt1" "$d/plt2" "$d/plt3" "$d/plt9" "$HELPERS/burn" "$HELPERS/work"; do
	python3 "$HERE/craft_data.py" addrs "$d/plt.data" "$b" $(plt_addrs "$b")
	perf script -F ip,sym -i "$d/plt.data" >"$d/ps" 2>/dev/null
	"$TALLY" script -F ip,sym -i "$d/plt.data" >"$d/ts" 2>/dev/null
	check "PLT of $(basename "$b"): $(wc -l <"$d/ps") addresses named as perf names them ($(grep -c @plt "$d/ps") @plt)" \
		cmp -s "$d/ps" "$d/ts"
done
python3 "$HERE/craft_data.py" bad-context "$d/bad.data"
for o in "--children" "--no-children" "--children -g caller" "--no-children -g caller" "-g callee"; do
	same "bad context marker:" "$d/bad.data" $o
done
perf script -i "$d/bad.data" >"$d/ps" 2>/dev/null
"$TALLY" script -i "$d/bad.data" >"$d/ts" 2>/dev/null
check "bad context marker: script lines are perf's ($(wc -l <"$d/ps") lines)" cmp -s "$d/ps" "$d/ts"
is "bad context marker: a dropped chain's frame is not shown" "$(grep -c 21fd6168 "$d/ts")" 0
is "bad context marker: two chains of three frames kept" "$(grep -c '\[unknown\] (/nonexistent/b)' "$d/ts")" 6
# address 0 (a frame-pointer walk's end): perf's Symbol column is 22 wide
# for any unresolved entry, "0x" and 16 digits, though 0 prints as 16 zeros
python3 "$HERE/craft_data.py" zero-ip "$d/zero.data"
for o in "--children" "--no-children" "--sort comm,dso,sym"; do
	same "address 0:" "$d/zero.data" $o
done
done_testing
