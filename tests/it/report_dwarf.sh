#!/usr/bin/env bash
# --call-graph dwarf: report unwinds the user stacks (libdw's CFI) of a program
# built without frame pointers: every chain reaches main through the right
# functions, the shares equal perf report's on the same file (tally's and
# perf's), a chain through libc's syscall() from a tracepoint too, inline
# frames as perf shows them, and a too-short stack copy is counted and
# named, not a crash.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
cp "$(dirname "$0")/../data/progs/dw.c" "$d/dw.c"
cc -O2 -fomit-frame-pointer -g -o "$d/dw" "$d/dw.c"
check "the program keeps no frame pointer" sh -c "! objdump -d '$d/dw' | grep -A2 '<b>:' | grep -q 'push.*%rbp'"
pct() { awk -v f="$2" '$NF == f { sub(/%/, "", $1); print $1; exit }' "$1"; }

"$TALLY" record -q -e cpu-clock -c 200000 --call-graph dwarf -o "$d/t.data" -- "$d/dw" >/dev/null 2>&1
"$TALLY" report --stdio --children --sort sym -g none -i "$d/t.data" >"$d/t.out" 2>&1
is "report of a dwarf file exits 0" "$?" 0
main=$(pct "$d/t.out" main)
# (the samples in the dynamic loader before main are the rest)
check "every chain reaches main ($main%)" awk -v v="$main" 'BEGIN { exit !(v >= 99) }'
# c is called only through b, b only through a: c <= b <= a, within the
# few samples that land in a and b themselves
a=$(pct "$d/t.out" a); b=$(pct "$d/t.out" b); c=$(pct "$d/t.out" c)
check "callers hold their callees: c $c% <= b $b% <= a $a%, close" \
	awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN { exit !(c > 50 && c <= b && b <= a && a - c < 3) }'
check "the unwinding is accounted" grep -q '^# DWARF unwinding: [0-9]* samples' "$d/t.out"

if have_perf; then
	perf record -q -e cpu-clock -c 200000 --call-graph dwarf -o "$d/p.data" -- "$d/dw" >/dev/null 2>&1
	for who in t p; do
		"$TALLY" report --stdio --children --sort sym -g none -i "$d/$who.data" >"$d/a" 2>/dev/null
		perf report --stdio --children --sort sym -g none -i "$d/$who.data" >"$d/b" 2>/dev/null
		for f in main a b c s syscall _start __libc_start_call_main; do
			is "$who-written: $f's children share as perf's" "$(pct "$d/a" $f)" "$(pct "$d/b" $f)"
		done
	done
fi

# a tracepoint entered through libc's syscall(): the chain goes on to main
if have_tp; then
	"$TALLY" record -q -e syscalls:sys_enter_getpid -c 1 --call-graph dwarf -o "$d/tp.data" \
		-- "$d/dw" >/dev/null 2>&1
	"$TALLY" report --stdio --children --sort sym -g none -i "$d/tp.data" >"$d/tp.out" 2>&1
	is "tracepoint through syscall(): main in every chain" "$(pct "$d/tp.out" main)" "100.00"
	is "tracepoint through syscall(): s in every chain" "$(pct "$d/tp.out" s)" "100.00"
fi

