#!/usr/bin/env bash
# tally kmem against perf kmem 6.1, line for line, on the same files:
# threads mapping, touching and unmapping memory (slab objects for each
# mapping, a page per touch) recorded system-wide once by perf kmem
# record and once by tally kmem record, each file read by both tools:
# stat --slab, --page and both (the allocators' summaries: bytes
# requested, allocated, freed, fragmentation; page requests matched by
# pfn, failures, orders by migrate type), and the slab allocator's
# tables per call site and per pointer (--caller, --alloc, -s, -l,
# --raw-ip), the page allocator's per call site and per pfn with the GFP
# flags legend. The oracle: each of the
# workload's iterations faults a page in, so the page allocator saw at
# least that many allocations.
. "$(dirname "$0")/lib.sh"
ML=$HELPERS/mmaplock
THREADS=2 ITERS=300
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed"; done_testing; exit 0; fi
if [ "$(id -u)" != 0 ]; then skip "kmem record is system-wide: it needs root"; done_testing; exit 0; fi

perf kmem --slab --page record -o "$d/perf.data" -- "$ML" $THREADS $ITERS >/dev/null 2>"$d/perf.err"
check "perf kmem record of the mmap workload" test -s "$d/perf.data"
"$TALLY" kmem --slab --page record -q -o "$d/tally.data" -- "$ML" $THREADS $ITERS >/dev/null 2>"$d/tally.err"
is "tally kmem record exits 0" "$?" 0
check "tally kmem record wrote its file" test -s "$d/tally.data"

# same NAME FILE ARGS...: perf kmem ARGS and tally kmem ARGS print the same on FILE
same() {
	local name=$1 f=$2; shift 2
	LC_ALL=C perf kmem -i "$f" "$@" >"$d/p.out" 2>/dev/null
	"$TALLY" kmem -i "$f" "$@" >"$d/t.out" 2>"$d/t.err"
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
	same "$f's file: stat (the slab allocator by default)" "$F" stat
	same "$f's file: --slab stat" "$F" --slab stat
	same "$f's file: --page stat" "$F" --page stat
	same "$f's file: --slab --page stat" "$F" --slab --page stat
	same "$f's file: --caller (per call site, frag,hit,bytes)" "$F" --slab --caller stat
	same "$f's file: --alloc -l 20 (per pointer)" "$F" --slab --alloc -l 20 stat
	same "$f's file: --alloc -s hit,bytes --caller -s callsite -l 7 (-s, -l for the later)" "$F" --slab --alloc -s hit,bytes --caller -s callsite -l 7 stat
	same "$f's file: --caller -s pingpong,hit --raw-ip -l 5" "$F" --slab --caller -s pingpong,hit --raw-ip -l 5 stat
	same "$f's file: --page --caller (GFP legend, per call site)" "$F" --page --caller stat
	same "$f's file: --page --alloc (per pfn)" "$F" --page --alloc stat
	same "$f's file: --page --alloc -s gfp,bytes -l 5" "$F" --page --alloc -s gfp,bytes -l 5 stat
	same "$f's file: --slab --page --caller -s order,hit -l 4 (-s for the later allocator)" "$F" --slab --page --caller -s order,hit -l 4 stat
	same "$f's file: --page --slab --caller --alloc -s hit -l 3" "$F" --page --slab --caller --alloc -s hit -l 3 stat
	# --live: the pages not freed by the end (perf's live tree, largest pfn first among equals)
	same "$f's file: --page --live stat" "$F" --page --live stat
	same "$f's file: --page --live --caller --alloc -l 40" "$F" --page --live --caller --alloc -l 40 stat
	same "$f's file: --page --live --alloc -s page -l 20" "$F" --page --live --alloc -s page -l 20 stat
	# --time: the samples of a window only, its ends taken from the file (the middle third)
	read -r a b < <(perf script -i "$F" -F time 2>/dev/null | tr -d ' :' |
		awk 'NR == 1 { f = $1 } { l = $1 } END { printf "%.6f %.6f\n", f + (l - f) / 3, f + 2 * (l - f) / 3 }')
	same "$f's file: --time $a,$b --slab --page --caller" "$F" --time "$a,$b" --slab --page --caller stat
	same "$f's file: --time $a, --slab --alloc -l 10" "$F" --time "$a," --slab --alloc -l 10 stat
	same "$f's file: --time ,$b --page --alloc -l 10" "$F" --time ",$b" --page --alloc -l 10 stat
done
"$TALLY" kmem -i "$d/tally.data" --time 12,bad stat >/dev/null 2>"$d/e"; rc=$?
is "--time 12,bad: 234 (perf's -EINVAL)" "$rc" 234
check "--time 12,bad: says what --time takes" grep -q "START,STOP" "$d/e"

# chains perf drops (each PERF_CONTEXT_KERNEL marker made one it does not
# know): the page tables' call site is then the sample's own address,
# named by its symbol
for f in perf tally; do
	python3 - "$d/$f.data" "$d/$f-corrupt.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
o, n = struct.unpack_from("<QQ", b, 40)
b[o:o + n] = bytes(b[o:o + n]).replace(struct.pack("<q", -128), struct.pack("<q", -3000))
open(sys.argv[2], "wb").write(b)
PY
	same "$f's file, chains corrupt: --page --caller" "$d/$f-corrupt.data" --page --caller stat
	same "$f's file, chains corrupt: --page --alloc -l 30" "$d/$f-corrupt.data" --page --alloc -l 30 stat
done

"$TALLY" kmem --page -i "$d/tally.data" stat >"$d/o" 2>/dev/null
n=$(awk -F'[:[]' '/^Total allocation requests/ { print $2 + 0 }' "$d/o")
check "the page allocator saw each iteration's page fault ($n >= $((THREADS * ITERS)))" \
	test "${n:-0}" -ge $((THREADS * ITERS))
"$TALLY" kmem --slab -i "$d/tally.data" stat >"$d/o" 2>/dev/null
check "the slab allocator allocated bytes" grep -Eq "^Total bytes allocated: [1-9]" "$d/o"
done_testing
