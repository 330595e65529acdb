#!/usr/bin/env bash
# tally diff's perf options, line for line with perf diff 6.1 on the same
# files (perf's and tally's recordings): -c delta, delta-abs, ratio and
# wdiff:W1,W2 (their columns, N/A where a value needs the baseline, and
# their orders), -p (the periods), -F (each value's formula), -b (the rows
# of both files, the baseline's shares of those), -q, and the filters -C,
# -d, -S (the shares still of the whole, -b's of every row of both files;
# -C a row by its baseline entry's first sample's command, paired with
# the other file's whatever its command, as perf's; a filter of one value
# hides its column); -s with comm, dso and sym in any order (rows paired
# by those keys); events paired by type and config as perf's evsel_match;
# bad -c specs refused as perf refuses them. The ratio and the
# delta checked against the periods as an oracle.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn W=$HELPERS/work
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
if ! have_perf; then skip "perf is not installed: no reference to compare with"; done_testing; exit 0; fi

for who in perf tally; do
	if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
	$rec -q -F 999 -o "$d/$who-1.data" -- "$B" 100 >/dev/null 2>&1
	$rec -q -F 999 -o "$d/$who-2.data" -- sh -c "$B 80; $W getpid 200000" >/dev/null 2>&1
	$rec -q -F 999 -o "$d/$who-3.data" -- "$B" 150 >/dev/null 2>&1
	while read -r args; do
		for pair in "1 2" "2 1" "1 3"; do
			set -- $pair
			"$TALLY" diff $args "$d/$who-$1.data" "$d/$who-$2.data" >"$d/t.out" 2>"$d/t.err"
			trc=$?
			perf diff $args "$d/$who-$1.data" "$d/$who-$2.data" >"$d/p.out" 2>/dev/null
			prc=$?
			check "$who diff ${args:--} $1 $2: perf's lines ($(wc -l <"$d/p.out"))" cmp -s "$d/t.out" "$d/p.out"
			cmp -s "$d/t.out" "$d/p.out" ||
				{ diff "$d/t.out" "$d/p.out" | head -4 | sed 's/^/# /'; keep "$d/$who-$1.data" "$d/$who-$2.data"; }
			is "$who diff ${args:--} $1 $2: perf's status" "$trc" "$prc"
		done
	done <<'LIST'
-c delta
-c delta-abs
-c ratio
-c wdiff:2,3
-c wdiff:1,1 -F
-p
-F
-c ratio -p -F
-c delta -p -F
-b
-b -c ratio
-b -F -p
-q
-d burn
-S burn_a
-S burn_a,do_getpid
-C work
-C burn -d burn -S burn_b
-d burn,work -q
-C work -c ratio -p
-b -C work
-b -d [kernel.kallsyms] -F
-b -S syscall,burn_a -p
-s sym
-s comm
-s dso
-s comm,dso,sym
-s sym,dso
-s sym,comm -c ratio -p
-C work -s comm,sym
-d burn -s comm,dso -b
LIST
done
# --kallsyms: the kernel's rows named from a copy whose text symbols are renamed
if awk 'NR == 1 && $1 ~ /[1-9a-f]/ { ok = 1 } END { exit !ok }' /proc/kallsyms; then
	awk '{ if (($2 == "t" || $2 == "T") && $3 !~ /^_/) $3 = "K_" $3; print }' /proc/kallsyms |
		sed 's/ \(\[[^]]*\]\)$/\t\1/' >"$d/kallsyms"
	"$TALLY" diff --kallsyms "$d/kallsyms" "$d/tally-1.data" "$d/tally-2.data" >"$d/t.out" 2>/dev/null
	perf diff --kallsyms "$d/kallsyms" "$d/tally-1.data" "$d/tally-2.data" >"$d/p.out" 2>/dev/null
	check "--kallsyms: the kernel's rows named by the file (K_)" grep -q '\[k\] K_' "$d/t.out"
	check "--kallsyms: perf's lines" cmp -s "$d/t.out" "$d/p.out"
else
	skip "kallsyms hides its addresses from this user"; skip "kallsyms hidden"
fi
# the oracle: a ratio is the new period over the baseline's, a delta the change of share
"$TALLY" diff -c ratio -p "$d/tally-1.data" "$d/tally-3.data" 2>/dev/null >"$d/r.out"
bad=$(awk '$NF == "burn_a" { r = $3; want = $4 / $2; if (r < want - 0.000001 || r > want + 0.000001) print "bad " r " " want; n++ } END { if (!n) print "none" }' "$d/r.out")
is "-c ratio: burn_a's ratio is its periods' (new / baseline)" "$bad" ""
for s in foo wdiff wdiff:1 wdiff:1,x; do
	"$TALLY" diff -c "$s" "$d/tally-1.data" "$d/tally-3.data" >"$d/t.out" 2>"$d/t.err"
	is "-c $s: refused with perf's usage status" "$?" 129
	check "  and said" grep -q -- "-c $s" "$d/t.err"
done

