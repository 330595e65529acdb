#!/usr/bin/env bash
# bench/branch.sh: issue 33's measured targets (make bench; prints one
# markdown section). Two synthetic files written at bench time by the test
# generators (tests/helpers, our own writers, not tally's library) into
# the cache directory (REAL_BENCH_CACHE, default tmp/bench-cache):
# mkfields brmem, BRANCH_BENCH_SAMPLES (1M) samples with DEPTH (32) entry
# branch stacks, data sources, weights and data addresses; mkc2c's mix of
# c2c's loads and stores repeated to as many samples, under c2c's event
# names. The generator is copied next to its file: the samples lie in its
# code, so the file names that copy, which a rebuild does not change.
# Each command reads one file, tally and perf alternating, ROUNDS times:
# the median wall and CPU (user + sys), the largest peak RSS, their ratios
# (tally / perf) against the issue's targets (wall <= 0.1 of perf's, 0.2
# for script; RSS <= 0.5). Measured, never asserted.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
HELPERS=${HELPERS:-$PWD/$BUILD/helpers}
ROUNDS=${BRANCH_BENCH_ROUNDS:-3}
N=${BRANCH_BENCH_SAMPLES:-1000000}
DEPTH=${BRANCH_BENCH_DEPTH:-32}
C=${REAL_BENCH_CACHE:-$PWD/tmp/bench-cache}

echo "## Issue 33's targets: branch stacks, data sources, c2c on ${N} synthetic samples"
echo
if ! command -v perf >/dev/null; then
	echo "perf is missing: nothing to compare."
	exit 0
fi
G=$C/branch-gen
mkdir -p "$G" || exit 0
# gen NAME HELPER ARGS...: $C/NAME.data by the cached copy of HELPER, again when it changed
gen() {
	local name=$1 h=$2; shift 2
	if ! cmp -s "$HELPERS/$h" "$G/$h"; then
		cp "$HELPERS/$h" "$G/$h.tmp" && mv "$G/$h.tmp" "$G/$h" && rm -f "$G/$h".*.data
	fi
	[ -s "$G/$h.$name.data" ] && return 0
	echo "writing $name" >&2
	"$G/$h" "$G/$h.$name.data.tmp" "$@" && mv "$G/$h.$name.data.tmp" "$G/$h.$name.data"
}
gen "br-$N-$DEPTH" mkfields brmem "$N" "$DEPTH" || { echo "mkfields brmem failed"; exit 0; }
gen "c2c-$N" mkc2c a "$N" || { echo "mkc2c failed"; exit 0; }
BR=$G/mkfields.br-$N-$DEPTH.data C2C=$G/mkc2c.c2c-$N.data

# --branch-history: refused (129) by a tally without it, as it parses the options (no file read)
"$TALLY" report --stdio --branch-history -i "$G/none.data" >/dev/null 2>&1
[ $? = 129 ] && BH=0 || BH=1
echo "\`mkfields brmem $N $DEPTH\` ($(du -m "$BR" | cut -f1) MB) and \`mkc2c a $N\` ($(du -m "$C2C" | cut -f1) MB)."
echo "Each command $ROUNDS times, tally and perf alternating, output to /dev/null; wall and"
echo "CPU (user + sys): median, RSS: the largest. Load: $(cut -d" " -f1-3 /proc/loadavg)."
echo
python3 - "$TALLY" "$BR" "$C2C" "$ROUNDS" "$BH" <<'PY'
import os, statistics, sys, time

tally, br, c2c, rounds, bh = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
# name, the arguments (tally's and perf's), the file, the wall target (RSS: 0.5)
cmds = [
    ("report --branch-history", ["report", "--stdio", "--branch-history"], br, 0.1),
    ("report -b (branch mode)", ["report", "--stdio", "-b"], br, 0.1),
    # perf takes the file's branch stacks for branch mode, which --mem-mode refuses
    ("report --sort mem", ["report", "--stdio", "--no-branch-stack", "--mem-mode", "--sort", "mem"],
     br, 0.1),
    ("c2c report --stdio", ["c2c", "report", "--stdio"], c2c, 0.1),
    ("script -F brstacksym", ["script", "-F", "brstacksym"], br, 0.2),
]
dn = os.open(os.devnull, os.O_WRONLY)

def run(argv):
    t0 = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, dn, 1), (os.POSIX_SPAWN_DUP2, dn, 2)])
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if status:
        return None
    return wall, ru.ru_maxrss, ru.ru_utime + ru.ru_stime

print("| command | perf wall s | tally wall s | wall ratio | target | perf CPU s | tally CPU s "
      "| CPU ratio | perf RSS MB | tally RSS MB | RSS ratio | met |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for name, args, f, target in cmds:
    sub_t = [tally] + args + ["-i", f]
    sub_p = ["perf"] + args + ["-i", f]
    if name.startswith("report --branch-history") and not bh:
        print("| %s | | tally: not built | | %.1f | | | | | | | |" % (name, target))
        continue
    res = {"t": [], "p": []}
    for r in range(rounds):
        for k in (("t", "p") if r % 2 == 0 else ("p", "t")):
            res[k].append(run(sub_t if k == "t" else sub_p))
    if None in res["t"] or None in res["p"]:
        who = "tally" if None in res["t"] else "perf"
        print("| %s | | | | %.1f | | | | | | | %s failed |" % (name, target, who))
        continue
    tw = statistics.median(r[0] for r in res["t"])
    pw = statistics.median(r[0] for r in res["p"])
    tc = statistics.median(r[2] for r in res["t"])
    pc = statistics.median(r[2] for r in res["p"])
    tr = max(r[1] for r in res["t"]) / 1024
    pr = max(r[1] for r in res["p"]) / 1024
    met = [w for w, ok in (("wall", tw / pw <= target), ("RSS", tr / pr <= 0.5)) if not ok]
    print("| %s | %.2f | %.2f | %.3f | %.1f | %.2f | %.2f | %.3f | %.0f | %.0f | %.3f | %s |"
          % (name, pw, tw, tw / pw, target, pc, tc, tc / pc, pr, tr, tr / pr,
             "yes" if not met else "no: " + ", ".join(met)))
print()
PY
# what no command on these files goes under here: their records walked, nothing parsed
if [ -x "$BUILD/bench/walk_floor" ]; then
	echo "The walk's floor (bench/walk_floor: the records walked in file order, nothing parsed or queued):"
	echo "the branch file $("$BUILD/bench/walk_floor" "$BR" 5 | sed 's|^walk [^:]*: ||'); the c2c file $("$BUILD/bench/walk_floor" "$C2C" 5 | sed 's|^walk [^:]*: ||')."
	echo
fi
