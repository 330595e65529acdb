#!/usr/bin/env bash
# tally list: every software event and tracepoint perf list shows is
# there; a glob filter keeps exactly the matching events; --json is
# valid JSON; fake sysfs/tracefs trees list their aliases and events.
. tests/it/lib.sh
out=$(mktemp -d /tmp/tally-list.XXXXXX)
trap 'rm -rf "$out"' EXIT

if "$TALLY" list >"$out/all" 2>"$out/err"; then ok "tally list exits 0"; else fail "tally list exits 0: $(cat "$out/err")"; fi
# names only ("a OR b" gives both), one per line
names() { sed -n 's/^  \(.*[^ ]\) \{1,\}\[\(.*\)\]$/\2|\1/p' "$1"; }
names "$out/all" >"$out/all.names"
check "tally list shows the software events" grep -q '^Software event|context-switches OR cs$' "$out/all.names"

if have_perf; then
	perf list 2>/dev/null >"$out/perf" || true
	for kind in "Software event" "Tool event" "Tracepoint event"; do
		names "$out/perf" | awk -F'|' -v k="$kind" '$1 == k {print $2}' |
			sed 's/ OR /\n/g' | sort -u >"$out/want"
		names "$out/all" | awk -F'|' -v k="$kind" '$1 == k {print $2}' |
			sed 's/ OR /\n/g' | sort -u >"$out/got"
		n=$(wc -l <"$out/want")
		missing=$(comm -23 "$out/want" "$out/got" | head -5 | tr '\n' ' ')
		if [ "$n" -eq 0 ]; then
			skip "perf list shows no ${kind}s here"
		else
			is "every $kind of perf list ($n) is in tally list" "$missing" ""
		fi
	done
else
	skip "no perf to compare with"
	skip "no perf to compare with"
fi

