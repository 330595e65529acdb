#!/usr/bin/env bash
# tally script -F srcline, srccode, tod and metric, --show-namespace-events,
# and record's -k/--clockid and --namespaces behind them, against perf
# script 6.1 on the same files: mkfields' synthetic samples (its own code,
# built -g), recordings of tests/helpers/burn (-g, --call-graph dwarf and
# neither, with -k realtime), a --namespaces recording of a shell forking burn twice.
# Every line equal, report --header-only's clock lines too (and of the
# -k file rewritten big-endian); perf's refusals (srcline or srccode without ip, tod
# without CLOCK_DATA) in perf's words and status. What the files hold is
# checked against the machine: tod's date is today's, the NAMESPACES
# records are the workload's and its two children's, each naming this
# process's cgroup namespace (stat of /proc/$$/ns/cgroup), which report's
# cgroup_id key then shows as perf's (root: NAMESPACES records need
# CAP_PERFMON; another user's --namespaces is refused, said why).
# libc's frames are left out of the -g srcline comparison: libdw and
# binutils' addr2line name another file for glibc's DWARF 5 lines
# (docs/perf-differences.md).
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
B=$HELPERS/burn

"$HELPERS/mkfields" "$d/all.data" all || { fail "mkfields all"; done_testing; exit 0; }
"$TALLY" record -q -F 999 -k realtime -o "$d/n.data" -- "$B" 40 >/dev/null 2>&1
is "record -k realtime: exits 0" "$?" 0
"$TALLY" record -q -F 999 -g -o "$d/g.data" -- "$B" 40 >/dev/null 2>&1
"$TALLY" record -q -F 499 --call-graph dwarf -o "$d/dw.data" -- "$B" 30 >/dev/null 2>&1
root=false; [ "$(id -u)" = 0 ] && root=true
if $root; then
	"$TALLY" record -q -c 1000000 -e task-clock --namespaces -o "$d/ns.data" -- \
		sh -c "$B 20; $B 20" >/dev/null 2>&1
	is "record --namespaces: exits 0" "$?" 0
else	# the kernel's NAMESPACES need CAP_PERFMON, whatever perf_event_paranoid
	"$TALLY" record -q -e task-clock:u --namespaces -o "$d/ns.data" -- true 2>"$d/e"
	is "record --namespaces without CAP_PERFMON: refused" "$?" 1
	check "record --namespaces without CAP_PERFMON: said so" \
		grep -q "NAMESPACES records (--namespaces) only to a user with CAP_PERFMON" "$d/e"
fi
"$TALLY" record -q -k nosuchclock -o "$d/x.data" -- true 2>"$d/e"
is "-k with an unknown clock: usage error" "$?" 129
check "-k nosuchclock: named" grep -q "nosuchclock': unknown clock" "$d/e"

# what the files hold, against the machine
is "-k realtime: tod is today's wall clock" \
	"$("$TALLY" script -F tod -i "$d/n.data" 2>&1 | awk 'NR == 1 { print $1 }')" "$(date +%Y-%m-%d)"
ns="$(stat -L -c %d /proc/$$/ns/cgroup)/0x$(printf '%x' "$(stat -L -c %i /proc/$$/ns/cgroup)")"
if $root; then
	"$TALLY" script --show-namespace-events -F comm,tid -i "$d/ns.data" >"$d/ns.out" 2>&1
	is "--namespaces: the workload's and its two children's NAMESPACES" \
		"$(grep -c 'PERF_RECORD_NAMESPACES .* - nr_namespaces: 7$' "$d/ns.out")" 3
	is "--namespaces: each names this process's cgroup namespace" \
		"$(grep -c "6/cgroup: $ns\]" "$d/ns.out")" 3
	"$TALLY" report --stdio -s cgroup_id -i "$d/ns.data" 2>/dev/null | grep '%' >"$d/cg"
	is "report -s cgroup_id: one row, the namespace's dev/ino" "$(awk '{ print $2 }' "$d/cg")" "$ns"
else
	skip "--namespaces recordings: need CAP_PERFMON (root)"
fi

