#!/usr/bin/env bash
# tally report --folded: Brendan Gregg's collapsed stacks
# (comm;root;...;leaf count). Oracle: the same stacks folded from perf
# script's lines of the same file (what stackcollapse-perf does), and the
# counts sum to the file's samples.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then
	skip "perf is not installed: no reference to fold"
	done_testing; exit 0
fi

"$TALLY" record -q -F 999 -g -o "$d/g.data" -- "$B" 300 >/dev/null; rc=$?
is "record: exit 0" "$rc" 0
"$TALLY" report --folded -i "$d/g.data" >"$d/t.out" 2>"$d/t.err"; rc=$?
is "report --folded: exit 0" "$rc" 0
LC_ALL=C sort "$d/t.out" >"$d/t.sorted"
fold_perf "$d/g.data" >"$d/p.out"
is "the stacks and counts of perf script's chains, folded" "$(diff "$d/t.sorted" "$d/p.out" | grep -c '^[<>]')" 0
n=$(perf report --stats -i "$d/g.data" 2>/dev/null | awk '/^ *SAMPLE events:/ { print $3; exit }')
is "counts sum to the samples ($n)" "$(awk '{ s += $NF } END { print s }' "$d/t.out")" "$n"
check "the hottest stack ends in burn_a" sh -c "sort -k2 -n -r -t' ' '$d/t.out' | head -1 | grep -q ';burn_a '"
done_testing
