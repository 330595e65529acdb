#!/usr/bin/env bash
# run.sh: apart (it loads BPF programs on the syscall tracepoints: other tests' kernel call chains would pass through them)
# The BPF programs a file says were loaded (HEADER_BPF_PROG_INFO) and its
# BTF blobs (HEADER_BPF_BTF) in --header-only, as perf 6.1 prints them:
# perf record writes both when any BPF program is loaded, so a header
# test of perf's file met them whenever another test traced at the same
# time; samples in the programs are named by their KSYMBOL records. Here
# a program is loaded on purpose (tally trace's string reader)
# while perf records; a file with the sections damaged is read without
# a crash.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap '[ -n "${tp:-}" ] && kill "$tp" "$tp2" 2>/dev/null; rm -rf "$d"' EXIT
if ! have_perf || ! have_tp; then
	skip "needs perf and tracepoints"; done_testing; exit 0
fi
# two traces: the same programs loaded twice, at two addresses (perf
# shows them as one row of -s dso,sym: its symbols start at 0)
"$TALLY" trace -o /dev/null -- sleep 20 & tp2=$!
"$TALLY" trace -o /dev/null -- sleep 20 & tp=$!
# the reader is loaded once the trace runs: wait for its programs
for _ in $(seq 50); do
	perf record -q -o "$d/f.data" -- true >/dev/null 2>&1
	perf report --header-only -i "$d/f.data" 2>/dev/null | grep -q '^# bpf_prog_info' && break
	sleep 0.2
done
if ! perf report --header-only -i "$d/f.data" 2>/dev/null | grep -q '^# bpf_prog_info'; then
	skip "no BPF program was loaded (tally trace without BPF here)"; done_testing; exit 0
fi
# Samples in the programs' code: perf's file names each program by its
# KSYMBOL record; tally's lines must be perf's (a map of its own, one
# symbol spanning it), not [unknown].
# (the command alone, not -a: other tests' processes are no part of this)
perf record -q -g -o "$d/k.data" -- sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); : >/dev/null; done' >/dev/null 2>&1
perf script -i "$d/k.data" 2>/dev/null >"$d/pk"
"$TALLY" script -i "$d/k.data" 2>/dev/null >"$d/tk"
if grep -q 'bpf_prog_.*+0x.* (bpf_prog_' "$d/pk"; then
	diff "$d/tk" "$d/pk" | head -6 | sed 's/^/# /'
	check "samples in BPF programs: script's lines are perf's ($(grep -c 'bpf_prog_' "$d/pk") frames)" cmp -s "$d/tk" "$d/pk"
	perf report -i "$d/k.data" --stdio --no-children -s dso,sym 2>/dev/null | grep bpf_prog_ >"$d/pr"
	"$TALLY" report -i "$d/k.data" --stdio --no-children -s dso,sym 2>/dev/null | grep bpf_prog_ >"$d/tr"
	check "samples in BPF programs: report's rows are perf's" cmp -s "$d/tr" "$d/pr"
else
	skip "no sample landed in a BPF program"; skip "no sample landed in a BPF program"
fi
kill "$tp" "$tp2" 2>/dev/null; wait "$tp" "$tp2" 2>/dev/null; tp=
perf report --header-only -i "$d/f.data" >"$d/p" 2>/dev/null
"$TALLY" report --header-only -i "$d/f.data" >"$d/t" 2>"$d/e"; rc=$?
is "exit 0" "$rc" 0
grep -E '^# (bpf_prog_info|	sub_prog|btf info)' "$d/p" >"$d/pb"
grep -E '^# (bpf_prog_info|	sub_prog|btf info)' "$d/t" >"$d/tb"
check "perf printed the programs ($(wc -l <"$d/pb") lines)" [ -s "$d/pb" ]
diff "$d/tb" "$d/pb" | head -6 | sed 's/^/# /'
check "the programs and BTF ids as perf prints them" cmp -s "$d/tb" "$d/pb"
check "a program named from its BTF, as perf (_on_sys_enter)" grep -q 'bpf_prog_[0-9a-f]\{16\}_on_sys_enter addr 0x' "$d/tb"
diff <(grep -v '^# captured on' "$d/t") <(grep -v '^# captured on' "$d/p") | head -6 | sed 's/^/# /'
check "the whole header as perf's" cmp -s <(grep -v '^# captured on' "$d/t") <(grep -v '^# captured on' "$d/p")

# Damaged: the programs' count and a size made huge; every other byte of
# the section flipped in turn would be a fuzzer's job: here the reader
# must stop at the section's end and still print the rest of the header.
python3 - "$d/f.data" "$d/bad.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
feat_off = struct.unpack('<Q', b[40:48])[0] + struct.unpack('<Q', b[48:56])[0]
bits = int.from_bytes(b[72:104], 'little')
i = 0
for f in range(256):
    if bits >> f & 1:
        off, size = struct.unpack('<QQ', b[feat_off + 16 * i:feat_off + 16 * i + 16])
        if f == 25:	# BPF_PROG_INFO: a data_len past the end
            b[off + 8:off + 12] = struct.pack('<I', 0xfffffff0)
        if f == 26:	# BPF_BTF: a blob size past the end
            b[off + 8:off + 12] = struct.pack('<I', 0x7fffffff)
        i += 1
open(sys.argv[2], 'wb').write(b)
PY
"$TALLY" report --header-only -i "$d/bad.data" >"$d/t2" 2>&1; rc=$?
is "damaged sections: exit 0" "$rc" 0
check "damaged sections: the rest of the header printed" grep -q '^# missing features' "$d/t2"
check "damaged sections: no program invented" bash -c "! grep -q 'bpf_prog_info' '$d/t2'"
done_testing
