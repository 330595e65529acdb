#!/usr/bin/env bash
# bench/stat.sh: tally stat against perf stat (make bench; prints one
# markdown section). Paired design: each round runs tally and perf back to
# back in alternating order, so machine drift hits both; we report the
# per-pair ratio tally/perf (median and a 95% t interval of the mean ratio).
#  1. fixed cost: `stat -- true` wall time and peak RSS (wait4 ru_maxrss);
#  2. per-event overhead: `stat -e syscalls:sys_enter_getpid -- work getpid
#     1e6` minus the bare `work getpid 1e6` of the same round.
# hyperfine (when installed) gives an unpaired cross-check of (1).
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
HELPERS=${HELPERS:-$PWD/$BUILD/helpers}
RUNS=${STAT_BENCH_RUNS:-200}
LOOP_RUNS=${STAT_BENCH_LOOP_RUNS:-30}
N=1000000

echo "## tally stat vs perf stat"
echo
if ! command -v perf >/dev/null || ! perf stat -e task-clock true 2>/dev/null; then
	echo "perf is missing or cannot count here: nothing to compare."
	exit 0
fi
python3 - "$TALLY" "$HELPERS/work" "$RUNS" "$LOOP_RUNS" "$N" <<'PY'
import math, os, statistics, sys, time

tally, work, runs, loop_runs, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
devnull = os.open(os.devnull, os.O_WRONLY)

def run(argv):
    """Wall ns of one run, stdout/stderr to /dev/null."""
    t0 = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                        (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, ru = os.wait4(pid, 0)
    t1 = time.perf_counter_ns()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s" % " ".join(argv))
    return t1 - t0, 0

def peak_rss(argv, reps=15):
    """Median peak RSS (KiB) by /usr/bin/time: a small launcher, since a
    child spawned from this Python process inherits its RSS high-water
    mark through exec."""
    out = []
    for _ in range(reps):
        r = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.dup2(devnull, 1)
            os.dup2(r[1], 2)
            os.execvp("/usr/bin/time", ["/usr/bin/time", "-f", "RSS %M"] + argv)
        os.close(r[1])
        err = b""
        while True:
            chunk = os.read(r[0], 65536)
            if not chunk:
                break
            err += chunk
        os.close(r[0])
        os.waitpid(pid, 0)
        for line in err.decode(errors="replace").splitlines():
            if line.startswith("RSS "):
                out.append(int(line.split()[1]))
    return statistics.median(out)

def tq(df):
    # two-sided 95% t quantile (table; df >= 30 is close to 1.96)
    tab = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31,
           9: 2.26, 10: 2.23, 15: 2.13, 20: 2.09, 25: 2.06, 30: 2.04}
    for k in sorted(tab):
        if df <= k:
            return tab[k]
    return 1.98 if df < 120 else 1.96

def ci(xs):
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, 0.0
    return m, tq(len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))

def paired(a_argv, b_argv, rounds, base_argv=None, warm=5):
    a, b, base = [], [], []
    for i in range(rounds + warm):
        order = [("a", a_argv), ("b", b_argv)]
        if base_argv:
            order.append(("base", base_argv))
        if i % 2:
            order.reverse()
        res = {k: run(v) for k, v in order}
        if i < warm:
            continue
        a.append(res["a"]); b.append(res["b"])
        if base_argv:
            base.append(res["base"])
    return a, b, base

def ms(ns):
    return ns / 1e6

print("Machine: %d CPUs, kernel %s. Each figure is over %d paired rounds (order"
      % (os.cpu_count(), os.uname().release, runs))
print("alternating); ratio = tally / perf per round; +- is a 95% t interval of the mean.")
print()

# 1. fixed cost
a, b, base = paired([tally, "stat", "--", "true"], ["perf", "stat", "--", "true"], runs,
                    base_argv=["true"])
