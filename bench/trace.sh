#!/usr/bin/env bash
# bench/trace.sh: tally trace -s against perf trace -s and strace -c -f
# (make bench; prints one markdown section). A syscall-heavy workload,
# `work getpid N`, run bare and under each tracer in one round, in an
# order that alternates between rounds; the slowdown is the traced run's
# wall time over the bare run's of the same round (median of the rounds).
# Then the lines of `work enoent M` (M failing openat of one path): tally
# with the path strings its BPF program reads, and without (--no-strings),
# against perf trace and strace -f: the string path's own cost.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
HELPERS=${HELPERS:-$PWD/$BUILD/helpers}
ROUNDS=${TRACE_BENCH_ROUNDS:-3}
N=${TRACE_BENCH_N:-1000000}
M=${TRACE_BENCH_M:-100000}

echo "## tally trace vs perf trace and strace"
echo
if ! "$TALLY" list syscalls:sys_enter_getpid 2>/dev/null | grep -q getpid; then
	echo "No syscall tracepoints here: nothing to compare."
	exit 0
fi
python3 - "$TALLY" "$HELPERS/work" "$ROUNDS" "$N" "$M" <<'PY'
import os, shutil, statistics, sys, time

tally, work, rounds, n, m = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
devnull = os.open(os.devnull, os.O_WRONLY)

def run(argv):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                        (os.POSIX_SPAWN_DUP2, devnull, 2)])
    os.wait4(pid, 0)
    return (time.perf_counter_ns() - t0) / 1e9

def table(title, tools):
    res = {k: [] for k in tools}
    for r in range(rounds):
        order = list(tools)
        if r % 2:
            order.reverse()
        for k in order:
            res[k].append(run(tools[k]))
    print("%s (%d rounds; wall seconds, median; slowdown = traced / bare of the same round):" % (title, rounds))
    print()
    print("| tracer | wall s | slowdown |")
    print("|---|---:|---:|")
    slow = {}
    for k in tools:
        slow[k] = statistics.median([t / b for t, b in zip(res[k], res["bare"])])
        print("| %s | %.2f | %.1fx |" % (k, statistics.median(res[k]), slow[k]))
    print()
    return slow

out = ["-o", "/dev/null"]
bare = [work, "getpid", n]
tools = {"bare": bare, "tally trace -s": [tally, "trace", "-s"] + out + ["--"] + bare}
if shutil.which("perf"):
    tools["perf trace -s"] = ["perf", "trace", "-s"] + out + ["--"] + bare
if shutil.which("strace"):
    tools["strace -c -f"] = ["strace", "-c", "-f"] + out + bare
slow = table("### `work getpid %s`, the summary" % n, tools)
t = slow["tally trace -s"]
for k in ("perf trace -s", "strace -c -f"):
    if k in slow:
        print("- tally's slowdown is %.2f of %s's." % (t / slow[k], k))
print()

bare = [work, "enoent", m]
tools = {"bare": bare, "tally trace (strings)": [tally, "trace"] + out + ["--"] + bare,
         "tally trace --no-strings": [tally, "trace", "--no-strings"] + out + ["--"] + bare}
if shutil.which("perf"):
    tools["perf trace"] = ["perf", "trace"] + out + ["--"] + bare
if shutil.which("strace"):
    tools["strace -f"] = ["strace", "-f"] + out + bare
slow = table("### `work enoent %s`, every line (a path argument each)" % m, tools)
print("- the BPF string path costs %.0f%% more than pointers (%.1fx against %.1fx)."
      % (100 * (slow["tally trace (strings)"] / slow["tally trace --no-strings"] - 1),
         slow["tally trace (strings)"], slow["tally trace --no-strings"]))
for k in ("perf trace", "strace -f"):
    if k in slow:
        print("- tally's slowdown with strings is %.2f of %s's." % (slow["tally trace (strings)"] / slow[k], k))
PY
