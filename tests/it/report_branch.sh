#!/usr/bin/env bash
# report's branch mode (-b, --branch-stack): a row per branch of the
# samples' branch stacks, perf 6.1's default keys (comm, dso_from,
# symbol_from, symbol_to, cycles), the branch keys (addr_from, addr_to too) with -s, -F and
# --hierarchy, its header counts (branches, not samples) and its branch
# statistics: the same lines as perf's report on the same files, which
# mkfields (tests/helpers) writes: stacks of 4 to 16 branches inside the
# program, into and out of libc, to the kernel (its map as perf record
# writes it: [k] and kallsyms' names) and to no map (perf's [H]),
# with every flag (abort's key too), cycles and type, with and without hw_idx, the header's
# BRANCH_STACK feature making branch mode the default as in perf; its
# "all" file has stacks without the feature (-b needed). Refusals: -b on
# a file without stacks, a branch key outside branch mode, --mem-mode.
# --branch-history on brcg's samples, which have call chains too: each
# chain the branches' ends then the call chain after them (perf's overlap
# skipped, its last entries dropped), the children column counting both.
. "$(dirname "$0")/lib.sh"
M=$HELPERS/mkfields
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
for k in br brhw all pf brcg; do
	"$M" "$d/$k.data" $k || { fail "mkfields $k"; done_testing; exit 0; }
done

"$TALLY" report --stdio -i "$d/br.data" >"$d/o" 2>"$d/e"; rc=$?
is "a file with the BRANCH_STACK feature: exits 0" "$rc" 0
check "... in branch mode by default" grep -q '^# Overhead  Command   Source Shared Object  Source Symbol' "$d/o"
nbr=$("$TALLY" script -F brstack -i "$d/br.data" | wc -w)
is "... its branches counted ($nbr, script's brstack), not its samples" \
	"$(sed -n "s/^# Samples: \([0-9]*\)  of event 'raw 0x1c4'/\1/p" "$d/o")" "$nbr"
"$TALLY" report --stdio --no-branch-stack -i "$d/br.data" >"$d/o" 2>&1
check "--no-branch-stack: the samples' rows" grep -q '^# Overhead  Command   Shared Object' "$d/o"
"$TALLY" report --stdio -i "$d/all.data" >"$d/o" 2>&1
check "stacks without the feature: not branch mode unless -b" grep -q '^# Overhead  Command   Shared Object' "$d/o"
"$TALLY" report --stdio -b -i "$d/pf.data" >"$d/o" 2>"$d/e"; rc=$?
is "-b on a file without branch stacks: an error" "$rc" 1
check "... said" grep -q "no event of .* has branch stacks" "$d/e"
check "... no rows" eval '! grep -q "%" "$d/o"'
"$TALLY" report --stdio -s dso,symbol_to -i "$d/all.data" >/dev/null 2>"$d/e"; rc=$?
is "a branch key outside branch mode: usage error" "$rc" 129
check "... said" grep -q "key 'symbol_to' is a branch key: it needs branch mode" "$d/e"
"$TALLY" report --stdio --mem-mode -i "$d/br.data" >/dev/null 2>"$d/e"; rc=$?
is "--mem-mode in branch mode: an error" "$rc" 1
check "... said as perf" grep -q "branch and mem mode incompatible" "$d/e"
# samples with call chains: the branches, then the chain after them
"$TALLY" report --stdio --branch-history -i "$d/brcg.data" >"$d/o" 2>"$d/e"; rc=$?
is "--branch-history on samples with call chains: exits 0" "$rc" 0
check "... a children column" grep -q '^# Children      Self  Source:Line' "$d/o"
check "... the chain's frames after the branches' (no counts)" grep -q ' (calltrace)$' "$d/o"
check "... a row only the chains reach (children, no self)" grep -qE '^ +[1-9][0-9.]*% +0\.00%  ' "$d/o"
for k in all pf; do
	"$TALLY" report --stdio --branch-history -i "$d/$k.data" >"$d/o" 2>"$d/e"; rc=$?
	is "--branch-history, $k (no BRANCH_STACK feature): an error" "$rc" 1
	check "... said as perf" grep -q "But no callchain or branch data" "$d/e"
	check "... no rows" eval '! grep -q "%" "$d/o"'
