#!/usr/bin/env bash
# run.sh: alone (it counts lost samples or CPU time on a machine it keeps busy itself: other tests beside it starve its reader)
# tally top's browser keeps reading the rings whatever the screen waits
# for: the / prompt, the ? help and the F flame view each held 5 s on a
# busy machine (burn on both cores) lose no sample. The lost count is
# the browser's own header (# Lost samples), written out with P.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d)
sock=tally-top-drain-$$
busy1= busy2=
trap 'tm kill-server 2>/dev/null; kill $busy1 $busy2 2>/dev/null; rm -rf "$d"' EXIT

. "$(dirname "$0")/tui_lib.sh"

"$B" 60000 >/dev/null & busy1=$!
"$B" 60000 >/dev/null & busy2=$!
sleep 0.2
run top "$TALLY top -g"
check "top -g opens the browser" wait_for top 'burn +\[\.\] burn_a' 40
# lost: the "# Lost samples: N" of the view P writes (tally.hist.0, 1, ...)
lost_now() {
	local n f
	n=$(ls "$d" | grep -c '^tally\.hist\.')
	f=$d/tally.hist.$n
	tm send-keys -t top P
	wait_for top "tally.hist.$n written" 300 || { echo "no view written"; return; }
	sed -n 's/^# Lost samples: \([0-9]*\).*/\1/p' "$f" | head -1
}
# The first screens may lose what came while the symbols first load; from
# there on nothing is lost, whatever the screen shows.
sleep 3
before=$(lost_now)
hold() {	# hold NAME KEY BACK-KEY: KEY's screen for 5 s, then BACK-KEY, then a refresh
	tm send-keys -t top "$2"
	sleep 5
	tm send-keys -t top "$3"
	# back on the rows (a flame view's stacks take seconds on a busy machine)
	wait_for top '^\? help' 600
	sleep 2.5	# the next refresh (-d 2) reads what the rings held
	is "$1 held 5 s on a busy machine: no sample lost" "$(lost_now)" "$before"
}
hold "the / prompt" / Escape
hold "the ? help" '?' Escape
hold "the F flame view" F F
tm send-keys -t top q
is "q: exit 0" "$(exited top)" "EXITED 0"
done_testing
