#!/usr/bin/env bash
# bench/offcpu.sh: what `tally record --off-cpu` costs a context-switch
# heavy workload (make bench; prints one markdown section): a pipe
# ping-pong of N round trips (`pipewake pingpong N`: every pass wakes the
# other side), bare, under `tally record` and under `tally record
# --off-cpu`, in an order that alternates between rounds; the slowdown
# is the recorded run's wall time over the bare run's of the same round
# (median of the rounds). Debian's perf has no --off-cpu (built without
# BPF skeletons): the bare run is the reference. Measured, never asserted.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
HELPERS=${HELPERS:-$PWD/$BUILD/helpers}
ROUNDS=${OFFCPU_BENCH_ROUNDS:-5}
N=${OFFCPU_BENCH_N:-200000}

echo "## tally record --off-cpu: overhead on a pipe ping-pong"
echo
if [ "$(id -u)" != 0 ]; then
	echo "--off-cpu loads a BPF program: run as root to measure it."
	exit 0
fi
make --no-print-directory "$BUILD/helpers/pipewake" >/dev/null
python3 - "$TALLY" "$HELPERS/pipewake" "$ROUNDS" "$N" <<'PY'
import os, statistics, subprocess, sys, tempfile, time

tally, pw, rounds, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
tmp = tempfile.mkdtemp()
out = os.path.join(tmp, "o.data")
runs = {
    "bare": [pw, "pingpong", n],
    "tally record": [tally, "record", "-q", "-o", out, "--", pw, "pingpong", n],
    "tally record --off-cpu": [tally, "record", "-q", "--off-cpu", "-o", out, "--",
                               pw, "pingpong", n],
    "tally record -g --off-cpu": [tally, "record", "-q", "-g", "--off-cpu", "-o", out,
                                  "--", pw, "pingpong", n],
}

def run(argv):
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(argv), p.stderr[-2000:]))
    return time.perf_counter() - t0

res = {k: [] for k in runs}
for r in range(rounds):
    order = list(runs) if r % 2 == 0 else list(reversed(runs))
    for k in order:
        res[k].append(run(runs[k]))
print("`pipewake pingpong %s` (%d rounds; wall seconds, median; slowdown = recorded / bare "
      "of the same round):" % (n, rounds))
print()
print("| run | wall s | slowdown |")
print("|---|---:|---:|")
for k in runs:
    slow = statistics.median(t / b for t, b in zip(res[k], res["bare"]))
    print("| %s | %.3f | %.2fx |" % (k, statistics.median(res[k]), slow))
print()
subprocess.run(["rm", "-rf", tmp])
PY
