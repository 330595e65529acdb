#!/usr/bin/env bash
# perf.data from a machine of the other byte order. to_big_endian.py
# rewrites a file as a big-endian machine writes it; perf 6.1 reads such
# files, so perf's rows of the rewritten file equal perf's of the original
# (the rewriter checked), and tally's of the rewritten equal perf's (the
# reader checked): plain, compressed (-z), two events, tally's own files,
# call graphs and dwarf stacks; pipes of it.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
HERE=$(cd "$(dirname "$0")" && pwd)
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
if ! have_perf; then
	skip "perf is not installed"
	done_testing
	exit 0
fi
rows() { "$1" report --stdio $3 -i "$2" 2>/dev/null | grep -v '^#' | grep -v '^$'; }
# on a mismatch the first differing lines go to the log (TAP comments)
show() { cmp -s "$1" "$2" || diff "$1" "$2" | head -8 | sed 's/^/# /'; }
same() {	# NAME FILE [report options]
	local n=$1 f=$2
	shift 2
	if ! python3 "$HERE/to_big_endian.py" "$f" "$f.be" 2>"$d/err"; then
		fail "$n: rewritten ($(cat "$d/err"))"
		return
	fi
	check "$n: the file is big-endian" cmp -s <(head -c 8 "$f.be") <(printf 2ELIFREP)
	rows perf "$f" "$*" >"$d/p"
	rows perf "$f.be" "$*" >"$d/pb"
	check "$n: perf reads the rewritten file as the original ($(wc -l <"$d/p") lines)" \
		cmp -s "$d/p" "$d/pb"
	rows "$TALLY" "$f.be" "$*" >"$d/tb"
	show "$d/tb" "$d/p"
	is "$n: tally report of the big-endian file is perf's" "$(diff "$d/tb" "$d/p" | grep -c '^[<>]')" 0
	perf script -i "$f" 2>/dev/null >"$d/ps"
	"$TALLY" script -i "$f.be" 2>/dev/null >"$d/ts"
	show "$d/ts" "$d/ps"
	check "$n: tally script of it is perf script's ($(wc -l <"$d/ps") lines)" cmp -s "$d/ps" "$d/ts"
}
perf record -q -o "$d/fp.data" -c 20000 -e cpu-clock -g -- "$B" 300 >/dev/null 2>&1
same "perf -g" "$d/fp.data"
same "perf -g --no-children -s comm,dso,sym" "$d/fp.data" --no-children -s comm,dso,sym
perf record -z -q -o "$d/z.data" -c 20000 -e cpu-clock -g -- "$B" 300 >/dev/null 2>&1
same "perf -z" "$d/z.data"
perf record -q -o "$d/two.data" -c 20000 -e cpu-clock,task-clock -- "$B" 300 >/dev/null 2>&1
same "perf, two events" "$d/two.data"
"$TALLY" record -q -o "$d/t.data" -c 20000 -e cpu-clock,task-clock -g -- "$B" 300 >/dev/null 2>&1
same "tally record, two events -g" "$d/t.data"
# a dwarf file: the stack copies are the machine's memory (left as they
# are); perf swaps them as u64s and unwinds garbage, so tally's chains of
# the rewritten file are checked against its own of the original
"$TALLY" record -q -o "$d/dw.data" -F 999 --call-graph dwarf,4096 -- "$B" 200 >/dev/null 2>&1
python3 "$HERE/to_big_endian.py" "$d/dw.data" "$d/dw.be"
rows "$TALLY" "$d/dw.data" --no-children >"$d/a"
rows "$TALLY" "$d/dw.be" --no-children >"$d/b"
check "dwarf: the rewritten file's chains are the original's ($(wc -l <"$d/a") lines)" cmp -s "$d/a" "$d/b"
check "dwarf: chains reach main" grep -q '^ *main$' "$d/b"
# the header: each feature the file keeps in perf's words (captured on aside)
python3 "$HERE/to_big_endian.py" "$d/fp.data" "$d/fp.be"
perf report --header-only -i "$d/fp.be" 2>/dev/null | grep -v '^# captured on' >"$d/ph"
"$TALLY" report --header-only -i "$d/fp.be" 2>/dev/null | grep -v '^# captured on' >"$d/th"
is "--header-only of the big-endian file: perf's lines" "$(diff "$d/th" "$d/ph" | grep -c '^[<>]')" 0
check "the header names its events" grep -q '^# event : name = cpu-clock' "$d/th"
# a cut big-endian file: what comes before the cut is shown, the cut named
size=$(stat -c %s "$d/fp.be")
head -c $((size * 2 / 3)) "$d/fp.be" >"$d/cut.be"
"$TALLY" script -i "$d/cut.be" >"$d/c" 2>"$d/ce"; rc=$?
check "a cut big-endian file: non-zero exit (rc $rc)" [ $rc -ne 0 ]
check "a cut big-endian file: the offset named" grep -q 'offset 0x' "$d/ce"
check "a cut big-endian file: lines before the cut kept" test "$(wc -l <"$d/c")" -gt 1000
# pipes of the other byte order (perf 6.1 cannot read them: it takes the
# feature records' ids unswapped): tally's rows and lines of the rewritten
# pipe equal perf's of the original, on stdin and as a file
perf record -q -o - -c 20000 -g -- "$B" 300 2>/dev/null >"$d/p.pipe"
"$TALLY" record -q -o - -c 20000 -e cpu-clock,task-clock -g -- "$B" 300 2>/dev/null >"$d/t.pipe"
for f in p t; do
	if ! python3 "$HERE/to_big_endian.py" "$d/$f.pipe" "$d/$f.bepipe" 2>"$d/err"; then
		fail "$f.pipe: rewritten ($(cat "$d/err"))"
		continue
	fi
	perf report --stdio -i - <"$d/$f.pipe" 2>/dev/null | grep -v '^#' | grep -v '^$' >"$d/p"
	"$TALLY" report --stdio -i - <"$d/$f.bepipe" 2>/dev/null | grep -v '^#' | grep -v '^$' >"$d/tb"
	show "$d/tb" "$d/p"
	is "$f-written pipe, big-endian on stdin: report rows are perf's of the original" \
		"$(diff "$d/tb" "$d/p" | grep -c '^[<>]')" 0
	check "$f-written pipe: there are rows" test -s "$d/p"
	perf script -i - <"$d/$f.pipe" 2>/dev/null >"$d/ps"
	cat "$d/$f.bepipe" | "$TALLY" script -i - 2>/dev/null >"$d/ts"
	show "$d/ts" "$d/ps"
	check "$f-written pipe, big-endian streamed: script lines are perf's ($(wc -l <"$d/ps"))" \
		cmp -s "$d/ps" "$d/ts"
	"$TALLY" script -i "$d/$f.bepipe" 2>/dev/null >"$d/ts"
	check "$f-written pipe, big-endian as a file: script lines are perf's" cmp -s "$d/ps" "$d/ts"
done
done_testing
