#!/usr/bin/env bash
# An arm64 recording read on x86 (issue 34): its header's ARCH chooses
# the unwinder's registers, not the host's. The file is written here by
# this test's own generator (not tally's writer) from a committed fixture:
# tests/data/arm64/uwprog, an aarch64 ELF from the cross build, and
# uwprog.regs, its leaf()'s registers and 4 KiB of stack as a
# --call-graph dwarf sample carries them (uwprog.c says how they were
# made). The map names the program by its path on the arm64 machine; its
# copy is read under --symfs, as perf does. perf 6.1 reads the same file
# (with the same --symfs): its sample line and report must be
# tally's; it cannot unwind an arm64 file on x86 ("target platform=arm64
# is not supported"), so the chain is checked against the program's own
# calls (main -> outer -> middle -> leaf) and its symbol table.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
F=$PWD/tests/data/arm64

gen() {	# ARCH OUT
	python3 - "$F/uwprog" "$F/uwprog.regs" "$1" "$2" "$REC" <<'PY'
import struct, sys
elf, regsfile, arch, out, recorded = sys.argv[1:6]
b = open(regsfile, "rb").read()
regs = struct.unpack_from("<33Q", b)
stack = b[33 * 8:33 * 8 + 4096]
PID = 4242
# the ELF's executable PT_LOAD (64-bit little-endian)
e = open(elf, "rb").read()
phoff, = struct.unpack_from("<Q", e, 32)
phentsize, phnum = struct.unpack_from("<HH", e, 54)
for i in range(phnum):
    p_type, p_flags, p_off, p_vaddr, _, _, p_memsz = struct.unpack_from("<IIQQQQQ", e, phoff + i * phentsize)
    if p_type == 1 and p_flags & 1:
        text = (p_vaddr & ~0xfff, (p_memsz + (p_vaddr & 0xfff) + 0xfff) & ~0xfff, p_off & ~0xfff)
ST = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 8) | (1 << 5) | (1 << 12) | (1 << 13)  # IP TID TIME PERIOD CALLCHAIN REGS_USER STACK_USER
flags = (1 << 5) | (1 << 6) | (1 << 8) | (1 << 9) | (1 << 18) | (1 << 22) | (1 << 23)
attr = struct.pack("<IIQQQQQIIQQQQIiQIHHIIQ", 1, 128, 0, 100000, ST, 0, flags, 0, 0, 0, 0, 0,
                   (1 << 33) - 1, 4096, 0, 0, 0, 0, 0, 0, 0, 0)
assert len(attr) == 128
def pad8(s):
    s = s + b"\0"
    return s + b"\0" * (-len(s) % 8)
def sid(t):
    return struct.pack("<IIQ", PID, PID, t)
recs = []
def rec(typ, misc, body):
    recs.append(struct.pack("<IHH", typ, misc, 8 + len(body)) + body)
rec(3, 0, struct.pack("<II", PID, PID) + pad8(b"uwprog") + sid(1000))
rec(10, 2, struct.pack("<IIQQQIIQQII", PID, PID, text[0], text[1], text[2], 0, 0, 0, 0, 5, 2)
    + pad8(recorded.encode()) + sid(2000))
body = struct.pack("<QIIQQ", regs[32], PID, PID, 3000, 100000)
body += struct.pack("<Q", 0)                                        # the kernel's chain: none (exclude_callchain_user)
body += struct.pack("<Q", 2) + struct.pack("<33Q", *regs)          # PERF_SAMPLE_REGS_ABI_64
body += struct.pack("<Q", 4096) + stack + struct.pack("<Q", 4096)  # size, data, dyn_size
rec(9, 2, body)
data = b"".join(recs)
HDR = 104
attrs_off = HDR
attrs = attr + struct.pack("<QQ", 0, 0)
data_off = attrs_off + len(attrs)
feat_off = data_off + len(data)
# one feature, ARCH (bit 6): a perf string (u32 length, NUL-padded to 64)
s = arch.encode().ljust(64, b"\0")
feat = struct.pack("<I", len(s)) + s
sect = struct.pack("<QQ", feat_off + 16, len(feat))
features = (1 << 6).to_bytes(32, "little")
hdr = b"PERFILE2" + struct.pack("<QQQQQQQQ", HDR, len(attrs), attrs_off, len(attrs), data_off,
                                len(data), 0, 0) + features
