#!/usr/bin/env bash
# tally c2c, as perf c2c 6.1. record: where the CPU's PMU lacks the memory
# events (this VM), the load and store events are named with their PMU
# and what they need, exit 255 (perf's). report --stdio: each section
# (Trace Event Information, Global Shared Cache Line Event Information,
# c2c details, Shared Data Cache Line Table, the Pareto) equal to perf's
# on two files mkc2c (tests/helpers) writes as perf c2c record would,
# under seven option sets; its errors with perf's statuses.
. "$(dirname "$0")/lib.sh"
M=$HELPERS/mkc2c
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
"$M" "$d/a.data" a && "$M" "$d/b.data" b || { fail "mkc2c"; done_testing; exit 0; }

if [ -e /sys/bus/event_source/devices/cpu/events/mem-loads ]; then
	skip "this CPU has mem-loads: the missing-PMU sentence is not what record says here"
else
	(cd "$d" && "$TALLY" c2c record -- true) 2>"$d/e"; rc=$?
	is "record without the events: perf's status" "$rc" 255
	check "record: the load event, its PMU and what it needs" \
		grep -q "load event cpu/mem-loads,ldlat=30/P needs the CPU's PMU 'cpu' with a precise mem-loads event" "$d/e"
	check "record: the store event too" grep -q "store event cpu/mem-stores/P needs" "$d/e"
	check "record: no file" test ! -e "$d/perf.data"
	"$TALLY" c2c record -l 50 -u -o "$d/r.data" true 2>"$d/e"; rc=$?
	is "record -l 50 -u: perf's status" "$rc" 255
	check "record -l 50 -u: in the load event" grep -q "cpu/mem-loads,ldlat=50/Pu" "$d/e"
	"$TALLY" c2c record -e ldlat-stores -- true 2>"$d/e"
	check "record -e ldlat-stores: no load event" eval '! grep -q mem-loads "$d/e"'
	# -v says the record command, as perf's pr_debug: perf c2c record's flags and events
	"$TALLY" c2c record -v -l 40 -o "$d/r.data" -- true 2>"$d/e"
	is "record -v: the record command" "$(grep '^calling:' "$d/e")" \
		"calling: record -W -d --phys-data --sample-cpu -e cpu/mem-loads,ldlat=40/P -e cpu/mem-stores/P -v -o $d/r.data -- true "
	"$TALLY" c2c record --ldlat=77 -- true 2>"$d/e"; rc=$?
	is "record --ldlat=77: perf's status" "$rc" 255
	check "record --ldlat=77: in the load event" grep -q "cpu/mem-loads,ldlat=77/P" "$d/e"
	"$TALLY" c2c record --event=ldlat-loads -- true 2>"$d/e"
	check "record --event=ldlat-loads: the load event" grep -q "cpu/mem-loads,ldlat=30/P needs" "$d/e"
	check "record --event=ldlat-loads: no store event" eval '! grep -q mem-stores "$d/e"'
fi
"$TALLY" c2c record --ldlat 0 -- true 2>/dev/null; rc=$?
is "record --ldlat 0: usage error" "$rc" 129
"$TALLY" c2c 2>/dev/null; rc=$?
is "no subcommand: usage error" "$rc" 129
"$TALLY" c2c frob 2>/dev/null; rc=$?
is "an unknown subcommand: usage error" "$rc" 129
"$TALLY" c2c report --stdio -i "$d/a.data" -d foo 2>"$d/e" >/dev/null; rc=$?
is "-d foo: perf's status" "$rc" 255
check "-d foo: named" grep -q "unknown display type: foo" "$d/e"
"$TALLY" c2c report --stdio -i "$d/a.data" -c tid,foo 2>"$d/e" >/dev/null; rc=$?
is "-c tid,foo: perf's status" "$rc" 255
check "-c tid,foo: named" grep -q "unrecognized sort token: foo" "$d/e"
"$TALLY" c2c report --stdio -i "$d/none.data" 2>/dev/null; rc=$?
is "a missing file: perf's status" "$rc" 255
"$HELPERS/mkfields" "$d/pf.data" pf || fail "mkfields pf"
"$TALLY" c2c report --stdio -i "$d/pf.data" 2>"$d/e" >"$d/o"; rc=$?
is "a file without NUMA_TOPOLOGY: perf's status (-EINVAL)" "$rc" 234
check "without NUMA_TOPOLOGY: said" grep -q "no NUMA_TOPOLOGY" "$d/e"
check "without NUMA_TOPOLOGY: nothing printed" test ! -s "$d/o"
# NRCPUS (the first feature) saying 2^31 CPUs: refused, not 8 GiB of bitmaps
python3 - "$d/a.data" "$d/big.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
do, dsz = struct.unpack_from('<QQ', b, 40)
off = struct.unpack_from('<Q', b, do + dsz)[0]
struct.pack_into('<II', b, off, 0x7fffffff, 0x7fffffff)
open(sys.argv[2], 'wb').write(b)
PY
timeout 20 "$TALLY" c2c report --stdio -i "$d/big.data" 2>"$d/e" >"$d/o"; rc=$?
is "NRCPUS of 2^31 CPUs: an error" "$rc" 1
check "NRCPUS of 2^31 CPUs: said" grep -q "NRCPUS or NUMA_TOPOLOGY header is damaged" "$d/e"
"$TALLY" c2c report --stdio -i "$d/a.data" >"$d/o" 2>/dev/null
check "a's table has HITM lines" grep -q '^      0  *0x4' "$d/o"
if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
# one section of a report, by its title
section() { awk -v t="$2" '/^=+$/ { if ((getline l) > 0 && l ~ /[a-z]/) { cur = l; getline; next } } cur ~ t' "$1"; }
while read -r opts; do
	for f in a b; do
		"$TALLY" c2c report --stdio -i "$d/$f.data" $opts >"$d/t" 2>/dev/null
		perf c2c report --stdio -i "$d/$f.data" $opts >"$d/p" 2>/dev/null
		for s in "Trace Event" "Global Shared" "c2c details" "Shared Data Cache Line Table" "Pareto"; do
			section "$d/t" "$s" >"$d/ts"; section "$d/p" "$s" >"$d/ps"
			case "$opts:$s" in --stats:Shared*|--stats:Pareto) ;; *)
				check "$f $opts: $s has lines" test -s "$d/ps" ;; esac
			is "$f $opts: $s: perf's lines" "$(diff "$d/ts" "$d/ps" | grep -c '^[<>]')" 0
			diff "$d/ts" "$d/ps" | head -6 | sed 's/^/# /'
		done
		is "$f $opts: the whole report: perf's" "$(cmp -s "$d/t" "$d/p" && echo same)" same
	done
done <<'LIST'

-d rmt -c tid,pid
-c pid
-d lcl --full-symbols -N
-c pid,iaddr,dso -NN --show-all
-d peer --no-source -c dso
--stats
LIST
done_testing
