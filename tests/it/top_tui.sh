#!/usr/bin/env bash
# The browser of tally report and tally top, driven in a real terminal:
# tmux runs them in a detached session of fixed size (its own server),
# sends keys and reads the screen (capture-pane). The rows on screen are
# checked against --stdio on the same data; expansions show the chains;
# the terminal is restored (stty: icanon, echo) after q and after
# SIGTERM; tally top finds two busy programs' hot functions within 3 s.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d)
sock=tally-top-$$
trap 'tm kill-server 2>/dev/null; kill $busy1 $busy2 2>/dev/null; rm -rf "$d"' EXIT
busy1= busy2=

. "$(dirname "$0")/tui_lib.sh"

"$TALLY" record -q -F 999 -g -o "$d/g.data" -- "$B" 400 >/dev/null
"$TALLY" report --stdio -i "$d/g.data" >"$d/stdio.txt" 2>/dev/null
rows_of <"$d/stdio.txt" | head -100 >"$d/stdio.rows"

# ---- report ----
run rep "$TALLY report -i g.data"
check "report on a terminal opens the browser" wait_for rep 'tally report: Samples'
screen rep | rows_of >"$d/tui.rows"
n=$(wc -l <"$d/tui.rows")
is "the rows on screen are --stdio's ($n rows)" "$(head -"$n" "$d/stdio.rows" | diff - "$d/tui.rows" | grep -c '^[<>]')" 0
check "several rows on screen" test "$n" -ge 4
# the first row's graph, opened: the lines --stdio prints under it
tm send-keys -t rep Enter
sleep 0.3
awk 'f && /^$/ { exit } f { print } /^ +[0-9]+\.[0-9]+%/ && !f { f = 1 }' "$d/stdio.txt" | sed 's/ *$//' >"$d/graph.want"
screen rep | awk 'f && /^[+-] / { exit } f { print } /^- +[0-9]/ && !f { f = 1 }' | sed 's/ *$//' >"$d/graph.got"
check "ENTER opens the first row's call graph" test -s "$d/graph.got"
is "its lines are --stdio's graph of that row" "$(diff "$d/graph.want" "$d/graph.got" | grep -c '^[<>]')" 0
check "the graph shows the chain down to burn_a" grep -q 'burn_a' "$d/graph.got"
tm send-keys -t rep Enter
# / filter
tm send-keys -t rep /
wait_for rep 'filter symbols:' 20
tm send-keys -t rep b u r n _ b Enter
wait_for rep 'filter: burn_b' 20
screen rep | rows_of >"$d/f.rows"
is "/burn_b leaves burn_b's rows" "$(grep -vc 'burn_b' "$d/f.rows")" 0
check "  and shows them" grep -q 'burn_b' "$d/f.rows"
# P: the view as text
tm send-keys -t rep P
wait_for rep 'tally.hist.0 written' 20
is "P writes the filtered view as text" "$(rows_of <"$d/tally.hist.0" | grep -vc burn_b)" 0
tm send-keys -t rep / Enter
# H: the HTML page of the current filter
tm send-keys -t rep H
wait_for rep 'tally.0.html written' 20
check "H writes the HTML page, offline" sh -c "grep -q 'burn_a' '$d/tally.0.html' && ! grep -Eq '<script[^>]+src=\"?https?:' '$d/tally.0.html'"
# F: the flame view, hottest path on the left
tm send-keys -t rep F
wait_for rep '^all' 20
screen rep >"$d/flame.txt"
is "the flame view's leftmost path is the hottest" \
	"$(awk 'NR >= 2 && NR <= 6 { print $1 }' "$d/flame.txt" | paste -sd' ')" \
	"all burn __libc_start_call_main main burn_a"
