#!/usr/bin/env bash
# perf top's options report shares, on tally top --stdio of burn: -n and
# --show-total-period (Samples and Period columns: at 4000 Hz cpu-clock a
# sample is 250000 ns of period), --comms/--dsos/--symbols (only those
# rows; one value drops its column, as perf's sort__setup_elide), and
# --call-graph with print settings alone (caller: the root first),
# --max-stack (the chains' first N frames: 1 leaves no callers' rows).
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

# the last screen's rows (perf top's text: one screen after each ESC[2J)
last_rows() { tr '\033' '\n' <"$1" | awk '/^\[2J/ { s = "" } { s = s $0 "\n" } END { printf "%s", s }' | grep -E '^ +[0-9]+\.[0-9]+%'; }

"$TALLY" top --stdio -d 1 -z -n --show-total-period -s comm,sym -- "$B" 1500 >"$d/n.txt" 2>"$d/n.err"
is "-n --show-total-period: exit 0" "$?" 0
last_rows "$d/n.txt" >"$d/n.rows"
check "  rows with a Samples and a Period column" grep -Eq '^ +[0-9.]+% +[0-9]+ +[0-9]+ +burn +\[\.\] burn_a$' "$d/n.rows"
bad=$(awk '{ if ($3 != $2 * 250000) n++ } END { print n + 0 }' "$d/n.rows")
is "  each row's Period is its Samples times 250000 ns" "$bad" 0

"$TALLY" top --stdio -d 1 -s comm,dso,sym --comms burn,nosuch --dsos burn -- "$B" 1200 >"$d/f.txt" 2>/dev/null
is "--comms --dsos: exit 0" "$?" 0
last_rows "$d/f.txt" >"$d/f.rows"
check "  rows" test -s "$d/f.rows"
is "  every row burn's, the DSO column dropped (one value)" \
	"$(grep -Evc '^ +[0-9.]+% +burn +\[\.\] [a-z_]+$' "$d/f.rows")" 0

"$TALLY" top --stdio -d 1 --symbols burn_a,burn_c -- "$B" 1200 >"$d/s.txt" 2>/dev/null
is "--symbols: exit 0" "$?" 0
last_rows "$d/s.txt" | awk '{ print $NF }' | sort -u | paste -sd' ' >"$d/s.syms"
is "  only those symbols' rows" "$(cat "$d/s.syms")" "burn_a burn_c"

"$TALLY" top --stdio -d 1 --call-graph caller --symbols burn_a,burn_b -- "$B" 1200 >"$d/c.txt" 2>"$d/c.err"
is "--call-graph caller: exit 0" "$?" 0
# the self row of burn_a, its graph from the root down: main before burn_a
tr '\033' '\n' <"$d/c.txt" | awk '/^\[2J/ { s = "" } { s = s $0 "\n" } END { printf "%s", s }' |
	awk '/^ +[0-9.]+% +[0-9.]+% .*burn_a$/ && $2 + 0 > 0 { f = 1; next } f && /^$/ { exit } f' >"$d/c.graph"
check "  the graph is the callers' order (main, then burn_a)" \
	sh -c "grep -n 'main\$' '$d/c.graph' | head -1 | cut -d: -f1 > '$d/m'; grep -n 'burn_a\$' '$d/c.graph' | head -1 | cut -d: -f1 > '$d/a'; test -s '$d/m' -a -s '$d/a' && test \$(cat '$d/m') -lt \$(cat '$d/a')"
"$TALLY" top --stdio --call-graph nosuch >/dev/null 2>&1
is "--call-graph with a bad word: 129" "$?" 129

"$TALLY" top --stdio -M nosuch >/dev/null 2>&1
is "-M with neither att nor intel: 129" "$?" 129
"$TALLY" top --stdio -k /nonexistent/vmlinux >/dev/null 2>"$d/k.err"
is "-k with a missing file: 1" "$?" 1
check "  and says so" grep -q 'vmlinux /nonexistent/vmlinux: No such file' "$d/k.err"

"$TALLY" top --stdio -d 1 -g -E 200 -- "$B" 1200 >"$d/g.txt" 2>/dev/null
check "-g: main has a row of its callees' share" sh -c "tr '\033' '\n' <'$d/g.txt' | grep -aEq '^ +[0-9.]+% +0\.00% +burn +\[\.\] main\$'"
"$TALLY" top --stdio -d 1 -g -E 200 --max-stack 1 -- "$B" 1200 >"$d/m.txt" 2>"$d/m.err"
is "--max-stack 1: exit 0" "$?" 0
last_rows "$d/m.txt" >"$d/m.rows"
check "  rows" grep -q 'burn_a' "$d/m.rows"
is "  the leaves alone: no row of callers (children == self)" "$(awk '$1 != $2' "$d/m.rows" | wc -l)" 0
done_testing
