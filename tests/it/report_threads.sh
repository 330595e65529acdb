#!/usr/bin/env bash
# report -T/--threads (issue 29): the per-thread counts perf record -s
# writes (a READ record per event as each inherited thread exits), after
# the rows, line for line as perf 6.1's report -T prints them from the
# same file: its "#  PID  TID  event..." table, normal and --pretty=raw.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
if ! have_perf; then
	skip "perf is not installed: no perf record -s file to read"
	done_testing
	exit 0
fi
# two children of sh, each its own thread with its own counts
perf record -q -s -e task-clock,page-faults -o "$d/s.data" -- \
	sh -c "$B 100 & $B 150 & wait" >/dev/null 2>&1
# perf's table: from its "# PID  TID" line to the end (perf ends with it)
table() { sed -n '/^# *PID  *TID/,$p'; }
"$TALLY" report --stdio -T -i "$d/s.data" >"$d/t" 2>"$d/te"; rc=$?
perf report --stdio -T -i "$d/s.data" 2>/dev/null | table >"$d/p"
is "report -T: exits 0" "$rc" 0
check "perf's table has the threads (more than the header)" [ "$(wc -l <"$d/p")" -ge 3 ]
table <"$d/t" | head -n "$(wc -l <"$d/p")" >"$d/tt"
is "report -T: perf's table line for line ($(wc -l <"$d/p") lines)" "$(diff "$d/tt" "$d/p")" ""
check "report -T: the table after the rows" \
	awk '/%  / { row = NR } /^# *PID  *TID/ { tab = NR } END { exit !(row && tab > row) }' "$d/t"
"$TALLY" report --stdio --threads -q -i "$d/s.data" 2>/dev/null | table >"$d/tq"
perf report --stdio --threads -q -i "$d/s.data" 2>/dev/null | table >"$d/pq"
is "report --threads -q: perf's table" "$(diff "$d/tq" "$d/pq")" ""
# --pretty=raw: a row per thread and event; perf 6.1 ends none of them
# with a newline: tally's rows joined are perf's one line
raw() { awk '/^# *PID  *TID  *Name/ { on = 1; next } on && !/^  +[0-9]+  +[0-9]+  / { exit } on' |
	tr -d '\n'; }
"$TALLY" report --stdio -T --pretty=raw -i "$d/s.data" 2>/dev/null >"$d/tr"
perf report --stdio -T --pretty=raw -i "$d/s.data" 2>/dev/null >"$d/pr"
is "report -T --pretty=raw: perf's header" "$(grep '^# *PID  *TID  *Name' "$d/tr")" \
	"$(grep '^# *PID  *TID  *Name' "$d/pr")"
check "--pretty=raw: perf's rows there" grep -q 'page-faults' "$d/pr"
is "report -T --pretty=raw: perf's rows" "$(raw <"$d/tr")" "$(raw <"$d/pr")"
# a file without READ records: the header line alone, as perf
"$TALLY" record -q -e task-clock -o "$d/n.data" -- "$B" 50 >/dev/null 2>&1
"$TALLY" report --stdio -T -i "$d/n.data" 2>/dev/null | table >"$d/tn"
perf report --stdio -T -i "$d/n.data" 2>/dev/null | table >"$d/pn"
is "no READ records: perf's lone header" "$(diff "$d/tn" "$d/pn")" ""
"$TALLY" report --stdio -T --pretty=fancy -i "$d/s.data" >/dev/null 2>"$d/e"; rc=$?
is "--pretty fancy: a usage error (129)" "$rc" 129
check "--pretty fancy: said why" grep -q "pretty 'fancy'" "$d/e"
done_testing