assert len(hdr) == HDR
open(out, "wb").write(hdr + attrs + data + sect + feat)
PY
}
# the program's path on the arm64 machine, not on this one: its copy is
# read under --symfs, as perf reads another machine's files
REC=/usr/local/bin/uwprog-$$
R=$d/root
mkdir -p "$R/usr/local/bin"
cp "$F/uwprog" "$R$REC"
gen aarch64 "$d/arm64.data"
gen x86_64 "$d/x86.data"
is "the header says aarch64" "$("$TALLY" report -i "$d/arm64.data" --header-only 2>/dev/null |
	sed -n 's/^# arch : //p')" aarch64

# the sample as perf 6.1 reads it
if have_perf; then
	for f in "comm,tid,ip,sym --hide-call-graph" "comm,tid,ip,sym,dso --hide-call-graph"; do
		# shellcheck disable=SC2086
		perf script -i "$d/arm64.data" --symfs "$R" -F $f >"$d/perf.s" 2>/dev/null
		# shellcheck disable=SC2086
		"$TALLY" script -i "$d/arm64.data" --symfs "$R" -F $f >"$d/tally.s" 2>/dev/null
		check "script -F $f as perf's" cmp -s "$d/perf.s" "$d/tally.s"
	done
	perf report -i "$d/arm64.data" --symfs "$R" --stdio --no-children -s comm,dso,sym -g none 2>/dev/null |
		grep -v '^#' | grep . >"$d/perf.r"
	"$TALLY" report -i "$d/arm64.data" --symfs "$R" --stdio --no-children -s comm,dso,sym -g none 2>/dev/null |
		grep -v '^#' | grep . >"$d/tally.r"
	check "report's rows as perf's" cmp -s "$d/perf.r" "$d/tally.r"
	check "perf's rows name leaf" grep -q '\[\.\] leaf' "$d/perf.r"
else
	missing "no perf"
fi

# the chain: the program's calls, each frame inside its function
"$TALLY" script -i "$d/arm64.data" --symfs "$R" -F ip,sym >"$d/chain" 2>"$d/err"
is "script unwinds four frames" "$(awk 'NF == 2 { printf "%s ", $2 }' "$d/chain")" \
	"leaf middle outer main "
python3 - "$F/uwprog" "$d/chain" >"$d/inside" <<'PY'
import struct, sys
e = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", e, 40)
shentsize, shnum = struct.unpack_from("<HH", e, 58)
secs = [struct.unpack_from("<IIQQQQIIQQ", e, shoff + i * shentsize) for i in range(shnum)]
syms = {}
for s in secs:
    if s[1] != 2:		# SHT_SYMTAB
        continue
    strtab = secs[s[6]]
    for off in range(s[4], s[4] + s[5], 24):
        name, info, _, _, value, size = struct.unpack_from("<IBBHQQ", e, off)
        n = e[strtab[4] + name:e.index(b"\0", strtab[4] + name)].decode()
        syms[n] = (value, size)
# a chain line's address is the file offset perf prints (text at offset 0)
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) == 2 and f[1] in syms:
        a = int(f[0], 16) + 0x400000
        v, sz = syms[f[1]]
        print("in" if v <= a < v + sz else "out", f[1])
PY
is "each frame's address is inside its function" "$(grep -c '^in ' "$d/inside")" 4
# without --symfs the recorded path is not on this machine: no names
"$TALLY" script -i "$d/arm64.data" -F ip,sym >"$d/nochain" 2>/dev/null
check "without --symfs the frames are unresolved" bash -c '! grep -q leaf "$1"' _ "$d/nochain"

# the same bytes said to be x86-64's are not arm64's registers
"$TALLY" script -i "$d/x86.data" --symfs "$R" -F ip,sym >"$d/chain86" 2>/dev/null
check "an x86_64 header reads them as x86-64's (no such chain)" \
	test "$(awk 'NF == 2 { printf "%s ", $2 }' "$d/chain86")" != "leaf middle outer main "
done_testing
