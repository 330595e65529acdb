#!/usr/bin/env bash
# tally script --show-task-events, --show-mmap-events, --show-switch-events,
# --show-lost-events, --show-bpf-events, --show-cgroup-events and --show-round-events: the side-band records' lines among the samples,
# perf 6.1's line for line on the same files (perf's and tally's
# recordings, per thread and system-wide, -z, with -F and -C); the lines
# say what the workload did (its exec, its fork and exit, its program's
# mapping, its switches).
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed: no reference to compare with"; done_testing; exit 0; fi

perf record -q --switch-events -F 999 -o "$d/perf.data" -- sh -c "$B 50; sleep 0.05; $B 50" >/dev/null 2>&1
"$TALLY" record -q --switch-events -F 999 -o "$d/tally.data" -- sh -c "$B 50; sleep 0.05; $B 50" >/dev/null 2>&1
perf record -q -a --switch-events -F 999 -o "$d/perf-a.data" -- "$B" 100 >/dev/null 2>&1
"$TALLY" record -q -a -F 999 -o "$d/tally-a.data" -- "$B" 100 >/dev/null 2>&1
perf record -q -z -F 999 -o "$d/perf-z.data" -- "$B" 100 >/dev/null 2>&1
# burn's and the idle task's samples, and every side-band line: other
# programs' samples (sh's, sleep's, the machine's) bring symbol corners
# (a PLT hit is _init or name@plt by the shape of perf's symbol tree)
mine() { awk '$1 == "burn" || $1 == "swapper" || /PERF_RECORD_/'; }
for f in perf tally perf-a tally-a perf-z; do
	keep=mine
	# (a workload's recording has no CPU field: -C and -F cpu for the system-wide ones)
	case $f in
	*-a) more=("--show-task-events --show-mmap-events --show-switch-events -F comm,tid,cpu,time"
		   "--show-task-events --show-mmap-events -C 0") ;;
	*) more=("--show-task-events --show-mmap-events --show-switch-events -F comm,pid,tid,time") ;;
	esac
	for o in "--show-task-events" "--show-mmap-events" "--show-switch-events" "--show-lost-events" \
		 "${more[@]}"; do
		"$TALLY" script $o -i "$d/$f.data" 2>"$d/t.err" | $keep >"$d/t.out"
		rc=${PIPESTATUS[0]}
		perf script $o -i "$d/$f.data" 2>/dev/null | $keep >"$d/p.out"
		is "$f script $o: exits 0" "$rc" 0
		n=$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')
		is "$f script $o: perf's lines ($(grep -c PERF_RECORD "$d/p.out") records)" "$n" 0
		[ "$n" = 0 ] || diff "$d/t.out" "$d/p.out" | head -6 | sed 's/^/# /'
	done
done
# --show-round-events: each FINISHED_ROUND where perf shows it, every record in
# file order (perf turns its ordering off then): a crafted file whose sample
# after the second round is older than it, and the recordings
python3 "$(dirname "$0")/craft_data.py" rounds "$d/rounds.data"
for f in rounds perf tally tally-a; do
	for o in "--show-round-events" "--show-round-events --show-task-events --show-mmap-events -F comm,tid,time,ip"; do
		"$TALLY" script $o -i "$d/$f.data" >"$d/t.out" 2>/dev/null
		perf script $o -i "$d/$f.data" >"$d/p.out" 2>/dev/null
		same_lines "$f script $o ($(grep -c ROUND "$d/p.out") rounds)" "$d/t.out" "$d/p.out"
	done
done
check "rounds: the older sample after the second round, as the file has it" \
	sh -c "'$TALLY' script --show-round-events -F ip -i '$d/rounds.data' | tr -d ' ' | paste -sd, - | grep -q '^40000a,400014,40001e,PERF_RECORD_FINISHED_ROUND,400028,400032,PERF_RECORD_FINISHED_ROUND,40003c,400019,'"
