#!/usr/bin/env bash
# bench/scale.sh: tally against perf 6.1 on files of 100K+ samples that perf
# records here (make bench; prints one markdown section), each tally command
# run warm and on a first run: an empty XDG_CACHE_HOME, so no symbol or
# kallsyms cache yet (perf keeps no such cache: each perf run reads
# /proc/kallsyms and the ELF files again; ~/.debug is left as it is for both).
# The files go to the cache directory real.sh uses (REAL_BENCH_CACHE; names
# scale-*; REAL_BENCH_FRESH=1 records again); REAL_BENCH_FILES picks files.
# Rounds alternate the three runs; the table shows each run's minimum.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
ROUNDS=${SCALE_BENCH_ROUNDS:-3}
C=${REAL_BENCH_CACHE:-$PWD/tmp/bench-cache}
R=$PWD/bench/real

echo "## Scale and first run: tally vs perf on 100K+ sample files"
echo
if ! command -v perf >/dev/null; then
	echo "perf is missing: nothing to compare."
	exit 0
fi
mkdir -p "$C"
[ "${REAL_BENCH_FRESH:-0}" = 1 ] && rm -f "$C"/scale-*.data
# its own translation unit: 19k lines (real.sh's big.c is 4k), so that the
# compiler's profile holds 100K+ samples on a fast machine too
[ -s "$C/scale-big.c" ] || python3 "$R/bigc.py" 1000 >"$C/scale-big.c"
PY='s=0
while True:
    for i in range(1000000):
        s += len(str(i * 7)) + (i % 13)'

rec() {
	local name=$1; shift
	[ -s "$C/$name.data" ] && return 0
	echo "recording $name" >&2
	(cd "$C" && perf record -q -o "$name.data.tmp" "$@" >/dev/null 2>&1) &&
		mv "$C/$name.data.tmp" "$C/$name.data"
}
rec scale-gcc -F 20000 -g -- gcc -O2 -g -c scale-big.c -o scale-gcc.o
if [ ! -s "$C/scale-system.data" ]; then
	# a busy machine for all 7 s: a compiler and an interpreter beside the recording
	(cd "$C" && exec timeout 8 sh -c 'while :; do gcc -O2 -c scale-big.c -o scale-busy.o; done') & b1=$!
	timeout 8 python3 -c "$PY" >/dev/null & b2=$!
	rec scale-system -a -g -F 10000 -- sleep 7
	wait $b1 $b2
fi

python3 - "$TALLY" "$C" "$ROUNDS" <<'PY'
import os, re, shutil, subprocess, sys, tempfile, time

tally, cache, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])

def run(argv, env=None):
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    t = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(argv), p.stderr[-2000:]))
    return t

def samples(f):
    out = subprocess.run(["perf", "report", "--stats", "-i", f], capture_output=True, text=True).stdout
    m = re.search(r"SAMPLE events:\s+(\d+)", out)
    return int(m.group(1)) if m else 0

files = [("scale-gcc", "`gcc -O2 -g -c` of bench/real/bigc.py's 19k-line file, `-F 20000 -g`"),
         ("scale-system", "`-a -g -F 10000` for 7 s of a machine compiling and running python")]
out = os.path.join(cache, "scale-picture.out")
warm = tempfile.mkdtemp(prefix="tally-scale-warm.")
print("Files recorded by `perf record` on this machine (bench/scale.sh; cached in %s), "
      "%d rounds, each run's minimum. `first` is tally with an empty `XDG_CACHE_HOME` (no "
      "symbol or kallsyms cache; perf keeps none, so each perf run is a first run: it reads "
      "/proc/kallsyms and the ELF symbol tables every time); `warm` reuses one cache "
      "directory. The picture is `tally report --flamegraph FILE` next to `perf script`. "
      "Target (issue 31): <= 0.1 of perf's wall, warm and first." % (os.path.relpath(cache), rounds))
print()
print("| file | command | tally warm | tally first | perf | warm/perf | first/perf |")
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
    for label, targs, pargs in (
            ("report --stdio", ["report", "--stdio"], ["report", "--stdio"]),
            ("script", ["script"], ["script"]),
            ("picture (--flamegraph / perf script)", ["report", "--flamegraph", out], ["script"])):
        tw, tf, p = [], [], []
        wenv = dict(os.environ, XDG_CACHE_HOME=warm)
        run([tally] + targs + ["-i", data], wenv)  # fills the warm cache
        for i in range(rounds):
            cold = tempfile.mkdtemp(prefix="tally-scale-first.")
            fenv = dict(os.environ, XDG_CACHE_HOME=cold)
            order = [(tw, [tally] + targs + ["-i", data], wenv),
                     (tf, [tally] + targs + ["-i", data], fenv),
                     (p, ["perf"] + pargs + ["-i", data], None)]
            for lst, c, env in order[i % 3:] + order[:i % 3]:
                lst.append(run(c, env))
            shutil.rmtree(cold)
        w, f, q = min(tw), min(tf), min(p)
        print("| | `%s` | %.0f ms | %.0f ms | %.0f ms | %.3f%s | %.3f%s |" %
              (label, w * 1e3, f * 1e3, q * 1e3, w / q, " over" if w / q > 0.1 else "",
               f / q, " over" if f / q > 0.1 else ""))
        sys.stdout.flush()
shutil.rmtree(warm)
os.path.exists(out) and os.remove(out)
print()
print("Minimums, since the machine is shared and its load varies between runs. "
      "To record the files again: `REAL_BENCH_FRESH=1 make bench`.")
PY