# --pid, --tid (perf's thread filter: a row by its baseline entry's first
# sample's thread), --cpu (samples dropped first), and a block per event
# of the baseline (two events here), on files with each sample's CPU
for who in perf tally; do
	if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
	# pinned: the baseline's samples all on CPU 0, the new file's burn on 0, work on 1
	$rec -q -F 999 --sample-cpu -e cpu-clock,task-clock -o "$d/$who-e1.data" -- taskset -c 0 "$B" 100 >/dev/null 2>&1
	$rec -q -F 999 --sample-cpu -e cpu-clock,task-clock -o "$d/$who-e2.data" -- \
		sh -c "taskset -c 0 $B 60; taskset -c 1 $W getpid 100000" >/dev/null 2>&1
	pid=$(perf script -i "$d/$who-e1.data" -F pid 2>/dev/null | head -1 | tr -d ' ')
	# (not a CPU the baseline has no sample on: perf's shares of its 0 are NaN, "-nan%")
	for args in "" "--cpu 0" "--cpu 0,1 -c ratio" "--cpu 0 -c delta" "--pid $pid" "--tid $pid" "--pid 1" "-q" \
		    "-o 0" "-o 0 -c ratio" "-o 0 -b" "-o 1"; do
		"$TALLY" diff $args "$d/$who-e1.data" "$d/$who-e2.data" >"$d/t.out" 2>/dev/null
		perf diff $args "$d/$who-e1.data" "$d/$who-e2.data" >"$d/p.out" 2>/dev/null
		check "$who diff ${args:--} (two events): perf's lines ($(wc -l <"$d/p.out"), $(grep -c '^# Event' "$d/p.out") blocks)" \
			cmp -s "$d/t.out" "$d/p.out"
		cmp -s "$d/t.out" "$d/p.out" || diff "$d/t.out" "$d/p.out" | head -4 | sed 's/^/# /'
	done
done
"$TALLY" diff "$d/tally-e1.data" "$d/tally-e2.data" >"$d/t.out" 2>/dev/null
is "two events: a block each" "$(grep -c '^# Event' "$d/t.out")" 2
"$TALLY" diff --pid 1 -q "$d/tally-e1.data" "$d/tally-e2.data" >"$d/t.out" 2>/dev/null
is "--pid 1: no row is init's" "$(grep -c '%' "$d/t.out")" 0
"$TALLY" diff --cpu 0 "$d/tally-1.data" "$d/tally-3.data" >/dev/null 2>"$d/t.err"
is "--cpu on files without a CPU field: an error (1)" "$?" 1

# a shared object's addresses without a symbol are one row in perf diff
# (its collapse: unresolved code pairs by its file alone), shown at the
# lowest of them; the DSO column is then an address's 16 wide; a row of
# no map sorts after the others among equals. Crafted files: burn's map,
# its header's addresses and burn_a (a system-wide pair, bash's and the
# tools' code without symbols, was compared by hand: other tests' processes
# would be in it here).
HERE=$(cd "$(dirname "$0")" && pwd)
a=$(nm "$B" | awk '$3 == "burn_a" { print $1 }')
python3 "$HERE/craft_data.py" addrs "$d/u1.data" "$B" 400010 400020 400030 400030 "$a"
python3 "$HERE/craft_data.py" addrs "$d/u2.data" "$B" 400010 400040 "$a" "$a"
for pair in "u1 u2" "u2 u1"; do
	set -- $pair
	for args in "" "-c ratio" "-p" "-b" "-s sym" "-s sym,dso" "-s comm,sym"; do
		"$TALLY" diff $args "$d/$1.data" "$d/$2.data" >"$d/t.out" 2>/dev/null
		perf diff $args "$d/$1.data" "$d/$2.data" >"$d/p.out" 2>/dev/null
		check "unresolved $1 $2 ${args:--}: perf's lines" cmp -s "$d/t.out" "$d/p.out"
		cmp -s "$d/t.out" "$d/p.out" || diff "$d/t.out" "$d/p.out" | head -4 | sed 's/^/# /'
	done
done
"$TALLY" diff "$d/u1.data" "$d/u2.data" >"$d/t.out" 2>/dev/null
is "unresolved: burn's four header addresses are one row (80%, at the lowest, 0x10)" \
	"$(grep -c '80.00%.*burn  *\[\.\] 0x0000000000000010$' "$d/t.out")" 1
# the events paired as perf's evsel_match: by type and config, not by name
# (the default event is "cpu-clock:ppp", -e's "cpu-clock")
perf record -q -F 999 -e cpu-clock -o "$d/named.data" -- "$B" 120 >/dev/null 2>&1
"$TALLY" diff "$d/perf-1.data" "$d/named.data" >"$d/t.out" 2>/dev/null
perf diff "$d/perf-1.data" "$d/named.data" >"$d/p.out" 2>/dev/null
check "cpu-clock:ppp against cpu-clock: perf's lines, the rows paired" cmp -s "$d/t.out" "$d/p.out"
check "cpu-clock:ppp against cpu-clock: a delta on burn_a" grep -q '%  *[-+][0-9.]*%  *burn  *\[\.\] burn_a' "$d/t.out"
"$TALLY" diff -s pid "$d/tally-1.data" "$d/tally-3.data" >/dev/null 2>"$d/t.err"
is "-s pid: refused (129)" "$?" 129
check "-s pid: the keys named" grep -q "comm, dso and sym" "$d/t.err"
for o in 2 -1; do
	"$TALLY" diff -o $o "$d/tally-e1.data" "$d/tally-e2.data" >/dev/null 2>"$d/t.err"
	trc=$?
	perf diff -o $o "$d/tally-e1.data" "$d/tally-e2.data" >/dev/null 2>&1
	is "-o $o: perf's status" "$trc" "$?"
done
done_testing
