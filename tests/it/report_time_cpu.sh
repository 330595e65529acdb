#!/usr/bin/env bash
# tally report and script --time and -C (--cpu), as perf 6.1's on the same
# files (perf's recording and tally's): the time ranges in seconds (one,
# several, either end left out) and in percents of the recording's span
# (10%/2, 0%-10%,30%-40%, 25%), the CPU lists; the samples outside are
# dropped before anything counts them (the header's Samples line says the
# slices, as perf's). Strings perf refuses are refused (129, said why); -C
# on a file without CPUs is an error, as perf's.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed: no reference to compare with"; done_testing; exit 0; fi

# both CPUs busy: two burns, system-wide
perf record -q -a -F 999 -o "$d/perf.data" -- sh -c "$B 300 & $B 300; wait" >/dev/null 2>&1
"$TALLY" record -q -a -F 999 -o "$d/tally.data" -- sh -c "$B 300 & $B 300; wait" >/dev/null 2>&1
# rows as a set: perf orders some equal rows by its trees' history
# (docs/perf-differences.md); the workload's and the idle task's only, as
# report_parity's -a checks: the machine's other processes bring symbol
# corners (a PLT hit is _init or name@plt by the shape of perf's symbol tree)
rows() { grep -E '^ +[0-9.]+% +(burn|swapper) ' | sort; }
# script's lines: the same processes'
mine() { awk '$1 == "burn" || $1 == "swapper"' "$1"; }
for who in perf tally; do
	f=$d/$who.data
	read -r first last < <(perf script -F time -i "$f" 2>/dev/null | tr -d ': ' | sed -n '1p;$p' | tr '\n' ' ')
	mid=$(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.6f", (a + b) / 2 }')
	q1=$(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.6f", a + (b - a) / 4 }')
	q3=$(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.6f", a + 3 * (b - a) / 4 }')
	for t in "$first,$mid" "$mid," ",$q1" "$first,$q1 $mid,$q3" "10%/2" "0%-10%,30%-40%" "25%" "1,0"; do
		"$TALLY" report --stdio -g none --time "$t" -i "$f" >"$d/t.out" 2>"$d/t.err"
		rc=$?
		perf report --stdio -g none --time "$t" -i "$f" >"$d/p.out" 2>/dev/null
		is "$who report --time '$t': exits 0" "$rc" 0
		is "$who report --time '$t': rows as perf's" "$(diff <(rows <"$d/t.out") <(rows <"$d/p.out") | grep -c '^[<>]')" 0
		is "$who report --time '$t': the Samples line as perf's" \
			"$(grep '^# Samples' "$d/t.out")" "$(grep '^# Samples' "$d/p.out")"
		"$TALLY" script --time "$t" -i "$f" >"$d/t.out" 2>/dev/null
		perf script --time "$t" -i "$f" >"$d/p.out" 2>/dev/null
		check "$who script --time '$t': perf's lines" cmp -s <(mine "$d/t.out") <(mine "$d/p.out")
	done
	# an oracle of our own: the window's samples are those whose time is in it
	# (to the ns: a sample at Q3 + 500 ns prints as Q3 in microseconds, and is out)
	"$TALLY" script -F time --ns -i "$f" 2>/dev/null | tr -d ': ' >"$d/all"
	want=$(awk -v a="$q1" -v b="$q3" '$1 + 0 >= a + 0 && $1 + 0 <= b + 0' "$d/all" | wc -l)
	got=$("$TALLY" script -F time --time "$q1,$q3" -i "$f" 2>/dev/null | wc -l)
	is "$who script --time Q1,Q3: the samples timed inside it ($want)" "$got" "$want"
	check "$who: the window drops some, keeps some" test "$got" -lt "$(wc -l <"$d/all")" -a "$got" -gt 0
	for c in 0 1 0-1 1,0; do
		"$TALLY" report --stdio -g none -C "$c" -i "$f" >"$d/t.out" 2>/dev/null
		perf report --stdio -g none -C "$c" -i "$f" >"$d/p.out" 2>/dev/null
		is "$who report -C $c: rows as perf's" "$(diff <(rows <"$d/t.out") <(rows <"$d/p.out") | grep -c '^[<>]')" 0
		is "$who report -C $c: the Samples line as perf's" \
			"$(grep '^# Samples' "$d/t.out")" "$(grep '^# Samples' "$d/p.out")"
		"$TALLY" script -C "$c" -i "$f" >"$d/t.out" 2>/dev/null
		perf script -C "$c" -i "$f" >"$d/p.out" 2>/dev/null
		check "$who script -C $c: perf's lines" cmp -s <(mine "$d/t.out") <(mine "$d/p.out")
	done
	# each CPU's samples, and only its
	n0=$("$TALLY" script -F cpu -C 0 -i "$f" 2>/dev/null | sort -u | tr -d ' []')
	is "$who script -C 0: CPU 0's samples only" "$n0" 000
	"$TALLY" report --stdio -g none --time "$first,$mid" -C 1 -i "$f" >"$d/t.out" 2>/dev/null
	perf report --stdio -g none --time "$first,$mid" -C 1 -i "$f" >"$d/p.out" 2>/dev/null
	is "$who report --time and -C together: rows as perf's" \
		"$(diff <(rows <"$d/t.out") <(rows <"$d/p.out") | grep -c '^[<>]')" 0
done

# what perf refuses
for t in 12 abc,2 10%/0 101% 0%-10%,x "3,4 1,2" 5%x "2,1"; do
	"$TALLY" report --stdio --time "$t" -i "$d/perf.data" >/dev/null 2>"$d/e"; rc=$?
	perf report --stdio --time "$t" -i "$d/perf.data" >/dev/null 2>&1; prc=$?
	check "--time '$t': perf refuses it too" [ "$prc" != 0 ]
	is "--time '$t': tally refuses it (129)" "$rc" 129
	check "--time '$t': and says which" grep -q -- "--time '$t': not a time range" "$d/e"
	"$TALLY" script --time "$t" -i "$d/perf.data" >/dev/null 2>&1
	is "script --time '$t': refused too" "$?" 129
done
"$TALLY" report --stdio -C 0-x -i "$d/perf.data" >/dev/null 2>"$d/e"
is "-C 0-x: usage error" "$?" 129
check "-C 0-x: says it is no CPU list" grep -q "not a CPU list" "$d/e"
"$TALLY" report --stdio -C 4095 -i "$d/perf.data" >/dev/null 2>"$d/e"
is "-C past the recording's CPUs: refused" "$?" 129
check "and says so" grep -q "CPU 4095 is not one the recording's machine had" "$d/e"
# a workload's recording has no CPU field (perf's default): -C cannot apply
perf record -q -F 999 -o "$d/nocpu.data" -- "$B" 50 >/dev/null 2>&1
# (perf says so, then exits 0: tally fails)
perf report --stdio -C 0 -i "$d/nocpu.data" >/dev/null 2>"$d/e"
check "no CPUs in the file: perf refuses -C" grep -q "does not contain CPU" "$d/e"
"$TALLY" report --stdio -C 0 -i "$d/nocpu.data" >/dev/null 2>"$d/e"
is "no CPUs in the file: tally report -C exits 1" "$?" 1
check "and says to remove -C" grep -q "have no CPU .*remove -C" "$d/e"
"$TALLY" script -C 0 -i "$d/nocpu.data" >/dev/null 2>"$d/e"
is "no CPUs in the file: tally script -C exits 1" "$?" 1
done_testing
