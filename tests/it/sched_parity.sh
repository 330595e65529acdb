#!/usr/bin/env bash
# tally sched against perf sched 6.1, line for line, on the same files: a
# pipe ping-pong recorded once by perf sched record and once by tally
# sched record, each file read by both tools: latency (default sort, -p,
# -s, -C), timehist (default, -w, -M, -s, -S --state, -V -n, --time), map (and
# --compact); timehist -g's chains (perf naming no user frame). The
# ping-pong shows in both (its switches in timehist), so the comparison
# is not of two empty tables. tally's file also has one
# sample per sched_stat_runtime hit (no copies: the event counts its
# runtime in ns, which without PERIOD made the kernel sample it once per
# ns, throttled), as perf's.
. "$(dirname "$0")/lib.sh"
PW=$HELPERS/pipewake
N=3000
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed"; done_testing; exit 0; fi
if [ "$(id -u)" != 0 ]; then skip "sched record is system-wide: it needs root"; done_testing; exit 0; fi

perf sched record -q -o "$d/perf.data" -- "$PW" pingpong $N >/dev/null 2>"$d/perf.err"
check "perf sched record of the ping-pong" test -s "$d/perf.data"
"$TALLY" sched record -q -o "$d/tally.data" -- "$PW" pingpong $N >/dev/null 2>"$d/tally.err"
is "tally sched record exits 0" "$?" 0
check "tally sched record wrote its file" test -s "$d/tally.data"

# same NAME FILE ARGS...: perf sched ARGS and tally sched ARGS print the same on FILE
same() {
	local name=$1 f=$2; shift 2
	perf sched "$@" -i "$f" >"$d/p.out" 2>/dev/null
	"$TALLY" sched "$@" -i "$f" >"$d/t.out" 2>"$d/t.err"
	if [ ! -s "$d/p.out" ]; then
		fail "$name: perf printed nothing"
	elif cmp -s "$d/p.out" "$d/t.out"; then
		ok "$name"
	else
		fail "$name: $(diff "$d/p.out" "$d/t.out" | head -6 | tr '\n' '|') $(head -c 200 "$d/t.err")"
	fi
}

for f in perf tally; do
	F=$d/$f.data
	same "$f's file: latency" "$F" latency
	same "$f's file: latency -p" "$F" latency -p
	same "$f's file: latency -s max,switch" "$F" latency -s max,switch
	same "$f's file: latency -s pid,runtime" "$F" latency -s pid,runtime
	same "$f's file: timehist" "$F" timehist
	same "$f's file: timehist -w" "$F" timehist -w
	same "$f's file: timehist -M" "$F" timehist -M
	same "$f's file: timehist -s" "$F" timehist -s
	same "$f's file: timehist -S --state" "$F" timehist -S --state
	same "$f's file: timehist -V -n" "$F" timehist -V -n
	# a window of its switches: from the 20th line's time to the 60th's
	a=$(perf sched timehist -i "$F" 2>/dev/null | awk 'NR == 20 { print $1 }')
	b=$(perf sched timehist -i "$F" 2>/dev/null | awk 'NR == 60 { print $1 }')
	same "$f's file: timehist --time START,STOP -w -S" "$F" timehist --time "$a,$b" -w -S
	same "$f's file: timehist --time ,STOP" "$F" timehist --time ",$b"
	same "$f's file: latency -C 1" "$F" latency -C 1
	# init (pid 1) never exits: its summary has no terminated task
	same "$f's file: timehist -s -p 1" "$F" timehist -s -p 1
	check "$f's file: timehist -s -p 1 says there is no terminated task" \
		grep -q '^<no terminated tasks>$' "$d/t.out"
	same "$f's file: map" "$F" map
	same "$f's file: map --compact" "$F" map --compact
	same "$f's file: map -v --cpus 1" "$F" map -v --cpus 1
	# colours only on a terminal: piped, the same map (perf 6.1's --color-pids crashes)
	same "$f's file: map --color-cpus 1 (piped: no colour)" "$F" map --color-cpus 1
	# the ping-pong is there: its two tasks were switched out often (a
	# reader that finds the byte already there does not sleep: not 2N)
	sw=$("$TALLY" sched timehist -i "$F" 2>/dev/null | awk '$3 ~ /^pipewake\[/' | wc -l)
	check "$f's file: the ping-pong's switches are in timehist (got $sw, want >= $N)" test "$sw" -ge $N
