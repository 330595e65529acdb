#!/usr/bin/env bash
# tally stat against perf 6.1 on this machine: the same counts for exact
# events, the same CSV field count and order, the same JSON keys in the
# same order, and the same human layout (event column, units, metrics).
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
TP=syscalls:sys_enter_getpid
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! have_perf || ! perf stat -e task-clock true 2>/dev/null; then
	skip "perf is not installed or cannot count here"
	done_testing; exit 0
fi
tp_ok=0
have_tp && tp_ok=1

csv_col() { awk -F, -v ev="$2" '$3 == ev { print $1 }' "$1"; }

# A glob's events in perf's order: tracefs' directory order (readdir), as
# perf 6.1's glob expansion adds them, not sorted (issue 29). Order only:
# the counts are of two runs.
if [ $tp_ok = 1 ]; then
	perf stat -x, -e 'sched:*' -- true 2>"$tmp/p"
	$TALLY stat -x, -e 'sched:*' -- true 2>"$tmp/t"
	check "sched:*: more than a few events" [ "$(grep -c ',sched:' "$tmp/p")" -gt 5 ]
	is "sched:*: perf's event order" "$(awk -F, '{ print $3 }' "$tmp/t" | grep '^sched:')" \
		"$(awk -F, '{ print $3 }' "$tmp/p" | grep '^sched:')"
else
	for _ in 1 2; do skip "no tracepoints"; done
fi

# 1. Same counts for exact events.
if [ $tp_ok = 1 ]; then
	for n in 1 1000 250000; do
		perf stat -x, -e $TP -- "$W" getpid $n 2>"$tmp/p"
		$TALLY stat -x, -e $TP -- "$W" getpid $n 2>"$tmp/t"
		is "getpid $n: tally == perf" "$(csv_col "$tmp/t" $TP)" "$(csv_col "$tmp/p" $TP)"
	done
	perf stat -x, -e $TP -- "$W" threads 3 777 2>"$tmp/p"
	$TALLY stat -x, -e $TP -- "$W" threads 3 777 2>"$tmp/t"
	is "3 threads: tally == perf (inherit)" "$(csv_col "$tmp/t" $TP)" "$(csv_col "$tmp/p" $TP)"
else
	for _ in 1 2 3 4; do skip "no getpid tracepoint"; done
fi
A=$("$W" addr)
perf stat -x, -e "mem:$A:w:u" -- "$W" write 4321 2>"$tmp/p"
$TALLY stat -x, -e "mem:$A:w:u" -- "$W" write 4321 2>"$tmp/t"
pv=$(awk -F, 'NR==1 { print $1 }' "$tmp/p")
if [ "$pv" = "4321" ]; then
	is "mem:ADDR:w:u: tally == perf" "$(awk -F, 'NR==1 { print $1 }' "$tmp/t")" "$pv"
	is "mem:ADDR:w:u: same event name" "$(awk -F, 'NR==1 { print $3 }' "$tmp/t")" \
	   "$(awk -F, 'NR==1 { print $3 }' "$tmp/p")"
else
	skip "perf cannot count the breakpoint here ($pv)"; skip "idem"
fi

# 2. CSV: per row, the same number of fields, the same unit and event
#    columns, the same not-supported/not-counted text. Several shapes.
ev="task-clock,page-faults,cycles"
[ $tp_ok = 1 ] && ev="$ev,$TP"
shape() { # file -> "nf:unit:event:state" per line
	awk -F, '{ s = ($1 ~ /^</) ? $1 : "num"; print NF ":" $2 ":" $3 ":" s }' "$1"
}
shape_cpu() {
	awk -F, '{ s = ($2 ~ /^</) ? $2 : "num"; print NF ":" $1 ":" $3 ":" $4 ":" s }' "$1"
}
for opts in "" "-r 2" "-I 100"; do
	# shellcheck disable=SC2086
	perf stat $opts -x, -e $ev -- "$W" sleep 150 2>"$tmp/p"
	# shellcheck disable=SC2086
	$TALLY stat $opts -x, -e $ev -- "$W" sleep 150 2>"$tmp/t"
	if [ "$opts" = "-I 100" ]; then
		# timestamps differ; keep the first interval's rows, drop the timestamp
		for f in p t; do
			awk -F, 'NR == 1 { ts = $1 } $1 == ts' "$tmp/$f" | cut -d, -f2- >"$tmp/$f.1"
			mv "$tmp/$f.1" "$tmp/$f"
		done
	fi
	is "CSV ${opts:-plain}: same fields per row" "$(shape "$tmp/t" | tr '\n' ' ')" \
	   "$(shape "$tmp/p" | tr '\n' ' ')"
