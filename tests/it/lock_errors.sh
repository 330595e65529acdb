#!/usr/bin/env bash
# tally lock on bad input: a missing file, an empty one, a file without
# lock tracepoints (cpu-clock samples), a lock recording truncated, with
# bytes flipped or zeroed in its samples, or with its tracing data (the
# contention_begin format) damaged: a clear error naming what is missing,
# or the part that could be read, never a crash (an exit below 128 and no
# sanitizer report); a bad option, key, field or subcommand is an error
# that names it (perf's status: 234 for a key or field, 129 for usage).
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

# no_crash NAME RC ERRFILE: exited by itself (no signal; 234 is perf's status
# for a file without the events), no sanitizer report
no_crash() {
	if { [ "$2" -lt 128 ] || [ "$2" = 234 ]; } && ! grep -q "Sanitizer\|runtime error" "$3"; then ok "$1 (exit $2)"
	else fail "$1 (exit $2: $(head -c 300 "$3"))"; fi
}

"$TALLY" lock contention -i "$d/missing.data" >/dev/null 2>"$d/e"; rc=$?
check "a missing file: an error" test $rc -ne 0 -a $rc -lt 128
check "a missing file: named" grep -q "missing.data" "$d/e"
: >"$d/empty.data"
"$TALLY" lock report -i "$d/empty.data" >/dev/null 2>"$d/e"; rc=$?
check "an empty file: an error, no crash" test $rc -ne 0 -a $rc -lt 256
check "an empty file: said" test -s "$d/e"

"$TALLY" record -q -e cpu-clock -o "$d/nolock.data" -- "$HELPERS/work" spin 30 >/dev/null 2>&1
"$TALLY" lock contention -i "$d/nolock.data" >"$d/o" 2>"$d/e"; rc=$?
is "no lock tracepoints: contention exits 234 (perf's)" "$rc" 234
check "no lock tracepoints: contention names what is missing" grep -q "no lock:contention_begin events" "$d/e"
"$TALLY" lock report -i "$d/nolock.data" >"$d/o" 2>"$d/e"; rc=$?
is "no lock tracepoints: report exits 234" "$rc" 234
check "no lock tracepoints: report names what is missing" grep -q "lock:lock_acquire" "$d/e"

"$TALLY" lock nosuch >/dev/null 2>"$d/e"; rc=$?
is "an unknown subcommand: 129" "$rc" 129
check "an unknown subcommand: named" grep -q "nosuch" "$d/e"
"$TALLY" lock >/dev/null 2>"$d/e"; rc=$?
is "no subcommand: 129" "$rc" 129
"$TALLY" lock contention -b >/dev/null 2>"$d/e"; rc=$?
is "contention -b with nothing to watch: 129" "$rc" 129
check "contention -b: says what it needs" grep -q "needs something to watch" "$d/e"
"$TALLY" lock contention --help >"$d/o" 2>&1; rc=$?
is "contention --help: 0" "$rc" 0
check "contention --help lists -k" grep -q -- "--key" "$d/o"

# a user who cannot read tracefs: record says so (not that the kernel lacks the events)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$d"
	(cd "$d" && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$d" \
		"$TALLY" lock record -q -o "$d/nobody.data" true) >/dev/null 2>"$d/e"; rc=$?
	check "lock record without tracefs access: an error (exit $rc: 129, tally record's for an event it cannot open)" test "$rc" -ne 0 -a "$rc" -le 129
	check "lock record without tracefs access: says it is a permission" grep -q "permission" "$d/e"
fi

if [ "$(id -u)" != 0 ]; then
	skip "lock recordings to damage: lock record needs root (kernel tracepoints)"
	done_testing; exit 0
fi
if ! "$TALLY" list lock:contention_begin 2>/dev/null | grep -q "lock:contention_begin"; then
	missing "this kernel has no lock:contention_begin"; done_testing; exit 0
fi
"$TALLY" lock record -q -o "$d/good.data" -- "$HELPERS/mmaplock" 4 2000 >/dev/null 2>&1
size=$(stat -c %s "$d/good.data")
check "a lock recording to damage ($size bytes)" test "$size" -gt 4096

"$TALLY" lock contention -k nosuch -i "$d/good.data" >/dev/null 2>"$d/e"; rc=$?
is "an unknown sort key: 234 (perf's)" "$rc" 234
check "an unknown sort key: named" grep -q "unknown sort key: nosuch" "$d/e"
"$TALLY" lock report -F acquired,nosuch -i "$d/good.data" >/dev/null 2>"$d/e"; rc=$?
is "an unknown field: 234 (perf's)" "$rc" 234
check "an unknown field: named" grep -q "unknown output field: nosuch" "$d/e"
"$TALLY" lock report -F acquired, -i "$d/good.data" >/dev/null 2>"$d/e"; rc=$?
is "an empty field: 234" "$rc" 234

# run_all NAME FILE: every view reads it without crashing
run_all() {
	for v in "contention" "contention -v -t" "contention -k wait_min -F contended" "report" "report -t -c"; do
		# shellcheck disable=SC2086
		"$TALLY" lock $v -i "$2" >/dev/null 2>"$d/e"; rc=$?
		no_crash "$1: lock $v" "$rc" "$d/e"
	done
}
# cut in the middle of its samples (the header's data section: offset, size at 40)
mid=$(python3 -c 'import struct, sys; o, n = struct.unpack_from("<QQ", open(sys.argv[1], "rb").read(56), 40); print(o + n // 2)' "$d/good.data")
cp "$d/good.data" "$d/trunc.data"; damage "$d/trunc.data" truncate "$mid"
run_all "truncated" "$d/trunc.data"
"$TALLY" lock contention -i "$d/trunc.data" >/dev/null 2>"$d/e"; rc=$?
is "truncated in its samples: exits 1" "$rc" 1
check "truncated in its samples: says so" grep -q "the file is truncated: its samples end" "$d/e"
# a short recording cut within its feature sections (the tracepoint formats): the samples whole
"$TALLY" lock record -q -o "$d/short.data" -- "$HELPERS/mmaplock" 1 10 >/dev/null 2>&1
cp "$d/short.data" "$d/cutfeat.data"
damage "$d/cutfeat.data" truncate $(($(stat -c %s "$d/short.data") - 2000))
"$TALLY" lock report -i "$d/cutfeat.data" >/dev/null 2>"$d/e"; rc=$?
is "cut within its feature sections: exits 1" "$rc" 1
check "cut within its feature sections: says the file is truncated" grep -q "the file is truncated: its feature sections end" "$d/e"
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
# the tracing data's contention_begin and _end formats damaged: no lock_addr to read by name
cp "$d/good.data" "$d/fmt.data"
python3 - "$d/fmt.data" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
b = b.replace(b"field:void * lock_addr;", b"field:void * lxck_addr;")
open(sys.argv[1], "wb").write(b)
PY
run_all "contention_begin's format damaged" "$d/fmt.data"
# contention_end's field list damaged: a type libtraceevent cannot read
cp "$d/good.data" "$d/fields.data"
python3 - "$d/fields.data" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"name: contention_end")
j = b.find(b"field:unsigned short common_type", i)
if i >= 0 and j >= 0:
    b[j + 12] = ord("%")
open(sys.argv[1], "wb").write(b)
PY
run_all "contention_end's field list damaged" "$d/fields.data"
"$TALLY" lock contention -i "$d/fmt.data" >/dev/null 2>"$d/e"; rc=$?
is "contention_begin's format damaged: contention exits 1" "$rc" 1
check "contention_begin's format damaged: says which samples were left out" grep -q "lock samples were left out" "$d/e"
done_testing