# inline frames (perf's --inline, on by default for unwound chains): a
# frame in code with DWARF is each function inlined there, innermost
# first, "name (inlined)"; script and report equal perf's on both files
cp "$(dirname "$0")/../data/progs/inl.c" "$d/inl.c"
cc -O2 -fomit-frame-pointer -g -o "$d/inl" "$d/inl.c"
"$TALLY" record -q -e cpu-clock -c 200000 --call-graph dwarf -o "$d/ti.data" -- "$d/inl" 200 >/dev/null 2>&1
"$TALLY" script -i "$d/ti.data" >"$d/ti.out"
check "inline frames: step inside mix inside work" awk '
	/ step\+0x[0-9a-f]+ \(inlined\)$/ { st = NR; next }
	/ mix\+0x[0-9a-f]+ \(inlined\)$/ && NR == st + 1 { mx = NR; next }
	/ work\+0x[0-9a-f]+ \(/ && NR == mx + 1 && mx { found = 1 }
	END { exit !found }' "$d/ti.out"
"$TALLY" script --no-inline -i "$d/ti.data" >"$d/tn.out"
is "--no-inline: no inline frame" "$(grep -c inlined "$d/tn.out")" 0
"$TALLY" report --stdio --children --sort sym -g none -i "$d/ti.data" >"$d/tr.out" 2>&1
check "inline frames: report has the mix (inlined) row" grep -q '\[\.\] mix (inlined)$' "$d/tr.out"
if have_perf; then
	perf record -q -e cpu-clock -c 200000 --call-graph dwarf -o "$d/pi.data" -- "$d/inl" 200 >/dev/null 2>&1
	for who in ti pi; do
		"$TALLY" script -i "$d/$who.data" >"$d/a" 2>/dev/null
		perf script -i "$d/$who.data" >"$d/b" 2>/dev/null
		is "inline frames, ${who%i}-written: script equals perf script" "$(diff "$d/a" "$d/b" | grep -c '^[<>]')" 0
		check "inline frames, ${who%i}-written: perf shows inline frames" grep -q 'mix+0x.* (inlined)' "$d/b"
		# perf 6.1 keys an inlined function by name and the others by
		# address in one tree, an order that is not total: the same
		# function can come out as two rows (work 68.58% and 30.22%)
		# depending on the order samples arrive. Such duplicates are
		# compared as a range: tally's row between the larger of perf's
		# and their sum, to 0.02% (one sample can count in both: perf
		# showed dfs_traversal (inlined) as two rows of 0.05%, tally one).
		"$TALLY" report --stdio --children --sort sym -g none -i "$d/$who.data" 2>/dev/null >"$d/a"
		perf report --stdio --children --sort sym -g none -i "$d/$who.data" 2>/dev/null >"$d/b"
		# perf sizes the column by an inlined function's name alone: " (inlined)" overflows it
		is "inline frames, ${who%i}-written: the Symbol column as wide as perf's" \
			"$(grep '^# Children' "$d/a")" "$(grep '^# Children' "$d/b")"
		is "inline frames, ${who%i}-written: children rows equal perf's (its duplicates summed)" \
			"$(python3 - "$d/a" "$d/b" <<'PY'
import re, sys
def rows(f):
    r = {}
    for l in open(f):
        m = re.match(r"\s+([\d.]+)%\s+([\d.]+)%\s+(\[.\] .*?)\s*$", l)
        if m:
            r.setdefault(m.group(3), []).append((float(m.group(1)), float(m.group(2))))
    return r
# a duplicate pair's children can hold one sample twice (its chain reaches
# both entries): tally's one row lies between the larger and the sum
def near(t, ps, i):
    lo, hi = max(p[i] for p in ps), sum(p[i] for p in ps)
    return lo - 0.021 <= t[i] <= hi + 0.021
a, b = rows(sys.argv[1]), rows(sys.argv[2])
def same(t, p):	# rows of one name in both (two DSOs' _start): pairwise
    if len(t) == len(p):
        return all(abs(x[i] - y[i]) <= 0.021 for x, y in zip(sorted(t), sorted(p)) for i in (0, 1))
    return len(t) == 1 and near(t[0], p, 0) and near(t[0], p, 1)
bad = [k for k in set(a) | set(b) if k not in a or k not in b or not same(a[k], b[k])]
print(len(bad) if a else "no rows", *["%s tally %s perf %s" % (k, a.get(k), b.get(k)) for k in sorted(bad)[:3]])
PY
)" 0
		"$TALLY" report --folded -i "$d/$who.data" 2>/dev/null | LC_ALL=C sort >"$d/a"
		is "inline frames, ${who%i}-written: --folded equals perf script's chains folded" \
			"$(fold_perf "$d/$who.data" | diff "$d/a" - | grep -c '^[<>]')" 0
		"$TALLY" report --stdio --no-children -i "$d/$who.data" 2>/dev/null | grep -v '^#' >"$d/a"
		perf report --stdio --no-children -i "$d/$who.data" 2>/dev/null | grep -v '^#' >"$d/b"
		is "inline frames, ${who%i}-written: report --no-children (graphs) equals perf's" \
			"$(diff "$d/a" "$d/b" | grep -c '^[<>]')" 0
	done
	# a non-PIE executable: perf asks addr2line at the ELF address there
	cc -O2 -fomit-frame-pointer -g -no-pie -fno-pie -o "$d/inl-np" "$d/inl.c"
	"$TALLY" record -q -e cpu-clock -c 200000 --call-graph dwarf -o "$d/np.data" -- "$d/inl-np" 200 >/dev/null 2>&1
	"$TALLY" script -i "$d/np.data" >"$d/a" 2>/dev/null
	perf script -i "$d/np.data" >"$d/b" 2>/dev/null
	is "inline frames, non-PIE: script equals perf script" "$(diff "$d/a" "$d/b" | grep -c '^[<>]')" 0
	check "inline frames, non-PIE: there are some" grep -q 'mix+0x.* (inlined)' "$d/a"
	# through a signal frame: the handler's callers are the trampoline,
	# then the interrupted code (its pc exact, not a return address)
	cp "$(dirname "$0")/../data/progs/sig.c" "$d/sig.c"
	cc -O2 -fomit-frame-pointer -g -o "$d/sig" "$d/sig.c"
	perf record -q -F 999 --call-graph dwarf -o "$d/sig.data" -- "$d/sig" >/dev/null 2>&1
	"$TALLY" script -i "$d/sig.data" >"$d/a" 2>/dev/null
	perf script -i "$d/sig.data" >"$d/b" 2>/dev/null
	is "a signal handler's chains: script equals perf script" "$(diff "$d/a" "$d/b" | grep -c '^[<>]')" 0
	check "a signal handler's chains: through the handler to the interrupted loop" \
		awk '/ spin\+/ { s = NR } s && NR <= s + 3 && / wait_loop\+/ { f = 1 } END { exit !f }' "$d/a"