done
perf stat -a -A -x, -e cpu-clock,msr/tsc/ -- "$W" sleep 50 2>"$tmp/p"
$TALLY stat -a -A -x, -e cpu-clock,msr/tsc/ -- "$W" sleep 50 2>"$tmp/t"
is "CSV -a -A: same fields per row" "$(shape_cpu "$tmp/t" | tr '\n' ' ')" "$(shape_cpu "$tmp/p" | tr '\n' ' ')"
for ag in --per-core --per-socket --per-node; do
	perf stat -a $ag -x, -e cpu-clock -- "$W" sleep 50 2>"$tmp/p"
	$TALLY stat -a $ag -x, -e cpu-clock -- "$W" sleep 50 2>"$tmp/t"
	is "CSV -a $ag: same aggregate columns" "$(cut -d, -f1,2,4,5 "$tmp/t" | tr '\n' ' ')" \
	   "$(cut -d, -f1,2,4,5 "$tmp/p" | tr '\n' ' ')"
done

# --summary after -I: the totals too; in CSV perf's "summary" column.
sumshape() { # rows after the intervals: NF, summary column, unit, event
	awk -F, '$1 !~ /^ +[0-9]+\.[0-9]+$/ { o = ($1 ~ /summary/); print NF ":" (o ? $1 : "-") ":" $(2 + o) ":" $(3 + o) }' "$1"
}
for o in "" --no-csv-summary; do
	# shellcheck disable=SC2086
	perf stat -I 100 --summary $o -x, -e $ev -- "$W" sleep 150 2>"$tmp/p"
	# shellcheck disable=SC2086
	$TALLY stat -I 100 --summary $o -x, -e $ev -- "$W" sleep 150 2>"$tmp/t"
	is "CSV -I --summary $o: the same totals rows as perf" "$(sumshape "$tmp/t" | tr '\n' ' ')" \
	   "$(sumshape "$tmp/p" | tr '\n' ' ')"
done

# -G: perf's cgroup column after the event (CSV field order and count);
# the JSON "cgroup" key is checked with the other JSON shapes below.
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -n "$cgroot" ]; then
	perf stat -a -x, -e task-clock,cycles -G / --timeout 100 2>"$tmp/p"
	$TALLY stat -a -x, -e task-clock,cycles -G / --timeout 100 2>"$tmp/t"
	gshape() { awk -F, '/task-clock|cycles/ { print NF ":" $2 ":" $3 ":" $4 }' "$1"; }
	is "CSV -a -G /: perf's cgroup column and field count" "$(gshape "$tmp/t" | tr '\n' ' ')" \
	   "$(gshape "$tmp/p" | tr '\n' ' ')"
else
	skip "no cgroup v2 hierarchy"
fi

# -d, -dd, -ddd: perf 6.1's detailed sets, same events in order (after
# the default set, or appended to -e events).
for d in -d -dd -ddd "-dd -e task-clock"; do
	# shellcheck disable=SC2086
	perf stat $d -x, -- true 2>"$tmp/p"
	# shellcheck disable=SC2086
	$TALLY stat $d -x, -- true 2>"$tmp/t"
	is "CSV $d: perf's event list" "$(cut -d, -f2-3 "$tmp/t" | tr '\n' ' ')" \
	   "$(cut -d, -f2-3 "$tmp/p" | tr '\n' ' ')"
done

# 3. JSON: the same keys in the same order, line by line.
keys() {
	python3 -c 'import json,sys
for l in open(sys.argv[1]):
    l = l.strip()
    if l.startswith("{"): print(",".join(json.loads(l).keys()))' "$1"
}
gopt="-a -G /"
[ -n "$cgroot" ] || gopt="-a"
for opts in "" "-r 2" "-I 100" "-a -A" "-a --per-core" "-a --per-node" "$gopt"; do
	case "$opts" in
	-a*) e=cpu-clock,cycles ;;
	*) e=$ev ;;
	esac
	# shellcheck disable=SC2086
	perf stat -j -e $e $opts -- "$W" sleep 120 2>"$tmp/p"	# perf's -G follows the events
	# shellcheck disable=SC2086
	$TALLY stat -j -e $e $opts -- "$W" sleep 120 2>"$tmp/t"
	if [ "$opts" = "-I 100" ]; then
		pk=$(keys "$tmp/p" | head -4); tk=$(keys "$tmp/t" | head -4)
	else
		pk=$(keys "$tmp/p"); tk=$(keys "$tmp/t")
	fi
	if [ -n "$pk" ]; then
		is "JSON ${opts:-plain}: keys equal perf -j's" "$tk" "$pk"
	else
		fail "JSON ${opts:-plain}: perf printed no JSON"
	fi
