#!/usr/bin/env bash
# bench/report.sh: tally report and tally script against perf 6.1 on the
# same perf-written file (make bench; prints one markdown section): two
# CPU-bound processes recorded by perf with cpu-clock -c 20000 -g.
# Rounds alternate the order of tally and perf.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
HELPERS=${HELPERS:-$PWD/$BUILD/helpers}
ROUNDS=${REPORT_BENCH_ROUNDS:-3}
MS=${REPORT_BENCH_MS:-10000}

echo "## tally report / tally script vs perf report / perf script"
echo
if ! command -v perf >/dev/null; then
	echo "perf is missing: nothing to compare."
	exit 0
fi
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
B=$HELPERS/burn
perf record -q -e cpu-clock -c 20000 -g -o "$d/big.data" -- sh -c "$B $MS & $B $MS; wait" >/dev/null 2>&1
python3 - "$TALLY" "$d/big.data" "$ROUNDS" "$B" <<'PY'
import os, re, statistics, subprocess, sys, time

tally, data, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])

def run(argv):
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "RSS %M"] + argv, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    t = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(argv), p.stderr[-2000:]))
    return t, int(re.findall(r"RSS (\d+)", p.stderr)[-1])

stats = subprocess.run(["perf", "report", "--stats", "-i", data], capture_output=True, text=True).stdout
m = re.search(r"SAMPLE events:\s+(\d+)", stats)
print("A perf-written file of %s samples with call chains (`perf record -e cpu-clock -c 20000 -g` "
      "of two `burn` processes), %d rounds each, medians:" % (m.group(1) if m else "?", rounds))
print()
print("| command (`-i FILE`) | tally | perf | tally/perf wall | tally/perf RSS |")
print("|---|---|---|---|---|")
for args in (["report", "--stdio"],
             ["report", "--stdio", "--no-children", "--sort", "comm,dso,sym"],
             ["report", "--stdio", "--no-children", "-g", "none", "--sort", "comm,dso,sym"],
             ["script"]):
    t, p = [], []
    for i in range(rounds):
        order = [("t", [tally] + args + ["-i", data]), ("p", ["perf"] + args + ["-i", data])]
        if i % 2:
            order.reverse()
        for who, c in order:
            (t if who == "t" else p).append(run(c))
    wt, wp = statistics.median(x[0] for x in t), statistics.median(x[0] for x in p)
    rt, rp = statistics.median(x[1] for x in t), statistics.median(x[1] for x in p)
    print("| `%s` | %.0f ms, %d KiB | %.0f ms, %d KiB | %.3f | %.3f |" %
          (" ".join(args), wt * 1e3, rt, wp * 1e3, rp, wt / wp, rt / rp))
# --sort srcline on a smaller file: perf 6.1 forks addr2line per DSO and address
small = data + ".small"
subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-c", "200000", "-g", "-o", small, "--",
                sys.argv[4], "1500"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
args = ["report", "--stdio", "--no-children", "-g", "none", "--sort", "srcline"]
t = run([tally] + args + ["-i", small])
p = run(["perf"] + args + ["-i", small])
print("| `%s` (a %d KiB file) | %.0f ms, %d KiB | %.0f ms, %d KiB | %.3f | %.3f |" %
      (" ".join(args), os.path.getsize(small) // 1024, t[0] * 1e3, t[1], p[0] * 1e3, p[1],
       t[0] / p[0], t[1] / p[1]))
# the pictures, next to what perf users run for them today: perf script
# piped to a stack collapser (perf script alone is the floor of that path)
print()
print("Pictures from the same file, each next to `perf script` (the first step of the "
      "`perf script | stackcollapse-perf.pl | flamegraph.pl` path perf users take):")
print()
print("| export (`tally report -i FILE ...`) | tally | `perf script` | tally/perf wall | output |")
print("|---|---|---|---|---|")
ps = run(["perf", "script", "-i", data])
out = data + ".out"
for opt in ("--folded", "--flamegraph", "--pprof", "--speedscope", "--firefox", "--html"):
    argv = [tally, "report", "-i", data, opt] + ([] if opt == "--folded" else [out])
    if opt == "--folded":
        t0 = time.perf_counter()
        with open(out, "w") as f:
            p = subprocess.run(["/usr/bin/time", "-f", "RSS %M"] + argv, stdout=f,
                               stderr=subprocess.PIPE, text=True)
        t = (time.perf_counter() - t0, int(re.findall(r"RSS (\d+)", p.stderr)[-1]))
    else:
        t = run(argv)
    size = os.path.getsize(out)
    print("| `%s` | %.0f ms, %d KiB | %.0f ms, %d KiB | %.3f | %d KiB |" %
          (opt, t[0] * 1e3, t[1], ps[0] * 1e3, ps[1], t[0] / ps[0], size // 1024))
    if opt == "--html":
        chrome = next((c for c in ("/usr/bin/chromium", "/usr/bin/chromium-browser")
                       if os.path.exists(c)), None)
        if chrome:
            os.rename(out, out + ".html")
            t0 = time.perf_counter()
            subprocess.run([chrome, "--headless=new", "--no-sandbox", "--disable-gpu",
                            "--dump-dom", "file://" + out + ".html"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            print()
            print("The page: %d KiB; Chromium headless loads, lays out and runs it "
                  "(`--dump-dom`, browser start included) in %.0f ms." %
                  (os.path.getsize(out + ".html") // 1024, (time.perf_counter() - t0) * 1e3))
            os.remove(out + ".html")
os.path.exists(out) and os.remove(out)

print()
print("`report --stdio` is perf's default: children and call graphs. tally takes the kernel's symbols "
      "from its per-boot cache of /proc/kallsyms (~/.cache/tally; on a first run it reads and parses "
      "kallsyms on a second thread while it reads the file) and resolves kernel addresses after reading.")
PY