tm send-keys -t rep F
# zoom into the DSO of the selected row (libc's) and back
tm send-keys -t rep d
wait_for rep 'DSO: libc.so.6' 20
is "d zooms into the row's DSO" "$(screen rep | rows_of | grep -vc 'libc.so.6')" 0
tm send-keys -t rep Left
sleep 0.3
is "LEFT zooms out" "$(screen rep | rows_of | head -"$n" | diff "$d/tui.rows" - | grep -c '^[<>]')" 0
# a: the row's annotate view (annotate_tui.sh checks its lines), LEFT: the same rows
tm send-keys -t rep a
check "a: the annotate view of the row's symbol or why not" wait_for rep 'annotate' 100
tm send-keys -t rep Left
wait_for rep 'tally report: Samples' 20
is "  LEFT: the rows again" "$(screen rep | rows_of | head -"$n" | diff "$d/tui.rows" - | grep -c '^[<>]')" 0
tm send-keys -t rep q
is "q: exit 0" "$(exited rep)" "EXITED 0"
check "q: the terminal is restored" restored rep
check "q: the screen is the shell's again" sh -c "! tmux -L $sock capture-pane -p -t rep | grep -q 'tally report:'"

# perf's file: the same rows as --stdio
if have_perf; then
	perf record -q -F 999 -g -o "$d/p.data" -- "$B" 300 >/dev/null 2>&1
	"$TALLY" report --stdio -i "$d/p.data" 2>/dev/null | rows_of | head -100 >"$d/pstdio.rows"
	run prep "$TALLY report -i p.data"
	wait_for prep 'tally report: Samples'
	screen prep | rows_of >"$d/ptui.rows"
	n=$(wc -l <"$d/ptui.rows")
	is "perf's file: the rows on screen are --stdio's ($n)" \
		"$(head -"$n" "$d/pstdio.rows" | diff - "$d/ptui.rows" | grep -c '^[<>]')" 0
	tm send-keys -t prep q
	exited prep >/dev/null
else
	skip "perf is not installed"
fi

# a terminal curses cannot drive: the text instead, status 0
run dumb "TERM=no-such-term $TALLY report -i g.data 2>$d/dumb.err"
is "an unknown TERM: exit 0" "$(exited dumb)" "EXITED 0"
check "  the text instead, and why" sh -c "grep -q 'cannot drive this terminal' '$d/dumb.err' && tmux -L $sock capture-pane -p -t dumb -S - | grep -q '# Samples: '"
# -q: rows alone, no header for the browser to read: text
run quiet "TALLY_PAGER=cat $TALLY report -q -i g.data"
is "-q on a terminal: text, exit 0" "$(exited quiet)" "EXITED 0"
check "  its rows" sh -c "tmux -L $sock capture-pane -p -t quiet -S -200 | grep -Eq '^ +[0-9.]+% .*burn_a'"

# --stdio and a pipe keep the text
"$TALLY" report -i "$d/g.data" </dev/null | rows_of | head -100 >"$d/pipe.rows"
is "a pipe gets --stdio's text" "$(diff "$d/stdio.rows" "$d/pipe.rows" | grep -c '^[<>]')" 0

# SIGTERM: the terminal restored, the status 128+15
# (in the foreground: a background job's stdin is /dev/null)
run term "sh -c 'echo \$\$ > $d/term.pid; exec $TALLY report -i g.data'"
wait_for term 'tally report: Samples'
kill -TERM "$(cat "$d/term.pid")"
is "SIGTERM: exit 143" "$(exited term)" "EXITED 143"
check "SIGTERM: the terminal is restored" restored term

# ---- top ----
"$B" 20000 >/dev/null & busy1=$!
"$HELPERS/work" spin 20000 & busy2=$!
sleep 0.2
run top "$TALLY top -d 1"
t0=$(date +%s%N)
if wait_for top 'burn +\[\.\] burn_a' 300 && wait_for top 'work +\[\.\] main' 100; then
	ms=$((($(date +%s%N) - t0) / 1000000))
	# (the time is printed, not asserted: 3 s is the plain build's goal)
	ok "top -d 1 shows both busy programs' hot functions (${ms} ms)"
else
	fail "top -d 1 shows both busy programs' hot functions within $((30 * slow)) s"
	screen top | head -12 | sed 's/^/# /'
fi
tm send-keys -t top q
is "top: q exits 0" "$(exited top)" "EXITED 0"
check "top: the terminal is restored" restored top