done
# perf 6.1 crashes on -s naming symbol_from or symbol_to (its IPC column): tally has none
"$TALLY" report --stdio -s dso_to,symbol_to -i "$d/br.data" >"$d/o" 2>&1; rc=$?
is "-s ...,symbol_to (perf 6.1 crashes): exits 0" "$rc" 0
check "... its rows, no IPC column" eval 'grep -q "Target Shared Object  Target Symbol *$" "$d/o"'

if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
# what both print besides the table: perf's tips, tally's account of misses
body() { grep -v '^#$\|^$\|^# (Tip\|header info\|^#   \|^# Addresses without'; }
same() {	# FILE ARGS...: the lines of both, equal (TIES=1: or, see same_bh, in another order)
	local f=$1; shift
	"$TALLY" report --stdio "$@" -i "$d/$f.data" 2>/dev/null | body >"$d/a"
	perf report --stdio "$@" -i "$d/$f.data" 2>/dev/null | body >"$d/b"
	# the lines without the graph's drawing (a block's last child draws no '|' below)
	if [ -n "${TIES:-}" ] && ! cmp -s "$d/a" "$d/b" &&
	   cmp -s <(sed 's/^[ |`-]*//' "$d/a" | sort) <(sed 's/^[ |`-]*//' "$d/b" | sort); then
		ok "$f $*: perf's lines ($(wc -l <"$d/b")), two equal branches of two DSOs in perf's heap's order"
	else
		is "$f $*: perf's lines ($(wc -l <"$d/b"))" "$(diff "$d/a" "$d/b" | grep -c '^[<>]')" 0
		diff "$d/a" "$d/b" | head -8 | sed 's/^/# /'
	fi
	check "$f $*: rows" grep -q '%' "$d/a"
}
for f in br brhw; do
	while read -r args; do
		same $f $args
	done <<'LIST'
-b
-n --show-total-period
-s dso_from,dso_to
-s dso_to,cycles
-s comm,srcline_from
-s srcline_to,dso_from
-s cycles
-s in_tx
-s abort
-n -s abort
-s dso_to,abort
-s dso_from,abort
-F abort,overhead
-s abort,cycles --hierarchy
-s pid,dso_from
-s dso,sym
-s cpu,cycles
--percent-limit 1
-F overhead,symbol_from,sample
-F dso_to,symbol_to,symbol_from,overhead
-F symbol_to,overhead
-s dso_from,dso_to --hierarchy
-s cycles,dso_to --hierarchy
-s addr_from
-s addr_to,dso_to
-s addr_from,addr_to
-s dso_from,addr_from,cycles
-F overhead,addr_from,addr_to
-s addr_to,cycles --hierarchy
--no-branch-stack
LIST
done
# --branch-history: the samples' rows, each tree made of the branch
# stacks (perf's remove_loops, counts per frame, its tie order of DSOs);
# nd's program without its DWARF (frames "f1 ??:0", as perf's).
# Few cases (perf's report takes a second here).
cp "$M" "$d/mkf_nd" && strip -g "$d/mkf_nd" && "$d/mkf_nd" "$d/nd.data" br ||
	fail "mkfields br, stripped of its DWARF"
# Two branches of equal counts from two DSOs: perf orders them by its DSO
# structs' addresses (match_chain_dso_addresses), which its heap decides:
# the length of $HOME, what ~/.debug holds. Where only such an order
# differs, the same lines in another order pass, and say so.
same_bh() { TIES=1 same "$@"; }
while read -r f args; do
	same_bh $f --branch-history $args