done

# map's colours on a terminal (script(1) gives it one): --color-pids's
# thread blue wherever its letters are, and no other's (perf 6.1 paints
# nearly every thread: it reads a pointer as the flag, see
# docs/perf-differences.md), --color-cpus's '*' on red; without the
# escapes, the map as piped
if command -v script >/dev/null; then
	F=$d/tally.data
	"$TALLY" sched map -i "$F" >"$d/plain.map" 2>/dev/null
	ptid=$(grep -o "=> pipewake:[0-9]*" "$d/plain.map" | head -1 | cut -d: -f2)
	letters=$(grep -o "[A-Z][0-9] => pipewake:$ptid\$" "$d/plain.map" | cut -c1-2)
	script -qec "'$TALLY' --no-pager sched map -i '$F' --color-pids $ptid --color-cpus 1" /dev/null \
		| tr -d '\r' >"$d/tty.map"
	E=$(printf '\033')
	check "map on a terminal: --color-pids's letters ($letters) in blue" \
		grep -q "${E}\[34m$letters ${E}\[m" "$d/tty.map"
	blue=$(grep -o "${E}\[34m[A-Z.][0-9 ] ${E}\[m" "$d/tty.map" | sort -u | tr -d "$E")
	is "map on a terminal: only that thread in blue" "$blue" "[34m$letters [m"
	check "map on a terminal: CPU 1's '*' on red" grep -q "${E}\[41m\*${E}\[m" "$d/tty.map"
	check "map on a terminal: CPU 0's '*' not" sh -c "grep -q '^  \*' '$d/tty.map'"
	sed "s/${E}\[[0-9]*m//g" "$d/tty.map" >"$d/stripped.map"
	check "map on a terminal: without the escapes, the piped map" cmp -s "$d/stripped.map" "$d/plain.map"
	"$TALLY" sched map -i "$F" --color-pids x >/dev/null 2>"$d/e"; rc=$?
	is "map --color-pids x: 129" "$rc" 129
else
	skip "no script(1) to give map a terminal"
fi

# -g: each line's chain as perf's, where perf 6.1 names no user-space
# frame ("[unknown]"; tally names them: docs/perf-differences.md)
chains_match() {
	python3 - "$1" "$2" <<'PY'
import sys
p, t = open(sys.argv[1]).read().splitlines(), open(sys.argv[2]).read().splitlines()
if len(p) != len(t):
    print("lines: perf %d, tally %d" % (len(p), len(t))); sys.exit(1)
chains = 0
for i, (a, b) in enumerate(zip(p, t)):
    if a == b:
        chains += " <- " in a
        continue
    fa, fb = a.split(" <- "), b.split(" <- ")
    if len(fa) != len(fb) or fa[0] != fb[0] or any(x != y and x != "[unknown]" for x, y in zip(fa[1:], fb[1:])):
        print("line %d: perf %r, tally %r" % (i + 1, a, b)); sys.exit(1)
    chains += 1
if not chains:
    print("no line has a chain"); sys.exit(1)
PY
}
for who in perf tally; do
	if [ $who = perf ]; then
		perf sched record -q -g -o "$d/g-$who.data" -- "$PW" pingpong 300 >/dev/null 2>&1
	else
		"$TALLY" sched record -q -g -o "$d/g-$who.data" -- "$PW" pingpong 300 >/dev/null 2>&1
	fi
	for v in "" "--max-stack 3"; do
		# shellcheck disable=SC2086
		perf sched timehist $v -i "$d/g-$who.data" >"$d/p.out" 2>/dev/null
		# shellcheck disable=SC2086
		"$TALLY" sched timehist $v -i "$d/g-$who.data" >"$d/t.out" 2>/dev/null
		if why=$(chains_match "$d/p.out" "$d/t.out"); then ok "$who's -g file: timehist $v chains"
		else fail "$who's -g file: timehist $v chains: $why"; fi
	done