# --reltime, --deltatime: the times since the first line, since the line before
for f in perf tally-a; do
	for o in "--reltime" "--deltatime" "--reltime --ns" "--deltatime --show-task-events --show-mmap-events"; do
		"$TALLY" script $o -i "$d/$f.data" 2>/dev/null | mine >"$d/t.out"
		perf script $o -i "$d/$f.data" 2>/dev/null | mine >"$d/p.out"
		is "$f script $o: perf's lines" "$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
	done
done
# (in ns, as integers: SEC.NSEC without the dot)
ns() { "$TALLY" script -F time --ns "$@" -i "$d/perf.data" 2>/dev/null | tr -d ' :.' | sed 's/^0*//; s/^$/0/'; }
ns >"$d/abs"
ns --reltime >"$d/rel"
ns --deltatime >"$d/delta"
is "--reltime: the first sample at 0" "$(head -1 "$d/rel")" 0
is "--reltime: the last one at last - first" "$(tail -1 "$d/rel")" "$(( $(tail -1 "$d/abs") - $(head -1 "$d/abs") ))"
is "--deltatime: the third line is the third time less the second" "$(sed -n 3p "$d/delta")" \
	"$(( $(sed -n 3p "$d/abs") - $(sed -n 2p "$d/abs") ))"
"$TALLY" script --reltime --deltatime -i "$d/perf.data" >/dev/null 2>"$d/e"
is "--reltime with --deltatime: usage error" "$?" 129
# what the workload did, read from tally's lines alone
"$TALLY" script --show-task-events --show-mmap-events --show-switch-events -i "$d/tally.data" >"$d/t.out" 2>/dev/null
check "the exec of burn: a COMM exec line" grep -q 'PERF_RECORD_COMM exec: burn:' "$d/t.out"
check "sh forks: a FORK line" grep -q 'PERF_RECORD_FORK(' "$d/t.out"
check "burn exits: an EXIT line" grep -q 'PERF_RECORD_EXIT(' "$d/t.out"
check "burn's program mapped: an MMAP2 line naming it, r-xp" grep -qE "PERF_RECORD_MMAP2 .* r-xp $B\$" "$d/t.out"
check "the sleep between: switches out and in" grep -q 'PERF_RECORD_SWITCH OUT' "$d/t.out"
check "without the options: no such line" test "$("$TALLY" script -i "$d/tally.data" 2>/dev/null | grep -c PERF_RECORD)" = 0

# --show-bpf-events: the KSYMBOL and BPF_EVENT records of the programs
# tally record --off-cpu loads while perf records the machine;
# --show-cgroup-events: the CGROUP records of perf record --all-cgroups
perf record -q -a -F 99 -o "$d/bpf.data" -- "$TALLY" record -q --off-cpu -o "$d/off.data" -- sleep 0.1 >/dev/null 2>&1
perf record -q -a -F 99 --all-cgroups -o "$d/cg.data" -- sleep 0.05 >/dev/null 2>&1
for f in bpf cg; do
	for o in "--show-bpf-events" "--show-cgroup-events" "--show-bpf-events --show-cgroup-events -F comm,tid,time"; do
		perf script $o -i "$d/$f.data" 2>/dev/null | mine >"$d/p"
		"$TALLY" script $o -i "$d/$f.data" 2>/dev/null | mine >"$d/t"
		cmp -s "$d/p" "$d/t" || { diff "$d/p" "$d/t" | head -6 | sed 's/^/# /'; keep "$d/$f.data"; }
		check "$f $o: perf's lines ($(grep -c PERF_RECORD "$d/p") records)" cmp -s "$d/p" "$d/t"
	done
done
n=$("$TALLY" script --show-bpf-events -i "$d/bpf.data" 2>/dev/null | grep -c 'PERF_RECORD_KSYMBOL addr .* name bpf_prog_')
check "the programs tally loaded: KSYMBOL lines ($n)" test "$n" -gt 0
check "the cgroups: a CGROUP line for the root" \
	sh -c "'$TALLY' script --show-cgroup-events -i '$d/cg.data' | grep -q 'PERF_RECORD_CGROUP cgroup: [0-9]* /\$'"
done_testing
