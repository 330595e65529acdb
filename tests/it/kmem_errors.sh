#!/usr/bin/env bash
# tally kmem on bad input: a missing file, an empty one, a file without
# kmem tracepoints (cpu-clock samples), a slab-only recording read with
# --page, a kmem recording truncated, with bytes flipped or zeroed in its
# samples, or with its tracing data (kmalloc's format) damaged: a clear
# error naming what is missing, or the part that could be read, never a
# crash; a bad option or subcommand is an error (129) that names it.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

# no_crash NAME RC ERRFILE: exited by itself (no signal; 234 is perf's status
# for a file without the events), no sanitizer report
no_crash() {
	if { [ "$2" -lt 128 ] || [ "$2" = 234 ]; } && ! grep -q "Sanitizer\|runtime error" "$3"; then
		ok "$1 (exit $2)"
	else fail "$1 (exit $2: $(head -c 300 "$3"))"; fi
}

"$TALLY" kmem -i "$d/missing.data" stat >/dev/null 2>"$d/e"; rc=$?
check "a missing file: an error" test $rc -ne 0 -a $rc -lt 128
check "a missing file: named" grep -q "missing.data" "$d/e"
: >"$d/empty.data"
"$TALLY" kmem -i "$d/empty.data" stat >/dev/null 2>"$d/e"; rc=$?
check "an empty file: an error, no crash" test $rc -ne 0 -a $rc -lt 256
check "an empty file: said" test -s "$d/e"

"$TALLY" record -q -e cpu-clock -o "$d/nokmem.data" -- "$HELPERS/work" spin 30 >/dev/null 2>&1
"$TALLY" kmem -i "$d/nokmem.data" stat >"$d/o" 2>"$d/e"; rc=$?
is "no kmem tracepoints: stat exits 234 (perf's)" "$rc" 234
check "no kmem tracepoints: names what is missing" grep -q "no slab allocation events found (kmem:kmalloc)" "$d/e"
"$TALLY" kmem --page -i "$d/nokmem.data" stat >"$d/o" 2>"$d/e"; rc=$?
is "no kmem tracepoints: --page exits 234" "$rc" 234
check "no kmem tracepoints: --page names mm_page_alloc" grep -q "kmem:mm_page_alloc" "$d/e"

"$TALLY" kmem nosuch >/dev/null 2>"$d/e"; rc=$?
is "an unknown subcommand: 129" "$rc" 129
check "an unknown subcommand: named" grep -q "nosuch" "$d/e"
"$TALLY" kmem --nosuch stat >/dev/null 2>"$d/e"; rc=$?
is "an unknown option: 129" "$rc" 129

"$TALLY" kmem --caller -s nosuch -i "$d/nokmem.data" stat >/dev/null 2>"$d/e"; rc=$?
is "an unknown sort key: 129" "$rc" 129
check "an unknown sort key: named" grep -q "nosuch" "$d/e"
"$TALLY" kmem --page --caller -s frag -i "$d/nokmem.data" stat >/dev/null 2>"$d/e"; rc=$?
is "a slab key for the page allocator: 129" "$rc" 129
check "... named as a page --sort key" grep -q "unknown page --sort key in 'frag'" "$d/e"

if [ "$(id -u)" != 0 ]; then
	skip "kmem recordings to damage: kmem record is system-wide, it needs root"
	done_testing; exit 0
fi
"$TALLY" kmem --slab record -q -o "$d/slab.data" -- "$HELPERS/mmaplock" 1 50 >/dev/null 2>&1
"$TALLY" kmem --page -i "$d/slab.data" stat >"$d/o" 2>"$d/e"; rc=$?
is "a slab-only recording read with --page: 234" "$rc" 234
check "... names the page events" grep -q "no page allocation events found" "$d/e"

"$TALLY" kmem --slab --page record -q -o "$d/good.data" -- "$HELPERS/mmaplock" 2 200 >/dev/null 2>&1
size=$(stat -c %s "$d/good.data")
check "a kmem recording to damage ($size bytes)" test "$size" -gt 4096

# run_all NAME FILE: every view reads it without crashing
run_all() {
	for v in "stat" "--page stat" "--slab --page stat" "--caller --alloc -l 5 stat" \
		 "--page --caller --alloc stat"; do
		# shellcheck disable=SC2086
		"$TALLY" kmem -i "$2" $v >/dev/null 2>"$d/e"; rc=$?
		no_crash "$1: kmem $v" "$rc" "$d/e"
	done
}
mid=$(python3 -c 'import struct, sys; o, n = struct.unpack_from("<QQ", open(sys.argv[1], "rb").read(56), 40); print(o + n // 2)' "$d/good.data")
cp "$d/good.data" "$d/trunc.data"; damage "$d/trunc.data" truncate "$mid"
run_all "truncated" "$d/trunc.data"
"$TALLY" kmem -i "$d/trunc.data" stat >/dev/null 2>"$d/e"; rc=$?
is "truncated in its samples: exits 1" "$rc" 1
check "truncated in its samples: says so" grep -q "the file is truncated" "$d/e"
for i in 1 2 3; do
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
# mm_page_alloc's order read from common_pid (its format's offset damaged):
# orders past 63, which no page size can be shifted by
cp "$d/good.data" "$d/order.data"
python3 - "$d/order.data" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"name: mm_page_alloc\n")
j = b.find(b"field:unsigned int order;\toffset:16;", i)
if i >= 0 and j >= 0:
    k = j + len(b"field:unsigned int order;\toffset:")
    b[k:k + 2] = b"04"
open(sys.argv[1], "wb").write(b)
PY
run_all "mm_page_alloc's order from common_pid" "$d/order.data"
"$TALLY" kmem --page -i "$d/order.data" stat >/dev/null 2>"$d/e"; rc=$?
is "orders past 63: stat exits 1" "$rc" 1
check "orders past 63: the samples are left out and said" grep -q "kmem samples were left out" "$d/e"
# kmalloc's format damaged: bytes_alloc cannot be read by name
cp "$d/good.data" "$d/fmt.data"
python3 - "$d/fmt.data" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
b = b.replace(b"field:size_t bytes_alloc;", b"field:size_t bytes_xlloc;")
open(sys.argv[1], "wb").write(b)
PY
run_all "kmalloc's format damaged" "$d/fmt.data"
"$TALLY" kmem -i "$d/fmt.data" stat >/dev/null 2>"$d/e"; rc=$?
is "kmalloc's format damaged: stat exits 1" "$rc" 1
check "kmalloc's format damaged: says samples were left out" grep -q "kmem samples were left out" "$d/e"
done_testing
