#!/usr/bin/env bash
# report's keys over the PMU's sample fields (mem, snoop, tlb, locked,
# blocked, phys_daddr, data_page_size, symbol_daddr, dso_daddr, dcacheline with
# --mem-mode, its default order too, and perf's IPC column after a key
# named symbol_...; code_page_size,
# weight, local_weight, ins_lat, local_ins_lat in any mode) and
# --mem-mode's weights: the same lines as perf 6.1's report on the same
# files, which mkfields (tests/helpers) writes with every data source
# part, weight and page size; symbol_iaddr (--mem-mode), transaction,
# cgroup (the CGROUP records' names) and cgroup_id (the NAMESPACES
# record's cgroup namespace) flat, with -F and --hierarchy, and on a
# file of equal periods (mkfields ties), whose equal rows come in perf's
# order of their keys. A memory key without --mem-mode is refused.
. "$(dirname "$0")/lib.sh"
M=$HELPERS/mkfields
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
"$M" "$d/all.data" all || { fail "mkfields all"; done_testing; exit 0; }

"$TALLY" report --stdio -i "$d/all.data" -s mem 2>"$d/e" >/dev/null; rc=$?
is "mem without --mem-mode: usage error" "$rc" 129
check "mem without --mem-mode: said" grep -q "key 'mem' is a memory key: it needs --mem-mode" "$d/e"
"$TALLY" report --stdio -i "$d/all.data" -s lvl 2>"$d/e" >/dev/null; rc=$?
is "lvl (not a perf 6.1 key): usage error" "$rc" 129
check "lvl: named" grep -q "unknown key 'lvl'" "$d/e"
"$TALLY" report --stdio -i "$d/all.data" -s symbol_iaddr 2>"$d/e" >/dev/null; rc=$?
is "symbol_iaddr without --mem-mode: usage error" "$rc" 129
check "symbol_iaddr without --mem-mode: said" grep -q "key 'symbol_iaddr' is a memory key" "$d/e"
"$M" "$d/pf.data" pf || fail "mkfields pf"
"$TALLY" report --stdio --mem-mode -i "$d/pf.data" >"$d/o" 2>"$d/e"; rc=$?
is "--mem-mode on a file without data sources: an error" "$rc" 1
check "--mem-mode without data sources: said" grep -q "no event of .* has data sources" "$d/e"
check "--mem-mode without data sources: no rows" eval '! grep -q "%" "$d/o"'
if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
# what both print besides the table: perf's tips, tally's account of misses
body() { grep -v '^#$\|^$\|^# (Tip\|header info\|^#   \|^# Addresses without'; }
while read -r args; do
	"$TALLY" report --stdio $args -i "$d/all.data" 2>/dev/null | body >"$d/a"
	perf report --stdio $args -i "$d/all.data" 2>/dev/null | body >"$d/b"
	is "$args: perf's lines" "$(diff "$d/a" "$d/b" | grep -c '^[<>]')" 0
	diff "$d/a" "$d/b" | head -14 | sed 's/^/# /'
	check "$args: rows" grep -q '%' "$d/a"
done <<'LIST'
--mem-mode
--mem-mode -n
--mem-mode -s mem
--mem-mode -s symbol_daddr
--mem-mode -s dso_daddr
--mem-mode -s symbol_daddr,dso_daddr
--mem-mode -s dso_daddr,sym
--mem-mode -s comm,dso_daddr,mem
--mem-mode -s locked,symbol_daddr
--mem-mode -s dcacheline
--mem-mode -s dcacheline,sym
--mem-mode -s comm,dcacheline,dso_daddr
--mem-mode -s snoop
--mem-mode -s tlb
--mem-mode -s locked
--mem-mode -s blocked
--mem-mode -s phys_daddr
--mem-mode -s data_page_size
-s code_page_size
--mem-mode -s code_page_size
-s weight
--mem-mode -s weight
-s local_weight
--mem-mode -s local_weight
-s ins_lat
--mem-mode -s ins_lat
-s local_ins_lat
--mem-mode -s local_ins_lat
--mem-mode -s locked,blocked
--mem-mode -s mem,snoop,tlb
--mem-mode -s snoop,comm
--mem-mode -s dso,locked,data_page_size
--mem-mode -s sym,code_page_size
-s code_page_size,comm
-s comm,weight
--mem-mode -s locked,code_page_size,local_weight
--mem-mode -s tlb -n
--mem-mode -F overhead,sample,mem,locked
-F overhead,code_page_size,period
--mem-mode -F overhead,weight,sym -s locked
--hierarchy -s weight,comm
--hierarchy -s comm,code_page_size
--hierarchy -s code_page_size,comm,ins_lat
--mem-mode -s symbol_iaddr
--mem-mode -s symbol_iaddr,comm
--mem-mode -s sym,symbol_iaddr
-s transaction
--mem-mode -s transaction
-s cgroup
-s cgroup_id
-s cgroup,comm,cgroup_id,transaction,cpu
-s transaction,cgroup_id
-s cgroup_id,cgroup
-F overhead,cgroup,transaction
--hierarchy -s cgroup,transaction
--hierarchy -s transaction,cgroup
--hierarchy -s cgroup_id,comm
LIST
# rows of equal shares (every period the same): in perf's order of their keys
"$M" "$d/ties.data" ties || fail "mkfields ties"
while read -r args; do
	"$TALLY" report --stdio $args -i "$d/ties.data" 2>/dev/null | body >"$d/a"
	perf report --stdio $args -i "$d/ties.data" 2>/dev/null | body >"$d/b"
	is "equal shares, $args: perf's lines" "$(diff "$d/a" "$d/b" | grep -c '^[<>]')" 0
	diff "$d/a" "$d/b" | head -8 | sed 's/^/# /'
done <<'LIST'
-s transaction
-s cgroup
-s cgroup_id
-s cgroup_id,comm
-s comm,cgroup_id
-s cpu,transaction
--mem-mode -s symbol_iaddr
--hierarchy -s cgroup,transaction
--hierarchy -s transaction,cgroup_id
--hierarchy -s cgroup_id,comm
LIST
done_testing
