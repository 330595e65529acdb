#!/usr/bin/env bash
# tally script -F over the fields only a PMU gives, against perf script
# 6.1 on the same files: mkfields (tests/helpers) writes samples with data
# sources over every op/level/snoop/TLB/lock/block value, weights and
# instruction latencies, branch stacks (with and without hw_idx, every
# branch type), both register sets, transactions, physical addresses,
# page sizes and cgroups, and page faults with data addresses (named by
# data objects, as perf). Every
# line equal, for each field alone and mixed with the defaults; perf's
# refusals (a field the samples lack, symoff without sym) as perf's.
# flags, insn and insnlen on tally's own recordings (perf 6.1 reads no
# instruction from a file without its arch feature, as mkfields writes).
# The cgroup field is tally's (perf 6.1 has none): the CGROUP records'
# paths, "unknown" for an id no record names. brstackoff on br's stacks,
# whose kernel ends lie in a [kernel.kallsyms]_text map: offsets in it.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
M=$HELPERS/mkfields

for k in all hwidx pf br; do
	"$M" "$d/$k.data" $k || { fail "mkfields $k"; done_testing; exit 0; }
done
if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
same() {	# NAME ARGS...: stdout, stderr's lines and exit status equal
	local n=$1; shift
	"$TALLY" script "$@" >"$d/t.out" 2>"$d/t.err"; local rc=$?
	perf script "$@" >"$d/p.out" 2>"$d/p.err"; local prc=$?
	is "$n: exit status perf's" "$rc" "$prc"
	diff "$d/t.out" "$d/p.out" >"$d/diff"
	is "$n: every line equal ($(wc -l <"$d/p.out") lines)" "$(grep -c '^[<>]' "$d/diff")" 0
	grep -q '^[<>]' "$d/diff" && sed -n '1,6s/^/# /p' "$d/diff"
}
for k in all hwidx; do
	same "$k: the raw event's defaults" -i "$d/$k.data"
	for F in addr data_src weight ins_lat phys_addr data_page_size code_page_size misc \
		 iregs uregs brstack brstacksym brstackoff ip,brstack,dso ip,brstacksym,dso \
		 brstackoff,dso brstack,brstacksym,brstackoff comm,tid,cpu,misc,time,event \
		 ip,sym,symoff,addr,iregs,uregs,period +brstack,+iregs,+uregs +misc,-addr \
		 data_src,weight,ins_lat,ip,sym,phys_addr,data_page_size; do
		same "$k -F $F" -F "$F" -i "$d/$k.data"
	done
done
check "the issue's data source is decoded" \
	grep -q '68100142 |OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A' "$d/t.out"
for F in brstackoff brstackoff,dso; do
	same "br -F $F (kernel ends in a map)" -F "$F" -i "$d/br.data"
done
check "... a kernel end shown as its offset in the kernel's map" \
	grep -q ' 0x[0-9a-f]\{1,7\}(\[kernel.kallsyms\])/' "$d/t.out"
same "pf: defaults" -i "$d/pf.data"
for F in addr addr,dso addr,sym addr,sym,symoff,dso +addr +addr,-sym,-symoff; do
	same "pf -F $F" -F "$F" -i "$d/pf.data"
done
for F in data_src weight iregs uregs phys_addr ins_lat data_page_size symoff -ip,-sym; do
	"$TALLY" script -F "$F" -i "$d/pf.data" >/dev/null 2>"$d/t.err"; rc=$?
	perf script -F "$F" -i "$d/pf.data" >/dev/null 2>"$d/p.err"; prc=$?
	is "pf -F $F: refused as perf (rc $prc)" "$rc" "$prc"
	is "pf -F $F: perf's reason" "$(sed 's/^tally script: s/S/' "$d/t.err")" "$(cat "$d/p.err")"
done

# brstackinsn, brstackinsnlen: each block between a sample's branches
# read from the files mapped (mkfields' own code, libc's) and measured
# instruction by instruction (symbols on entry, the jumps' flags, cycles
# and IPC, perf's "mismatch" and "not reaching sample" lines); the br
# files' blocks go through libc and the kernel, start inside instructions
# and span thousands of bytes. A file recorded without any-branch is
# refused in perf's words.
for k in br brhw; do
	"$M" "$d/$k.data" $k || fail "mkfields $k"
