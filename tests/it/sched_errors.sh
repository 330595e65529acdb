#!/usr/bin/env bash
# tally sched on bad input: a missing file, an empty one, a file without
# sched tracepoints (cpu-clock samples), a sched recording truncated,
# with bytes flipped or zeroed in its samples, or with its tracing data
# (the sched_switch format) damaged: a clear error naming what is
# missing, or the part that could be read, never a crash (an exit below
# 128 and no sanitizer report); and a bad option or subcommand is an
# error (129) that names it.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

# no_crash NAME RC ERRFILE: exited by itself (no signal), no sanitizer report
no_crash() {
	if [ "$2" -lt 128 ] && ! grep -q "Sanitizer\|runtime error" "$3"; then ok "$1 (exit $2)"
	else fail "$1 (exit $2: $(head -c 300 "$3"))"; fi
}

"$TALLY" sched latency -i "$d/missing.data" >/dev/null 2>"$d/e"; rc=$?
check "a missing file: an error" test $rc -ne 0 -a $rc -lt 128
check "a missing file: named" grep -q "missing.data" "$d/e"
: >"$d/empty.data"
"$TALLY" sched timehist -i "$d/empty.data" >/dev/null 2>"$d/e"; rc=$?
check "an empty file: an error, no crash" test $rc -ne 0 -a $rc -lt 256
check "an empty file: said" test -s "$d/e"

"$TALLY" record -q -e cpu-clock -o "$d/nosched.data" -- "$HELPERS/work" spin 30 >/dev/null 2>&1
for c in latency timehist map; do
	"$TALLY" sched $c -i "$d/nosched.data" >"$d/o" 2>"$d/e"; rc=$?
	is "no sched tracepoints: $c exits 1" "$rc" 1
	check "no sched tracepoints: $c names what is missing" grep -q "no sched:sched_switch events" "$d/e"
done

"$TALLY" sched nosuch >/dev/null 2>"$d/e"; rc=$?
is "an unknown subcommand: 129" "$rc" 129
check "an unknown subcommand: named" grep -q "nosuch" "$d/e"
"$TALLY" sched latency -s nosuch -i "$d/nosched.data" >/dev/null 2>"$d/e"; rc=$?
is "an unknown sort key: 129" "$rc" 129
check "an unknown sort key: named" grep -q "nosuch" "$d/e"

"$TALLY" sched timehist -s -w -i "$d/nosched.data" >/dev/null 2>"$d/e"; rc=$?
is "timehist -s -w (perf: mutually exclusive): 129" "$rc" 129
check "timehist -s -w: says why" grep -q "mutually exclusive" "$d/e"

if [ "$(id -u)" != 0 ]; then
	skip "damaged sched recordings: sched record is system-wide, it needs root"
	done_testing; exit 0
fi
"$TALLY" sched record -q -o "$d/good.data" -- "$HELPERS/pipewake" pingpong 2000 >/dev/null 2>&1
size=$(stat -c %s "$d/good.data")
check "a sched recording to damage ($size bytes)" test "$size" -gt 4096

# run_all NAME FILE: every view reads it without crashing
run_all() {
	for v in "latency" "timehist -w -M -S" "timehist -V --state -n" "map" "map --compact"; do
		# shellcheck disable=SC2086
		"$TALLY" sched $v -i "$2" >/dev/null 2>"$d/e"; rc=$?
		no_crash "$1: sched $v" "$rc" "$d/e"
	done
}
cp "$d/good.data" "$d/trunc.data"; damage "$d/trunc.data" truncate $((size * 2 / 3))
run_all "truncated" "$d/trunc.data"
"$TALLY" sched latency -i "$d/trunc.data" >/dev/null 2>"$d/e"
check "truncated: says so" grep -q "the file is truncated" "$d/e"
for i in 1 2 3 4 5; do
	cp "$d/good.data" "$d/flip.data"
	python3 - "$d/flip.data" "$i" <<'PY'
import random, sys
f = open(sys.argv[1], "r+b"); n = f.seek(0, 2); r = random.Random(int(sys.argv[2]))
for _ in range(64):
    p = r.randrange(n // 4, n); f.seek(p); b = f.read(1); f.seek(p); f.write(bytes([b[0] ^ (1 << r.randrange(8))]))
PY
	run_all "64 bits flipped (seed $i)" "$d/flip.data"
done
cp "$d/good.data" "$d/zero.data"
dd if=/dev/zero of="$d/zero.data" bs=1 seek=$((size / 2)) count=4096 conv=notrunc 2>/dev/null
run_all "4 KiB zeroed in the samples" "$d/zero.data"
# the tracing data's sched_switch format damaged: its fields cannot be read by name
cp "$d/good.data" "$d/fmt.data"
python3 - "$d/fmt.data" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"field:pid_t next_pid;")
if i >= 0:
    b[i:i + 21] = b"field:pid_t nxxt_pxd;"
open(sys.argv[1], "wb").write(b)
PY
run_all "sched_switch's format damaged" "$d/fmt.data"
"$TALLY" sched latency -i "$d/fmt.data" >/dev/null 2>"$d/e"; rc=$?
is "sched_switch's format damaged: latency exits 1" "$rc" 1
check "sched_switch's format damaged: says which samples were left out" grep -q "sched_switch without the fields perf reads" "$d/e"
done_testing
