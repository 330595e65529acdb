#!/usr/bin/env bash
# `a` in tally report's browser: the annotate view of the selected row's
# symbol, driven in a real terminal (tmux, 120x40, its own server). Its
# lines are `tally annotate --stdio -s SYM`'s on the same file (tally's
# and perf's recordings), the hottest instruction selected, ENTER on a
# jump goes to its target, LEFT and q come back to the same rows; a row
# of an address no symbol holds says so, no crash; top says why not.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d)
sock=tally-ann-$$
busy=
trap 'tm kill-server 2>/dev/null; kill $busy 2>/dev/null; rm -rf "$d"' EXIT

. "$(dirname "$0")/tui_lib.sh"
# the status line's "ADDR PCT%" of the selected instruction
selected() { screen "$1" | tail -1 | awk '{ print $1, $2 }'; }
# keys KEY N: KEY sent N times
keys() { local i; for ((i = 0; i < $2; i++)); do tm send-keys -t "$S" "$1"; done; }

# annotate_view WHO DATA: the browser's annotate view of the hottest row against --stdio
annotate_view() {
	local who=$1 data=$2 sym want hot hotaddr hotpct n first k off jmp to dist
	S=$who
	"$TALLY" report --stdio -i "$d/$data" 2>/dev/null | rows_of >"$d/$who.stdio.rows"
	sym=$(head -1 "$d/$who.stdio.rows" | awk '{ print $NF }')
	# --stdio's lines under its two header lines, cut as the screen is
	"$TALLY" annotate --stdio -i "$d/$data" -s "$sym" 2>/dev/null | tail -n +3 |
		cut -c1-120 | sed 's/ *$//' >"$d/$who.want"
	check "$who: tally annotate --stdio -s $sym has lines" test -s "$d/$who.want"
	# the hottest instruction, the first of equals as the view takes it
	hot=$(awk -F: '/^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:/ { p = $1 + 0; if (!n || p > best) { best = p; n = NR } } END { print n }' "$d/$who.want")
	hotaddr=$(sed -n "${hot}p" "$d/$who.want" | awk '{ sub(":", "", $3); print $3 }')
	hotpct=$(sed -n "${hot}p" "$d/$who.want" | awk '{ print $1 }')

	run "$who" "$TALLY report -i $data"
	wait_for "$who" 'tally report: Samples'
	screen "$who" | rows_of >"$d/$who.rows"
	tm send-keys -t "$who" a
	check "$who: a on the hottest row ($sym) opens its annotate view" wait_for "$who" "annotate $sym in " 100
	screen "$who" | sed -n '2,39p' | sed 's/ *$//' | awk 'NF { last = NR } { l[NR] = $0 } END { for (i = 1; i <= last; i++) print l[i] }' >"$d/$who.got"
	n=$(wc -l <"$d/$who.got")
	# the screen is a window of --stdio's lines: aligned on its first instruction
	first=$(grep -nE '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:' "$d/$who.got" | head -1 | cut -d: -f1)
	k=$(grep -nxF -- "$(sed -n "${first:-1}p" "$d/$who.got")" "$d/$who.want" | head -1 | cut -d: -f1)
	off=$((${k:-1} - ${first:-1}))
	is "$who: its $n lines are tally annotate --stdio's, percentages and instructions" \
		"$(sed -n "$((off + 1)),$((off + n))p" "$d/$who.want" | diff - "$d/$who.got" | grep -c '^[<>]')" 0
	check "$who:   several instructions among them" \
		test "$(grep -cE '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:' "$d/$who.got")" -ge 5
	is "$who: the hottest instruction is selected" "$(selected "$who")" "$hotaddr $hotpct%"
	check "$who:   and on screen" grep -q ":   *$hotaddr:" "$d/$who.got"
	# the hottest line drawn as the selection (black on cyan; reverse without colours)
	is "$who:   drawn selected" "$(tm capture-pane -e -p -t "$who" | sed -n '2,39p' | grep -E $'\e\\[(46|7)m' | grep -c ":   *$hotaddr:")" 1
	# a jump within the function: ENTER on it selects its target
	jmp=$(awk -v s="$sym" '/^ +[0-9]+\.[0-9]+ : +[0-9a-f]+: +j[a-z]+ +[0-9a-f]+ </ && index($0, "<" s "+") { print NR; exit }' "$d/$who.want")
	if [ -n "$jmp" ]; then
		to=$(sed -n "${jmp}p" "$d/$who.want" | awk '{ print $5 }')
		dist=$((jmp - hot))
		if [ "$dist" -ge 0 ]; then keys Down "$dist"; else keys Up $((-dist)); fi
		wait_for "$who" "^$(sed -n "${jmp}p" "$d/$who.want" | awk '{ sub(":", "", $3); print $3 }') " 20
		tm send-keys -t "$who" Enter
		check "$who: ENTER on the jump to $to selects it" wait_for "$who" "^$to [0-9.]+%" 20
	else
		skip "$who: no jump within $sym"
	fi
	tm send-keys -t "$who" Left
	wait_for "$who" 'tally report: Samples' 20
	is "$who: LEFT goes back to the same rows" "$(screen "$who" | rows_of | diff "$d/$who.rows" - | grep -c '^[<>]')" 0
	tm send-keys -t "$who" a
	wait_for "$who" "annotate $sym in " 100
	tm send-keys -t "$who" q
	wait_for "$who" 'tally report: Samples' 20
	is "$who: q in the annotate view goes back to the rows" "$(screen "$who" | rows_of | diff "$d/$who.rows" - | grep -c '^[<>]')" 0
	tm send-keys -t "$who" q
	is "$who: q then exits 0" "$(exited "$who")" "EXITED 0"
}

