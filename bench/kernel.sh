#!/usr/bin/env bash
# bench/kernel.sh: tally sched, lock and kmem against perf's on one
# recording of a busy machine (make bench; prints one markdown section).
# The recording is made here, not committed: `perf record -a` of perf
# sched record's events, lock:contention_begin/end and the slab events
# for KERNEL_BENCH_SECS seconds while a load runs on both CPUs (a pipe
# ping-pong, threads contending for the mmap lock, a shell forking). Each
# command then reads that one file, tally and perf alternating, ROUNDS
# times: the median wall and CPU time (user + sys: on a shared machine
# the wall carries the others' load) and the largest peak RSS of each,
# and their ratios (tally / perf). Measured, never asserted.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
HELPERS=${HELPERS:-$PWD/$BUILD/helpers}
ROUNDS=${KERNEL_BENCH_ROUNDS:-3}
SECS=${KERNEL_BENCH_SECS:-6}
. "$(dirname "$0")/lib/kernel_busy.sh"

echo "## sched, lock, kmem: tally against perf on one busy machine's recording"
echo
if [ "$(id -u)" != 0 ] || ! command -v perf >/dev/null; then
	echo "Recording the kernel's tracepoints system-wide needs root and perf."
	exit 0
fi
d=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$d"' EXIT
kernel_busy_record "$d/busy.data" "$d/rec.err"
if [ ! -s "$d/busy.data" ]; then
	echo "perf record failed: $(head -c 300 "$d/rec.err")"
	exit 0
fi
size=$(du -m "$d/busy.data" | cut -f1)
nsamples=$(perf script -i "$d/busy.data" -F event 2>/dev/null | wc -l)
echo "\`perf record -a -R -c 1 -m 1024\` of $((${#evs[@]} / 2)) tracepoints ($(printf '%s ' "${evs[@]}" | sed 's/-e //g; s/ $//'))"
echo "for ${SECS} s under a pipe ping-pong, 2 threads on the mmap lock and a forking"
echo "shell: ${nsamples} samples, ${size} MB. Each command ${ROUNDS} times, tally and perf"
echo "alternating; wall and CPU (user + sys): median, RSS: the largest. Load: $(cut -d" " -f1-3 /proc/loadavg)."
echo
python3 - "$TALLY" "$d/busy.data" "$ROUNDS" <<'PY'
import os, statistics, sys, time

tally, f, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
cmds = [
    ("sched latency", ["sched", "latency"], ["sched", "latency"]),
    ("sched timehist", ["sched", "timehist"], ["sched", "timehist"]),
    ("lock report", ["lock", "report"], ["lock", "report"]),
    ("kmem stat --slab", ["kmem", "stat", "--slab"], ["kmem", "stat", "--slab"]),
]
dn = os.open(os.devnull, os.O_WRONLY)

def run(argv):
    t0 = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, dn, 1), (os.POSIX_SPAWN_DUP2, dn, 2)])
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if status:
        sys.exit("failed (%d): %s" % (status, " ".join(argv)))
    return wall, ru.ru_maxrss, ru.ru_utime + ru.ru_stime

print("| command | perf wall s | tally wall s | wall ratio | perf CPU s | tally CPU s | CPU ratio "
      "| perf RSS MB | tally RSS MB | RSS ratio |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for name, t_args, p_args in cmds:
    sub_t = [tally] + t_args[:1] + ["-i", f] + t_args[1:]
    sub_p = ["perf"] + p_args[:1] + ["-i", f] + p_args[1:]
    res = {"t": [], "p": []}
    for r in range(rounds):
        for k in (("t", "p") if r % 2 == 0 else ("p", "t")):
            res[k].append(run(sub_t if k == "t" else sub_p))
    tw = statistics.median(r[0] for r in res["t"])
    pw = statistics.median(r[0] for r in res["p"])
    tc = statistics.median(r[2] for r in res["t"])
    pc = statistics.median(r[2] for r in res["p"])
    tr = max(r[1] for r in res["t"]) / 1024
    pr = max(r[1] for r in res["p"]) / 1024
    print("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f | %.3f |"
          % (name, pw, tw, tw / pw, pc, tc, tc / pc, pr, tr, tr / pr))
print()
PY
# what no command on this file goes under here: its records walked, nothing parsed
if [ -x "$BUILD/bench/walk_floor" ]; then
	echo "The walk's floor (bench/walk_floor: the records walked in file order, nothing parsed or queued):"
	echo "$("$BUILD/bench/walk_floor" "$d/busy.data" "$ROUNDS" | sed 's|^walk [^:]*: ||')."
	echo
fi
