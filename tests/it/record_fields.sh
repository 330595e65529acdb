#!/usr/bin/env bash
# tally record's sample field options against perf 6.1's: each gives the
# file the attr perf's gives on the same command (sample_type, the
# register masks, mmap_data, cgroup, inherit_stat, read_format), as perf
# evlist -v reads both files; -b/-j where no PMU records branches is
# refused with a sentence naming the field, the PMU and what it needs;
# bad -j names and register names are usage errors; --all-cgroups writes
# perf's CGROUP records (the same ids and paths as perf's file).
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then
	skip "perf is not installed: nothing to compare with"
	done_testing; exit 0
fi
# the attr's fields the options set, as perf evlist -v names them (tally
# always reads the times, perf with -s: not what is compared)
attr_of() {
	perf evlist -v -i "$1" 2>/dev/null | grep '^page-faults' | tr ',' '\n' |
		grep -E 'sample_type|read_format|mmap_data|cgroup|inherit_stat|sample_regs' |
		sed 's/^ *//; s/TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|//' | tr '\n' ' '
}
for o in -d --phys-data --data-page-size --code-page-size -W --transaction --intr-regs \
	 --user-regs --intr-regs=ax,BX,r15 --user-regs=sp,ip --all-cgroups \
	 --sample-identifier -T "-d --phys-data --data-page-size -W" "-s"; do
	case "$o" in *--phys-data*) if [ "$(id -u)" != 0 ]; then
		skip "$o: physical addresses are root's (checked below)"; continue; fi ;; esac
	perf record -q $o -e page-faults -o "$d/p.data" -- true >/dev/null 2>&1
	"$TALLY" record -q $o -e page-faults -o "$d/t.data" -- true >/dev/null 2>"$d/t.err"
	is "$o: exits 0" "$?" 0
	is "$o: the attr perf's has" "$(attr_of "$d/t.data")" "$(attr_of "$d/p.data")"
done
# TRANSACTION (1 << 17) perf evlist does not name: the attr's own bits
st() { python3 -c 'import struct, sys
b = open(sys.argv[1], "rb").read()
off = struct.unpack("<Q", b[24:32])[0]
print(hex(struct.unpack("<Q", b[off + 24:off + 32])[0]))' "$1"; }
"$TALLY" record -q --transaction -e page-faults -o "$d/t.data" -- true 2>/dev/null
perf record -q --transaction -e page-faults -o "$d/p.data" -- true 2>/dev/null
is "--transaction: the sample_type perf's has" "$(st "$d/t.data")" "$(st "$d/p.data")"
# -s: the kernel's count per thread at each exit, its READ records
"$TALLY" record -q -s -e page-faults -o "$d/t.data" -- sh -c 'true & wait' 2>/dev/null
check "-s: READ records per exiting thread" \
	test "$(perf report -D -i "$d/t.data" 2>/dev/null | grep -c 'PERF_RECORD_READ')" -ge 1

# branch stacks: refused here with a sentence, exit 1 as perf's refusal
if [ ! -e /sys/bus/event_source/devices/cpu/caps/branches ]; then
	for o in -b "-j any,u" "-j call"; do
		"$TALLY" record $o -e page-faults -o "$d/b.data" -- true >/dev/null 2>"$d/b.err"
		is "$o with no branch-recording PMU: fails" "$?" 1
		check "$o: names the field, the PMU and what it needs" grep -q \
			"page-faults: the software PMU cannot sample the branch stack (-b/-j, PERF_SAMPLE_BRANCH_STACK): that needs a hardware PMU" "$d/b.err"
	done
	"$TALLY" record -b -o "$d/b.data" -- true >/dev/null 2>"$d/b.err"
	is "-b with the default event: fails" "$?" 1
	check "-b with the default event: says why once" test "$(grep -c 'cannot sample the branch stack' "$d/b.err")" = 1
else
	skip "this machine's PMU records branches: the refusal is not seen here"
fi
"$TALLY" record -j any,bogus -- true >/dev/null 2>"$d/e"; is "-j bogus: usage error" "$?" 129
check "-j bogus: lists the names" grep -q "any_call,any_ret" "$d/e"
"$TALLY" record --intr-regs=ax,nope -- true >/dev/null 2>"$d/e"; is "--intr-regs nope: usage error" "$?" 129
"$TALLY" record --user-regs=? >/dev/null 2>"$d/e"; is "--user-regs=?: as perf, a usage error" "$?" 129
is "--user-regs=?: perf's list" "$(grep available "$d/e")" "$(perf record --user-regs=? 2>&1 | grep available)"

# --phys-data where the kernel keeps physical addresses from this user: said so
if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ]; then
	"$TALLY" record --phys-data -e page-faults:u -o "$d/n.data" -- true >/dev/null 2>"$d/e"
	is "--phys-data, not allowed: fails" "$?" 1
	check "--phys-data, not allowed: names the field and the way" grep -q \
		"the kernel gives the data's physical address (--phys-data, PERF_SAMPLE_PHYS_ADDR) only to a user allowed to see the kernel: perf_event_paranoid is" "$d/e"
else
	skip "--phys-data refused: only as a user the kernel keeps physical addresses from"
fi

# --all-cgroups: perf's CGROUP records (id and path), as perf report -D prints them
cg() { perf report -D -i "$1" 2>/dev/null | grep -o 'PERF_RECORD_CGROUP cgroup: .*' | sort; }
perf record -q --all-cgroups -e page-faults -o "$d/p.data" -- true 2>/dev/null
"$TALLY" record -q --all-cgroups -e page-faults -o "$d/t.data" -- true 2>/dev/null
is "--all-cgroups: perf's CGROUP records" "$(cg "$d/t.data")" "$(cg "$d/p.data")"
check "--all-cgroups: some CGROUP record" test -n "$(cg "$d/t.data")"
done_testing
