#!/usr/bin/env bash
# tally report --stats: perf 6.1's "Aggregated stats" (each record type's
# count and share of the whole, then each event's samples and lost
# samples) line for line on the same files: perf's and tally's
# recordings, system-wide, zstd-compressed (-z: the COMPRESSED records
# count too, as perf's) and a pipe; a count of our own as an oracle.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed: no reference to compare with"; done_testing; exit 0; fi

perf record -q -F 999 -g -o "$d/perf.data" -- "$B" 100 >/dev/null 2>&1
"$TALLY" record -q -F 999 -g -o "$d/tally.data" -- "$B" 100 >/dev/null 2>&1
perf record -q -a -F 999 -o "$d/perf-a.data" -- sh -c "$B 100 & $B 100; wait" >/dev/null 2>&1
"$TALLY" record -q -a -F 999 -e cpu-clock,page-faults -o "$d/tally-a.data" -- "$B" 100 >/dev/null 2>&1
perf record -q -z -F 999 -o "$d/perf-z.data" -- "$B" 100 >/dev/null 2>&1
"$TALLY" record -q -z -F 999 -o "$d/tally-z.data" -- "$B" 100 >/dev/null 2>&1
for f in perf tally perf-a tally-a perf-z tally-z; do
	"$TALLY" report --stats -i "$d/$f.data" >"$d/t.out" 2>"$d/t.err"
	is "$f: tally report --stats exits 0" "$?" 0
	perf report --stats -i "$d/$f.data" >"$d/p.out" 2>/dev/null
	check "$f: perf's lines" cmp -s "$d/t.out" "$d/p.out"
	diff "$d/t.out" "$d/p.out" | head -6 | sed 's/^/# /'
done
grep -q "COMPRESSED events" "$d/t.out"
is "-z: the COMPRESSED records counted" "$?" 0
# the oracle: TOTAL is the types' sum, SAMPLE what script prints
"$TALLY" report --stats -i "$d/perf-a.data" >"$d/t.out" 2>/dev/null
total=$(awk '$1 == "TOTAL" { print $3 }' "$d/t.out")
sum=$(awk '/^Aggregated/ { a = 1; next } /stats:$/ { a = 0 } a && $1 != "TOTAL" { s += $3 } END { print s }' "$d/t.out")
is "TOTAL is the sum of the types ($sum)" "$total" "$sum"
n=$(perf script -F time -i "$d/perf-a.data" 2>/dev/null | wc -l)
is "SAMPLE events: the samples script prints ($n)" \
	"$(awk '/^Aggregated/ { a = 1 } a && $1 == "SAMPLE" { print $3; exit }' "$d/t.out")" "$n"
# a pipe: its header records (ATTR, FEATURE...) count too
perf record -q -F 999 -o - -- "$B" 100 2>/dev/null >"$d/pipe"
"$TALLY" report --stats -i - <"$d/pipe" >"$d/t.out" 2>/dev/null
perf report --stats -i - <"$d/pipe" >"$d/p.out" 2>/dev/null
check "a pipe: perf's lines" cmp -s "$d/t.out" "$d/p.out"
check "a pipe: its ATTR records counted" grep -q "ATTR events" "$d/t.out"
# a compressed pipe (perf 6.1 cannot read one back: docs/perf-differences.md)
perf record -q -z -F 999 -o - -- "$B" 100 2>/dev/null >"$d/zpipe"
"$TALLY" report --stats -i - <"$d/zpipe" >"$d/t.out" 2>/dev/null
is "a compressed pipe: exits 0" "$?" 0
check "a compressed pipe: its COMPRESSED records counted" grep -q "COMPRESSED events" "$d/t.out"
is "a compressed pipe: SAMPLE events as script's samples" \
	"$(awk '/^Aggregated/ { a = 1 } a && $1 == "SAMPLE" { print $3; exit }' "$d/t.out")" \
	"$("$TALLY" script -F time -i - <"$d/zpipe" 2>/dev/null | wc -l)"
"$TALLY" report --stats -i "$d/nonesuch" >/dev/null 2>"$d/e"
check "a missing file: an error" [ $? != 0 ]
check "that names it" grep -q nonesuch "$d/e"
done_testing