# -g: the caller chain on expansion
run topg "sh -c 'echo \$\$ > $d/topg.pid; exec $TALLY top -d 1 -g'"
wait_for topg 'burn +\[\.\] burn_a' 40
tm send-keys -t topg /
wait_for topg 'filter symbols:' 30
tm send-keys -t topg b u r n _ a Enter
wait_for topg '^\+ +[0-9.]+% +[0-9.]+% +burn +\[\.\] burn_a' 30
tm send-keys -t topg Enter
wait_for topg '^- +[0-9.]+% +[0-9.]+% +burn +\[\.\] burn_a' 30
# the callers come with the row's tree: on a slow (sanitized) build the
# first screen after ENTER may precede the refresh that brings them
wait_for topg '__libc_start_call_main' 30
screen topg >"$d/topg.txt"
callers() { grep -q -- '--*[0-9.]*%*-*__libc_start_call_main\|^ *__libc_start_call_main' "$d/topg.txt" &&
	grep -Eq '^[ |]+(--[0-9.]+%--)?main' "$d/topg.txt"; }
callers || sed -n 1,20p "$d/topg.txt" | sed 's/^/# /'
check "top -g: burn_a's row opens on its callers" callers
kill -TERM "$(cat "$d/topg.pid")"
is "top: SIGTERM exits" "$(exited topg)" "EXITED 143"
check "top: SIGTERM restores the terminal" restored topg
kill $busy1 $busy2 2>/dev/null; wait $busy1 $busy2 2>/dev/null; busy1= busy2=

# --stdio: perf top's screen, the rows a recording of the same workload ranks
"$TALLY" top --stdio -d 1 -- "$B" 1500 >"$d/top.txt" 2>"$d/top.err"; rc=$?
is "top --stdio -- burn: the command's status" "$rc" 0
check "perf top's headline" grep -q 'PerfTop: .* irqs/sec  kernel:.*\[4000Hz cpu-clock\],  (command: ' "$d/top.txt"
tr '\033' '\n' <"$d/top.txt" | awk '/^\[H\[2J/ { n++ } { l[n] = l[n] "\n" $0 } END { print l[n] }' | grep -E '^ +[0-9]' | head -3 | awk '{ print $NF }' | paste -sd' ' >"$d/top.order"
is "the last screen ranks burn_a, burn_b, burn_c as a recording does" "$(cat "$d/top.order")" "burn_a burn_b burn_c"
# as perf top, --stdio prints the rows a screen holds less its 5 header
# lines (25 off a terminal, or $LINES with $COLUMNS), not every row;
# system-wide by pid and symbol there are always more than that
screen_rows() {	# the most rows a screen of top's text on stdin has
	tr '\033' '\n' | awk '/^\[2J/ { n = 0 } /^ +[0-9.]+%/ && ++n > m { m = n } END { print m + 0 }'
}
sleep 5 | timeout -s INT 3.5 "$TALLY" top --stdio -d 1 -s pid,sym 2>/dev/null >"$d/rows.txt"
is "top --stdio off a terminal: 20 rows a screen, as perf's" "$(screen_rows <"$d/rows.txt")" 20
sleep 5 | LINES=12 COLUMNS=80 timeout -s INT 3.5 "$TALLY" top --stdio -d 1 -s pid,sym 2>/dev/null >"$d/rows.txt"
is "top --stdio with LINES=12: 7 rows" "$(screen_rows <"$d/rows.txt")" 7
sleep 5 | timeout -s INT 3.5 "$TALLY" top --stdio -d 1 -s pid,sym -E 3 2>/dev/null >"$d/rows.txt"
is "top --stdio -E 3: 3 rows" "$(screen_rows <"$d/rows.txt")" 3
"$TALLY" top --stdio -d 1 -- sh -c 'exit 3' >/dev/null 2>&1
is "top -- CMD: exits with CMD's status" "$?" 3
"$TALLY" top --stdio -d 1 -- /nonexistent/prog >/dev/null 2>&1
is "top -- a missing command: 127" "$?" 127
"$TALLY" top --stdio -s nosuchkey >/dev/null 2>&1
is "top -s with a bad key: 129" "$?" 129
done_testing
