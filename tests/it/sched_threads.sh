#!/usr/bin/env bash
# tally sched keeps perf's threads where the records contradict each
# other, as perf 6.1's machine does: a recording patched so that a task
# no record named (tid Q) is first met as the task a wake-up names (perf
# makes it of pid 0), is named by an exec's COMM, then forks the
# pingpong's child (the FORK says its parent's pid is Q: perf drops the
# first Q, makes a new one of pid Q without a name, and the child
# inherits none), then is woken again. perf sched and tally sched print
# the same timehist (-w -S: names, pids, delays, the summary), latency
# and map on that file, and the patch shows in them.
. "$(dirname "$0")/lib.sh"
PW=$HELPERS/pipewake
Q=4000000
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed"; done_testing; exit 0; fi
if [ "$(id -u)" != 0 ]; then skip "sched record is system-wide: it needs root"; done_testing; exit 0; fi
waking=$(cat /sys/kernel/tracing/events/sched/sched_waking/id 2>/dev/null ||
	 cat /sys/kernel/debug/tracing/events/sched/sched_waking/id 2>/dev/null)
if [ -z "$waking" ]; then skip "no sched_waking tracepoint"; done_testing; exit 0; fi

perf sched record -q -o "$d/p.data" -- "$PW" pingpong 200 >/dev/null 2>&1
# the workload's exec COMM made Q's, the pingpong child's FORK made Q's
# (its parent), a sched_waking before the COMM and one after the FORK
# made to name Q
python3 - "$d/p.data" "$d/q.data" "$waking" "$Q" <<'PY' >"$d/patch.out"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
waking, q = int(sys.argv[3]), int(sys.argv[4])
data_off, data_size = struct.unpack_from("<QQ", b, 40)
off, end, wakings, forks, comms = data_off, data_off + data_size, [], [], []
while off + 8 <= end:
    typ, misc, size = struct.unpack_from("<IHH", b, off)
    if size < 8:
        break
    # IDENTIFIER|IP|TID|TIME|CPU|PERIOD|RAW: time at 32, raw size at 56, raw at 60
    if typ == 9 and size >= 96 and struct.unpack_from("<H", b, off + 60)[0] == waking:
        wakings.append((struct.unpack_from("<Q", b, off + 32)[0], off))
    if typ == 7:	# FORK: pid, ppid, tid, ptid, time
        t = struct.unpack_from("<Q", b, off + 24)[0]
        if t:
            forks.append((t, off, struct.unpack_from("<I", b, off + 16)[0],
                          struct.unpack_from("<I", b, off + 12)[0]))
    # an exec's COMM: the sample id (TID, TIME, CPU, IDENTIFIER) after the name
    if typ == 3 and misc & 0x2000 and b[off + 16:off + 25] == b"pipewake\0":
        comms.append((struct.unpack_from("<Q", b, off + size - 24)[0], off,
                      struct.unpack_from("<I", b, off + 8)[0]))
    off += size
if not comms or not forks:
    print("none"); sys.exit(0)
ct, coff, wpid = comms[-1]	# the workload's exec
after = [f for f in forks if f[0] > ct and f[3] == wpid]	# its pingpong child
if not after:
    print("none"); sys.exit(0)
ft, foff, child, _ = after[0]
w1 = [w for w in wakings if w[0] < ct]
w2 = [w for w in wakings if w[0] > ft]
if not w1 or not w2:
    print("none"); sys.exit(0)
struct.pack_into("<I", b, w1[-1][1] + 60 + 24, q)	# a wake-up names Q
struct.pack_into("<I", b, coff + 12, q)			# the COMM is Q's (tid)
struct.pack_into("<I", b, foff + 12, q)			# the FORK's ppid
struct.pack_into("<I", b, foff + 20, q)			# and ptid
struct.pack_into("<I", b, w2[0][1] + 60 + 24, q)	# a wake-up after it names Q
open(sys.argv[2], "wb").write(b)
print(child)
PY
child=$(cat "$d/patch.out")
if [ "$child" = none ] || [ -z "$child" ]; then
	fail "the recording has no exec, FORK and wake-ups to patch"
	done_testing; exit 0
fi
ok "patched: $Q woken, named by an exec, parent of $child, woken again"

same() {
	local name=$1; shift
	perf sched "$@" -i "$d/q.data" >"$d/p.out" 2>/dev/null
	"$TALLY" sched "$@" -i "$d/q.data" >"$d/t.out" 2>"$d/t.err"
	if [ -s "$d/p.out" ] && cmp -s "$d/p.out" "$d/t.out"; then ok "$name"
	else fail "$name: $(diff "$d/p.out" "$d/t.out" | head -6 | tr '\n' '|') $(head -c 200 "$d/t.err")"; fi
}
same "timehist -w -S as perf's" timehist -w -S
check "$Q woken before the FORK: of pid 0" grep -q "awakened: [^ ]*$Q\$" "$d/t.out"
check "$Q woken after the FORK: remade (its pid, no name)" grep -q "awakened: :$Q\[$Q\]\$" "$d/t.out"
check "$child, forked by the remade $Q: no name" grep -q " :$child\[$child\] " "$d/t.out"
same "timehist -s --state as perf's" timehist -s --state
same "timehist -M -n as perf's" timehist -M -n
same "latency -p as perf's" latency -p
same "map as perf's" map
done_testing
