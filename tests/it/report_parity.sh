#!/usr/bin/env bash
# run.sh: slow (it starts first in the pool)
# tally report --stdio against perf report 6.1 on the same files, written
# by perf and by tally: the same rows in the same order, children and
# no-children, --sort comm,dso,sym and sym; the header's sample count; the
# call graphs under the rows in each -g mode.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi

rows() { grep -E '^ +[0-9.]+%'; }
# -a: only the rows of what the test runs (sleep) and the idle task: other
# processes on the machine bring symbol corners (a PLT hit is _init or
# name@plt by the shape of perf's symbol tree) that are not the point.
# Also compared as sets: among rows of equal share, perf orders unresolved
# addresses by a signed difference (not a total order), so its order there
# follows its tree's insertion history.
rows_a() { rows | grep -E '%  (swapper|sleep) ' | sort; }

# same NAME FILE OPTS...: every row equal.
same() {
	local name=$1 f=$2 rf=rows; shift 2
	case $name in *-a*) rf=rows_a ;; esac
	"$TALLY" report --stdio -g none "$@" -i "$f" >"$d/t.out" 2>"$d/t.err"; local rc=$?
	perf report --stdio -g none "$@" -i "$f" >"$d/p.out" 2>/dev/null
	is "$name: tally report exits 0" "$rc" 0
	diff <($rf <"$d/t.out") <($rf <"$d/p.out") >"$d/diff"
	is "$name: rows equal to perf report's" "$(grep -c '^<' "$d/diff")" 0
	grep -q '^<' "$d/diff" && sed -n '1,12s/^/# /p' "$d/diff"
	check "$name: has rows" [ "$(rows <"$d/p.out" | wc -l)" -gt 0 ]
	is "$name: '# Samples' line" "$(grep '^# Samples' "$d/t.out" | head -1)" "$(grep '^# Samples' "$d/p.out" | head -1)"
}

for who in perf tally; do
	if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
	$rec -q -F 999 -g -o "$d/$who-g.data" -- "$B" 300 >/dev/null 2>&1
	same "$who -g children" "$d/$who-g.data" --children
	same "$who -g no-children" "$d/$who-g.data" --no-children
	same "$who -g --sort sym" "$d/$who-g.data" --no-children --sort sym
	$rec -q -a -g -o "$d/$who-a.data" -- sleep 0.3 >/dev/null 2>&1
	same "$who -a children" "$d/$who-a.data" --children
	same "$who -a no-children" "$d/$who-a.data" --no-children
	$rec -q -F 999 -o "$d/$who-f.data" -- "$B" 200 >/dev/null 2>&1
	same "$who no chains" "$d/$who-f.data"
done
# Filters and limits: perf's rows and header columns (one --comm or
# --dsos value drops its column; the last of --children/--no-children wins)
hdr_rows() { grep -E '^ +[0-9.]+%|^# (Overhead|Children)'; }
for args in "--comm burn" "--comm burn,sleep" "--dsos libc.so.6" "--symbols burn_a,main" \
	    "--percent-limit 5" "--no-children --children" "--dsos [kernel.kallsyms]" "--symbols burn_a"; do
	"$TALLY" report --stdio -g none $args -i "$d/tally-g.data" 2>/dev/null | hdr_rows >"$d/t.out"
	perf report --stdio -g none $args -i "$d/tally-g.data" 2>/dev/null | hdr_rows >"$d/p.out"
	is "report $args: rows and columns as perf's" "$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
done

# Pipe input (perf: self overhead only for a pipe, --children or not)
for who in perf tally; do
	if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
	$rec -q -F 999 -g -o - -- "$B" 200 2>/dev/null >"$d/$who.pipe"
	"$TALLY" report --stdio -g none -i - <"$d/$who.pipe" >"$d/t.out" 2>/dev/null; rc=$?
	perf report --stdio -g none -i - <"$d/$who.pipe" >"$d/p.out" 2>/dev/null
	is "$who pipe: tally report -i - exits 0" "$rc" 0
	is "$who pipe: rows equal" "$(diff <(rows <"$d/t.out") <(rows <"$d/p.out") | grep -c '^[<>]')" 0
	check "$who pipe: has rows" [ "$(rows <"$d/p.out" | wc -l)" -gt 0 ]
