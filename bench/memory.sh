#!/usr/bin/env bash
# bench/memory.sh: peak memory of tally's commands measured against each
# other (make bench; prints one markdown section). These were asserts in
# tests/it until issue 29 item 15: a ratio between two commands, or
# between two different files, moves with the machine's caches (a clean
# clone's first run failed annotate's), so the tests keep only the
# invariants (a file 10x as big, or a stream 10x as long, takes about the
# small one's memory) and the numbers are printed here, each with the
# bound the test used to hold it to.
set -u
BUILD=${BUILD:-build}
TALLY=${TALLY:-$PWD/$BUILD/tally}
HELPERS=${HELPERS:-$PWD/$BUILD/helpers}

echo "## Peak memory: tally's commands against each other"
echo
if [ ! -x /usr/bin/time ]; then
	echo "/usr/bin/time is missing: nothing measured."
	exit 0
fi
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
export XDG_CACHE_HOME=$d/cache
# median peak RSS (KiB) of 3 runs; stdin from $IN when set
peak() {
	local i v=()
	for i in 1 2 3; do
		/usr/bin/time -f '%M' -o "$d/m" "$TALLY" "$@" <"${IN:-/dev/null}" >/dev/null 2>&1
		v+=("$(tail -1 "$d/m")")
	done
	printf '%s\n' "${v[@]}" | sort -n | sed -n 2p
}
row() { printf '| %s | %s KiB | %s KiB | %s | %s |\n' "$1" "$2" "$3" "$4" "$5"; }
ratio() { python3 -c "import sys; print('%.3f' % (int(sys.argv[1]) / int(sys.argv[2])))" "$1" "$2"; }

echo "Medians of 3 runs each; the small/plain file's run right after the other's."
echo
echo "| measure | A | B | A/B or A-B | bound (the test that holds it, or held it) |"
echo "|---|---|---|---|---|"

# annotate against report on a gcc profile (was annotate_parity.sh)
{ for i in $(seq 300); do echo "int f$i(int x) { int s = 0; for (int k = 0; k < x; k++) s += k * $i ^ (s >> 3); return s; }"; done; } >"$d/big.c"
"$TALLY" record -q -F 999 -o "$d/gcc.data" -- gcc -O2 -c -o "$d/big.o" "$d/big.c" >/dev/null 2>&1
"$TALLY" report --stdio -i "$d/gcc.data" >/dev/null 2>&1	# the caches written once
ra=$(peak annotate --stdio -i "$d/gcc.data") rr=$(peak report --stdio -i "$d/gcc.data")
row "gcc profile: annotate --stdio (A) / report --stdio (B)" "$ra" "$rr" "$(ratio "$ra" "$rr")" "< 3.5 (annotate_parity.sh until issue 29: moved here)"

# dwarf files: a big one against a small one (dwarf_memory.sh keeps the bound)
cc -O2 -fomit-frame-pointer -g -o "$d/dw" tests/data/progs/dw.c
"$TALLY" record -q -e cpu-clock -c 500000 --call-graph dwarf -o "$d/big.data" -- "$d/dw" 4000 >/dev/null 2>&1
"$TALLY" record -q -e cpu-clock -c 10000000 --call-graph dwarf -o "$d/small.data" -- "$d/dw" 300 >/dev/null 2>&1
"$TALLY" report --stdio -i "$d/small.data" >/dev/null 2>&1
size=$(( $(stat -c %s "$d/big.data") / 1024 ))
for cmd in "script --no-inline" "report --stdio --no-inline"; do
	b=$(peak $cmd -i "$d/big.data") s=$(peak $cmd -i "$d/small.data")
	row "dwarf: \`$cmd\` on $size KiB (A) and a small file (B)" "$b" "$s" "$((b - s)) KiB" "A-B < 5632 KiB (dwarf_memory.sh)"
done

# a pipe stream ten times as long (pipe_stream.sh keeps the bound)
make --no-print-directory "$BUILD/helpers/burn" >/dev/null
"$TALLY" record -q -c 2000 -g -o - -- "$HELPERS/burn" 2000 2>/dev/null >"$d/s.pipe"
python3 - "$d/s.pipe" "$d/s10.pipe" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
pos = 16
while pos < len(b):
    t, m, s = struct.unpack('<IHH', b[pos:pos + 8])
    if t not in (64, 65, 66, 67, 69, 70, 73, 74, 75, 78, 79, 80):
        break
    pos += s + (((struct.unpack('<I', b[pos + 8:pos + 12])[0] + 7) & ~7) if t == 66 else 0)
open(sys.argv[2], 'wb').write(b[:pos] + b[pos:] * 10)
PY
s10=$(IN=$d/s10.pipe peak script -i -) s1=$(IN=$d/s.pipe peak script -i -)
diff=$(( ($(stat -c %s "$d/s10.pipe") - $(stat -c %s "$d/s.pipe")) / 1024 ))
row "pipe: \`script -i -\` of a stream 10x as long (A) and of one (B)" "$s10" "$s1" "$((s10 - s1)) KiB" \
	"A-B < $((diff / 2)) KiB, half the $diff KiB more (pipe_stream.sh)"

# kernel symbols from the kallsyms cache (was report_cache.sh)
"$TALLY" record -q -e cpu-clock -c 50000 -o "$d/k.data" -- "$HELPERS/work" getpid 300000 >/dev/null 2>&1
"$TALLY" record -q -e cpu-clock:u -c 50000 -o "$d/u.data" -- "$HELPERS/work" getpid 300000 >/dev/null 2>&1
"$TALLY" report --stdio -i "$d/k.data" >/dev/null 2>&1	# writes the cache
c=$(ls "$d/cache/tally"/kallsyms3-* 2>/dev/null | head -1)
csize=$(( $(stat -c %s "${c:-/dev/null}") / 1024 ))
k=$(peak report --stdio -i "$d/k.data") u=$(peak report --stdio -i "$d/u.data")
row "report with kernel samples from the cache (A) and user-only (B)" "$k" "$u" "$((k - u)) KiB" \
	"A-B < $((csize / 4)) KiB, a quarter of the $csize KiB cache (report_cache.sh until issue 29: moved here)"
