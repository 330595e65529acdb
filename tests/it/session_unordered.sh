#!/usr/bin/env bash
# A record older than one its round's flush already delivered (perf's
# "out of order event"): perf script and report still show it, after
# the newer ones, and warn "N out of order events recorded."; tally's
# session (lib/session/ordered.c) does the same and says so, with the
# same count on the same file. Made by moving one sample of the third
# round back in time, to just after the file's first sample.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# several rounds: a one-page ring, a wake-up (a round) every few dozen samples
$TALLY record -q -e cpu-clock -c 100000 --mmap-pages 1 -o "$tmp/ok.data" -- \
	"$HELPERS/burn" 300 >/dev/null 2>&1
python3 - "$tmp/ok.data" "$tmp/late.data" <<'EOF' >"$tmp/moved"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
attrs_off, = struct.unpack_from("<Q", b, 24)
data_off, data_size = struct.unpack_from("<QQ", b, 40)
st, = struct.unpack_from("<Q", b, attrs_off + 24)          # the first attr's sample_type
assert st & 4, "no TIME"
toff = 8 + 8 * bin(st & (0x10000 | 1 | 2)).count("1")       # IDENTIFIER, IP, TID before TIME
off, end, rounds, first, moved = data_off, data_off + data_size, 0, None, None
while off < end:
    typ, misc, size = struct.unpack_from("<IHH", b, off)
    if size < 8:
        break
    if typ == 68:
        rounds += 1
    elif typ == 9:
        t, = struct.unpack_from("<Q", b, off + toff)
        if first is None:
            first = t
        elif rounds >= 2 and moved is None:
            struct.pack_into("<Q", b, off + toff, first + 1)
            moved = t
    off += size
open(sys.argv[2], "wb").write(b)
print(rounds, 1 if moved else 0)
EOF
read -r rounds moved <"$tmp/moved"
check "the recording has rounds enough ($rounds) and a sample was moved" \
	[ "${rounds:-0}" -ge 3 ] && [ "${moved:-0}" = 1 ]

unordered() { grep -Eo '[0-9]+ out of order events recorded' "$1" | cut -d' ' -f1; }
$TALLY script -i "$tmp/ok.data" >/dev/null 2>"$tmp/e"
is "the recording as made: nothing said" "$(unordered "$tmp/e")" ""
$TALLY script -i "$tmp/late.data" >"$tmp/s" 2>"$tmp/e"; rc=$?
is "script: exit 0" "$rc" "0"
is "script: 1 out of order event said" "$(unordered "$tmp/e")" "1"
is "script: every sample shown" "$(wc -l <"$tmp/s")" \
	"$($TALLY script -i "$tmp/ok.data" 2>/dev/null | wc -l)"
$TALLY report -i "$tmp/late.data" --stdio >/dev/null 2>"$tmp/e"
is "report: 1 out of order event said" "$(unordered "$tmp/e")" "1"
if have_perf; then
	perf script -i "$tmp/late.data" >/dev/null 2>"$tmp/pe"
	is "perf script counts the same on the same file" "$(unordered "$tmp/e")" \
		"$(unordered "$tmp/pe")"
else
	skip "no perf: its count"
fi
done_testing