done

# Call graphs, drawn as perf draws them: the whole output line for line on
# a program with branching chains (perf 6.1 appends " (inlined)" to the
# "[...]" line of fractal mode, from a flag it never sets: not compared).
# --percent-limit trims the graphs' branches too, unless a -g threshold
# comes after it.
cp "$(dirname "$0")/../data/progs/tree.c" "$d/tree.c"
cc -O1 -g -fno-omit-frame-pointer -o "$d/tree" "$d/tree.c"
graph_out() { grep -v '^#' | sed 's/\[\.\.\.\] (inlined)$/[...]/'; }
for who in perf tally; do
	if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
	$rec -q -e cpu-clock -c 100000 -g -o "$d/$who-tree.data" -- "$d/tree" >/dev/null 2>&1
	for o in "" "--no-children" "--no-children --sort sym" "--sort sym" "-g fractal" \
		 "--no-children -g fractal" "-g flat" "-g folded" "-g callee" "-G --no-children" \
		 "-g graph,0.1,caller,function,period" "-g fractal,1,count" "-g graph,0.5,1" \
		 "--percent-limit 1" "--percent-limit 20" "--no-children --percent-limit 1" \
		 "-g fractal --percent-limit 5" "-g callee --percent-limit 1" \
		 "--percent-limit 1 -g graph,0.5" "-g graph,0.5 --percent-limit 1"; do
		"$TALLY" report --stdio $o -i "$d/$who-tree.data" 2>/dev/null | graph_out >"$d/t.out"
		perf report --stdio $o -i "$d/$who-tree.data" 2>/dev/null | graph_out >"$d/p.out"
		is "$who graph '$o': output equal to perf report's" \
			"$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
		# a mismatch told with its row: the nearest row line above, then the lines
		diff -U 12 "$d/t.out" "$d/p.out" | head -60 | sed 's/^/# /'
	done
	check "$who graph: a branch drawn" grep -q -- '--[0-9.]*%--' "$d/t.out"
	# -a: many processes; rows of equal share from different threads are
	# ordered by perf's tree history, so the lines are compared as a set.
	# Only sleep's and the idle task's samples (--comm, in both): the
	# machine's other processes bring perf's quirks with garbage chains
	# (one address split into rows by its signed-difference order; a PLT
	# hit named _init or name@plt by the shape of its symbol tree). The
	# tree's drawing is left out: perf orders equal branches of two DSOs
	# by the addresses of its DSO structs, which follow its heap's history
	# when processes come and go during the recording.
	untree() { sed -E 's/^[ |]*//; s/^--([0-9.]+%)--/\1 /' | sort; }
	for o in "" "-g fractal" "--no-children"; do
		"$TALLY" report --stdio --comm swapper,sleep $o -i "$d/$who-a.data" 2>/dev/null | graph_out | untree >"$d/t.out"
		perf report --stdio --comm swapper,sleep $o -i "$d/$who-a.data" 2>/dev/null | graph_out | untree >"$d/p.out"
		n=$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')
		is "$who -a graph '$o': the same lines as perf report's" "$n" 0
		[ "$n" = 0 ] || keep "$d/$who-a.data" "$d/t.out" "$d/p.out"
	done
done
# --sort srcline: source lines through libdw in process (perf forks
# addr2line). Compared on the program's own lines: for glibc's DWARF 5
# debug files, binutils 2.40's addr2line (so perf 6.1) names the wrong file
# of a multi-file line table where gdb and elfutils agree with tally
# (dl-cacheinfo.h:321, not dl-get-cpu-features.c:321).
for who in perf tally; do
	for o in "--sort srcline" "--sort comm,srcline" "--sort srcline,sym"; do
		# (squeezed: a line perf names wrongly elsewhere can widen its column)
		"$TALLY" report --stdio --no-children -g none $o -i "$d/$who-tree.data" 2>/dev/null | rows | tr -s ' ' >"$d/t.out"
		perf report --stdio --no-children -g none $o -i "$d/$who-tree.data" 2>/dev/null | rows | tr -s ' ' >"$d/p.out"
		is "$who $o: the program's rows as perf's" \
			"$(diff <(grep 'tree\.c:' "$d/t.out") <(grep 'tree\.c:' "$d/p.out") | grep -c '^[<>]')" 0
		diff <(grep 'tree\.c:' "$d/t.out") <(grep 'tree\.c:' "$d/p.out") | head -6 | sed 's/^/# /'
		is "$who $o: as many rows as perf" "$(wc -l <"$d/t.out")" "$(wc -l <"$d/p.out")"
	done
	check "$who srcline: the hot loop's line named" grep -q 'tree\.c:3 ' "$d/t.out"
