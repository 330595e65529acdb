#!/usr/bin/env bash
# tally record when things go wrong: Ctrl-C, SIGTERM, SIGUSR2 snapshots
# and a crashing workload each leave a complete file perf reads; a full
# disk ends with a clear error and a file valid up to what was written;
# 2,000,000 getpid at -c 1 give samples + lost == N exactly, less the side-band
# records lost (never a record twice); lost samples are shown; exit status is the workload's.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
B=$HELPERS/burn
TP=syscalls:sys_enter_getpid
d=$(mktemp -d)
cleanup() { umount "$d/small" 2>/dev/null; rm -rf "$d"; }
trap cleanup EXIT

# SAMPLE and LOST totals of a file, as perf counts them ("S L").
perf_counts() {
	perf report --stats -i "$1" 2>/dev/null | awk '
		/^ *SAMPLE events:/ && !s { s = $3 }
		/^ *LOST events:/ && !l { l = 1 }
		END { print s + 0 }'
}
# perf script reads FILE with rc 0 and no error line.
perf_ok() {
	perf script -i "$1" >/dev/null 2>"$d/err"; local rc=$?
	[ $rc -eq 0 ] && ! grep -qiE 'error|corrupt|fail' "$d/err"
}
# The ring's side-band records (COMM, EXIT, MMAP2) in a file: the kernel's
# lost count covers every record it could not write, these included.
sideband() {
	perf report --stats -i "$1" 2>/dev/null | awk '
		/^ *(COMM|EXIT|MMAP2) events:/ && !seen[$1]++ { n += $3 }
		END { print n + 0 }'
}
# Wait until tally has started recording (its workload runs).
wait_running() { local _; for _ in $(seq 300); do pgrep -f "$1" >/dev/null && return; sleep 0.01; done; }

if ! have_perf; then
	skip "no perf to read the files with"
	done_testing; exit 0
fi

# Signals to tally while the workload runs: a valid file every time.
for sig in INT TERM; do
	"$TALLY" record -F 999 -g -o "$d/$sig.data" -- "$B" 20000 >/dev/null 2>"$d/$sig.err" &
	tp=$!
	wait_running "$B 20000"; sleep 0.4
	kill -$sig $tp; wait $tp; rc=$?
	pkill -f "$B 20000" 2>/dev/null
	check "SIG$sig: tally says how much it wrote" grep -q 'Captured and wrote' "$d/$sig.err"
	check "SIG$sig: perf script reads the file" perf_ok "$d/$sig.data"
	check "SIG$sig: the file has samples" [ "$(perf_counts "$d/$sig.data")" -gt 0 ]
done

# No command (-a): the signal that ends the recording ends tally too once
# the file is written, as perf (SIGTERM 143, SIGINT 130)
for sig in TERM INT; do
	"$TALLY" record -a -e cpu-clock -o "$d/a$sig.data" >/dev/null 2>"$d/a$sig.err" &
	tp=$!
	for _ in $(seq 200); do [ -s "$d/a$sig.data" ] && break; sleep 0.01; done; sleep 0.3
	kill -$sig $tp; wait $tp; rc=$?
	perf record -a -e cpu-clock -o "$d/p$sig.data" >/dev/null 2>&1 &
	pp=$!
	for _ in $(seq 200); do [ -s "$d/p$sig.data" ] && break; sleep 0.01; done; sleep 0.3
	kill -$sig $pp; wait $pp; prc=$?
	is "-a ended by SIG$sig: exit status as perf's" "$rc" "$prc"
	check "-a ended by SIG$sig: perf script reads the file" perf_ok "$d/a$sig.data"
done

# A crashing workload: its status (128 + SIGSEGV), a valid file.
"$TALLY" record -q -F 999 -o "$d/crash.data" -- "$B" 200 crash >/dev/null 2>&1; rc=$?
is "crashing workload: exit status 139" "$rc" 139
check "crashing workload: perf script reads the file" perf_ok "$d/crash.data"

# Exit status passthrough and the shell's 127/126.
"$TALLY" record -q -o "$d/x.data" -- sh -c 'exit 7' >/dev/null 2>&1
is "workload's exit status" "$?" 7
"$TALLY" record -q -o "$d/x.data" -- /nonexistent/cmd >/dev/null 2>&1
is "command not found: 127" "$?" 127
printf '#!/bin/sh\nexit 0\n' >"$d/noexec"; chmod 644 "$d/noexec"
"$TALLY" record -q -o "$d/x.data" -- "$d/noexec" >/dev/null 2>&1
is "not executable: 126" "$?" 126

# perf.data.old keeps the previous file
"$TALLY" record -q -o "$d/o.data" -- true && "$TALLY" record -q -o "$d/o.data" -- true
check "the previous file is kept as FILE.old" [ -s "$d/o.data.old" ]

# SIGUSR2 with --overwrite --switch-output=signal: a snapshot file each time.
"$TALLY" record -q --overwrite --switch-output=signal -F 999 -o "$d/fr.data" -- "$B" 20000 >/dev/null 2>&1 &
tp=$!
wait_running "$B 20000"; sleep 0.4
kill -USR2 $tp; sleep 0.3
kill -INT $tp; wait $tp
pkill -f "$B 20000" 2>/dev/null
snap=$(ls "$d"/fr.data.* 2>/dev/null | grep -v '\.old$' | head -1)
check "SIGUSR2 wrote a snapshot file" [ -n "$snap" ]
[ -n "$snap" ] && check "perf script reads the snapshot" perf_ok "$snap"
[ -n "$snap" ] && check "the snapshot has burn_a samples" sh -c "perf script -i '$snap' 2>/dev/null | grep -q burn_a"

