#!/usr/bin/env bash
# bench/real.sh: tally against perf 6.1 on files perf records here of real
# programs (make bench; prints one markdown section): a compiler run, python3,
# a C++ program, node with its JIT map, and the whole machine. The files are
# recorded on the machine running the bench, once, into a cache directory
# (REAL_BENCH_CACHE, default tmp/bench-cache; REAL_BENCH_FRESH=1 records
# again), so nothing large is committed. Rounds alternate tally and perf.
# REAL_BENCH_FILES="gcc-g system-g" runs those files alone.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
ROUNDS=${REAL_BENCH_ROUNDS:-3}
C=${REAL_BENCH_CACHE:-$PWD/tmp/bench-cache}
R=$PWD/bench/real

echo "## Real programs: tally vs perf on files perf recorded"
echo
if ! command -v perf >/dev/null; then
	echo "perf is missing: nothing to compare."
	exit 0
fi
mkdir -p "$C"
[ "${REAL_BENCH_FRESH:-0}" = 1 ] && rm -f "$C"/*.data
[ -s "$C/big.c" ] || python3 "$R/bigc.py" 200 >"$C/big.c"
[ -x "$C/wordfreq" ] || g++ -O2 -g -o "$C/wordfreq" "$R/wordfreq.cc"
PY='s=0
for i in range(3000000):
    s += len(str(i * 7)) + (i % 13)
print(s)'
JS='function f(n){let s=0;for(let i=0;i<n;i++){s+=String(i*7).length+(i%13)}return s}
let t=0;for(let k=0;k<40;k++)t+=f(200000);console.log(t)'

# rec NAME PERF-RECORD-ARGS -- COMMAND: record NAME.data unless cached
rec() {
	local name=$1; shift
	[ -s "$C/$name.data" ] && return 0
	echo "recording $name" >&2
	(cd "$C" && perf record -q -o "$name.data.tmp" "$@" >/dev/null 2>&1) &&
		mv "$C/$name.data.tmp" "$C/$name.data"
}
rec gcc-g -F 999 -g -- gcc -O2 -g -c big.c -o big-g.o
# perf 6.1 unwinds cc1 slowly (80 s for 2,300 samples): a lower rate here
rec gcc-dwarf -F 99 --call-graph dwarf -- gcc -O2 -g -c big.c -o big-dwarf.o
rec python-g -F 999 -g -- python3 -c "$PY"
rec python-dwarf -F 499 --call-graph dwarf -- python3 -c "$PY"
rec cxx-g -F 999 -g -- ./wordfreq 300
rec node-jit -F 999 -g -- node --perf-basic-prof -e "$JS"
if [ ! -s "$C/system-g.data" ]; then
	# a busy machine: a compiler and an interpreter running beside the recording
	(cd "$C" && gcc -O2 -c big.c -o busy.o) & b1=$!
	python3 -c "$PY" >/dev/null & b2=$!
	rec system-g -a -g -F 999 -- sleep 4
	wait $b1 $b2
fi

python3 - "$TALLY" "$C" "$ROUNDS" <<'PY'
import os, re, statistics, subprocess, sys, time

tally, cache, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])

def run(argv):
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "RSS %M"] + argv, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    t = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(argv), p.stderr[-2000:]))
    return t, int(re.findall(r"RSS (\d+)", p.stderr)[-1])

def samples(f):
    out = subprocess.run(["perf", "report", "--stats", "-i", f], capture_output=True, text=True).stdout
    m = re.search(r"SAMPLE events:\s+(\d+)", out)
    return int(m.group(1)) if m else 0

files = [("gcc-g", "`gcc -O2 -g -c` of a generated 19k-line C file, `-F 999 -g`"),
         ("gcc-dwarf", "the same compile, `-F 99 --call-graph dwarf`"),
         ("python-g", "python3 running a loop, `-F 999 -g`"),
         ("python-dwarf", "the same loop, `-F 499 --call-graph dwarf`"),
         ("cxx-g", "a C++ program (regex, map, sort; bench/real/wordfreq.cc), `-F 999 -g`"),
         ("node-jit", "node --perf-basic-prof running a loop, `-F 999 -g`"),
         ("system-g", "`-a -g -F 999` for 4 s of a machine compiling and running python")]
out = os.path.join(cache, "picture.out")
print("Files recorded by `perf record` on this machine (bench/real.sh; cached in %s), "
      "%d paired rounds each, medians. The picture is `tally report --flamegraph FILE` next to "
      "`perf script` (the first step of perf's `perf script | stackcollapse | flamegraph` path). "
      "Targets (issue 19): report and picture <= 0.1 of perf's wall time, script <= 0.2, "
      "dwarf files <= 0.2, peak RSS <= 0.5; `over` marks a row above its target." %
      (os.path.relpath(cache), rounds))
print()
print("| file | command | tally | perf | tally/perf wall | tally/perf RSS | target |")
print("|---|---|---|---|---|---|---|")
only = os.environ.get("REAL_BENCH_FILES", "").split()
for name, what in files:
    if only and name not in only:
        continue
    data = os.path.join(cache, name + ".data")
    if not os.path.exists(data):
        print("| %s | not recorded | | | | | |" % name)
        continue
    print("| **%s**: %s; %d samples, %d KiB | | | | | | |" %
          (name, what, samples(data), os.path.getsize(data) // 1024))
    dwarf = "dwarf" in name
    for label, targs, pargs, goal in (
            ("report --stdio", ["report", "--stdio"], ["report", "--stdio"], 0.1),
            ("report --stdio --no-children", ["report", "--stdio", "--no-children"],
             ["report", "--stdio", "--no-children"], 0.1),
            ("script", ["script"], ["script"], 0.2),
            ("picture (--flamegraph / perf script)", ["report", "--flamegraph", out], ["script"], 0.1)):
        if dwarf:
            goal = 0.2
        t, p = [], []
        for i in range(rounds):
            if i and max(x[0] for x in p) > 20:
                break  # one round where perf alone takes this long
            order = [("t", [tally] + targs + ["-i", data]), ("p", ["perf"] + pargs + ["-i", data])]
            if i % 2:
                order.reverse()
            for who, c in order:
                (t if who == "t" else p).append(run(c))
        ratios = [a[0] / b[0] for a, b in zip(t, p)]
        wt, wp = statistics.median(x[0] for x in t), statistics.median(x[0] for x in p)
        rt, rp = statistics.median(x[1] for x in t), statistics.median(x[1] for x in p)
        r = statistics.median(ratios)
        print("| | `%s` | %.0f ms, %d KiB | %.0f ms, %d KiB | %.3f | %.3f | %.1f%s |" %
              (label, wt * 1e3, rt, wp * 1e3, rp, r, rt / rp, goal,
               " over" if r > goal or rt / rp > 0.5 else ""))
        sys.stdout.flush()
os.path.exists(out) and os.remove(out)
print()
print("The wall ratio is the median of the per-round ratios (each round runs both, in "
      "alternating order). To record the files again: `REAL_BENCH_FRESH=1 make bench`.")
PY
