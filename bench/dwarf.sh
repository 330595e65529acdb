#!/usr/bin/env bash
# bench/dwarf.sh: --call-graph dwarf. tally report against perf report on
# the same perf-written file (both unwind with libdw), and the file size
# per sample each recorder writes at the same stack size.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
echo "## --call-graph dwarf: tally report vs perf report"
echo
if ! command -v perf >/dev/null; then
	echo "perf is missing: nothing to compare."
	exit 0
fi
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
cp tests/data/progs/dw.c "$d/dw.c"
cc -O2 -fomit-frame-pointer -g -o "$d/dw" "$d/dw.c"
perf record -q -F 999 --call-graph dwarf -o "$d/p.data" -- "$d/dw" 40000 >/dev/null 2>&1
# many short processes of one program: a Dwfl each, the files shared
perf record -q -F 999 --call-graph dwarf -o "$d/mp.data" -- \
	sh -c "for i in \$(seq 80); do '$d/dw' 300; done" >/dev/null 2>&1
"$TALLY" record -q -F 999 --call-graph dwarf -o "$d/t.data" -- "$d/dw" 40000 >/dev/null 2>&1
python3 - "$TALLY" "$d" <<'PY'
import re, statistics, subprocess, sys, time, os
tally, d = sys.argv[1], sys.argv[2]
def run(argv, env=None):
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "RSS %M"] + argv, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, env=env)
    return time.perf_counter() - t0, int(re.findall(r"RSS (\d+)", p.stderr)[-1])
def samples(f):
    out = subprocess.run(["perf", "report", "--stats", "-i", f], capture_output=True, text=True).stdout
    m = re.search(r"SAMPLE events:\s+(\d+)", out)
    return int(m.group(1)) if m else 0
n = samples(d + "/p.data")
print("A perf-written dwarf file of %d samples (`perf record -F 999 --call-graph dwarf` of a "
      "program built with -O2 -fomit-frame-pointer), 3 rounds each, medians:" % n)
print()
print("| command (`-i FILE`) | tally | perf | tally/perf wall | tally/perf RSS |")
print("|---|---|---|---|---|")
import tempfile
rows = [(["report", "--stdio"], False, "p"), (["report", "--stdio"], True, "p"),
        (["report", "--stdio", "--no-children", "-g", "none"], False, "p"), (["script"], False, "p"),
        (["report", "--stdio"], False, "mp")]
for args, cold, f in rows:
    t, p = [], []
    for i in range(3):
        # cold: an empty cache directory, so kallsyms is read and libc's
        # debug file inflated in the run, as on a first report
        env = dict(os.environ)
        if cold:
            env["XDG_CACHE_HOME"] = tempfile.mkdtemp(dir=d)
        t.append(run([tally] + args + ["-i", d + "/" + f + ".data"], env))
        p.append(run(["perf"] + args + ["-i", d + "/" + f + ".data"]))
    wt, wp = statistics.median(x[0] for x in t), statistics.median(x[0] for x in p)
    rt, rp = statistics.median(x[1] for x in t), statistics.median(x[1] for x in p)
    print("| `%s`%s | %.0f ms, %d KiB | %.0f ms, %d KiB | %.3f | %.3f |" %
          (" ".join(args), " (cold caches)" if cold else
           " (80 processes, %d samples)" % samples(d + "/mp.data") if f == "mp" else "",
           wt * 1e3, rt, wp * 1e3, rp,
           wt / wp, rt / rp))
print()
print("tally keeps the parsed /proc/kallsyms per boot and an inflated copy of each compressed "
      "debug file by build id in ~/.cache/tally (reading kallsyms costs the kernel ~40 ms a run, "
      "inflating libc's DWARF ~37 ms); the cold row starts each run with an empty cache.")
print("In the 80-process file Debian's perf 6.1 (which unwinds with libunwind) stops most "
      "chains at __libc_start_call_main; tally's reach _start: it does more of the work there.")
print()
tn, pn = samples(d + "/t.data"), n
ts, ps = os.path.getsize(d + "/t.data"), os.path.getsize(d + "/p.data")
print("File size per sample at the default 8192-byte stack copy: tally %d bytes (%d samples), "
      "perf %d bytes (%d samples)." % (ts // max(tn, 1), tn, ps // max(pn, 1), pn))
PY
