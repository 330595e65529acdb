#!/usr/bin/env bash
# run.sh: slow (it starts first in the pool)
# tally script against perf script 6.1 on the same files, written by perf
# and by tally: every line equal (call chains, no call chain, -a with
# kernel frames and swapper, a tracepoint, zstd). A cut file: what is
# before the cut is printed and the cut is named with its offset.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
B=$HELPERS/burn
TP=syscalls:sys_enter_getpid
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi

# -a: only the samples of what the test runs (sleep) and the idle task:
# other processes on the machine bring symbol corners (a PLT hit is _init
# or name@plt by the shape of perf's symbol tree) that are not the point.
not_recorder() { awk -v RS= -v ORS='\n\n' '$1 == "sleep" || $1 == "swapper"'; }
# same NAME FILE: tally script and perf script print the same lines.
same() {
	local f=cat
	case $1 in *-a*) f=not_recorder ;; esac
	"$TALLY" script -i "$2" 2>"$d/t.err" | $f >"$d/t.out"; local rc=${PIPESTATUS[0]}
	perf script -i "$2" 2>/dev/null | $f >"$d/p.out"
	is "$1: tally script exits 0" "$rc" 0
	is "$1: as many lines as perf script" "$(wc -l <"$d/t.out")" "$(wc -l <"$d/p.out")"
	diff "$d/t.out" "$d/p.out" >"$d/diff"
	is "$1: every line equal" "$(grep -c '^<' "$d/diff")" 0
	grep -q '^<' "$d/diff" && sed -n '1,12s/^/# /p' "$d/diff"
	check "$1: not empty" [ -s "$d/p.out" ]
}

for who in perf tally; do
	if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
	$rec -q -F 999 -g -o "$d/$who-g.data" -- "$B" 300 >/dev/null 2>&1
	same "$who -F 999 -g" "$d/$who-g.data"
	$rec -q -F 999 -o "$d/$who-f.data" -- "$B" 200 >/dev/null 2>&1
	same "$who -F 999" "$d/$who-f.data"
	$rec -q -a -g -o "$d/$who-a.data" -- sleep 0.2 >/dev/null 2>&1
	same "$who -a -g" "$d/$who-a.data"
	$rec -q -z -F 999 -g -o "$d/$who-z.data" -- "$B" 200 >/dev/null 2>&1
	same "$who -z" "$d/$who-z.data"
	if have_tp; then
		$rec -q -e $TP -c 1 -o "$d/$who-tp.data" -- "$W" getpid 3000 >/dev/null 2>&1
		same "$who tracepoint" "$d/$who-tp.data"
		# fields through the file's formats (libtraceevent), names aligned
		$rec -q -a -e sched:sched_process_exec,sched:sched_switch,syscalls:sys_enter_close \
			-o "$d/$who-ex.data" -- sh -c "$W getpid 1; ls >/dev/null" >/dev/null 2>&1
		same "$who tracepoint fields" "$d/$who-ex.data"
		check "$who tracepoint fields: filename= shown" grep -q "filename=" "$d/t.out"
	fi
done

# Pipe input: perf's and tally's `record -o -` read from stdin.
for who in perf tally; do
	if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
	$rec -q -F 999 -g -o - -- "$B" 200 2>/dev/null >"$d/$who.pipe"
	"$TALLY" script -i - <"$d/$who.pipe" >"$d/t.out" 2>"$d/t.err"; rc=$?
	perf script -i - <"$d/$who.pipe" >"$d/p.out" 2>/dev/null
	is "$who pipe: tally script -i - exits 0" "$rc" 0
	is "$who pipe: every line equal" "$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
	check "$who pipe: not empty" [ -s "$d/p.out" ]
done

