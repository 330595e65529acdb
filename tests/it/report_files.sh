#!/usr/bin/env bash
# Files as perf leaves them on a real machine, read as perf 6.1 reads them:
# a zero-sized perf.data (a perf record that failed) gets perf's words and
# its status 255.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
# the message and exit status of `TOOL CMD -i FILE`
said() { local t=$1 c=$2; shift 2; "$t" "$c" "$@" 2>&1 >/dev/null </dev/null; echo "rc=$?"; }
: >"$d/empty.data"
for c in report script; do
	is "zero-sized file: $c's message and status are perf's" \
		"$(cd "$d" && said "$TALLY" $c -i empty.data)" "$(cd "$d" && said perf $c -i empty.data)"
done
is "zero-sized file: diff's status is perf's" \
	"$(cd "$d" && said "$TALLY" diff empty.data empty.data | tail -1)" \
	"$(cd "$d" && said perf diff empty.data empty.data | tail -1)"
done_testing
