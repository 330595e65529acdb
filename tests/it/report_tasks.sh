#!/usr/bin/env bash
# tally report --tasks and --mmaps against perf 6.1 on the same files:
# every thread under the one that forked it, in perf's order (its
# machine's 256 trees by tid), the idle thread first, each thread's maps
# under it with --mmaps; a synthesized process's FORK (perf's FORK_EXEC)
# clones no maps, a live fork does. Files: perf's and tally's recordings
# of a workload that forks (a subshell, a pipe) and of the whole machine.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed: no reference to compare with"; done_testing; exit 0; fi

w="$B 100; (sleep 0.02; $B 50) & $B 50 | cat >/dev/null; wait"
perf record -q -F 999 -g -o "$d/perf.data" -- sh -c "$w" >/dev/null 2>&1
"$TALLY" record -q -F 999 -g -o "$d/tally.data" -- sh -c "$w" >/dev/null 2>&1
perf record -q -a -F 199 -o "$d/perf-a.data" -- sh -c "$w" >/dev/null 2>&1
"$TALLY" record -q -a -F 199 -o "$d/tally-a.data" -- sh -c "$w" >/dev/null 2>&1
for f in perf tally perf-a tally-a; do
	for o in --tasks --mmaps; do
		"$TALLY" report -i "$d/$f.data" $o >"$d/t" 2>"$d/t.err"; rc=$?
		perf report -i "$d/$f.data" $o >"$d/p" 2>/dev/null
		is "$f $o: exits 0" "$rc" 0
		cmp -s "$d/p" "$d/t" || { diff "$d/p" "$d/t" | head -8 | sed 's/^/# /'; keep "$d/$f.data"; }
		check "$f $o: perf's $(wc -l <"$d/p") lines" cmp -s "$d/p" "$d/t"
	done
done
# crafted files: threads its samples make before any record names them;
# threads each kind of record makes (an MMAP's only under --mmaps: the
# suite's -a recording once held a process only MMAPs, samples and its
# EXIT named)
for c in fork-unnamed task-makers; do
	python3 "$(dirname "$0")/craft_data.py" $c "$d/$c.data"
	for o in --tasks --mmaps; do
		"$TALLY" report -i "$d/$c.data" $o >"$d/t" 2>/dev/null
		perf report -i "$d/$c.data" $o >"$d/p" 2>/dev/null
		check "crafted $c $o: perf's $(wc -l <"$d/p") lines" cmp -s "$d/p" "$d/t"
		cmp -s "$d/p" "$d/t" || diff "$d/p" "$d/t" | head -6 | sed 's/^/# /'
	done
done
"$TALLY" report -i "$d/task-makers.data" --tasks >"$d/t" 2>/dev/null
check "task-makers --tasks: no thread only an MMAP made" sh -c "! grep -q ':520[123]' '$d/t'"
check "task-makers --tasks: a COMM's thread's leader" grep -q '5210 *5210 *-1 |:5210' "$d/t"
"$TALLY" report -i "$d/task-makers.data" --mmaps >"$d/t" 2>/dev/null
check "task-makers --mmaps: the MMAPs' threads" grep -q ':5201' "$d/t"
# the workload's processes, each under its parent: sh, then burn, cat
"$TALLY" report -i "$d/tally.data" --tasks >"$d/t" 2>/dev/null
check "--tasks: the idle thread first" sh -c "sed -n 2p '$d/t' | grep -q '^ *0 *0 *-1 |swapper$'"
check "--tasks: burn and cat under sh, a level down" \
	sh -c "grep -q '| burn$' '$d/t' && grep -q '| cat$' '$d/t' && grep -q '|sh$' '$d/t'"
check "--mmaps: burn's text map under it" sh -c "'$TALLY' report -i '$d/tally.data' --mmaps | grep -q 'r-xp .*/burn$'"
done_testing