done
for F in brstackinsn ip,sym,brstackinsnlen +brstackinsn,-brstackinsnlen comm,tid,brstack,brstackinsn; do
	same "br -F $F" -F "$F" -i "$d/br.data"
done
check "br -F brstackinsn: blocks of instructions, measured" \
	grep -q $'^\t[0-9a-f]\\{16\\}\tinsn: [0-9a-f][0-9a-f] ' "$d/t.out"
same "brhw -F brstackinsn" -F brstackinsn -i "$d/brhw.data"
same "all -F brstackinsn,brstackinsnlen" -F brstackinsn,brstackinsnlen -i "$d/all.data"
"$TALLY" script -F brstackinsn -i "$d/pf.data" >/dev/null 2>"$d/t.err"; rc=$?
perf script -F brstackinsn -i "$d/pf.data" >/dev/null 2>"$d/p.err"; prc=$?
is "pf -F brstackinsn: refused as perf (rc $prc)" "$rc" "$prc"
is "pf -F brstackinsn: perf's reason" "$(cat "$d/t.err")" "$(cat "$d/p.err")"

# flags, insn, insnlen, callindent, ipc, synth (blank but for hardware
# traces and synthesized events) on recordings of this machine's code (the
# instruction read from each file as perf reads it), of a program and -a
# -g (kernel frames: none read; only sleep's and the idle task's samples,
# not other programs' whose files may be rebuilt between the two reads)
"$TALLY" record -q -F 999 -o "$d/live-user.data" -- "$HELPERS/burn" 200 >/dev/null 2>&1
"$TALLY" record -q -a -g -o "$d/live-all.data" -- sleep 0.2 >/dev/null 2>&1
for F in ip,sym,insn,insnlen +insn,+insnlen ip,flags comm,flags,event +flags flags \
	 ip,sym,callindent,ipc,synth callindent ipc,synth +ipc,+synth,+callindent; do
	same "a program's recording -F $F" -F "$F" -i "$d/live-user.data"
	same "-a -g recording -F $F" -F "$F" --comms sleep,swapper -i "$d/live-all.data"
done
"$TALLY" script -F ip,insn,insnlen -i "$d/live-user.data" >"$d/t.out"
check "a program's recording: its instructions read" \
	grep -q ' ilen: [1-9][0-9]* insn: [0-9a-f][0-9a-f]' "$d/t.out"

# [vdso]'s code: read from the image record kept in the build-id cache, as
# perf reads it (tally read none there: "ilen: 0", seen when a sample of
# burn fell in __vdso_clock_gettime); and brstackinsn's blocks alike
printf '#include <time.h>\nint main(void) { struct timespec t; long s = 0;\n for (int i = 0; i < 2000000; i++) { clock_gettime(CLOCK_MONOTONIC, &t); s += t.tv_nsec; }\n return s == 1; }\n' >"$d/vd.c"
cc -O2 -o "$d/vd" "$d/vd.c"
mkdir -p "$d/vhome"
HOME=$d/vhome "$TALLY" record -q -F 4000 -o "$d/vdso.data" -- "$d/vd" >/dev/null 2>&1
HOME=$d/vhome same "[vdso] samples -F ip,sym,insn,insnlen" -F ip,sym,insn,insnlen -i "$d/vdso.data"
check "[vdso]: its samples' instructions read" grep -q '__vdso_clock_gettime ilen: [1-9]' "$d/t.out"

# cgroup: tally's own field
"$TALLY" script -F tid,cgroup -i "$d/all.data" >"$d/cg" 2>&1
is "cgroup: exits 0" "$?" 0
is "cgroup: the CGROUP records' paths, unknown without one" \
	"$(awk '{ $1 = ""; print }' "$d/cg" | sort | uniq -c | awk '{ $1 = $1; print }' | tr '\n' ';')" \
	"32 /;32 /tally-fields/a b;32 unknown;"
done_testing
