#!/usr/bin/env bash
# The browser's ESC and help, as perf's (report's and top's, one
# browser): ESC zooms out when zoomed, else asks "Do you really want to
# exit?" (n stays, y leaves with 0); the ? help is a framed box; top's
# a annotates the selected row with the samples top counted.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d)
sock=tally-esc-$$
busy=
trap 'tm kill-server 2>/dev/null; kill $busy 2>/dev/null; rm -rf "$d"' EXIT
# the frame read back as UTF-8 box lines whatever the caller's locale
export LC_ALL=C.UTF-8

. "$(dirname "$0")/tui_lib.sh"

"$TALLY" record -q -F 999 -g -o "$d/g.data" -- "$B" 300 >/dev/null 2>&1
run rep "$TALLY report -i g.data"
check "report opens the browser" wait_for rep 'tally report: Samples'
# ? : the help in a frame, its first and last lines inside it
tm send-keys -t rep '?'
wait_for rep 'this help' 20
screen rep >"$d/help.txt"
top=$(grep -n '┌─*┐' "$d/help.txt" | head -1 | cut -d: -f1)
bot=$(grep -n '└─*┘' "$d/help.txt" | head -1 | cut -d: -f1)
move=$(grep -n '│ UP/DOWN.*│' "$d/help.txt" | head -1 | cut -d: -f1)
quit=$(grep -n '│ q  *quit  *│' "$d/help.txt" | head -1 | cut -d: -f1)
check "? draws the help in a frame (top, bottom, sides)" \
	test -n "$top" -a -n "$bot" -a -n "$move" -a -n "$quit"
check "  its lines between the frame's top and bottom" \
	test "${top:-0}" -lt "${move:-0}" -a "${quit:-0}" -lt "${bot:-0}"
tm send-keys -t rep q	# any key closes it
wait_for rep 'tally report: Samples' 20
# ESC with no zoom: asked, n stays
tm send-keys -t rep Escape
check "ESC asks 'Do you really want to exit?'" wait_for rep 'Do you really want to exit\?' 20
tm send-keys -t rep n
sleep 0.5
check "  n: still browsing" sh -c "! test -s '$d/rep.rc' && tmux -L $sock capture-pane -p -t rep | grep -q 'tally report: Samples' && ! tmux -L $sock capture-pane -p -t rep | grep -q 'really want'"
# zoomed: ESC zooms out and asks nothing
tm send-keys -t rep d
wait_for rep 'DSO: ' 20
tm send-keys -t rep Escape
sleep 0.5
screen rep >"$d/zoom.txt"
check "ESC when zoomed: zooms out" sh -c "! grep -q 'DSO: ' '$d/zoom.txt'"
check "  and asks nothing" sh -c "! grep -q 'really want' '$d/zoom.txt'"
tm send-keys -t rep Escape
wait_for rep 'Do you really want to exit\?' 20
tm send-keys -t rep y
is "ESC, y: exit 0" "$(exited rep)" "EXITED 0"
check "  the terminal restored" restored rep

# top's browser is the same one
run top "$TALLY top -d 1"
wait_for top 'tally top:' 50
tm send-keys -t top Escape
check "top: ESC asks too" wait_for top 'Do you really want to exit\?' 20
tm send-keys -t top Enter
is "top: ESC, ENTER: exit 0" "$(exited top)" "EXITED 0"

# top's a: burn's hottest row (burn_a, selected first) annotated live
"$B" 30000 >/dev/null & busy=$!
run topa "$TALLY top -d 1 -p $busy"
wait_for topa '^ +[0-9.]+% +burn +\[\.\] burn_a' 100
sleep 1
tm send-keys -t topa a
check "top: a annotates the selected row's symbol" wait_for topa 'annotate burn_a in burn for cpu-clock \([0-9]+ samples' 100
screen topa >"$d/ann.txt"
sum=$(awk '/^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:/ { s += $1 } END { printf "%.0f", s }' "$d/ann.txt")
check "  its instructions' percentages add up to 100 ($sum)" test "$sum" -ge 95 -a "$sum" -le 101
tm send-keys -t topa Left
check "  LEFT: the rows again" wait_for topa 'tally top: Samples' 30
tm send-keys -t topa q
is "  q: exit 0" "$(exited topa)" "EXITED 0"
# -M intel: the view's instructions in Intel's syntax (no %registers)
run topi "$TALLY top -d 1 -M intel -p $busy"
wait_for topi '^ +[0-9.]+% +burn +\[\.\] burn_a' 100
sleep 1
tm send-keys -t topi a
wait_for topi 'annotate burn_a in burn' 100
screen topi >"$d/intel.txt"
check "top -M intel: the annotate view in Intel syntax" \
	sh -c "grep -Eq ': +[0-9a-f]+: +(add|imul|sub) +r[a-z0-9]+,' '$d/intel.txt' && ! grep -Eq ': +[0-9a-f]+: .*%r' '$d/intel.txt'"
tm send-keys -t topi Left
wait_for topi 'tally top: Samples' 30
tm send-keys -t topi q
exited topi >/dev/null
kill $busy
done_testing