done
"$W" sleep 1500 & victim=$!
perf stat -p $victim --per-thread -j -e task-clock --timeout 100 2>"$tmp/p"
$TALLY stat -p $victim --per-thread -j -e task-clock --timeout 100 2>"$tmp/t"
kill $victim; wait $victim 2>/dev/null
is "JSON -p --per-thread: keys equal perf -j's" "$(keys "$tmp/t")" "$(keys "$tmp/p")"

# 4. Human layout: rows with digits masked are the same, and every event
#    name starts in the same column as perf's.
# digits masked; "( +- 1.23% )" and "( +-123.45% )" alike: two runs' spreads differ, so their widths do
mask() { sed -E 's/[0-9][0-9.,]*/N/g; s/ +/ /g; s/\+- N/+-N/g' "$1" | grep -v 'Performance counter stats'; }
col() { awk -v ev="$2" '{ i = index($0, " " ev " "); if (i) print i }' "$1"; }
e2="task-clock,page-faults,cycles"
[ $tp_ok = 1 ] && e2="$e2,$TP"
perf stat -e $e2 -- "$W" getpid 100 2>"$tmp/p"
$TALLY stat -e $e2 -- "$W" getpid 100 2>"$tmp/t"
is "human: same rows (digits masked)" "$(mask "$tmp/t")" "$(mask "$tmp/p")"
for e in task-clock page-faults cycles; do
	is "human: '$e' in perf's column" "$(col "$tmp/t" $e)" "$(col "$tmp/p" $e)"
done
is "human: same line widths" "$(awk '{ print length($0) }' "$tmp/t" | sed 1,3d | head -5 | tr '\n' ' ')" \
   "$(awk '{ print length($0) }' "$tmp/p" | sed 1,3d | head -5 | tr '\n' ' ')"
perf stat -a -A -e cpu-clock -- "$W" sleep 50 2>"$tmp/p"
$TALLY stat -a -A -e cpu-clock -- "$W" sleep 50 2>"$tmp/t"
is "human -A: same rows (digits masked)" "$(mask "$tmp/t")" "$(mask "$tmp/p")"
perf stat -a --per-core -e cpu-clock -- "$W" sleep 50 2>"$tmp/p"
$TALLY stat -a --per-core -e cpu-clock -- "$W" sleep 50 2>"$tmp/t"
is "human --per-core: same rows (digits masked)" "$(mask "$tmp/t")" "$(mask "$tmp/p")"
perf stat -r 3 -e task-clock -- "$W" sleep 20 2>"$tmp/p"
$TALLY stat -r 3 -e task-clock -- "$W" sleep 20 2>"$tmp/t"
is "human -r 3: same rows (digits masked)" "$(mask "$tmp/t")" "$(mask "$tmp/p")"
perf stat -r 3 --table -e task-clock -- "$W" sleep 20 2>"$tmp/p"
$TALLY stat -r 3 --table -e task-clock -- "$W" sleep 20 2>"$tmp/t"
tmask() { mask "$1" | sed -E 's/\([+-]N\) #+$/(dev) #/'; }	# deviations and bars vary
is "human -r 3 --table: perf's table of runs (digits masked)" "$(tmask "$tmp/t")" "$(tmask "$tmp/p")"
# the default events system-wide: perf counts CPU time with cpu-clock there
evs() { awk '/^ +([0-9.,]+|<not supported>|<not counted>) +(msec )?[a-z-]+/ { for (i = 1; i <= NF; i++) if ($i ~ /^[a-z][a-z-]+$/ && $i != "msec") { print $i; break } }' "$1" | tr '\n' ' '; }
for t in "-a" "-C 0"; do
	perf stat $t -- "$W" sleep 20 2>"$tmp/p"
	$TALLY stat $t -- "$W" sleep 20 2>"$tmp/t"
	is "default events $t: perf's, in its order" "$(evs "$tmp/t")" "$(evs "$tmp/p")"
done
check "default events -a: cpu-clock" grep -q 'cpu-clock' "$tmp/t"

done_testing
