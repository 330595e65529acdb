#!/usr/bin/env bash
# tally sched timehist's CPU count ("(x N)" at the summary's end, the -V
# columns): perf counts the CPU of every sample, other events' too. Without
# -V tally has the session drop the other events' samples unparsed and
# takes their largest CPU from it (tally_session_stats.dropped_cpu_max):
# a recording of sched_switch and the getpid tracepoint, the getpid
# samples' CPU set past the machine's online CPUs, read by perf and tally
# (the same file): the same output with -s, -S, -V.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if [ "$(id -u)" != 0 ] || ! have_perf || ! have_tp; then
	skip "a system-wide sched recording needs root, perf and the getpid tracepoint"
	done_testing; exit 0
fi
perf record -q -a -e sched:sched_switch -e syscalls:sys_enter_getpid -o "$d/rec.data" -- \
	"$HELPERS/work" getpid 200 >/dev/null 2>&1
check "a recording of sched_switch and getpid" test -s "$d/rec.data"
# every getpid sample's CPU set to online + 5 (sample_type's CPU slot, found by its attr's id)
cpu=$(($(nproc) + 5))
n=$(python3 - "$d/rec.data" "$cpu" <<'PY'
import struct, sys
f = open(sys.argv[1], "r+b")
b = bytearray(f.read())
attr_size, = struct.unpack_from("<Q", b, 16)
aoff, asz, doff, dsz = struct.unpack_from("<QQQQ", b, 24)
st_of = {}
for i in range(asz // attr_size):
    a = aoff + i * attr_size
    typ, size, config, period, st = struct.unpack_from("<IIQQQ", b, a)
    ioff, isz = struct.unpack_from("<QQ", b, a + attr_size - 16)
    for k in range(isz // 8):
        st_of[struct.unpack_from("<Q", b, ioff + 8 * k)[0]] = (i, st)
n, p = 0, doff
while p < doff + dsz:
    typ, misc, size = struct.unpack_from("<IHH", b, p)
    if typ == 9:
        ident, = struct.unpack_from("<Q", b, p + 8)   # IDENTIFIER first
        i, st = st_of[ident]
        if i == 1 and st & 0x80:                      # getpid's, with CPU
            off = 8 + 8 * bin(st & (0x10000 | 0x1 | 0x2 | 0x4 | 0x8 | 0x40 | 0x200)).count("1")
            struct.pack_into("<I", b, p + off, int(sys.argv[2]))
            n += 1
    p += size
f.seek(0); f.write(b)
print(n)
PY
)
check "getpid samples moved to CPU $cpu ($n)" test "${n:-0}" -gt 0
# the whole output, perf's and tally's, on the one file
for v in "-s" "-S" "-V" "-V -s"; do
	# shellcheck disable=SC2086
	perf sched timehist $v -i "$d/rec.data" >"$d/p.out" 2>/dev/null
	# shellcheck disable=SC2086
	"$TALLY" sched timehist $v -i "$d/rec.data" >"$d/t.out" 2>/dev/null
	if cmp -s "$d/p.out" "$d/t.out"; then ok "timehist $v: as perf's"
	else fail "timehist $v: as perf's: $(diff "$d/p.out" "$d/t.out" | head -6 | tr '\n' '|')"; fi
done
# -s's count is the other event's CPU (-V's too, and each -V line's columns: compared above)
"$TALLY" sched timehist -s -i "$d/rec.data" 2>/dev/null | grep -o '(x [0-9]*)' >"$d/x"
is "timehist -s: the other event's CPU is the count" "$(cat "$d/x")" "(x $cpu)"
done_testing
