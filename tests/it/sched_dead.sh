#!/usr/bin/env bash
# tally sched timehist's summary (and latency's atoms) keep the threads a FORK rebuilds, as
# perf 6.1 keeps them on its machine's dead list: each still prints its
# runs, under the pid, parent and name it had, after the threads of its
# tid % 256 (live ones first, then exited ones, in their own section).
# A recording of two pingpongs run one after the other (P1 forks C1, C1
# exits, P2 forks C2), patched: a run just before C1's FORK made C1's
# (a thread C1 that FORK rebuilds: ":C1[C1]", parent -1), a wake-up
# then a run made to be of tid Q (perf makes Q of pid 0 from the
# wake-up: ":Q"), and P2's FORK says its parent is Q (known as pid 0:
# rebuilt) and its child C1 (C1 exited: the reused tid rebuilt, its
# "NAME[C1]" line stays among the terminated). perf sched and
# tally sched print the same summaries of that one file.
. "$(dirname "$0")/lib.sh"
Q=4000001
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
# a name of its own: other tests may run pipewake meanwhile (the recording is system-wide)
PW=$d/pw$$
cp "$HELPERS/pipewake" "$PW"

if ! have_perf; then skip "perf is not installed"; done_testing; exit 0; fi
if [ "$(id -u)" != 0 ]; then skip "sched record is system-wide: it needs root"; done_testing; exit 0; fi
tp_id() {
	cat "/sys/kernel/tracing/events/sched/$1/id" 2>/dev/null ||
		cat "/sys/kernel/debug/tracing/events/sched/$1/id" 2>/dev/null
}
switch=$(tp_id sched_switch) waking=$(tp_id sched_waking)
if [ -z "$switch" ] || [ -z "$waking" ]; then
	skip "no sched_switch or sched_waking tracepoint"; done_testing; exit 0
fi

if ! perf sched record -q -o "$d/p.data" -- sh -c "$PW pingpong 50; $PW pingpong 50" \
	>/dev/null 2>"$d/rec.err"; then
	fail "perf sched record: $(head -c 300 "$d/rec.err")"; done_testing; exit 0
fi
python3 - "$d/p.data" "$d/q.data" "$switch" "$waking" "$Q" "pw$$" <<'PY' >"$d/patch.out"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
switch, waking, q = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
name = sys.argv[6].encode()[:15] + b"\0"
data_off, data_size = struct.unpack_from("<QQ", b, 40)
off, end = data_off, data_off + data_size
switches, wakings, forks, exits, execs = [], [], [], [], []
while off + 8 <= end:
    typ, misc, size = struct.unpack_from("<IHH", b, off)
    if size < 8:
        break
    # IDENTIFIER|IP|TID|TIME|CPU|PERIOD|RAW: time at 32, raw size at 56, raw
    # at 60 (common_type), the prev_pid or pid at 60 + 24 in both kinds
    if typ == 9 and size >= 96:
        t, kind = struct.unpack_from("<Q", b, off + 32)[0], struct.unpack_from("<H", b, off + 60)[0]
        task = struct.unpack_from("<i", b, off + 84)[0]
        if kind == switch and task != 0:
            switches.append((t, off))
        if kind == waking:
            wakings.append((t, off))
    if typ in (4, 7):	# EXIT, FORK: pid, ppid, tid, ptid, time
        pid, ppid, tid, ptid, t = struct.unpack_from("<IIIIQ", b, off + 8)
        if t:
            (forks if typ == 7 else exits).append((t, off, tid, ptid))
    if typ == 3 and misc & 0x2000 and b[off + 16:off + 16 + len(name)] == name:
        # an exec's COMM: its time in the sample id (TID, TIME, CPU, IDENTIFIER) after the name
        execs.append((struct.unpack_from("<Q", b, off + size - 24)[0],
                      struct.unpack_from("<I", b, off + 12)[0]))
    off += size
# the file holds each CPU's records in turn: by time, P1 first
execs = [tid for t, tid in sorted(execs)]
switches.sort()
wakings.sort()
def fork_of(parent):
    f = [x for x in forks if x[3] == parent]
    return f[0] if f else None