have_tp	# mounts tracefs on a fresh machine
tdir=/sys/kernel/tracing
[ -d $tdir/events/sched ] || tdir=/sys/kernel/debug/tracing
if [ -d $tdir/events/sched ]; then
	"$TALLY" list 'sched:*' >"$out/sched"
	want=$(for d in $tdir/events/sched/*/; do [ -f "$d/id" ] && basename "$d"; done | sed 's/^/sched:/' | sort)
	got=$(names "$out/sched" | cut -d'|' -f2 | sort)
	is "list 'sched:*' gives exactly the sched tracepoints" "$got" "$want"
	check "list 'sched:*' gives more than one" [ "$(echo "$got" | wc -l)" -gt 1 ]
else
	skip "no tracefs with a sched system"
	skip "no tracefs with a sched system"
fi

"$TALLY" list 'no-such-event-*' >"$out/none"
is "a filter that matches nothing prints nothing" "$(cat "$out/none")" ""
"$TALLY" list sw >"$out/sw"
is "the kind filter 'sw' keeps the 12 software and 3 tool events (as perf list sw)" \
	"$(names "$out/sw" | grep -vc '^Software event|\|^Tool event|')|$(names "$out/sw" | grep -c '^Software event|')|$(names "$out/sw" | grep -c '^Tool event|')" "0|12|3"
"$TALLY" list tool >"$out/tool"
is "the kind filter 'tool' gives perf's tool events, in perf list's order" \
	"$(names "$out/tool" | tr '\n' ' ')" "Tool event|duration_time Tool event|user_time Tool event|system_time "
after_sw=$(names "$out/all" | cut -d'|' -f1 | uniq | grep -A1 -x 'Software event' | tail -n 1)
is "tool events come right after the software events (as perf list)" "$after_sw" "Tool event"

if command -v python3 >/dev/null; then
	"$TALLY" list --json >"$out/json"
	check "--json is valid JSON" sh -c "python3 -m json.tool '$out/json' >/dev/null"
	n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for e in d if e["name"]=="context-switches" and e["aliases"]==["cs"] and e["kind"]=="software"))' "$out/json")
	is "--json gives context-switches with its alias" "$n" "1"
	n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(e["name"] for e in d if e["kind"]=="tool" and e["label"]=="Tool event"))' "$out/json")
	is "--json gives the tool events with kind tool" "$n" "duration_time,user_time,system_time"
	"$TALLY" list --json 'zzz-none-*' >"$out/empty"
	check "--json with no match is an empty array" python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == []' "$out/empty"
else
	skip "no python3 for JSON checks"
	skip "no python3 for JSON checks"
	skip "no python3 for JSON checks"
	skip "no python3 for JSON checks"
fi

# perf's metrics and metric groups for this CPU, as perf 6.1 lists them
# here (none on a CPU perf has no table for: then none from tally either).
if have_perf; then
	perf list metric 2>/dev/null >"$out/pm"
	"$TALLY" list metric >"$out/tm" 2>/dev/null
	is "tally list metric: perf's ($(grep -c '^  [^ ]' "$out/pm") metrics)" "$(cat "$out/tm")" "$(cat "$out/pm")"
	perf list metricgroup 2>/dev/null >"$out/pg"
	"$TALLY" list metricgroup >"$out/tg" 2>/dev/null
	is "tally list metricgroup: perf's" "$(cat "$out/tg")" "$(cat "$out/pg")"
	# the full list ends as perf's: "Metric Groups:", each group's metrics
	is "tally list: perf's Metric Groups section" \
		"$(sed -n '/^Metric Groups:/,$p' "$out/all")" "$(sed -n '/^Metric Groups:/,$p' "$out/perf")"
else
	skip "no perf"; skip "no perf"; skip "no perf"
fi

# SDT events of perf's build-id cache (~/.debug): a fresh cache with
# libstdc++ (names alone) and then gcc's driver too (the same names in
# two binaries: perf adds @path(build-id)); the same lines as perf list.
lib=$(ldconfig -p 2>/dev/null | awk '/libstdc\+\+\.so\.6 / { print $NF; exit }')
gcc=$(command -v x86_64-linux-gnu-gcc-12 || true)
if have_perf && [ -n "$lib" ]; then
	mkdir -p "$out/home"
	sdt() { grep '\[SDT event\]' "$1" | sort; }
	HOME=$out/home perf buildid-cache -a "$lib" 2>/dev/null
	HOME=$out/home perf list sdt >"$out/ps1" 2>/dev/null
	HOME=$out/home "$TALLY" list sdt >"$out/ts1" 2>/dev/null
	n=$(sdt "$out/ps1" | wc -l)
	if [ "$n" -gt 0 ]; then
		is "tally list sdt: perf's $n SDT events of $lib" "$(sdt "$out/ts1")" "$(sdt "$out/ps1")"
	else
		skip "perf finds no SDT events in $lib"
	fi
	if [ -n "$gcc" ]; then
		HOME=$out/home perf buildid-cache -a "$gcc" 2>/dev/null
		HOME=$out/home perf list >"$out/ps2" 2>/dev/null
		HOME=$out/home "$TALLY" list >"$out/ts2" 2>/dev/null
		is "tally list: perf's SDT events of two binaries (with paths)" \
			"$(grep '\[SDT event\]' "$out/ts2")" "$(grep '\[SDT event\]' "$out/ps2")"
	else
		skip "no x86_64-linux-gnu-gcc-12"
	fi
else
	skip "no perf or libstdc++"; skip "no perf or libstdc++"
fi

# fake trees: aliases of the fake PMUs, the fake tracepoints, no .scale files
"$TALLY" list --sysfs=tests/data/sysfs --tracefs=tests/data/tracefs >"$out/fake"
check "fake sysfs: cpu/mem-loads/ is a Kernel PMU event" grep -q '^  cpu/mem-loads/ .*\[Kernel PMU event\]$' "$out/fake"
check "fake sysfs: no .scale/.unit files listed" sh -c "! grep -q '\.scale\|\.unit' '$out/fake'"
is "fake tracefs: exactly its 8 tracepoints" "$(grep -c '\[Tracepoint event\]' "$out/fake")" "8"

if "$TALLY" list --help >"$out/help"; then ok "--help exits 0"; else fail "--help exits 0"; fi
check "--help shows the usage" grep -q '^usage: tally list' "$out/help"
if "$TALLY" list --bogus >/dev/null 2>&1; then fail "an unknown option fails"; else ok "an unknown option fails"; fi
# a build-id cache with files but no SDT notes (what a first tally record
# leaves in a fresh HOME): list walks it and finds none (under UBSan, the
# empty list once went to qsort as NULL and stopped the run)
h=$(mktemp -d)
HOME=$h XDG_CACHE_HOME=$h/.cache "$TALLY" record -q -e cpu-clock -o "$h/x.data" true >/dev/null 2>&1
HOME=$h XDG_CACHE_HOME=$h/.cache "$TALLY" list sched:sched_switch >"$out/sdt" 2>"$out/sdt.err"; rc=$?
is "list after a record in a fresh HOME exits 0" "$rc" 0
check "... and says nothing on stderr" test ! -s "$out/sdt.err"
rm -rf "$h"
done_testing
