#!/usr/bin/env bash
# With two CPUs, report and script read and order records on a thread of
# their own and count on the main one; TALLY_THREADS=1 keeps to one. Both
# give the same bytes: files with and without chains, compressed, piped,
# big enough for many rounds and batches.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
"$TALLY" record -q -c 5000 -g -o "$d/g.data" -- sh -c "$B 1500 & $B 1500; wait" >/dev/null 2>&1
"$TALLY" record -q -c 5000 -z -o "$d/z.data" -- "$B" 800 >/dev/null 2>&1
n=$("$TALLY" script -i "$d/g.data" 2>/dev/null | grep -c 'cpu-clock')
check "a file of many rounds ($n samples)" [ "$n" -gt 1000 ]
for f in g z; do
	for cmd in "report --stdio" "report --stdio --no-children -g none" "report --stdio --sort pid,sym" "script"; do
		TALLY_THREADS=1 "$TALLY" $cmd -i "$d/$f.data" >"$d/one" 2>&1
		"$TALLY" $cmd -i "$d/$f.data" >"$d/two" 2>&1
		check "$f.data, $cmd: one thread and two give the same bytes" cmp -s "$d/one" "$d/two"
	done
done
"$TALLY" record -q -c 5000 -g -o - -- "$B" 800 2>/dev/null >"$d/s.pipe"
TALLY_THREADS=1 "$TALLY" script -i - <"$d/s.pipe" >"$d/one" 2>&1
"$TALLY" script -i - <"$d/s.pipe" >"$d/two" 2>&1
check "a pipe: one thread and two give the same bytes" cmp -s "$d/one" "$d/two"
# a cut file: the same lines, the same complaint, either way
head -c $(($(stat -c %s "$d/g.data") / 2)) "$d/g.data" >"$d/cut.data"
TALLY_THREADS=1 "$TALLY" script -i "$d/cut.data" >"$d/one" 2>&1; r1=$?
"$TALLY" script -i "$d/cut.data" >"$d/two" 2>&1; r2=$?
check "a cut file: one thread and two give the same bytes" cmp -s "$d/one" "$d/two"
is "a cut file: the same exit status" "$r2" "$r1"
done_testing
