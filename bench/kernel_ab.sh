#!/usr/bin/env bash
# bench/kernel_ab.sh BEFORE AFTER: two tally builds (a change's before and
# after) and perf on one recording of bench/kernel.sh's kind (its events,
# its load, KERNEL_BENCH_SECS seconds): sched latency, timehist, lock
# report and kmem stat --slab, each KERNEL_BENCH_ROUNDS times, the three
# alternating; median wall and CPU (user + sys), largest RSS. The two
# builds' outputs are compared first. Needs root and perf. Measured,
# never asserted. KERNEL_BENCH_DATA=FILE reads that recording (made by
# an earlier run's kind: record once, compare many builds on it) instead
# of recording one.
set -u
BUILD=${BUILD:-build}
HELPERS=${HELPERS:-$PWD/$BUILD/helpers}
ROUNDS=${KERNEL_BENCH_ROUNDS:-5}
SECS=${KERNEL_BENCH_SECS:-6}
. "$(dirname "$0")/lib/kernel_busy.sh"
if [ $# != 2 ] || [ "$(id -u)" != 0 ] || ! command -v perf >/dev/null; then
	echo "usage (root, with perf): $0 BEFORE-tally AFTER-tally" >&2
	exit 2
fi
before=$(realpath "$1") after=$(realpath "$2")
d=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$d"' EXIT
data=${KERNEL_BENCH_DATA:-$d/busy.data}
[ -n "${KERNEL_BENCH_DATA:-}" ] || kernel_busy_record "$data" /dev/null
echo "$(perf script -i "$data" -F event 2>/dev/null | wc -l) samples," \
	"$(du -m "$data" | cut -f1) MB; load $(cut -d" " -f1-3 /proc/loadavg)"
for c in "sched latency" "sched timehist" "sched map" "lock report" "lock contention" \
	"kmem stat --slab" "kmem stat"; do
	set -- $c
	sub=$1
	shift
	"$before" "$sub" -i "$data" "$@" >"$d/b.out" 2>&1
	"$after" "$sub" -i "$data" "$@" >"$d/a.out" 2>&1
	cmp -s "$d/b.out" "$d/a.out" && echo "tally $c: the same output" ||
		echo "tally $c: the outputs DIFFER"
done
echo
python3 - "$before" "$after" "$data" "$ROUNDS" <<'PY'
import os, statistics, sys, time

tools = {"old": sys.argv[1], "new": sys.argv[2], "perf": "perf"}
f, rounds = sys.argv[3], int(sys.argv[4])
cmds = [["sched", "latency"], ["sched", "timehist"], ["lock", "report"], ["kmem", "stat", "--slab"]]
dn = os.open(os.devnull, os.O_WRONLY)

def run(argv):
    t0 = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, dn, 1), (os.POSIX_SPAWN_DUP2, dn, 2)])
    _, st, ru = os.wait4(pid, 0)
    if st:
        sys.exit("failed (%d): %s" % (st, " ".join(argv)))
    return time.perf_counter() - t0, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024

print("| command | perf wall s | before wall s | after wall s | before / perf | after / perf "
      "| perf CPU s | before CPU s | after CPU s | after / before CPU | before RSS MB | after RSS MB |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for c in cmds:
    res = {k: [] for k in tools}
    for r in range(rounds):
        for k in (["old", "new", "perf"] if r % 2 == 0 else ["perf", "new", "old"]):
            res[k].append(run([tools[k], c[0], "-i", f] + c[1:]))
    w = {k: statistics.median(x[0] for x in v) for k, v in res.items()}
    u = {k: statistics.median(x[1] for x in v) for k, v in res.items()}
    m = {k: max(x[2] for x in v) for k, v in res.items()}
    print("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f |" % (
        " ".join(c), w["perf"], w["old"], w["new"], w["old"] / w["perf"], w["new"] / w["perf"],
        u["perf"], u["old"], u["new"], u["new"] / u["old"], m["old"], m["new"]))
PY
