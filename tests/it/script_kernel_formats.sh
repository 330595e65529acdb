#!/usr/bin/env bash
# Kernel formats libtraceevent 1.7 cannot read as they are, against perf
# 6.1 on the same files, written by perf and by tally: maple_tree's print
# formats hold a tab inside their string, and print a `const char *fn`
# (a kernel address) with %s, which the tracing data's printk formats
# turn into the function's name. tally script and report -s trace print
# every line as perf's, and name no event as damaged. Fields printed with
# %pS / %ps (kmalloc's call_site, timer_start's function) name the kernel
# function, as perf's resolver gives libtraceevent: "call_site=name+0x2a".
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
EV=maple_tree:ma_op,maple_tree:ma_read,maple_tree:ma_write

if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
for who in perf tally; do
	if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
	$rec -q -a -e kmem:kmalloc,timer:timer_start -o "$d/$who-ps.data" \
		-- sh -c 'ls / >/dev/null; sleep 0.1' >/dev/null 2>&1
	"$TALLY" script -i "$d/$who-ps.data" >"$d/t.out" 2>/dev/null
	perf script -i "$d/$who-ps.data" >"$d/p.out" 2>/dev/null
	check "$who: %pS: call_site named" grep -qE 'call_site=[a-z_]\w*\+0x[0-9a-f]+ ' "$d/p.out"
	diff "$d/t.out" "$d/p.out" >"$d/diff"
	is "$who: %pS: script: every line equal" "$(grep -c '^<' "$d/diff")" 0
	grep -q '^<' "$d/diff" && sed -n '1,6s/^/# /p' "$d/diff"
	is "$who: %pS: as many lines" "$(wc -l <"$d/t.out")" "$(wc -l <"$d/p.out")"
	"$TALLY" report -i "$d/$who-ps.data" --stdio -s trace 2>/dev/null | grep -v '^#' >"$d/t.rep"
	perf report -i "$d/$who-ps.data" --stdio -s trace 2>/dev/null | grep -v '^#' >"$d/p.rep"
	check "$who: %pS: report -s trace: perf's lines" cmp -s "$d/t.rep" "$d/p.rep"
done

if ! "$TALLY" list maple_tree:ma_read 2>/dev/null | grep -q maple_tree:ma_read; then
	skip "no maple_tree tracepoints in this kernel"
	done_testing; exit 0
fi

for who in perf tally; do
	if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
	# a process started and ended: its mappings are stored in maple trees
	$rec -q -a -e $EV -o "$d/$who.data" -- sh -c 'ls / >/dev/null; sleep 0.1' >/dev/null 2>&1
	"$TALLY" script -i "$d/$who.data" >"$d/t.out" 2>"$d/t.err"; rc=$?
	perf script -i "$d/$who.data" >"$d/p.out" 2>/dev/null
	is "$who: tally script exits 0" "$rc" 0
	check "$who: no event named damaged" sh -c "! grep -q damaged '$d/t.err'"
	check "$who: ma_write samples" grep -q 'maple_tree:ma_write: ' "$d/p.out"
	is "$who: script prints as many lines as perf" "$(wc -l <"$d/t.out")" "$(wc -l <"$d/p.out")"
	diff "$d/t.out" "$d/p.out" >"$d/diff"
	is "$who: script: every line equal" "$(grep -c '^<' "$d/diff")" 0
	grep -q '^<' "$d/diff" && sed -n '1,6s/^/# /p' "$d/diff"
	# the tab kept, the function's name from its address
	check "$who: fn printed by name, then a tab" grep -qP ': (mas|mt|mtree)_\w+\tNode' "$d/t.out"
	check "$who: nothing FAILED TO PARSE" sh -c "! grep -q 'FAILED TO PARSE' '$d/t.out'"
	"$TALLY" report -i "$d/$who.data" --stdio -s trace 2>/dev/null | grep -v '^#' >"$d/t.rep"
	perf report -i "$d/$who.data" --stdio -s trace 2>/dev/null | grep -v '^#' >"$d/p.rep"
	check "$who: report -s trace: perf's lines ($(wc -l <"$d/p.rep"))" cmp -s "$d/t.rep" "$d/p.rep"
done
done_testing
