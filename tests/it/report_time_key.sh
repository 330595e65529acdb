#!/usr/bin/env bash
# tally report's time key as perf 6.1's on the same files: --sort time (the
# samples' times rounded down to --time-quantum, 100 ms by default, shown
# as sec.usec cut at 12 columns, --ns at 16), with other keys, -F, -t,
# --hierarchy, call graphs; a bad --time-quantum is a usage error. (perf's
# children mode counts a sample once per frame under this key: not
# compared, docs/perf-differences.md.)
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed: no reference to compare with"; done_testing; exit 0; fi

perf record -q -F 999 -g -o "$d/perf.data" -- "$B" 300 >/dev/null 2>&1
"$TALLY" record -q -F 999 -g -o "$d/tally.data" -- "$B" 300 >/dev/null 2>&1
"$TALLY" record -q -F 499 -a -o "$d/all.data" -- "$B" 200 >/dev/null 2>&1
pl() { report_lines perf "$@"; }
tl() { report_lines tally "$@"; }
for f in perf tally all; do
	for o in "--sort time" "--sort comm,time -g none" "--sort time,sym --comm burn" "--sort time --ns" \
		 "--sort time --time-quantum 10ms" "--sort time,comm --time-quantum 1s" \
		 "--sort time --time-quantum 50000000" "--sort time,sym --time-quantum 1ms -g none --comm burn" \
		 "--sort sym,time --time-quantum 5ms --comm burn" "--hierarchy --sort time,comm" \
		 "--hierarchy --sort comm,time --time-quantum 10ms" "-F overhead,time,sym --comm burn" \
		 "--sort time,pid -t ," "--sort dso,time --time-quantum 20ms -g none" \
		 "--sort time --time-quantum 2us --ns -g none"; do
		tl --no-children $o -i "$d/$f.data" >"$d/t.out"
		pl --no-children $o -i "$d/$f.data" >"$d/p.out"
		same_lines "$f $o" "$d/t.out" "$d/p.out"
		check "$f $o: rows" grep -qE '^ +[0-9.]+%' "$d/t.out"
	done
done
for f in perf tally; do
	for o in "--sort time --time-quantum 100ms -g caller" "--sort time,sym -G" "--sort time -g"; do
		same_lines "$f $o" <(tl --no-children $o -i "$d/$f.data") <(pl --no-children $o -i "$d/$f.data")
	done
done
# call graphs asked of a file without chains: perf says so (and prints no
# rows); tally says so and prints the rows. The parent key: refused, as perf.
for o in "-g caller" "-g"; do
	"$TALLY" report --stdio $o -i "$d/all.data" >"$d/t.out" 2>"$d/e"
	is "no chains, $o: exits 0" "$?" 0
	check "no chains, $o: says the file has no call chains" grep -q "no event of .* has call chains (recorded without -g?)" "$d/e"
	check "no chains, $o: the rows" grep -qE '^ +[0-9.]+%' "$d/t.out"
	perf report --stdio $o -i "$d/all.data" 2>&1 >/dev/null | grep -q "callchain" ||
		fail "no chains, $o: perf says so too"
done
for o in "--sort parent" "--parent ^burn"; do
	"$TALLY" report --stdio $o -i "$d/all.data" >"$d/t.out" 2>"$d/e"
	is "no chains, $o: exits 1" "$?" 1
	check "no chains, $o: says it was recorded without -g" grep -q "no event of .* has call chains: was it recorded without -g" "$d/e"
	perf report --stdio $o -i "$d/all.data" 2>&1 >/dev/null | grep -q "callchain" ||
		fail "no chains, $o: perf says so too"
done
for o in "-g none" "-G" "--children"; do
	"$TALLY" report --stdio $o -i "$d/all.data" >"$d/t.out" 2>"$d/e"
	is "no chains, $o: no word of it (as perf)" "$?:$(wc -c <"$d/e")" 0:0
done
# the rows are the quantum's steps: with 10 ms, a 300 ms run has many, all on the step
n=$(tl --no-children -g none --sort time --time-quantum 10ms -i "$d/tally.data" | grep -cE '^ +[0-9.]+%')
check "10 ms steps: many rows ($n)" test "$n" -ge 10
check "10 ms steps: every time ends in 0000" \
	sh -c "tl() { :; }; '$TALLY' report --stdio --no-children -g none --sort time --time-quantum 10ms -i '$d/tally.data' 2>/dev/null |
		awk '/^ +[0-9.]+%/ && \$2 !~ /0000\$/ { bad++ } END { exit bad > 0 }'"
for q in 0 abc 5xs -1 ""; do
	"$TALLY" report --stdio --sort time --time-quantum "$q" -i "$d/tally.data" >/dev/null 2>"$d/e"
	is "--time-quantum '$q': usage error" "$?" 129
	check "--time-quantum '$q': says why" grep -q "time-quantum" "$d/e"
done
done_testing
