#!/usr/bin/env python3
# bench/ab.py OLD NEW KEYS ROUNDS: two tally binaries (or OLD = perf: perf's
# own command for each key) on bench/scale.sh's files, run alternating
# ROUNDS times; prints each key's medians and NEW/OLD. The files are
# REAL_BENCH_CACHE's (default tmp/bench-cache; `make bench` records them).
# KEYS, comma-separated: rgcc, sgcc, fgcc (report --stdio, script,
# report --flamegraph of scale-gcc; perf: report, script, script), rsys,
# ssys, fsys (scale-system's); lat, th, lock, kmem (sched latency, sched
# timehist, lock report, kmem stat --slab of bench/kernel.sh's busy.data);
# mem, c2c (report --sort mem, c2c report of bench/branch.sh's files).
# FIRST=1: each tally run with an empty
# XDG_CACHE_HOME (a first run), else one warm cache for all.
# Example: python3 bench/ab.py /tmp/tally.old build/tally rgcc,sgcc 11
import os, shutil, statistics, subprocess, sys, tempfile, time

if len(sys.argv) != 5:
    sys.exit("usage: ab.py OLD NEW KEYS ROUNDS (OLD may be perf)")
old, new, keys, rounds = sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4])
C = os.environ.get("REAL_BENCH_CACHE", "tmp/bench-cache")
first = os.environ.get("FIRST") == "1"
out = os.path.join(tempfile.mkdtemp(), "picture.svg")
T = {}
for short, name in (("gcc", "scale-gcc"), ("sys", "scale-system")):
    f = os.path.join(C, name + ".data")
    T["r" + short] = (["report", "--stdio", "-i", f], ["report", "--stdio", "-i", f])
    T["s" + short] = (["script", "-i", f], ["script", "-i", f])
    T["f" + short] = (["report", "--flamegraph", out, "-i", f], ["script", "-i", f])

b = os.path.join(C, "busy.data")
for k, a in (("lat", ["sched", "latency"]), ("th", ["sched", "timehist"]),
             ("lock", ["lock", "report"]), ("kmem", ["kmem", "stat", "--slab"])):
    T[k] = (a[:1] + ["-i", b] + a[1:], a[:1] + ["-i", b] + a[1:])
g = os.path.join(C, "branch-gen")
m = ["report", "--stdio", "--no-branch-stack", "--mem-mode", "--sort", "mem", "-i",
     os.path.join(g, "mkfields.br-1000000-32.data")]
T["mem"] = (m, m)
c = ["c2c", "report", "--stdio", "-i", os.path.join(g, "mkc2c.c2c-1000000.data")]
T["c2c"] = (c, c)

def run(argv, env):
    t = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    return time.perf_counter() - t

warm = tempfile.mkdtemp()
for k in keys:
    if k not in T:
        sys.exit("ab.py: no key %s (%s)" % (k, ", ".join(sorted(T))))
    targs, pargs = T[k]
    cmds = [["perf"] + pargs if b == "perf" else [b] + targs for b in (old, new)]
    env = dict(os.environ, XDG_CACHE_HOME=warm)
    for c in cmds:
        run(c, env)	# the warm cache filled, the files in the page cache
    res = [[], []]
    for r in range(rounds):
        for j in ((0, 1) if r % 2 == 0 else (1, 0)):
            e = env
            if first and cmds[j][0] != "perf":
                e = dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp())
            res[j].append(run(cmds[j], e))
    a, b = statistics.median(res[0]), statistics.median(res[1])
    print("%-5s old %.3f s  new %.3f s  new/old %.3f" % (k, a, b, b / a), flush=True)
shutil.rmtree(warm, ignore_errors=True)
