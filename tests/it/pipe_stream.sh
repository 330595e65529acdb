#!/usr/bin/env bash
# A pipe (perf's `-o -` format) on stdin is streamed: its header records
# are kept, the data records read a window at a time. The lines equal those
# of the same stream read as a file, and a stream ten times as long (its
# data repeated) takes less than half the extra length in memory: what is
# resident does not grow with the stream (the design's invariant, with a
# margin for a loaded machine; bench/memory.sh prints the numbers).
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
"$TALLY" record -q -c 2000 -g -o - -- "$B" 2000 2>/dev/null >"$d/s.pipe"
cat "$d/s.pipe" | "$TALLY" script -i - >"$d/a" 2>"$d/e"; rc=$?
is "script -i - of a pipe stream: exits 0" "$rc" 0
"$TALLY" script -i "$d/s.pipe" >"$d/b" 2>/dev/null
check "the stream's lines equal the file's" cmp -s "$d/a" "$d/b"
check "lines there" test "$(wc -l <"$d/a")" -gt 10000
python3 - "$d/s.pipe" "$d/s4.pipe" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
pos = 16
# perf's pipe header records (attrs, features, names, tracing data) lead
while pos < len(b):
    t, m, s = struct.unpack('<IHH', b[pos:pos + 8])
    if t not in (64, 65, 66, 67, 69, 70, 73, 74, 75, 78, 79, 80):
        break
    pos += s + (((struct.unpack('<I', b[pos + 8:pos + 12])[0] + 7) & ~7) if t == 66 else 0)
open(sys.argv[2], 'wb').write(b[:pos] + b[pos:] * 10)
PY
size=$(stat -c %s "$d/s4.pipe")
cat "$d/s4.pipe" | /usr/bin/time -f '%M' -o "$d/rss" "$TALLY" script -i - >"$d/a4" 2>/dev/null
rss=$(($(tail -1 "$d/rss") * 1024))
cat "$d/s.pipe" | /usr/bin/time -f '%M' -o "$d/rss1" "$TALLY" script -i - >/dev/null 2>&1
rss1=$(($(tail -1 "$d/rss1") * 1024)); size1=$(stat -c %s "$d/s.pipe")
is "a stream of ten: ten times the lines" "$(wc -l <"$d/a4")" "$(($(wc -l <"$d/a") * 10))"
case $BUILD in
*san*) skip "memory: AddressSanitizer's quarantine keeps freed memory resident" ;;
*) check "$((size >> 20)) MiB of stream take $(((rss - rss1) >> 20)) MiB more than $((size1 >> 20)) MiB (under half the difference)" \
	[ $((rss - rss1)) -lt $(((size - size1) / 2)) ] ;;
esac
# cut inside a record two thirds in
python3 - "$d/s.pipe" "$d/cut.pipe" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
pos = 16
while pos < len(b) * 2 // 3:
    t, m, s = struct.unpack('<IHH', b[pos:pos + 8])
    pos += s + (((struct.unpack('<I', b[pos + 8:pos + 12])[0] + 7) & ~7) if t == 66 else 0)
open(sys.argv[2], 'wb').write(b[:pos + 12])
PY
cat "$d/cut.pipe" | "$TALLY" script -i - >"$d/c" 2>"$d/ce"; rc=$?
check "a cut stream: non-zero exit (rc $rc)" [ $rc -ne 0 ]
check "a cut stream: the cut named" grep -q 'truncated.* at offset 0x' "$d/ce"
check "a cut stream: what came before it shown" test "$(wc -l <"$d/c")" -gt "$(($(wc -l <"$d/a") / 3))"
# perf orders a pipe's graphs from the root (children were asked for
# before its attrs came), self overhead only; --no-children leaf first.
# A sample in [vdso] (burn reads the clock) is left out: perf finds no
# kept copy of a pipe's vDSO and prints an address, tally names it
# (docs/perf-differences.md)
if have_perf; then
	"$TALLY" record -q -F 2000 -g -o - -- "$B" 300 2>/dev/null >"$d/g.pipe"
	for o in "" "--no-children" "-g callee"; do
		"$TALLY" report --stdio $o -i - <"$d/g.pipe" 2>/dev/null | grep -v -e '^#' -e '\[vdso\]' >"$d/ta"
		perf report --stdio $o -i - <"$d/g.pipe" 2>/dev/null | grep -v -e '^#' -e '\[vdso\]' >"$d/pa"
		n=$(diff "$d/ta" "$d/pa" | grep -c '^[<>]')
		is "report $o of a pipe: perf's rows and graphs" "$n" 0
		# a rare CI-only difference: show it (tally's lines <, perf's >)
		[ "$n" = 0 ] || diff "$d/ta" "$d/pa" | head -20 | sed 's/^/# /'
	done
fi
done_testing
