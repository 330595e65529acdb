#!/usr/bin/env bash
# tally record's sample fields where this kernel gives them without a PMU,
# each against what the workload knows of itself (tests/helpers/fields):
# -d on page faults: the N fresh pages it touched, each once, and (root)
# --phys-data/--data-page-size there 0 and N/A (not mapped yet at the
# fault); -d on a mem:ADDR:w breakpoint: the written address, and with
# --phys-data --data-page-size the physical address /proc/self/pagemap
# gives and the page's size, 4K and a transparent huge page's 2M;
# --intr-regs/--user-regs: the values the workload loaded before an
# execute breakpoint; -s: each thread's count in the READ records (perf
# report -T reads them); --all-cgroups in a cgroup of the test's own: each
# sample's cgroup is it (tally script -F cgroup, perf report --sort
# cgroup, tally report --sort cgroup as perf's). perf script prints the
# same lines from each file.
. "$(dirname "$0")/lib.sh"
F=$HELPERS/fields
W=$HELPERS/work
d=$(mktemp -d)
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg=${CG:+$CG/tally-fields-$$}
cleanup() {
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		while read -r p; do echo "$p" >"$CG/cgroup.procs"; done <"$cg/cgroup.procs" 2>/dev/null
		rmdir "$cg"
	fi
	rm -rf "$d"
}
trap cleanup EXIT
root=false; [ "$(id -u)" = 0 ] && root=true
parity() {	# NAME FIELDS FILE: perf script prints tally script's lines
	have_perf || return 0
	"$TALLY" script -F "$2" -i "$3" >"$d/t.out" 2>&1
	perf script -F "$2" -i "$3" >"$d/p.out" 2>&1
	is "$1: perf script -F $2 prints the same lines" "$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
}
hexes() { "$TALLY" script -F "$1" -i "$2" 2>/dev/null | awk '{ $1 = $1; print }'; }
# the lines whose first word (hex) lies in [LO, HI)
in_range() { local a rest; while read -r a rest; do
	(( 16#$a >= $1 && 16#$a < $2 )) && echo "$a${rest:+ $rest}"; done; }

# -d on page faults: the pages the workload touched, each once
N=16 page=$(getconf PAGESIZE)
extra=; $root && extra="--phys-data --data-page-size"
"$TALLY" record -q -d $extra -c 1 -e page-faults:u -o "$d/pf.data" -- "$F" pages $N >"$d/base" 2>"$d/err"
is "-d page-faults: exits 0" "$?" 0
base=$(cat "$d/base")
want=$(for ((i = 0; i < N; i++)); do printf '%x\n' $((base + i * page)); done)
got=$(hexes addr "$d/pf.data" | in_range $((base)) $((base + N * page)) | sort)
is "-d page-faults: exactly the $N pages touched, each once" "$got" "$(sort <<<"$want")"
parity "-d page-faults" addr "$d/pf.data"
# named by functions and data objects (ld.so's _rtld_global, libc's tables)
parity "-d page-faults" addr,sym,symoff,dso "$d/pf.data"
check "-d page-faults: some data addresses named by an object" \
	grep -q '_rtld_global+0x\|_DYNAMIC+0x' "$d/t.out"
if $root; then
	got=$(hexes addr,phys_addr,data_page_size "$d/pf.data" |
		in_range $((base)) $((base + N * page)) | cut -d' ' -f2- | sort -u)
	is "page faults: no physical address nor page size yet (perf's 0 and N/A)" "$got" "0 N/A"
	parity "page faults" addr,phys_addr,data_page_size "$d/pf.data"
fi

# -d on a write breakpoint: the address written, N times
A=$("$F" addr)
"$TALLY" record -q -d -e "mem:$A:w:u" -o "$d/w.data" -- "$F" write 20 >"$d/w.out" 2>"$d/err"
is "-d mem:$A:w:u: exits 0" "$?" 0
is "-d mem:$A:w:u: every sample's address is the one written" \
	"$(hexes addr "$d/w.data" | sort | uniq -c | awk '{ print $1, $2 }')" "20 ${A#0x}"
parity "-d breakpoint" ip,sym,addr "$d/w.data"
if $root; then
	"$TALLY" record -q -d --phys-data --data-page-size -e "mem:$A:w:u" -o "$d/w.data" -- \
		"$F" write 20 >"$d/w.out" 2>"$d/err"
	read -r _ phys <"$d/w.out"
	check "pagemap gives the physical address (root)" [ "$phys" != 0x0 ]
	is "--phys-data --data-page-size: pagemap's physical address, a 4K page" \
		"$(hexes addr,phys_addr,data_page_size "$d/w.data" | sort | uniq -c | awk '{ print $1, $2, $3, $4 }')" \
		"20 ${A#0x} ${phys#0x} 4K"
	parity "--phys-data --data-page-size" addr,phys_addr,data_page_size "$d/w.data"
	# a transparent huge page where the kernel gives one
	H=0x7e5a00000000
	"$TALLY" record -q -d --phys-data --data-page-size -e "mem:$H:w:u" -o "$d/h.data" -- \
		"$F" huge $H 20 >"$d/h.out" 2>"$d/err"
	is "huge page write: exits 0" "$?" 0
	read -r _ phys kb <"$d/h.out"
	sz=4K; [ "$kb" = 2048 ] && sz=2M
	[ "$sz" = 2M ] || skip "no transparent huge page was given (AnonHugePages $kb kB): 4K checked"
	is "huge page write: the physical address, a $sz page as smaps says" \
		"$(hexes addr,phys_addr,data_page_size "$d/h.data" | sort | uniq -c | awk '{ print $1, $2, $3, $4 }')" \
		"20 ${H#0x} ${phys#0x} $sz"
else
	skip "--phys-data and pagemap's physical addresses need root"
fi

# --intr-regs/--user-regs: the values loaded before the breakpoint
if [ "$(uname -m)" = x86_64 ]; then
	BP=$("$F" bp)
	"$TALLY" record -q -e "mem:$BP:x:u" --intr-regs=ax,bx,cx,dx,si,di,r8,r9,r10,r11,r12,r13,r14,r15 \
		--user-regs=bx,r12,r15 -o "$d/r.data" -- "$F" regs 7 2>"$d/err"
	is "--intr-regs --user-regs on mem:$BP:x: exits 0" "$?" 0
	v() { printf '%5s:0x%s ' "$1" "$2"; }
	iregs=" ABI:2 $(v AX a0a0a0a0a0a0a0a0)$(v BX b1b1b1b1b1b1b1b1)$(v CX c2c2c2c2c2c2c2c2)$(v DX d3d3d3d3d3d3d3d3)$(v SI 5151515151515151)$(v DI d1d1d1d1d1d1d1d1)$(v R8 808080808080808)$(v R9 909090909090909)$(v R10 1010101010101010)$(v R11 1111111111111111)$(v R12 1212121212121212)$(v R13 1313131313131313)$(v R14 1414141414141414)$(v R15 1515151515151515)"
	uregs=" ABI:2 $(v BX b1b1b1b1b1b1b1b1)$(v R12 1212121212121212)$(v R15 1515151515151515)"
	is "each hit's registers are the values loaded (7 hits)" \
		"$("$TALLY" script -F iregs,uregs -i "$d/r.data" | sort | uniq -c | sed 's/^ *//')" \
		"7 $iregs$uregs"
	parity "--intr-regs --user-regs" ip,sym,iregs,uregs "$d/r.data"
else
	skip "the register workload is x86-64's"
fi

# -s: each thread's count at its exit, in READ records perf report -T reads
if ! have_tp; then
	skip "-s: no syscalls:sys_enter_getpid for this user"
else
	# the workload on one CPU: a thread exiting on one CPU writes its READ
	# into the other CPU's ring while that CPU writes samples there, and
	# the kernel then stops publishing that ring's head (perf record -s
	# loses the same records, 2 runs in 100 here)
	taskset -c 0 "$TALLY" record -q -s -c 1 -e syscalls:sys_enter_getpid -o "$d/s.data" -- \
		"$W" threads 3 100 2>"$d/err"
	is "-s: exits 0" "$?" 0
	if have_perf; then
		rows=$(perf report -T --stdio -i "$d/s.data" 2>/dev/null |
			awk '/^# *PID  *TID/ { t = 1; next } t && NF == 3 && $1 != $2 { print $3 }')
		check "-s: threads' counts in READ records ($(echo $rows))" [ -n "$rows" ]
		is "-s: each thread's count is its 100 calls" "$(sort -u <<<"$rows")" 100
	fi
fi

# --all-cgroups: the samples of a workload in a cgroup of the test's own name it
if ! $root || [ -z "$CG" ]; then
	skip "--all-cgroups in a test cgroup: needs root and cgroup v2"
elif ! mkdir "$cg"; then
	fail "cannot make $cg"
else
	"$TALLY" record -q --all-cgroups -c 1 -e syscalls:sys_enter_getpid -o "$d/c.data" -- \
		sh -c "echo \$\$ >$cg/cgroup.procs && exec $W getpid 40" 2>"$d/err"
	is "--all-cgroups: exits 0" "$?" 0
	is "--all-cgroups: the workload's 40 samples are in its cgroup" \
		"$("$TALLY" script -F comm,cgroup -i "$d/c.data" | awk '$1 == "work" { print $2 }' | uniq -c | sed 's/^ *//')" \
		"40 /tally-fields-$$"
	if have_perf; then
		is "--all-cgroups: perf report names the cgroup from tally's records" \
			"$(perf report --stdio -i "$d/c.data" --sort cgroup,comm 2>/dev/null | awk '$NF == "work" { print $(NF - 1) }')" \
			"/tally-fields-$$"
		# the same file through both reports: every row's cgroup, its share and column
		for k in cgroup,comm comm,cgroup cgroup; do
			"$TALLY" report --stdio -i "$d/c.data" --sort $k 2>/dev/null | grep -v '^#' >"$d/t.rep"
			perf report --stdio -i "$d/c.data" --sort $k 2>/dev/null | grep -v '^#' >"$d/p.rep"
			is "--all-cgroups: tally report --sort $k prints perf's rows" \
				"$(diff "$d/t.rep" "$d/p.rep" | grep -c '^[<>]')" 0
			check "--all-cgroups: --sort $k names the test's cgroup" \
				grep -q "/tally-fields-$$" "$d/t.rep"
		done
	fi
fi
done_testing