f1 = fork_of(execs[0]) if len(execs) == 2 else None
f2 = fork_of(execs[1]) if len(execs) == 2 else None
if not f1 or not f2:
    print("none: %d execs of %s, FORKs %s %s" % (len(execs), name[:-1].decode(), f1, f2))
    sys.exit(0)
c1 = f1[2]
e1 = [x for x in exits if x[2] == c1 and f1[0] < x[0] < f2[0]]
s2 = [s for s in switches if s[0] < f1[0]]
sq = [s for s in switches if f1[0] < s[0] < f2[0]]
wq = [w for w in wakings if sq and w[0] < sq[-1][0]]
if not e1 or not s2 or not sq or not wq:
    print("none: C1's EXIT %s, runs %d before, %d between, %d wake-ups"
          % (e1, len(s2), len(sq), len(wq)))
    sys.exit(0)
def run_of(s, tid):	# the switch's task (sample pid, tid, prev_pid) is tid
    struct.pack_into("<ii", b, s[1] + 24, tid, tid)
    struct.pack_into("<i", b, s[1] + 84, tid)
run_of(s2[-1], c1)				# C1 ran before its FORK,
struct.pack_into("<q", b, s2[-1][1] + 92, 0)	# preempted (prev_state R): its wait
						# for the CPU is the old thread's atom
struct.pack_into("<i", b, wq[-1][1] + 84, q)	# Q first met woken: of pid 0
run_of(sq[-1], q)				# and ran
struct.pack_into("<IIII", b, f2[1] + 8, c1, q, c1, q)	# P2's FORK: C1, child of Q
open(sys.argv[2], "wb").write(b)
print(c1, execs[0])
PY
read -r c1 p1 <"$d/patch.out"
if [ "$c1" = none: ] || [ -z "$p1" ]; then
	fail "the recording has no two pingpongs' FORKs, EXIT, runs and wake-ups to patch: $(cat "$d/patch.out")"
	done_testing; exit 0
fi
ok "patched: C1 $c1 ran before its FORK, Q woken and ran, P2's FORK of C1 by Q"

same() {
	local name=$1; shift
	perf sched "$@" -i "$d/q.data" >"$d/p.out" 2>/dev/null
	"$TALLY" sched "$@" -i "$d/q.data" >"$d/t.out" 2>"$d/t.err"
	if [ -s "$d/p.out" ] && cmp -s "$d/p.out" "$d/t.out"; then ok "$name"
	else fail "$name: $(diff "$d/p.out" "$d/t.out" | head -6 | tr '\n' '|') $(head -c 200 "$d/t.err")"; fi
}
same "timehist -s as perf's" timehist -s
# the summary's sections: the live threads, then the terminated ones
awk '/^Terminated tasks:/ { t = 1 } /^Idle stats:/ { t = 0 } { print > (t ? "'"$d/dead"'" : "'"$d/live"'") }' "$d/t.out"
check "Q, rebuilt as P2's parent: its runs stay under pid 0, parent -1" \
	grep -Eq "^ *:$Q +-1 +1 " "$d/live"
check "C1's thread before its FORK: its run stays, parent -1" \
	grep -Eq "^ *:$c1\[$c1\] +-1 +1 " "$d/live"
check "C1 exited, its tid reused by P2's FORK: its runs stay among the terminated" \
	grep -Eq "^ *pw$$\[$c1\] +$p1 " "$d/dead"
same "timehist -S --state as perf's" timehist -S --state
same "timehist -s -p $c1 as perf's" timehist -s -p "$c1"
# perf's latency keeps atoms by thread object: C1's runs after its FORK are
# the new thread's, named as its parent, merged with the other pingpongs;
# its wake-up after the FORK starts the new thread's first atom, though the
# old one's preempted C1 still waited for the CPU
same "latency as perf's" latency
same "latency -p as perf's" latency -p
same "map as perf's" map
done_testing