done
# --sort parent / -p REGEX / -x: the first caller matching perf's regex
# (of sleep's and the idle task's samples, as above)
# Without comm among the keys, a row is one entry for every process that
# hit its symbol, shown if its first sample passed --comm: where a user
# DSO is mapped twice (a synthesized and a real MMAP2 for the workload),
# perf keeps two symbols and splits such a row by which process made it,
# a corner that tally does not copy. So the user rows that other
# processes' samples also reach are left out (the kernel's are compared).
# So are unresolved addresses: perf's tree compares them by a signed
# difference, no true order, and can make two entries of one address
# (0000000000000000 at 8.51% and 7.75%, where tally shows one of 16.27%),
# so which processes' samples a row holds follows that tree's history.
# That holds for the kernel's unresolved addresses too ([k] 0x...: perf
# split do_syscall_64's one of 0.08% into two of 0.04% once).
# (KERNEL=1: the kernel's symbols too. With neither comm nor dso among the
# keys, --sort parent,sym, a kernel row mixes every process's samples as
# well, and perf's children there once held fewer of them: 3.62% where
# tally had 4.07%, for exc_page_fault on a machine busy with other tests)
others_syms() {
	perf script -F comm,ip,sym,dso -i "$1" 2>/dev/null | awk -v k="${KERNEL:-}" '
		/^[^ \t]/ { keep = $1 != "swapper" && $1 != "sleep"; next }
		keep && NF >= 3 && (k || $NF !~ /kernel/) { print $2 }' | sort -u
}
for who in perf tally; do
	others_syms "$d/$who-a.data" >"$d/others"
	KERNEL=1 others_syms "$d/$who-a.data" >"$d/others-k"
	mine() {
		hdr_rows | awk 'NR == FNR { o[$0] = 1; next }
			!($0 ~ /\[[.k]\] / && o[$NF]) && !(length($NF) == 16 && $NF ~ /^[0-9a-f]+$/) && $NF !~ /^0x[0-9a-f]+$/' \
			"$1" - | sort
	}
	for o in "--sort parent" "--sort comm,parent" "-p ^do_" "-p ^do_ -x --no-children" \
		 "--sort parent,sym -p ^do_"; do
		list=$d/others
		[ "$o" = "--sort parent,sym -p ^do_" ] && list=$d/others-k
		"$TALLY" report --stdio -g none --comm swapper,sleep $o -i "$d/$who-a.data" 2>/dev/null | mine "$list" >"$d/t.out"
		perf report --stdio -g none --comm swapper,sleep $o -i "$d/$who-a.data" 2>/dev/null | mine "$list" >"$d/p.out"
		n=$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')
		is "$who -a $o: rows as perf's" "$n" 0
		[ "$n" = 0 ] || keep "$d/$who-a.data"
		diff "$d/t.out" "$d/p.out" | head -6 | sed 's/^/# /'
	done
	# (swapper and sleep only: on a machine busy with other tests the idle
	# task may never run in the 0.2 s; then the rows above test no parent)
	if grep -q ' do_' "$d/t.out"; then
		ok "$who -p ^do_: a parent found"
	else
		skip "$who -p ^do_: the recording caught no do_ parent of swapper or sleep (a busy machine)"
	fi