# A pipe-format file given by its path: the same lines (the event's name
# comes from perf's EVENT_UPDATE records there).
for who in perf tally; do
	"$TALLY" script -i "$d/$who.pipe" >"$d/t.out" 2>/dev/null
	perf script -i "$d/$who.pipe" >"$d/p.out" 2>/dev/null
	is "$who pipe file by path: every line equal" "$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
done

# -F: perf's fields, its order and widths, per event class, +/- the defaults
for who in perf tally; do
	for F in comm,tid,time,event,ip,sym,dso comm,pid,tid,time ip,sym +pid -period sym \
		 period,event ip,sym,symoff,dso comm,tid,ip tid,pid time,comm dso ip \
		 sw:comm,tid hw:comm,tid comm,tid,time,ip,sym,symoff,dso,period,event -ip; do
		for f in g f; do
			"$TALLY" script -F "$F" -i "$d/$who-$f.data" >"$d/t.out" 2>&1
			perf script -F "$F" -i "$d/$who-$f.data" >"$d/p.out" 2>&1
			is "$who -$f -F $F: every line equal" "$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
		done
	done
	if have_tp; then
		for F in trace:comm,tid,trace comm,cpu,time,event,trace +pid; do
			# (perf warns on stderr that trace means nothing to other classes)
			"$TALLY" script -F "$F" -i "$d/$who-tp.data" >"$d/t.out" 2>/dev/null
			perf script -F "$F" -i "$d/$who-tp.data" >"$d/p.out" 2>/dev/null
			is "$who tracepoint -F $F: every line equal" \
				"$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
		done
	fi
done
"$TALLY" script -F comm,cpu -i "$d/perf-g.data" >/dev/null 2>"$d/e"; rc=$?
check "-F cpu without CPU in the samples: fails (rc $rc)" [ $rc -ne 0 ]
check "-F cpu without CPU in the samples: says why" grep -q "do not have CPU attribute set" "$d/e"
"$TALLY" script -F comm,bogus -i "$d/perf-g.data" >/dev/null 2>"$d/e"; rc=$?
is "-F bogus: usage error" "$rc" 129
check "-F bogus: the field named" grep -q "unknown field 'bogus'" "$d/e"
"$TALLY" script -F comm,+pid -i "$d/perf-g.data" >/dev/null 2>"$d/e"; rc=$?
is "-F mixing +field and a list: usage error" "$rc" 129