wt, wp, wb = [x[0] for x in a], [x[0] for x in b], [x[0] for x in base]
ratio = [x / y for x, y in zip(wt, wp)]
ft = [x - z for x, z in zip(wt, wb)]
fp = [y - z for y, z in zip(wp, wb)]
fratio = [x / y for x, y in zip(ft, fp) if y > 0]
m, h = ci(ratio)
fm, fh = ci(fratio)
rss_t = peak_rss([tally, "stat", "--", "true"])
rss_p = peak_rss(["perf", "stat", "--", "true"])
rss_b = peak_rss(["true"])
print("### `stat -- true` (fixed cost: default events, fork, exec, print)")
print()
print("Fixed cost = `stat -- true` minus a bare `true` of the same round.")
print()
print("| | tally | perf | bare `true` | tally / perf (paired) |")
print("|---|---:|---:|---:|---:|")
print("| wall, median | %.2f ms | %.2f ms | %.2f ms | median %.3f, mean %.3f +- %.3f |"
      % (ms(statistics.median(wt)), ms(statistics.median(wp)), ms(statistics.median(wb)),
         statistics.median(ratio), m, h))
print("| fixed cost, median | %.2f ms | %.2f ms | | median %.3f, mean %.3f +- %.3f |"
      % (ms(statistics.median(ft)), ms(statistics.median(fp)), statistics.median(fratio), fm, fh))
print("| peak RSS, median | %.1f MiB | %.1f MiB | %.1f MiB | %.3f |"
      % (rss_t / 1024, rss_p / 1024, rss_b / 1024, rss_t / rss_p))
fr = statistics.median(fratio)
print()
print("Target (fixed cost at most a fifth of perf's): **%s** (median paired fixed-cost"
      " ratio %.3f; whole-run wall ratio %.3f; peak RSS ratio %.3f)."
      % ("met" if fr <= 0.2 else "not met", fr, statistics.median(ratio), rss_t / rss_p))
print()

# 2. per-event overhead on a tracepoint
ev = "syscalls:sys_enter_getpid"
a, b, base = paired([tally, "stat", "-e", ev, "--", work, "getpid", n],
                    ["perf", "stat", "-e", ev, "--", work, "getpid", n],
                    loop_runs, base_argv=[work, "getpid", n], warm=2)
ot = [x[0] - z[0] for x, z in zip(a, base)]
op = [y[0] - z[0] for y, z in zip(b, base)]
bt, bp, bb = ([x[0] for x in v] for v in (a, b, base))
d = [x - y for x, y in zip(ot, op)]
md, hd = ci(d)
print("### `stat -e %s -- work getpid %s` (per-event overhead)" % (ev, n))
print()
print("Overhead = the run under the counter minus the bare `work getpid %s` of the"
      % n)
print("same round (%d rounds)." % loop_runs)
print()
print("| | tally | perf | bare workload |")
print("|---|---:|---:|---:|")
print("| wall, median | %.1f ms | %.1f ms | %.1f ms |"
      % (ms(statistics.median(bt)), ms(statistics.median(bp)), ms(statistics.median(bb))))
print("| overhead, median | %.1f ms | %.1f ms | |" % (ms(statistics.median(ot)), ms(statistics.median(op))))
print()
print("tally - perf overhead, paired: %+.1f ms +- %.1f ms (negative: tally cheaper)." % (ms(md), ms(hd)))
print("The counting itself is the kernel's (the same tracepoint hook for both); the")
print("difference is each tool's fixed cost.")
PY
if command -v hyperfine >/dev/null; then
	echo
	echo "hyperfine cross-check (unpaired, \`-N\`; on this shared 2-CPU VM background"
	echo "noise moves unpaired means by milliseconds, hence the paired figures above):"
	echo
	echo '```'
	hyperfine -N -w 5 -r 100 "$TALLY stat -- true" "perf stat -- true" 2>/dev/null |
		grep -E 'Benchmark|Time|faster' | sed "s|$TALLY|tally|"
	echo '```'
fi
