#!/usr/bin/env bash
# The commands that read a file (report, script, diff, annotate; not for a
# --call-graph dwarf file, whose time is unwinding) and top
# put their heap on transparent huge pages (cli/heap.c): the heap is
# grown once and marked MADV_HUGEPAGE, which smaps shows as VmFlags "hg".
# TALLY_NO_HUGE_HEAP=1 leaves it alone. Either way the output is the same.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null' EXIT
# hg flags of a running top's heap (top --stdio runs until killed)
heap_hg() {
	env $1 "$TALLY" top --stdio -d 5 -p $$ >/dev/null 2>&1 &
	pid=$!
	sleep 0.7
	awk '/^[0-9a-f]+-[0-9a-f]+ .*\[heap\]/ { h = 1; next } /^[0-9a-f]+-/ { h = 0 }
	     h && /^VmFlags:/ && / hg/ { n++ } END { print n + 0 }' "/proc/$pid/smaps" 2>/dev/null
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
}
if [ ! -d /sys/kernel/mm/transparent_hugepage ]; then
	skip "this kernel has no transparent huge pages"
	skip "this kernel has no transparent huge pages"
elif [ -n "${SAN:-}" ]; then
	skip "the sanitized build: ASan's allocator has no brk heap to mark"
	skip "the sanitized build: ASan's allocator has no brk heap to mark"
else
	n=$(heap_hg "")
	check "top's heap is marked for huge pages ($n regions)" [ "$n" -ge 1 ]
	is "TALLY_NO_HUGE_HEAP=1: not marked" "$(heap_hg TALLY_NO_HUGE_HEAP=1)" 0
fi
"$TALLY" record -q -g -o "$d/g.data" -- "$B" 300 >/dev/null 2>&1
for cmd in "report --stdio" "script"; do
	TALLY_NO_HUGE_HEAP=1 "$TALLY" $cmd -i "$d/g.data" >"$d/small" 2>&1
	"$TALLY" $cmd -i "$d/g.data" >"$d/huge" 2>&1
	check "$cmd: the same bytes on huge pages or not" cmp -s "$d/small" "$d/huge"
done
TALLY_NO_HUGE_HEAP=1 "$TALLY" report --flamegraph "$d/small.svg" -i "$d/g.data" >/dev/null 2>&1
"$TALLY" report --flamegraph "$d/huge.svg" -i "$d/g.data" >/dev/null 2>&1
check "report --flamegraph: the same picture on huge pages or not" cmp -s "$d/small.svg" "$d/huge.svg"
done_testing