done <<'LIST'
br
br --no-children
br -G
brhw -g caller
br --sort symbol
br -n -g fractal
br -g folded
brhw
brhw -g callee,0.5,period
nd --no-children
brcg
brcg --no-children
brcg --no-children -g caller
brcg -G
br --hierarchy
brhw -F overhead,sym
LIST
# perf 6.1's --branch-history -g none prints no rows at all: tally's rows, no graph
"$TALLY" report --stdio --branch-history -g none -i "$d/br.data" >"$d/o" 2>&1
"$TALLY" report --stdio --branch-history -i "$d/br.data" 2>/dev/null | grep '^ *[0-9.]*%  ' >"$d/rows"
check "--branch-history -g none: rows" test -s "$d/rows"
is "... the rows with graphs, less their graphs" "$(grep '%' "$d/o")" "$(cat "$d/rows")"
# "symbol" in -s: perf's IPC column, in --hierarchy's levels and after -F's columns too
same all --no-branch-stack --hierarchy -s srcline,symbol,dso
same all --no-branch-stack -s srcline,symbol -F overhead,sym
"$TALLY" report --stdio --branch-history --no-children -i "$d/br.data" >"$d/o" 2>&1
check "--branch-history callee: loops taken out (iter counts)" grep -q ' (.*iter:[0-9]* avg_cycles:[0-9]*)' "$d/o"
check "... a target's counts cut at 63 bytes, as perf's" grep -qE 'abort:[0-9.]+%$' "$d/o"
check "... a single root's whole" grep -qE '^ +---.*abort:[0-9.]+%\)$' "$d/o"

# the branch statistics count every row's branches, the filtered ones' too (perf's)
stats() { sed -n '/^# Branch Statistics:/,$p'; }
"$TALLY" report --stdio --comm mkfields -i "$d/br.data" 2>/dev/null | stats >"$d/a"
perf report --stdio --comm mkfields -i "$d/br.data" 2>/dev/null | stats >"$d/b"
is "--comm mkfields: perf's branch statistics ($(wc -l <"$d/b") lines)" "$(diff "$d/a" "$d/b" | grep -c '^[<>]')" 0
check "... some" grep -q 'COND' "$d/a"
same all -b
same all -b -s dso_to,srcline_to
same all -b -F overhead,sample,symbol_to

# perf's mispredict compare says only equal or not: its tree may split a
# value in two rows (perf's "Y" of 240 branches as 79 and 1); tally's rows
# are one a value. The branches per value are perf's.
per_value() { body | awk '/^ +[0-9.]+%  / { s[$3] += $2 } END { for (k in s) print k "=" s[k] }' | sort; }
"$TALLY" report --stdio -b -n -s mispredict -i "$d/all.data" 2>/dev/null | per_value >"$d/a"
perf report --stdio -b -n -s mispredict -i "$d/all.data" 2>/dev/null | per_value >"$d/b"
is "-s mispredict: perf's branches of each value" "$(cat "$d/a")" "$(cat "$d/b")"
# abort's compare is as mispredict's: the branches of each (abort, dso_to) pair perf's
"$TALLY" report --stdio -n -s abort,dso_to -i "$d/br.data" 2>/dev/null |
	body | awk '/^ +[0-9.]+%  / { s[$3 " " $4] += $2 } END { for (k in s) print k "=" s[k] }' | sort >"$d/a"
perf report --stdio -n -s abort,dso_to -i "$d/br.data" 2>/dev/null |
	body | awk '/^ +[0-9.]+%  / { s[$3 " " $4] += $2 } END { for (k in s) print k "=" s[k] }' | sort >"$d/b"
is "-s abort,dso_to: perf's branches of each pair" "$(cat "$d/a")" "$(cat "$d/b")"
check "... aborted ones among them" grep -q '^A ' "$d/a"
is "-s mispredict: one row a value" \
	"$("$TALLY" report --stdio -b -s mispredict -i "$d/all.data" 2>/dev/null | grep -c '%  ')" 3
done_testing