# A cut file: the lines before the cut, and the cut named.
# Cut two thirds into the data section (not the file: with few samples the
# feature sections after the data are most of it), at an odd byte: records
# are 8-byte aligned, so the cut is inside one.
cut=$(python3 -c 'import struct, sys
off, size = struct.unpack("<QQ", open(sys.argv[1], "rb").read()[40:56])
print((off + size * 2 // 3) | 3)' "$d/tally-g.data")
head -c "$cut" "$d/tally-g.data" >"$d/cut.data"
"$TALLY" script -i "$d/cut.data" >"$d/cut.out" 2>"$d/cut.err"; rc=$?
check "cut file: non-zero exit (rc $rc)" [ $rc -ne 0 ]
check "cut file: the error names the offset" grep -q 'offset 0x' "$d/cut.err"
# cut at a record's edge: every record whole, the data section short
python3 - "$d/tally-g.data" "$d/edge.data" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
off, size = struct.unpack('<QQ', b[40:56])
p = off
while p < off + size * 2 // 3:
    p += struct.unpack('<IHH', b[p:p + 8])[2]
open(sys.argv[2], 'wb').write(b[:p])
PY
"$TALLY" script -i "$d/edge.data" >/dev/null 2>"$d/edge.err"; rc=$?
check "cut at a record's edge: non-zero exit (rc $rc)" [ $rc -ne 0 ]
check "cut at a record's edge: named" grep -q 'file ends inside the data section at offset 0x' "$d/edge.err"
n=$(grep -c 'cpu-clock:' "$d/cut.out"); all=$(grep -c 'cpu-clock:' "$d/p.out")
"$TALLY" script -i "$d/tally-g.data" >"$d/full.out" 2>/dev/null
all=$(grep -c 'cpu-clock:' "$d/full.out")
check "cut file: samples before the cut are kept ($n of $all)" [ "$n" -gt $((all / 3)) ] 
# perf script's options: -G (no chains, the sampled ip on the line; a
# tracepoint's default fields then have no ip), --ns, the -c/--pid/--tid
# filters, and -F trace of software events (perf prints no line at all)
pid=$(perf script -F pid -i "$d/perf-g.data" 2>/dev/null | sort | uniq -c | sort -rn | awk 'NR==1 {print $2}')
if have_tp; then
	perf record -q -e $TP -g -o "$d/tpg.data" -- "$W" getpid 20 >/dev/null 2>&1
fi
for o in "-G" "--ns" "-G -F comm,tid,time,ip,sym" "-c burn" "-c swapper,burn --ns" "--pid $pid" \
	 "--tid $pid" "--tid 1" "-F trace"; do
	for f in perf-g tally-g tpg; do
		[ -f "$d/$f.data" ] || continue
		"$TALLY" script $o -i "$d/$f.data" >"$d/t.out" 2>/dev/null
		perf script $o -i "$d/$f.data" >"$d/p.out" 2>/dev/null
		check "script $o of $f: perf's lines ($(wc -l <"$d/p.out"))" cmp -s "$d/t.out" "$d/p.out"
	done
done
is "-G of a file with chains: one line a sample" \
	"$("$TALLY" script -G -i "$d/perf-g.data" 2>/dev/null | wc -l)" "$(perf script -F ip -G -i "$d/perf-g.data" 2>/dev/null | wc -l)"
check "-c burn: the burn lines only" sh -c "! '$TALLY' script -c burn -G -i '$d/perf-g.data' | grep -v '^ *burn '"
# --header, --header-only (-I: the topology, NUMA nodes, caches and memory
# nodes in full): perf's header block (report's), then the lines; a
# pipe's header-only is its layout block alone (its features are records)
for o in --header --header-only "--header-only -I" "--header -I"; do
	check "script $o: perf's bytes (a file)" \
		cmp -s <("$TALLY" script $o -i "$d/perf-g.data" 2>/dev/null) <(perf script $o -i "$d/perf-g.data" 2>/dev/null)
done
perf record -q -o - -- "$B" 50 2>/dev/null >"$d/pipe.data"
for o in --header --header-only; do
	check "script $o: perf's bytes (a pipe)" \
		cmp -s <("$TALLY" script $o -i - <"$d/pipe.data" 2>/dev/null) <(perf script $o -i - <"$d/pipe.data" 2>/dev/null)
done
is "script --header-only of a pipe: 8 lines, as perf" "$("$TALLY" script --header-only -i - <"$d/pipe.data" | wc -l)" 8
# --per-event-dump: each event's lines in INPUT.EVENT.dump, perf's bytes
perf record -q -e cpu-clock,task-clock -c 100000 -g -o "$d/two.data" -- "$B" 200 >/dev/null 2>&1
perf script --per-event-dump -i "$d/two.data" >/dev/null 2>&1
for e in cpu-clock task-clock; do mv "$d/two.data.$e.dump" "$d/perf.$e.dump" 2>/dev/null; done
"$TALLY" script --per-event-dump -i "$d/two.data" >"$d/t.out" 2>"$d/t.err"
is "--per-event-dump: exit 0, nothing on stdout" "$?:$(wc -c <"$d/t.out")" "0:0"
for e in cpu-clock task-clock; do
	check "--per-event-dump: $e's file is perf's ($(wc -l <"$d/perf.$e.dump") lines)" \
		cmp -s "$d/two.data.$e.dump" "$d/perf.$e.dump"
	check "  and said" grep -q "Wrote .* $d/two.data.$e.dump (" "$d/t.err"
done
done_testing