if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
same() {	# NAME FILTER ARGS...: stdout (through FILTER), stderr and status as perf's
	local n=$1 flt=$2; shift 2
	"$TALLY" script "$@" 2>"$d/t.err" | $flt >"$d/t.out"; local rc=${PIPESTATUS[0]}
	perf script "$@" 2>"$d/p.err" | $flt >"$d/p.out"; local prc=${PIPESTATUS[0]}
	is "$n: exit status perf's" "$rc" "$prc"
	diff "$d/t.out" "$d/p.out" >"$d/diff"
	is "$n: every line equal ($(wc -l <"$d/p.out") lines)" "$(grep -c '^[<>]' "$d/diff")" 0
	grep -q '^[<>]' "$d/diff" && sed -n '1,6s/^/# /p' "$d/diff"
	is "$n: perf's words" "$(sed 's/^tally script: //' "$d/t.err")" "$(cat "$d/p.err")"
}
# a libc frame's srcline line left out (the frame itself stays)
nolibc() { awk 'skip && /^  / { skip = 0; next } { skip = /libc\.so/; print }'; }
for F in ip,sym,srcline ip,sym,dso,srcline,srccode srccode,ip ip,srcline,iregs \
	 ip,sym,srcline,srccode,brstack +srcline,+srccode; do
	same "mkfields -F $F" cat -F "$F" -i "$d/all.data"
done
check "mkfields: its own source lines shown" grep -q '^|[0-9]* *__attribute__' "$d/t.out"
for F in ip,sym,dso,srcline,srccode +srccode tod comm,tod,time tod,ip,srccode ip,metric; do
	same "burn -F $F" cat -F "$F" -i "$d/n.data"
done
same "burn -F comm,tod,time --ns" cat -F comm,tod,time --ns -i "$d/n.data"
perf report --header-only -i "$d/n.data" >"$d/p.hdr" 2>/dev/null
"$TALLY" report --header-only -i "$d/n.data" >"$d/t.hdr" 2>/dev/null
is "-k realtime: report --header-only's lines perf's" "$(diff "$d/t.hdr" "$d/p.hdr" | grep -c '^[<>]')" 0
check "-k realtime: the header names the clock and its reference" \
	grep -q '^# reference time: .* (TOD) = .* (realtime)$' "$d/t.hdr"
# the same file from a machine of the other byte order (byte_order.sh's rewriter)
if python3 "$(dirname "$0")/to_big_endian.py" "$d/n.data" "$d/n.be" 2>"$d/e"; then
	"$TALLY" script -F comm,tod,time -i "$d/n.be" >"$d/t.out" 2>&1
	perf script -F comm,tod,time -i "$d/n.data" >"$d/p.out" 2>&1
	is "-k realtime, big-endian: tod as perf's of the original" \
		"$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
	"$TALLY" report --header-only -i "$d/n.be" 2>/dev/null | grep '^# \(clockid\|reference\)' >"$d/t.hdr"
	is "-k realtime, big-endian: the clock lines perf's" \
		"$(diff "$d/t.hdr" <(grep '^# \(clockid\|reference\)' "$d/p.hdr") | grep -c '^[<>]')" 0
else
	fail "to_big_endian.py: $(cat "$d/e")"
fi
for F in ip,sym,dso,srcline ip,sym,dso,srccode +srcline,+srccode; do
	same "burn -g -F $F" nolibc -F "$F" -i "$d/g.data"
done
check "burn -g: srcline under the frames" grep -q '^  burn.c:[0-9]' "$d/t.out"
# DWARF-unwound chains: each inline frame's own line (its call site's for
# the outer), "(inlined)" after it, "??:0" unfiltered (perf's chain nodes);
# --no-inline: the frames' lines as a frame-pointer chain's
same "burn --call-graph dwarf -F ip,sym,dso,srcline" nolibc -F ip,sym,dso,srcline -i "$d/dw.data"
check "dwarf: an inline frame's line" grep -q '^  burn.c:[0-9]* (inlined)$' "$d/t.out"
for o in "" --no-inline; do
	same "burn --call-graph dwarf -F ip,sym,dso,srcline,srccode $o" nolibc \
		-F ip,sym,dso,srcline,srccode $o -i "$d/dw.data"
done
for F in comm,srcline comm,srccode tod; do
	same "-F $F where perf refuses it" cat -F "$F" -i "$d/g.data"
done
$root || { done_testing; exit 0; }
same "--show-namespace-events" cat --show-namespace-events -i "$d/ns.data"
same "--show-namespace-events -F comm,tid,time" cat --show-namespace-events -F comm,tid,time \
	-i "$d/ns.data"
# (perf may end with a random tip; "# (Tip: ... above 5% only ...)" has a %)
perf report --stdio -s cgroup_id,comm -i "$d/ns.data" 2>/dev/null | grep '%' | grep -v '^#' >"$d/p.rep"
"$TALLY" report --stdio -s cgroup_id,comm -i "$d/ns.data" 2>/dev/null | grep '%' | grep -v '^#' >"$d/t.rep"
is "report -s cgroup_id,comm: perf's rows" "$(diff "$d/t.rep" "$d/p.rep" | grep -c '^[<>]')" 0
done_testing