# --overwrite snapshots are disjoint (as perf's): each holds what the rings
# got since the one before. The workload asks for them itself (its parent is
# tally), so each batch of getpid lands in one snapshot; the ring holds all.
if have_tp; then
	"$TALLY" record -q --overwrite --switch-output=signal -m 256 -e $TP -c 1 -o "$d/dj.data" -- \
		sh -c "$W getpid 2000; kill -USR2 \$PPID; sleep 0.5; $W getpid 3000; kill -USR2 \$PPID;
		       sleep 0.5; $W getpid 4000" >/dev/null 2>&1
	got="" last=0 overlap=0
	for f in $(ls "$d"/dj.data.* 2>/dev/null | grep -v '\.old$' | sort); do
		read -r n lo hi < <(perf script -i "$f" -F comm,time 2>/dev/null | tr -d : | awk '
			$1 == "work" { n++; t = $2 + 0; if (!n0++ || t < lo) lo = t; if (t > hi) hi = t }
			END { printf "%d %.6f %.6f\n", n, lo, hi }')
		got="$got $n"
		awk -v a="$last" -v b="$lo" 'BEGIN { exit !(b > a) }' || overlap=1
		last=$hi
	done
	is "--overwrite snapshots: each batch once (2000, 3000, 4000)" "$got" " 2000 3000 4000"
	is "--overwrite snapshots: their time ranges do not overlap" "$overlap" 0
else
	skip "no syscalls tracepoints"; skip "no syscalls tracepoints"
fi

# A full disk: the error first, no "Captured and wrote" for what was not
# written, the command stopped with SIGTERM (said), exit 1, and the file
# valid up to what was written, its samples counted as perf counts them.
mkdir -p "$d/small"
if mount -t tmpfs -o size=300k tmpfs "$d/small" 2>/dev/null; then
	# a fixed period: perf_event_max_sample_rate (which the kernel lowers
	# on slow interrupts) does not apply; 10000 samples a CPU second fill
	# it. A fixed amount of work (~6 CPU s), not of wall time: on a loaded
	# machine 3 s of wall once gave too few samples to fill it
	"$TALLY" record -e cpu-clock -c 100000 -g -o "$d/small/f.data" -- "$B" -r 30000 >/dev/null 2>"$d/full.err"; rc=$?
	is "full disk: exit 1, tally's error" "$rc" 1
	check "full disk: the error comes first ($(head -1 "$d/full.err"))" \
		sh -c "head -1 '$d/full.err' | grep -q 'writing $d/small/f.data: No space left on device'"
	check "full disk: no 'Captured and wrote' claim" sh -c "! grep -q 'Captured and wrote' '$d/full.err'"
	check "full disk: the command's SIGTERM is said" grep -q 'recording stopped there, and .* was sent SIGTERM' "$d/full.err"
	check "full disk: perf script reads what was written" perf_ok "$d/small/f.data"
	shown=$(sed -n 's/.* holds [0-9.]* MB (\([0-9]*\) samples): what was written before the error.*/\1/p' "$d/full.err")
	is "full disk: the last line counts the samples the file holds" "$shown" "$(perf_counts "$d/small/f.data")"
	umount "$d/small"
else
	for _ in 1 2 3 4 5 6; do skip "cannot mount a small tmpfs here"; done
fi

# Exactness at a high rate: never a record twice, never one silently lost.
if have_tp; then
	N=2000000
	# The kernel's lost count is of records: a side-band one (COMM, MMAP2,
	# EXIT) lost counts too. So the side-band records of a run that loses
	# nothing (the same workload, fewer calls) tell how many of them went
	# (the 2M run lost 854,327 of a loaded CI once, its EXIT among them).
	"$TALLY" record -e $TP -c 1 -o "$d/ref.data" -- "$W" getpid 1000 >/dev/null 2>&1
	sb0=$(sideband "$d/ref.data")
	"$TALLY" record -e $TP -c 1 -o "$d/big.data" -- "$W" getpid $N >/dev/null 2>"$d/big.err"; rc=$?
	is "2M getpid: exit 0" "$rc" 0
	s=$(perf_counts "$d/big.data")
	lost=$(sed -n 's/.*[Ll]ost \([0-9]*\) samples.*/\1/p' "$d/big.err" | head -1)
	sbl=$((sb0 - $(sideband "$d/big.data")))
	is "2M getpid: samples + lost == N + side-band records lost ($sbl; samples $s, lost ${lost:-0})" \
		"$((s + ${lost:-0} - sbl))" "$N"
	# A ring too small to keep up: the loss is counted and shown.
	"$TALLY" record -m 1 -e $TP -c 1 -o "$d/lost.data" -- "$W" getpid 300000 >/dev/null 2>"$d/lost.err"
	s=$(perf_counts "$d/lost.data")
	lost=$(sed -n 's/.*[Ll]ost \([0-9]*\) samples.*/\1/p' "$d/lost.err" | head -1)
	if [ -n "$lost" ]; then
		sbl=$((sb0 - $(sideband "$d/lost.data")))
		is "-m 1: samples + shown lost == N + side-band records lost ($sbl)" "$((s + lost - sbl))" 300000
		# perf 6.1's LOST_SAMPLES records (the kernel's count per fd) carry it
		pl=$(perf report --stdio -i "$d/lost.data" 2>/dev/null | sed -n 's/^# Total Lost Samples: //p')
		is "-m 1: perf report's Total Lost Samples is the loss tally said" "$pl" "$lost"
		tl=$("$TALLY" report --stdio -i "$d/lost.data" 2>/dev/null | sed -n 's/^# Total Lost Samples: //p')
		is "-m 1: tally report's Total Lost Samples too" "$tl" "$lost"
	else
		is "-m 1: nothing lost, so every sample is there" "$s" 300000
	fi
else
	skip "no getpid tracepoint"
fi
done_testing
