#!/usr/bin/env bash
# tally script --max-stack N: at most N frames of each call chain, as perf
# 6.1's script on the same files (perf's and tally's -g recordings); and
# perf's walk stops there, so a chain whose garbage context marker lies
# past the first N frames is shown, not dropped (craft_data.py
# bad-context). The default is kernel.perf_event_max_stack, as perf's.
. "$(dirname "$0")/lib.sh"
HERE=$(dirname "$0")
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed: no reference to compare with"; done_testing; exit 0; fi

perf record -q -F 999 -g -o "$d/perf.data" -- "$B" 200 >/dev/null 2>&1
"$TALLY" record -q -F 999 -g -o "$d/tally.data" -- "$B" 200 >/dev/null 2>&1
python3 "$HERE/craft_data.py" bad-context "$d/bad.data"
for f in perf tally bad; do
	for n in 0 1 2 3 5 1000; do
		"$TALLY" script --max-stack $n -i "$d/$f.data" >"$d/t.out" 2>/dev/null
		perf script --max-stack $n -i "$d/$f.data" >"$d/p.out" 2>/dev/null
		is "$f --max-stack $n: perf's lines" "$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
		# no sample shows more than n frames
		most=$(awk -v RS= '{ n = split($0, l, "\n"); if (n - 1 > m) m = n - 1 } END { print m + 0 }' "$d/t.out")
		check "$f --max-stack $n: at most $n frames a sample ($most)" test "$most" -le "$n"
	done
done
# the garbage past the first two frames: dropped whole by default, shown under --max-stack 2
frames() { awk -v RS= -v s="$2" 'NR == s { n = split($0, l, "\n"); print n - 1 }' "$1"; }
"$TALLY" script -i "$d/bad.data" >"$d/all" 2>/dev/null
"$TALLY" script --max-stack 2 -i "$d/bad.data" >"$d/two" 2>/dev/null
is "garbage last: the chain dropped by default" "$(frames "$d/all" 2)" 0
is "garbage last: its two frames under --max-stack 2" "$(frames "$d/two" 2)" 2
is "a good chain: all 3 frames by default" "$(frames "$d/all" 1)" 3
# the default: the kernel's limit
max=$(cat /proc/sys/kernel/perf_event_max_stack 2>/dev/null || echo 127)
"$TALLY" script --max-stack "$max" -i "$d/perf.data" >"$d/t.out" 2>/dev/null
"$TALLY" script -i "$d/perf.data" >"$d/p.out" 2>/dev/null
check "the default is kernel.perf_event_max_stack ($max)" cmp -s "$d/t.out" "$d/p.out"
"$TALLY" script --max-stack -1 -i "$d/perf.data" >/dev/null 2>&1
is "--max-stack -1: usage error" "$?" 129
done_testing
