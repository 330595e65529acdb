#!/usr/bin/env bash
# tally report's group view as perf 6.1's on the same files: events recorded
# as a group (-e '{a,b,c}', the file's GROUP_DESC) shown as one table by
# default, a column per member under each count, the rows the keys any
# member has; --no-group each event alone; --group on a file without
# groups all events as one. perf reads tally's groups, tally perf's. And
# what the columns are, without perf: each member's column is that event's
# own table (--no-group) beside the leader's, the Samples line their sum.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
W=$HELPERS/work
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed: no reference to compare with"; done_testing; exit 0; fi

G='{cpu-clock,task-clock,page-faults}'
perf record -q -F 999 -g -e "$G" -o "$d/perf.data" -- "$B" 200 >/dev/null 2>&1
"$TALLY" record -q -F 999 -g -e "$G" -o "$d/tally.data" -- "$B" 200 >/dev/null 2>&1
"$TALLY" record -q -e '{cpu-clock,page-faults}' -o "$d/flat.data" -- "$W" getpid 100000 >/dev/null 2>&1
"$TALLY" record -q -e cpu-clock,page-faults -o "$d/two.data" -- "$W" getpid 100000 >/dev/null 2>&1
pl() { report_lines perf "$@"; }
tl() { report_lines tally "$@"; }

# the groups in each file's header, read by the other tool
is "perf's file: tally reads its group" "$("$TALLY" report --header-only -i "$d/perf.data" | grep '^# group')" \
	"# group: {cpu-clock,task-clock,page-faults}"
is "tally's file: perf reads its group" "$(perf report --header-only -i "$d/tally.data" 2>/dev/null | grep '^# group')" \
	"# group: {cpu-clock,task-clock,page-faults}"
is "tally's file without groups: none" "$(perf report --header-only -i "$d/two.data" 2>/dev/null | grep -c '^# group')" 0

for f in perf tally; do
	for o in "" "--no-children" "-g none" "-n --show-total-period" "-t , -g none" "--no-group" \
		 "--no-children -s dso,sym -n" "--no-children --percent-limit 3" "-g caller --no-children" \
		 "--no-children --show-cpu-utilization" "--no-children -F overhead,sym,sample" \
		 "--no-children -F sym,period,overhead -t ," "--symbol-filter=burn" \
		 "--no-children --comms burn --percentage relative" "-s comm -g none" \
		 "--group-sort-idx 2 --no-children" "--group-sort-idx 1 -g none" "--group-sort-idx 7 -g none" \
		 "--group-sort-idx 2 --no-children -F overhead,sample,sym" \
		 "--no-children -F overhead_sys,overhead_us,sym" "--no-children -F overhead_guest_us,sym -t ,"; do
		tl $o -i "$d/$f.data" >"$d/t.out"
		pl $o -i "$d/$f.data" >"$d/p.out"
		same_lines "$f ${o:-(default)}" "$d/t.out" "$d/p.out"
		check "$f ${o:-(default)}: rows" grep -qE '^[^#].*[0-9]%' "$d/t.out"
	done
done
for f in flat two; do
	for o in "" "--group" "--no-group" "--group -n -t ," "--group -s sym"; do
		same_lines "$f ${o:-(default)}" <(tl $o -i "$d/$f.data") <(pl $o -i "$d/$f.data")
	done
done
same_lines "two --group --group-sort-idx 1" <(tl --group --group-sort-idx 1 -i "$d/two.data") \
	<(pl --group --group-sort-idx 1 -i "$d/two.data")
# --group-sort-idx of a file without groups: a usage error (perf's too: its usage, 234)
"$TALLY" report --stdio --group-sort-idx 1 -i "$d/two.data" >"$d/t.out" 2>"$d/e"
is "--group-sort-idx without groups: exits 129" "$?" 129
check "it says the file has no groups" grep -q "group-sort-idx 1: the file has no event groups" "$d/e"
perf report --stdio --group-sort-idx 1 -i "$d/two.data" >/dev/null 2>&1
is "(perf refuses it too)" "$?" 234
# --group-sort-idx N: the rows by member N's own period, biggest first
tl --no-children -g none --group-sort-idx 2 -i "$d/tally.data" |
	awk '/^ +[0-9.]+%/ { v = $3 + 0; if (NR > 0 && seen && v > last + 0.005) bad++; last = v; seen = 1 } END { print bad + 0 }' >"$d/n"
is "--group-sort-idx 2: the third column never grows down the rows" "$(cat "$d/n")" 0
# a group's table by default, its name as perf's; a forced one without braces
check "a group: one table" grep -q "of events 'anon group { cpu-clock, task-clock, page-faults }'" \
	<(tl -i "$d/tally.data")
is "a group: no table of its members" "$(tl -i "$d/tally.data" | grep -c '^# Samples')" 1
check "--group on a file without groups: all events, no braces" \
	grep -q "of events 'cpu-clock, page-faults'" <(tl --group -i "$d/two.data")

# without perf: the columns are the events' own tables side by side
tl --no-children -g none -n --no-group -i "$d/tally.data" >"$d/alone"
tl --no-children -g none -n -i "$d/tally.data" >"$d/group"
python3 - "$d/alone" "$d/group" >"$d/cmp" <<'PY'
import re, sys
alone, group = open(sys.argv[1]).read(), open(sys.argv[2]).read()
# each event's table: symbol -> (share, samples)
tables, cur, nsamples = [], None, []
for l in alone.splitlines():
    m = re.match(r"# Samples: (\d+)", l)
    if m:
        nsamples.append(int(m.group(1)))
        cur = {}
        tables.append(cur)
        continue
    m = re.match(r"\s+([\d.]+)%\s+(\d+)\s+(\S+)\s+(\S+)\s+(\[.\] .*\S)", l)
    if m and cur is not None:
        cur[(m.group(3), m.group(4), m.group(5))] = (m.group(1), int(m.group(2)))
rows = bad = 0
for l in group.splitlines():
    m = re.match(r"\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\[.\] .*\S)", l)
    if not m:
        continue
    rows += 1
    key = (m.group(7), m.group(8), m.group(9))
    for k in range(3):
        want = tables[k].get(key, ("0.00", 0))
        if (m.group(1 + k), int(m.group(4 + k))) != want:
            bad += 1
            print("row %s member %d: %s%% %s, alone %s%% %s" % (key, k, m.group(1 + k), m.group(4 + k), want[0], want[1]), file=sys.stderr)
keys = set().union(*tables)
m = re.search(r"# Samples: (\d+)", group)
print(rows, len(keys), bad, int(m.group(1)) == sum(nsamples), len(tables))
PY
read -r rows keys bad sum ntab <"$d/cmp"
is "the events' own tables: three" "$ntab" 3
is "a row for each key any member has" "$rows" "$keys"
check "(many of them)" test "$rows" -gt 5
is "each member's share and samples are its own table's" "$bad" 0
is "the group's Samples line: the members' sum" "$sum" True

# a damaged GROUP_DESC: said, each event alone, nothing else lost
cp "$d/tally.data" "$d/bad.data"
python3 - "$d/bad.data" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
at = b.index(b"{anon_group}") + 64
b[at:at + 4] = (9).to_bytes(4, "little")	# the leader: no such attr
open(sys.argv[1], "wb").write(b)
PY
"$TALLY" report --stdio -i "$d/bad.data" >"$d/t.out" 2>"$d/e"
is "a damaged group description: exits 0" "$?" 0
check "it says the groups are damaged" grep -q "event groups (GROUP_DESC) are damaged" "$d/e"
is "each event is shown alone" "$(grep -c '^# Samples' "$d/t.out")" 3
done_testing