done
"$TALLY" report -p '(' -i "$d/tally-g.data" >/dev/null 2>"$d/e"; rc=$?
is "-p bad regex: usage error" "$rc" 129
# --pid/--tid: perf's rows (the percentages stay of the whole)
pid=$(perf script -F pid -i "$d/perf-tree.data" 2>/dev/null | sort | uniq -c | sort -rn | awk 'NR==1 {print $2}')
for o in "--pid $pid" "--tid $pid" "--pid 1,$pid --no-children" "--tid 1"; do
	"$TALLY" report --stdio -g none $o -i "$d/perf-tree.data" 2>/dev/null | hdr_rows >"$d/t.out"
	perf report --stdio -g none $o -i "$d/perf-tree.data" 2>/dev/null | hdr_rows >"$d/p.out"
	is "report $o: rows as perf's" "$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
done
# --header-only / --header: the file's own account, as perf prints it
# (-I: the CPU topology, NUMA nodes, caches and memory nodes in full)
for f in perf-g tally-g perf-tree tally-a; do
	for i in "" -I; do
		"$TALLY" report --header-only $i -i "$d/$f.data" >"$d/t.out" 2>&1
		perf report --header-only $i -i "$d/$f.data" >"$d/p.out" 2>&1
		is "--header-only $i $f: equal to perf's" "$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
		diff "$d/t.out" "$d/p.out" | head -6 | sed 's/^/# /'
	done
done
if [ -d /sys/devices/system/cpu/cpu0/cache/index0 ]; then
	check "-I: the caches shown" grep -q '^#  L1 ' <("$TALLY" report --header-only -I -i "$d/perf-g.data" 2>/dev/null)
fi
for who in perf tally; do
	"$TALLY" report --header-only -i "$d/$who.pipe" >"$d/t.out" 2>&1
	perf report --header-only -i "$d/$who.pipe" >"$d/p.out" 2>&1
	is "--header-only $who pipe: equal to perf's" "$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
done
"$TALLY" report --header -g none -i "$d/perf-tree.data" 2>/dev/null | grep -v '^#   \|Addresses without\|^#$' >"$d/t.out"
perf report --header -g none -i "$d/perf-tree.data" 2>/dev/null | grep -v 'Tip:\|^#$' >"$d/p.out"
is "--header: the header, then the rows, as perf" "$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
check "--header: the event named" grep -q '^# event : name = cpu-clock' "$d/t.out"
# On a terminal --stdio's text goes through the pager; --no-pager writes it
# out (without --stdio a terminal gets the browser: tests/it/top_tui.sh)
if command -v script >/dev/null; then
	n=$(TALLY_PAGER='head -3' script -qc "$TALLY report --stdio -i $d/perf-tree.data" /dev/null </dev/null | wc -l)
	is "pager: the output went through TALLY_PAGER" "$n" 3
	n=$(TALLY_PAGER='head -3' script -qc "$TALLY --no-pager report --stdio -i $d/perf-tree.data" /dev/null </dev/null | wc -l)
	check "--no-pager: all of it ($n lines)" [ "$n" -gt 10 ]
fi
"$TALLY" report -g bogus -i "$d/tally-g.data" >/dev/null 2>"$d/e"; rc=$?
is "-g bogus: usage error" "$rc" 129
check "-g bogus: the item named" grep -q "unknown item 'bogus'" "$d/e"

# what got no symbol is named with its reason: a stripped program with no
# build id (so no debug file or build-id cache can name it)
printf 'static volatile unsigned long x;\nstatic void spin(void) { for (unsigned long i = 0; i < 300000000UL; i++) x += i; }\nint main(void) { spin(); return 0; }\n' >"$d/spin.c"
cc -O1 -Wl,--build-id=none -o "$d/burn-stripped" "$d/spin.c" && strip "$d/burn-stripped"
"$TALLY" record -q -F 999 -o "$d/s.data" -- "$d/burn-stripped" >/dev/null 2>&1
"$TALLY" report --stdio -i "$d/s.data" >"$d/s.out" 2>&1
check "unresolved: the stripped file is named with its reason" \
	grep -qE "^#   $d/burn-stripped +[0-9]+  stripped" "$d/s.out"
"$TALLY" report --sort nope -i "$d/tally-g.data" >/dev/null 2>"$d/e"; rc=$?
is "unknown sort key: usage error" "$rc" 129
check "unknown sort key: named" grep -q "unknown key 'nope'" "$d/e"
done_testing
