#!/usr/bin/env bash
# `i` in tally report's browser (issue 29): the header info shows what
# the file says about itself, as perf's does: the host, the kernel, the
# command line, the CPUs (the lines `report --header-only` prints).
# Driven in a real terminal (tmux, 120x40, its own
# server).
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d)
sock=tally-rtui-$$
trap 'tm kill-server 2>/dev/null; rm -rf "$d"' EXIT
. "$(dirname "$0")/tui_lib.sh"
export XDG_CACHE_HOME=$d/cache
"$TALLY" record -q -F 999 -o "$d/b.data" -- "$B" 200 >/dev/null 2>&1
"$TALLY" report --header-only -i "$d/b.data" >"$d/h" 2>/dev/null
host=$(sed -n 's/^# hostname : //p' "$d/h")
check "the file's header names the host ($host)" test -n "$host"
run r "$TALLY report -i b.data"
check "the browser starts" wait_for r 'tally report: Samples' 100
tm send-keys -t r i
check "i: the host, as --header-only says it" wait_for r "# hostname : $host" 50
for key in 'os release' 'cmdline' 'nrcpus online' 'arch'; do
	line=$(grep -m1 "^# $key" "$d/h" | cut -c1-60)
	check "i: '$line'" sh -c "tmux -L '$sock' capture-pane -p -t r | grep -qF -- '$line'"
done
tm send-keys -t r x	# any key closes it
tm send-keys -t r q
is "q exits 0" "$(exited r)" "EXITED 0"
check "the terminal is restored" restored r
done_testing
