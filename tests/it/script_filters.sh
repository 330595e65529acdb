#!/usr/bin/env bash
# tally script -S/--symbols and --dsos, as perf 6.1's: only the samples
# whose own address lies in a listed symbol (by name; an entry that reads
# as hex is a sampled address) or shared object (its name or its path),
# line for line with perf on perf's and tally's recordings, a system-wide
# one with kernel samples too; the count of each symbol's samples as an
# oracle.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn W=$HELPERS/work
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

"$TALLY" record -q -F 999 -g -o "$d/tally.data" -- "$B" 100 >/dev/null 2>&1
# the oracle: each sample's own symbol, one line a sample
n=$("$TALLY" script -F ip,sym -G -i "$d/tally.data" 2>/dev/null | grep -c ' burn_a$')
got=$("$TALLY" script -S burn_a -F ip,sym -G -i "$d/tally.data" 2>/dev/null | wc -l)
check "-S burn_a keeps burn_a's samples, all of them ($got of $n)" test "$n" -gt 0 -a "$got" = "$n"
check "  and nothing else" test "$("$TALLY" script -S burn_a -F ip,sym -G -i "$d/tally.data" 2>/dev/null | grep -vc ' burn_a$')" = 0
ip=$("$TALLY" script -F ip -G -i "$d/tally.data" 2>/dev/null | head -1 | tr -d ' ')
n=$("$TALLY" script -F ip -G -i "$d/tally.data" 2>/dev/null | grep -c "^ *$ip\$")
is "-S $ip: the samples at that address" "$("$TALLY" script -S "$ip" -F ip -G -i "$d/tally.data" 2>/dev/null | wc -l)" "$n"

if ! have_perf; then skip "perf is not installed: no reference to compare with"; done_testing; exit 0; fi
perf record -q -F 999 -g -o "$d/perf.data" -- "$B" 100 >/dev/null 2>&1
perf record -q -a -F 999 -g -o "$d/perf-a.data" -- "$W" getpid 2000000 >/dev/null 2>&1
start=$(nm "$B" | awk '$3 == "burn_a" { print $1 }' | sed 's/^0*//')
for f in tally perf; do
	for a in "-S burn_a" "-S burn_a,burn_b" "--dsos burn" "--dsos $B" "--dsos libc.so.6" \
		"-S burn_a --dsos burn" "-S nothing_by_this_name" "-S 0x$start" "-S burn_b,$ip" "-S 0x$ip"; do
		"$TALLY" script $a -i "$d/$f.data" >"$d/t.out" 2>&1
		perf script $a -i "$d/$f.data" >"$d/p.out" 2>&1
		check "$f: script $a is perf's ($(wc -l <"$d/t.out") lines)" cmp -s "$d/t.out" "$d/p.out"
		diff "$d/t.out" "$d/p.out" | head -4 | sed 's/^/# /'
	done
done
for a in "-S do_syscall_64" "-S __x64_sys_getpid,do_getpid" "--dsos work" "-S syscall --dsos libc.so.6" "--dsos [kernel.kallsyms]"; do
	"$TALLY" script $a -i "$d/perf-a.data" >"$d/t.out" 2>&1
	perf script $a -i "$d/perf-a.data" >"$d/p.out" 2>&1
	check "-a: script $a is perf's ($(wc -l <"$d/t.out") lines)" cmp -s "$d/t.out" "$d/p.out"
	diff "$d/t.out" "$d/p.out" | head -4 | sed 's/^/# /'
done
# a first run (no kallsyms cache): the kernel's symbols are asked for at once, same lines
XDG_CACHE_HOME=$d/cache "$TALLY" script -S do_syscall_64 -i "$d/perf-a.data" >"$d/t.out" 2>&1
perf script -S do_syscall_64 -i "$d/perf-a.data" >"$d/p.out" 2>&1
check "-a, first run: -S do_syscall_64 is perf's" cmp -s "$d/t.out" "$d/p.out"
done_testing
