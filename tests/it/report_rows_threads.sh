#!/usr/bin/env bash
# With two CPUs, report prints its rows on two threads: a helper formats
# chunks of 32 rows into memory while the main thread writes them in
# order (from 32 rows with graphs, 256 without). TALLY_THREADS=1 prints on
# one. Both give the same bytes, on a file of many rows: a system-wide
# profile of a machine listing files and burning CPU.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
if [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then
	skip "one CPU: report prints on one thread"
	done_testing
	exit 0
fi
"$TALLY" record -q -a -g -F 2000 -o "$d/a.data" -- \
	sh -c "find /usr/lib /usr/share >/dev/null 2>&1; ls -lR /usr/include >/dev/null 2>&1; $B 300" >/dev/null 2>&1
rows=$("$TALLY" report --stdio --no-children -g none -i "$d/a.data" 2>/dev/null | grep -c '%  ')
check "a file of many rows ($rows)" [ "$rows" -gt 300 ]
for cmd in "report --stdio" "report --stdio --no-children" "report --stdio --no-children -g none" \
	   "report --stdio --sort dso,sym -g caller" "report --stdio --percent-limit 0.5" \
	   "report --stdio -n --show-total-period --sort comm,dso"; do
	TALLY_THREADS=1 "$TALLY" $cmd -i "$d/a.data" >"$d/one" 2>&1
	"$TALLY" $cmd -i "$d/a.data" >"$d/two" 2>&1
	check "$cmd: one thread and two give the same bytes ($(wc -l <"$d/two") lines)" cmp -s "$d/one" "$d/two"
done
# a reader that goes away mid-way: the status and message as with one thread
TALLY_THREADS=1 "$TALLY" report --stdio -i "$d/a.data" 2>"$d/e1" | head -3 >/dev/null
r1=${PIPESTATUS[0]}
"$TALLY" report --stdio -i "$d/a.data" 2>"$d/e2" | head -3 >/dev/null
r2=${PIPESTATUS[0]}
is "a closed pipe: the same exit status" "$r2" "$r1"
check "a closed pipe: the same messages" cmp -s "$d/e1" "$d/e2"
done_testing
