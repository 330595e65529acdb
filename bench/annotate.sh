#!/usr/bin/env bash
# bench/annotate.sh: tally annotate against perf annotate 6.1, both
# annotating every symbol of the same perf-written profile (make bench;
# prints one markdown section): python3 and gcc at work, hundreds of
# symbols in a dozen DSOs. perf forks objdump per symbol; tally
# disassembles in process. Rounds alternate the order.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
ROUNDS=${ANNOTATE_BENCH_ROUNDS:-1}

echo "## tally annotate vs perf annotate"
echo
if ! command -v perf >/dev/null || ! command -v objdump >/dev/null || ! command -v gcc >/dev/null; then
	echo "perf, objdump or gcc is missing: nothing to compare."
	exit 0
fi
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
cat >"$d/w.py" <<'PY'
import json, re, zlib, hashlib
d = {str(i): [i * j for j in range(40)] for i in range(3000)}
for _ in range(6):
    s = json.dumps(d); json.loads(s)
    zlib.compress(s.encode()); hashlib.sha256(s.encode()).hexdigest()
    re.findall(r"\d+7\d", s)
PY
{ echo '#include <stdio.h>'; for i in $(seq 300); do echo "int f$i(int x) { int s = 0; for (int k = 0; k < x; k++) s += k * $i ^ (s >> 3); return s; }"; done; } >"$d/big.c"
perf record -q -F 999 -g -o "$d/p.data" -- sh -c "python3 $d/w.py; gcc -O2 -c -o $d/big.o $d/big.c" >/dev/null 2>&1
python3 - "$TALLY" "$d/p.data" "$ROUNDS" <<'PY'
import re, statistics, subprocess, sys, time

tally, data, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])

def run(argv):
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "RSS %M"] + argv, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    t = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(argv), p.stderr[-2000:]))
    syms = p.stdout.count("Source code & Disassembly of")
    dsos = len(set(re.findall(r"Disassembly of (\S+) for", p.stdout)))
    return t, int(re.findall(r"RSS (\d+)", p.stderr)[-1]), syms, dsos

t, p = [], []
for i in range(rounds):
    order = [("t", [tally, "annotate", "--stdio", "-i", data]),
             ("p", ["perf", "annotate", "--stdio", "-i", data])]
    if i % 2:
        order.reverse()
    for who, c in order:
        (t if who == "t" else p).append(run(c))
wt, wp = statistics.median(x[0] for x in t), statistics.median(x[0] for x in p)
rt, rp = statistics.median(x[1] for x in t), statistics.median(x[1] for x in p)
print("A perf-written profile (`perf record -F 999 -g` of python3 at json, zlib, hashlib and re, "
      "then gcc -O2 compiling 300 functions), every symbol annotated, %d rounds each, medians:" % rounds)
print()
print("| command (`-i FILE`) | symbols annotated (DSOs) | tally | perf | tally/perf wall | tally/perf RSS |")
print("|---|---|---|---|---|---|")
print("| `annotate --stdio` | tally %d (%d), perf %d (%d) | %.0f ms, %d KiB | %.0f ms, %d KiB | %.3f | %.3f |" %
      (t[0][2], t[0][3], p[0][2], p[0][3], wt * 1e3, rt, wp * 1e3, rp, wt / wp, rt / rp))
PY