fi

# many processes of one program (each file's ELF read once for all of
# them, each process's Dwfl its own): the chains still reach main (the
# rest: samples inside execve and the shell's own)
"$TALLY" record -q -e cpu-clock -c 200000 --call-graph dwarf -o "$d/mp.data" -- \
	sh -c "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do '$d/dw' 100; done" >/dev/null 2>&1
"$TALLY" report --stdio --children --sort sym -g none -i "$d/mp.data" >"$d/mp.out" 2>&1
is "20 processes: report exits 0" "$?" 0
mp=$(pct "$d/mp.out" main); a=$(pct "$d/mp.out" a); c=$(pct "$d/mp.out" c)
check "20 processes: chains reach main ($mp%) through a ($a%) and c ($c%)" \
	awk -v m="$mp" -v a="$a" -v c="$c" 'BEGIN { exit !(m >= 90 && a >= c && c > 50 && m >= a) }'

# a stack copy too short for the chain: counted and named, no crash
"$TALLY" record -q -e cpu-clock -c 200000 --call-graph dwarf,16 -o "$d/short.data" -- "$d/dw" >/dev/null 2>&1
"$TALLY" report --stdio -g none -i "$d/short.data" >"$d/short.out" 2>&1
is "a short stack copy: report exits 0" "$?" 0
check "a short stack copy: the early ends are named" grep -q 'stack copy too short' "$d/short.out"
"$TALLY" script -i "$d/short.data" >/dev/null 2>&1
is "a short stack copy: script exits 0" "$?" 0
done_testing
