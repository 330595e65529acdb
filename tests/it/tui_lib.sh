# Shared by the tests that drive the browser in a real terminal
# (top_tui.sh, annotate_tui.sh): tmux on a server of the test's own runs
# a command in a detached session of fixed size; keys go in with
# send-keys, the screen comes back with capture-pane. Source it after
# lib.sh with $d a scratch folder and $sock the server's name; it ends
# the test (a skip) where tmux is missing.
tm() { tmux -L "$sock" "$@"; }

if ! command -v tmux >/dev/null; then
	missing "tmux is not installed (make deps)"
	done_testing; exit 0
fi

# run NAME CMD: CMD in a 120x40 terminal, then the tty's modes and its
# status (in that order: exited's answer means the modes are written)
run() {
	local name=$1; shift
	tm kill-session -t "$name" 2>/dev/null
	tm new-session -d -s "$name" -x 120 -y 40 \
		"cd $d; $*; rc=\$?; stty -a > $d/$name.stty; echo EXITED \$rc > $d/$name.rc; sleep 60"
}
screen() { tm capture-pane -p -t "$1"; }
# under the sanitizers everything is several times slower: waits scale
slow=1
[ -n "${SAN:-}" ] && slow=5
# wait_for NAME REGEX [TENTHS]: the screen shows REGEX (default within 5 s)
wait_for() {
	local i
	for ((i = 0; i < ${3:-50} * slow; i++)); do
		screen "$1" | grep -Eq -- "$2" && return 0
		sleep 0.1
	done
	return 1
}
# exited NAME: the command's "EXITED status" line, or "still running" after 5 s
exited() {
	local i
	for ((i = 0; i < 50 * slow; i++)); do
		[ -s "$d/$1.rc" ] && { cat "$d/$1.rc"; return; }
		sleep 0.1
	done
	echo "still running"
}
# the terminal as it was: canonical mode and echo back on
restored() { grep -qw icanon "$d/$1.stty" && ! grep -qw -- -icanon "$d/$1.stty" && ! grep -qw -- -echo "$d/$1.stty"; }
# rows of text (report's layout), without the mark of a row with a graph, as wide as the screen
rows_of() { grep -E '^[ +-] +[0-9]+\.[0-9]+%' | cut -c2-120 | sed 's/ *$//'; }