"$TALLY" record -q -F 999 -o "$d/g.data" -- "$B" 300 >/dev/null
annotate_view tally g.data
if have_perf; then
	perf record -q -F 999 -o "$d/p.data" -- "$B" 300 >/dev/null 2>&1
	annotate_view perf p.data
else
	skip "perf is not installed"
fi

# a stripped binary of its own build id (no cached copy with symbols): its rows are addresses
cat >"$d/hot.c" <<EOC
static volatile long sink;
const char *tag = "annotate_tui $$ $RANDOM";
__attribute__((noinline)) long work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += (i * 7) ^ (s >> 3);
	return s;
}
int main(void) { sink = work(100000000) + (long)tag; return 0; }
EOC
cc -O2 -s -o "$d/burn-s" "$d/hot.c"
"$TALLY" record -q -F 999 -o "$d/s.data" -- "$d/burn-s" >/dev/null
run strip "$TALLY report -i s.data"
wait_for strip 'tally report: Samples'
tm send-keys -t strip a
check "a on an [unknown] address: a clear message" wait_for strip 'annotate: no symbol at 0x[0-9a-f]+ in burn-s, nothing to annotate' 50
check "  the rows stay" sh -c "tmux -L $sock capture-pane -p -t strip | grep -q 'tally report: Samples'"
tm send-keys -t strip q
is "  and q exits 0 (no crash)" "$(exited strip)" "EXITED 0"

# top: a annotates with the samples top counted (tui_esc.sh checks the
# view), or says why (the selected row's code out of reach)
"$B" 20000 >/dev/null & busy=$!
run top "$TALLY top -d 1"
wait_for top 'burn +\[\.\] burn_' 60
tm send-keys -t top a
check "top: a annotates the row or says why" wait_for top '^tally top: annotate |annotate: ' 100
tm send-keys -t top Left
wait_for top 'tally top: Samples' 30
tm send-keys -t top q
is "top: q exits 0" "$(exited top)" "EXITED 0"
kill $busy 2>/dev/null; wait $busy 2>/dev/null
done_testing