done

# an --off-cpu file (sched's events and the offcpu-time samples, whose
# chains are where a task went to sleep): perf's timehist and tally's
# show the same lines and chains on it (both skip the offcpu-time samples)
if "$TALLY" sched record -q --off-cpu -g -o "$d/oc.data" -- "$HELPERS/offcpu" nap 10 10 \
	>/dev/null 2>"$d/oc.err"; then
	check "the --off-cpu file has offcpu-time samples" sh -c "perf script -i '$d/oc.data' -F event 2>/dev/null | grep -q offcpu-time"
	for v in "" "-w" "--state" "-s"; do
		# shellcheck disable=SC2086
		perf sched timehist $v -i "$d/oc.data" >"$d/p.out" 2>/dev/null
		# shellcheck disable=SC2086
		"$TALLY" sched timehist $v -i "$d/oc.data" >"$d/t.out" 2>/dev/null
		if [ "$v" = -s ]; then
			check "--off-cpu file: timehist -s as perf's" cmp -s "$d/p.out" "$d/t.out"
		elif why=$(chains_match "$d/p.out" "$d/t.out"); then ok "--off-cpu file: timehist $v chains"
		else fail "--off-cpu file: timehist $v chains: $why"; fi
	done
else
	skip "tally sched record --off-cpu: $(head -c 200 "$d/oc.err")"
fi

# a chain whose last entry is a context marker perf does not know (a
# misread user stack): perf drops the chain when its max-stack + 2
# entries reach the marker, and prints the entries before it when not
corrupt_chains() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
data_off, data_size = struct.unpack_from("<QQ", b, 40)
off, end, n = data_off, data_off + data_size, 0
while off + 8 <= end:
    typ, misc, size = struct.unpack_from("<IHH", b, off)
    if size < 8:
        break
    # a sample of IDENTIFIER|IP|TID|TIME|CPU|PERIOD|CALLCHAIN: nr at 56
    if typ == 9 and size >= 72:
        nr = struct.unpack_from("<Q", b, off + 56)[0]
        last = off + 64 + 8 * (nr - 1)
        if 9 <= nr < 128 and last + 8 <= off + size and struct.unpack_from("<Q", b, last)[0] < 1 << 47:
            struct.pack_into("<Q", b, last, (1 << 64) - 3000)
            n += 1
    off += size
open(sys.argv[2], "wb").write(b)
print(n)
PY
}
nbad=$(corrupt_chains "$d/g-tally.data" "$d/g-bad.data")
check "chains made corrupt at their end ($nbad)" test "${nbad:-0}" -gt 0
for v in "" "--max-stack 40"; do
	# shellcheck disable=SC2086
	perf sched timehist $v -i "$d/g-bad.data" >"$d/p.out" 2>/dev/null
	# shellcheck disable=SC2086
	"$TALLY" sched timehist $v -i "$d/g-bad.data" >"$d/t.out" 2>/dev/null
	if why=$(chains_match "$d/p.out" "$d/t.out"); then ok "corrupt chains: timehist $v as perf's"
	else fail "corrupt chains: timehist $v: $why"; fi
done

# one sample per sched_stat_runtime hit: no two alike (time, CPU, thread, runtime)
perf script -i "$d/tally.data" 2>/dev/null | grep 'sched:sched_stat_runtime:' >"$d/rt.txt"
dups=$(sort "$d/rt.txt" | uniq -d | wc -l)
all=$(wc -l <"$d/rt.txt")
check "tally's file has sched_stat_runtime samples ($all)" test "$all" -gt 0
is "tally's file: no sched_stat_runtime sample twice" "$dups" 0
# perf sched record's events and options
ev=$(perf evlist -i "$d/tally.data" 2>/dev/null | grep -v dummy | LC_ALL=C sort | tr '\n' ' ')
pev=$(perf evlist -i "$d/perf.data" 2>/dev/null | grep -v dummy | LC_ALL=C sort | tr '\n' ' ')
is "tally sched record records perf sched record's events" "$ev" "$pev"
done_testing
