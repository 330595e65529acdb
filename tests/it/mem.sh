#!/usr/bin/env bash
# tally mem, as perf mem 6.1. record: where the CPU's PMU lacks the
# memory events (this VM), each asked event is named with its PMU and
# what it needs, exit 255 (perf's); --ldlat shows in the load event.
# report: perf mem report's lines (report --mem-mode -n and the order
# perf mem picks for -t, -p and --data-page-size) on mkfields' file.
. "$(dirname "$0")/lib.sh"
M=$HELPERS/mkfields
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
"$M" "$d/all.data" all || { fail "mkfields all"; done_testing; exit 0; }

if [ -e /sys/bus/event_source/devices/cpu/events/mem-loads ]; then
	skip "this CPU has mem-loads: the missing-PMU sentence is not what record says here"
else
	"$TALLY" mem record -o "$d/r.data" -- true 2>"$d/e"; rc=$?
	is "record without the events: perf's status" "$rc" 255
	check "record: the load event, its PMU and what it needs" \
		grep -q "load event cpu/mem-loads,ldlat=30/P needs the CPU's PMU 'cpu' with a precise mem-loads event" "$d/e"
	check "record: no file" test ! -e "$d/r.data"
	"$TALLY" mem -t store record --ldlat 50 -o "$d/r.data" -- true 2>"$d/e"; rc=$?
	is "record -t store: perf's status" "$rc" 255
	check "record -t store: the store event" grep -q "store event cpu/mem-stores/P needs" "$d/e"
	check "record -t store: no load event" eval '! grep -q mem-loads "$d/e"'
	"$TALLY" mem record --ldlat=50 -- true 2>"$d/e"
	check "record --ldlat=50: in the load event" grep -q "cpu/mem-loads,ldlat=50/P" "$d/e"
fi
"$TALLY" mem record --ldlat 0 -- true 2>"$d/e"; rc=$?
is "record --ldlat 0: usage error" "$rc" 129
"$TALLY" mem -t fetch report -i "$d/all.data" 2>"$d/e"; rc=$?
is "-t fetch: usage error" "$rc" 129
check "-t fetch: named" grep -q "unknown operation 'fetch'" "$d/e"
"$TALLY" mem frob 2>"$d/e"; rc=$?
is "an unknown subcommand: usage error" "$rc" 129
if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
body() { grep -v '^#$\|^$\|^# (Tip\|header info\|^#   \|^# Addresses without'; }
while read -r opts; do
	"$TALLY" mem $opts report --stdio -i "$d/all.data" 2>/dev/null | body >"$d/a"
	perf mem $opts report --stdio -i "$d/all.data" 2>/dev/null | body >"$d/b"
	is "mem $opts report: perf's lines" "$(diff "$d/a" "$d/b" | grep -c '^[<>]')" 0
	diff "$d/a" "$d/b" | head -14 | sed 's/^/# /'
	check "mem $opts report: rows" grep -q '%' "$d/a"
done <<'LIST'

-t load
-t store
-p
--data-page-size
-t store -p
-t store --data-page-size
-t load,store -p
LIST
done_testing
