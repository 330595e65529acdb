#!/usr/bin/env bash
# perf's row order where rows tie under --sort sym (and pid,sym): perf's
# symbol compare puts a resolved row's DSO first but compares two
# unresolved rows by address alone, so unresolved rows of two DSOs and a
# resolved one between them go round in a circle (zzz's 0x10 < aaa's
# 0x20 < libc's read < zzz's 0x10): its tree decides, not a sort. And
# without a key that collapses (comm, srcline) perf's output tree reads
# entries_in itself, not a second tree of them. The file is written here:
# one thread, maps of two files that are not there (unresolved
# addresses, DSOs "aaa" and "zzz") and libc (resolved functions), one
# sample of period 1 at each address, in an order drawn from a seed.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
libc=$(ldd /bin/true 2>/dev/null | awk '/libc\.so/ { print $3 }')
if ! have_perf; then
	missing "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
if [ -z "$libc" ] || ! command -v nm >/dev/null; then
	skip "no libc to map, or no nm"
	done_testing; exit 0
fi
gen() {	# OUT SEED
	python3 - "$1" "$2" "$libc" "$$" <<'PY'
import random, struct, subprocess, sys
out, seed, libc, pid = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
syms = {}
for l in subprocess.run(["nm", "-D", "--defined-only", libc], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) == 3 and f[1] in "TtWi":
        syms[f[2].split("@")[0]] = int(f[0], 16)
PID = 4242
ST = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 8)          # IP TID TIME PERIOD
attr = struct.pack("<IIQQQQQIIQQQQIiQIHHIIQ", 1, 128, 0, 1, ST, 0, 1 << 18,  # sample_id_all
                   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
def pad8(s):
    s = s + b"\0"
    return s + b"\0" * (-len(s) % 8)
recs = []
def rec(typ, misc, body):
    recs.append(struct.pack("<IHH", typ, misc, 8 + len(body)) + body)
def sid(t):
    return struct.pack("<IIQ", PID, PID, t)
rec(3, 0, struct.pack("<II", PID, PID) + pad8(b"cyc") + sid(1))      # COMM
maps = [(0x10000000, 0x100000, "/nonexistent-%d/zzz" % pid),
        (0x20000000, 0x100000, "/nonexistent-%d/aaa" % pid), (0x7f0000000000, 0x400000, libc)]
for i, (start, size, path) in enumerate(maps):                     # MMAP
    rec(1, 2, struct.pack("<IIQQQ", PID, PID, start, size, 0) + pad8(path.encode()) + sid(2 + i))
r = random.Random(seed)
ips = []
for k in range(6):
    ips.append(0x10000000 + r.randrange(0x1000, 0xf0000, 16))
    ips.append(0x20000000 + r.randrange(0x1000, 0xf0000, 16))
for n in ("getpid", "getppid", "malloc", "free", "read", "write"):
    ips.append(0x7f0000000000 + syms[n])
r.shuffle(ips)
for t, ip in enumerate(ips):                                        # SAMPLE
    rec(9, 2, struct.pack("<QIIQQ", ip, PID, PID, 100 + t, 1))
data = b"".join(recs)
HDR = 104
attrs = attr + struct.pack("<QQ", 0, 0)
data_off = HDR + len(attrs)
feat_off = data_off + len(data)
s = b"x86_64".ljust(64, b"\0")                                    # feature ARCH
feat = struct.pack("<I", len(s)) + s
hdr = b"PERFILE2" + struct.pack("<QQQQQQQQ", HDR, len(attrs), HDR, len(attrs), data_off,
                                len(data), 0, 0) + (1 << 6).to_bytes(32, "little")
open(out, "wb").write(hdr + attrs + data + struct.pack("<QQ", feat_off + 16, len(feat)) + feat)
PY
}
rows() { "$1" report --stdio --no-children -i "$2" "${@:3}" 2>/dev/null | grep -v '^#' | grep .; }
for seed in 1 3 5; do
	f="$d/s$seed.data"
	gen "$f" "$seed" || { fail "writing the file (seed $seed)"; continue; }
	for s in sym pid,sym comm,sym; do
		rows perf "$f" --sort "$s" >"$d/p"
		rows "$TALLY" "$f" --sort "$s" >"$d/t"
		cmp -s "$d/p" "$d/t" || diff "$d/p" "$d/t" | head -6 | sed 's/^/# /'
		check "seed $seed, --sort $s: rows in perf's order ($(grep -c '%' "$d/p") rows, 12 unresolved)" \
			cmp -s "$d/p" "$d/t"
	done
done
done_testing
