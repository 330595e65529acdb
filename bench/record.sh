#!/usr/bin/env bash
# bench/record.sh: tally record against perf record on the same work
# (make bench; prints one markdown section). Rounds alternate the order
# of tally and perf so machine drift hits both.
#  1. fixed cost: `record -q -o F -- true`, wall and peak RSS;
#  2. 2e6 getpid with syscalls:sys_enter_getpid at -c 1: wall, peak RSS,
#     samples written and lost;
#  3. burn -r 8000 (fixed CPU-bound work) at -F 999 -g and -F 4000 -g:
#     the slowdown over a bare run, and the file size.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
HELPERS=${HELPERS:-$PWD/$BUILD/helpers}
ROUNDS=${RECORD_BENCH_ROUNDS:-5}
FIXED_ROUNDS=${RECORD_BENCH_FIXED_ROUNDS:-10}

echo "## tally record vs perf record"
echo
if ! command -v perf >/dev/null; then
	echo "perf is missing: nothing to compare."
	exit 0
fi
make --no-print-directory "$BUILD/helpers/burn" >/dev/null
"$TALLY" list syscalls:sys_enter_getpid >/dev/null 2>&1	# mounts tracefs if need be
python3 - "$TALLY" "$HELPERS" "$ROUNDS" "$FIXED_ROUNDS" <<'PY'
import os, re, statistics, subprocess, sys, tempfile, time

tally, helpers, rounds, fixed_rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
work, burn = helpers + "/work", helpers + "/burn"
tmp = tempfile.mkdtemp()

def run(argv):
    """(wall s, peak RSS KiB, stderr) of argv run under /usr/bin/time."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "RSS %M"] + argv, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    t = time.perf_counter() - t0
    rss = int(re.findall(r"RSS (\d+)", p.stderr)[-1])
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(argv), p.stderr[-2000:]))
    return t, rss, p.stderr

def samples(path):
    out = subprocess.run(["perf", "report", "--stats", "-i", path], capture_output=True, text=True).stdout
    s = re.search(r"SAMPLE events:\s+(\d+)", out)
    return int(s.group(1)) if s else 0

def lost(err):
    m = re.search(r"[Ll]ost (\d+) samples", err) or re.search(r"(\d+) samples lost", err)
    return int(m.group(1)) if m else 0

def paired(cmd_t, cmd_p, n):
    rt, rp = [], []
    for i in range(n):
        order = [("t", cmd_t), ("p", cmd_p)] if i % 2 == 0 else [("p", cmd_p), ("t", cmd_t)]
        for who, c in order:
            (rt if who == "t" else rp).append(run(c))
    return rt, rp

def med(xs):
    return statistics.median(xs)

def fmt_ms(s):
    return "%.1f ms" % (s * 1e3)

print("Commands (FILE in a scratch directory):")
print()
ft, fp = os.path.join(tmp, "t.data"), os.path.join(tmp, "p.data")

# 1. fixed cost
t, p = paired([tally, "record", "-q", "-o", ft, "--", "true"],
              ["perf", "record", "-q", "-o", fp, "--", "true"], fixed_rounds)
wt, wp = med([x[0] for x in t]), med([x[0] for x in p])
rt_, rp_ = med([x[1] for x in t]), med([x[1] for x in p])
print("### 1. fixed cost: `record -q -o FILE -- true` (%d rounds each)" % fixed_rounds)
print()
print("| | tally | perf | tally/perf |")
print("|---|---|---|---|")
print("| wall (median) | %s | %s | %.3f |" % (fmt_ms(wt), fmt_ms(wp), wt / wp))
print("| peak RSS (median) | %d KiB | %d KiB | %.3f |" % (rt_, rp_, rt_ / rp_))
print()

# 2. 2e6 getpid at -c 1
N = 2000000
bare = [run([work, "getpid", str(N)])[0] for _ in range(rounds)]
ev = ["-e", "syscalls:sys_enter_getpid", "-c", "1"]
t, p = paired([tally, "record"] + ev + ["-o", ft, "--", work, "getpid", str(N)],
              ["perf", "record"] + ev + ["-o", fp, "--", work, "getpid", str(N)], rounds)
st, sp = samples(ft), samples(fp)
lt, lp = lost(t[-1][2]), lost(p[-1][2])
wb, wt, wp = med(bare), med([x[0] for x in t]), med([x[0] for x in p])
rt_, rp_ = med([x[1] for x in t]), med([x[1] for x in p])
print("### 2. `record -e syscalls:sys_enter_getpid -c 1 -- work getpid 2000000` (%d rounds each)" % rounds)
print()
print("| | tally | perf | tally/perf |")
print("|---|---|---|---|")
print("| wall (median; bare loop %s) | %s (%.1fx) | %s (%.1fx) | %.3f |" % (
    fmt_ms(wb), fmt_ms(wt), wt / wb, fmt_ms(wp), wp / wb, wt / wp))
print("| peak RSS (median) | %d KiB | %d KiB | %.3f |" % (rt_, rp_, rt_ / rp_))
print("| samples in the file (last round) | %d | %d | |" % (st, sp))
print("| lost, as reported (last round) | %d | %d | |" % (lt, lp))
print("| samples + lost - N | %+d | %+d | |" % (st + lt - N, sp + lp - N))
print()

# 3. CPU-bound at -F 999 -g and -F 4000 -g
print("### 3. `record -F F -g -- burn -r 8000` (fixed work): slowdown and file size (%d rounds each)" % rounds)
print()
print("| -F | bare | tally (slowdown) | perf (slowdown) | tally file | perf file | size tally/perf |")
print("|---|---|---|---|---|---|---|")
for f in ("999", "4000"):
    bare = [run([burn, "-r", "8000"])[0] for _ in range(rounds)]
    t, p = paired([tally, "record", "-q", "-F", f, "-g", "-o", ft, "--", burn, "-r", "8000"],
                  ["perf", "record", "-q", "-F", f, "-g", "-o", fp, "--", burn, "-r", "8000"], rounds)
    wb, wt, wp = med(bare), med([x[0] for x in t]), med([x[0] for x in p])
    zt, zp = os.path.getsize(ft), os.path.getsize(fp)
    print("| %s | %s | %s (%.3fx) | %s (%.3fx) | %d KiB | %d KiB | %.3f |" % (
        f, fmt_ms(wb), fmt_ms(wt), wt / wb, fmt_ms(wp), wp / wb, zt // 1024, zp // 1024, zt / zp))
print()
print("Slowdown = the recorded run's wall time over the bare run's, for the same")
print("fixed work (both tools' start and finish costs included).")
PY
