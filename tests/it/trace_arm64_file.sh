#!/usr/bin/env bash
# A recording's architecture (its header's ARCH, perf's uname -m) chooses
# the syscall table of tally trace -i, not the host's (issue 34): the same
# raw_syscalls recording with its ARCH made "aarch64" names each number by
# arm64's table (asm-generic's unistd.h, read here from the aarch64 cross
# compiler's headers), the numbers being what perf script prints for the
# same file; with its own "x86_64" it is named as before.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); [ -n "${KEEP:-}" ] && echo "$d" >&2 || trap 'rm -rf "$d"' EXIT

if ! have_perf || ! have_tp; then
	skip "perf or tracepoints cannot be used here"
	done_testing; exit 0
fi
if ! perf record -q -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -o "$d/x86.data" \
	-- /bin/true >/dev/null 2>&1; then
	skip "perf cannot record raw_syscalls here"
	done_testing; exit 0
fi
# The ARCH feature's string (perf_file_header: the features' sections
# follow the data; ARCH is feature bit 6) rewritten in its padded slot.
python3 - "$d/x86.data" "$d/arm64.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
data_off, data_size = struct.unpack_from("<QQ", b, 40)
bits = int.from_bytes(b[72:104], "little")
assert bits >> 6 & 1, "no ARCH feature"
idx = bin(bits & 0x3f).count("1")
off, size = struct.unpack_from("<QQ", b, data_off + data_size + 16 * idx)
n = struct.unpack_from("<I", b, off)[0]
assert b[off + 4:off + 4 + 6] == b"x86_64" and n >= 8, (b[off:off + 16], n)
b[off + 4:off + 4 + n] = b"aarch64".ljust(n, b"\0")
open(sys.argv[2], "wb").write(bytes(b))
PY
is "the ARCH header is rewritten" "$("$TALLY" report -i "$d/arm64.data" --header-only 2>/dev/null |
	sed -n 's/^# arch : //p')" aarch64

# the syscall numbers in the order perf script reads them, entries only
perf script -i "$d/arm64.data" -F event,trace 2>/dev/null |
	sed -n 's/^ *raw_syscalls:sys_enter: NR \([0-9]*\) .*/\1/p' >"$d/nrs"
check "perf script reads syscall entries" [ -s "$d/nrs" ]

# tally trace's names, in order ("name(" after the comm/tid); as perf
# trace, it writes to stderr
names() {
	"$TALLY" trace -i "$1" >"$d/out" 2>&1
	grep -v 'continued' "$d/out" | sed -n 's/^.*): [^ ]*\/[0-9]* \([a-z0-9_]*\)(.*/\1/p'
}
names "$d/x86.data" >"$d/x86.names"
names "$d/arm64.data" >"$d/arm64.names"
check "trace -i names the entries" [ -s "$d/arm64.names" ]
is "trace -i warns of nothing" "$(grep -c '^tally trace:' "$d/out")" 0

# the expected names: x86-64's from the host's unistd_64.h, arm64's from
# the cross compiler's asm-generic headers
table() {
	awk '$1 == "#define" && $2 ~ /^__NR(3264)?_/ { v[$2] = $3 }
	     END { for (k in v) if (k ~ /^__NR_/) { x = v[k]; while (x in v) x = v[x]
		if (x ~ /^[0-9]+$/) { n = k; sub("__NR_", "", n); print x, n } } }'
}
# NRS TABLE: each number's name (tally's syscall_N for one without), less
# the last: the process's exit_group, which never returns, is another
# call by arm64's numbers and stays pending, unprinted
want() {
	sed '$d' "$1" | awk 'NR == FNR { name[$1] = $2; next }
		{ print ($1 in name) ? name[$1] : "syscall_" $1 }' "$2" -
}
x86h=/usr/include/x86_64-linux-gnu/asm/unistd_64.h
if [ -f "$x86h" ]; then
	table <"$x86h" >"$d/x86.tab"
	want "$d/nrs" "$d/x86.tab" >"$d/x86.want"
	check "the x86-64 file: every entry named by x86-64's table" cmp -s <(sed '$d' "$d/x86.names") "$d/x86.want"
else
	missing "no $x86h (linux-libc-dev)"
fi
if command -v aarch64-linux-gnu-gcc >/dev/null; then
	echo '#include <asm/unistd.h>' | aarch64-linux-gnu-gcc -E -dM - | table >"$d/arm64.tab"
	want "$d/nrs" "$d/arm64.tab" >"$d/arm64.want"
	check "the arm64 file: every entry named by arm64's table" cmp -s "$d/arm64.names" "$d/arm64.want"
	check "the tables differ on this recording" test "$(cat "$d/arm64.want")" != "$(cat "$d/x86.want")"
else
	missing "no aarch64 cross compiler (make deps ARCH=arm64)"
fi
# an architecture tally has no table for: said, and the host's names
python3 - "$d/arm64.data" "$d/riscv.data" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(b.replace(b"aarch64\0", b"riscv64", 1))
PY
"$TALLY" trace -i "$d/riscv.data" >"$d/err" 2>&1
check "an unknown arch is named on stderr" grep -q "recorded on riscv64, whose syscall table" "$d/err"
done_testing
