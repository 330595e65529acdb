#!/usr/bin/env bash
# A recording of another kernel (its kernel build id not the running
# kernel's) is not named from this kernel's /proc/kallsyms: those
# addresses are other functions here. As perf 6.1: the kallsyms kept of
# that build in the build-id cache ([kernel.kallsyms]/<id>/kallsyms),
# else addresses, and the reason said (perf: "No kallsyms or vmlinux with
# build-id ... was found"; tally: report's footer of unresolved addresses).
# Another kernel is made by changing the kernel's build id in the file.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
kid=$(python3 - <<'PY'
import struct
b = open('/sys/kernel/notes', 'rb').read()
o = 0
while o + 12 <= len(b):
    n, s, t = struct.unpack('<III', b[o:o + 12])
    name = o + 12; desc = name + ((n + 3) & ~3)
    if t == 3 and b[name:name + 3] == b'GNU':
        print(b[desc:desc + s].hex()); break
    o = desc + ((s + 3) & ~3)
PY
)
[ -n "$kid" ] || { skip "no kernel build id in /sys/kernel/notes"; done_testing; exit 0; }
oid=$(python3 -c "import sys; print(bytes(x ^ 0xff for x in bytes.fromhex(sys.argv[1])).hex())" "$kid")
"$TALLY" record -q -e cpu-clock -c 100000 -o "$d/k.data" -- "$HELPERS/work" getpid 300000 2>/dev/null
python3 - "$d/k.data" "$d/o.data" "$kid" "$oid" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
k, o = bytes.fromhex(sys.argv[3]), bytes.fromhex(sys.argv[4])
assert b.count(k) == 1, b.count(k)
open(sys.argv[2], 'wb').write(b.replace(k, o))
PY
is "the recording names this kernel's build id" "$?" 0
rows() { HOME=$1 "$TALLY" report --stdio --sort sym -i "$2" 2>"$d/err" | grep -F '[k]'; }
mkdir -p "$d/empty"
rows "$d/empty" "$d/k.data" >"$d/own"
check "this kernel's recording: kernel functions named" grep -Evq '\[k\] 0x[0-9a-f]+ *$' "$d/own"
rows "$d/empty" "$d/o.data" >"$d/oth"
check "another kernel's, no kallsyms kept: kernel rows ($(wc -l <"$d/oth"))" test -s "$d/oth"
check "another kernel's, no kallsyms kept: no kernel function named ($(grep -Ev '\[k\] 0x' "$d/oth" | head -1))" \
	sh -c "! grep -Evq '\[k\] 0x[0-9a-f]+ *$' '$d/oth'"
HOME=$d/empty "$TALLY" report --stdio --sort sym -i "$d/o.data" 2>/dev/null >"$d/full"
check "the footer says why: the build id not found" grep -q "No kallsyms or vmlinux with build-id $oid was found" "$d/full"
# perf's kept copy of that kernel's kallsyms (this one's, each name but
# _text, perf's relocation anchor, prefixed so that it tells): named from it
mkdir -p "$d/kept/.debug/[kernel.kallsyms]/$oid"
sed -E '/ _s?text$/!s/^([0-9a-f]+ [a-zA-Z] )/\1o_/' /proc/kallsyms >"$d/kept/.debug/[kernel.kallsyms]/$oid/kallsyms"
rows "$d/kept" "$d/o.data" >"$d/kept.rows"
sed -E 's/\[k\] ([^0])/[k] o_\1/' "$d/own" >"$d/own.o"
check "another kernel's, its kallsyms kept: named from it" cmp -s "$d/kept.rows" "$d/own.o"
if have_perf; then
	for h in empty kept; do
		HOME=$d/$h perf report --stdio --sort sym -i "$d/o.data" 2>/dev/null | grep -F '[k]' >"$d/p.$h"
		rows "$d/$h" "$d/o.data" >"$d/t.$h"
		is "another kernel's ($h cache): perf's kernel rows" "$(diff "$d/t.$h" "$d/p.$h" | grep -c '^[<>]')" 0
	done
else
	missing "perf is not installed: the comparison with perf"
fi
done_testing
