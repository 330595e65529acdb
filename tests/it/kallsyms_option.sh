#!/usr/bin/env bash
# --kallsyms FILE (report, script, annotate, top): the kernel's symbols
# from a copy of /proc/kallsyms, as perf's option. The copy renames every
# text symbol (K_name; _text and the like kept: perf finds the kernel by
# them), so a row or line named K_ came from the file and none can come
# from /proc/kallsyms. report and script equal perf's on perf's and
# tally's recordings; a file that cannot be read is an error, as perf's.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
d=$(mktemp -d)
tgt= tp=
trap '[ "$BASHPID" = $$ ] || exit; kill $tgt $tp 2>/dev/null; rm -rf "$d"' EXIT

if ! awk 'NR == 1 && $1 ~ /[1-9a-f]/ { ok = 1 } END { exit !ok }' /proc/kallsyms; then
	skip "kallsyms hides its addresses from this user"; done_testing; exit 0
fi
awk '{ if (($2 == "t" || $2 == "T") && $3 !~ /^_/) $3 = "K_" $3; print }' /proc/kallsyms |
	sed 's/ \(\[[^]]*\]\)$/\t\1/' >"$d/kallsyms"
"$TALLY" record -q -o "$d/tally.data" -- "$W" getpid 300000 >/dev/null 2>&1
have_perf && perf record -q -o "$d/perf.data" -- "$W" getpid 300000 >/dev/null 2>&1

for f in tally perf; do
	[ -s "$d/$f.data" ] || { skip "$f: no recording (perf missing)"; continue; }
	"$TALLY" report --stdio --sort dso,sym --kallsyms "$d/kallsyms" -i "$d/$f.data" >"$d/r.out" 2>"$d/r.err"
	is "$f: report --kallsyms exits 0" "$?" 0
	check "$f: the kernel's rows are the file's names (K_)" grep -q '\[k\] K_' "$d/r.out"
	"$TALLY" report --stdio --sort dso,sym -i "$d/$f.data" >"$d/plain.out" 2>/dev/null
	check "$f: without it, /proc/kallsyms's names" test "$(grep -c '\[k\] K_' "$d/plain.out")" = 0 -a \
		"$(grep -c '\[k\] [a-z_]' "$d/plain.out")" -gt 0
	"$TALLY" script --kallsyms "$d/kallsyms" -i "$d/$f.data" >"$d/s.out" 2>/dev/null
	check "$f: script --kallsyms names kernel frames by the file" grep -q ' K_.*(\[kernel.kallsyms\])' "$d/s.out"
	if have_perf; then
		perf report --stdio --sort dso,sym --kallsyms "$d/kallsyms" -i "$d/$f.data" >"$d/p.out" 2>/dev/null
		check "$f: report --kallsyms is perf's" cmp -s <(grep -v '^#' "$d/r.out") <(grep -v '^#' "$d/p.out")
		diff <(grep -v '^#' "$d/r.out") <(grep -v '^#' "$d/p.out") | head -6 | sed 's/^/# /'
		perf script --kallsyms "$d/kallsyms" -i "$d/$f.data" >"$d/ps.out" 2>/dev/null
		check "$f: script --kallsyms is perf's" cmp -s "$d/s.out" "$d/ps.out"
		diff "$d/s.out" "$d/ps.out" | head -6 | sed 's/^/# /'
	fi
done

# sched timehist -g: the chains' kernel frames named by the file, as perf's
if have_perf; then
	perf sched record -g -o "$d/sched.data" -- sh -c 'sleep 0.01; sleep 0.01' >/dev/null 2>&1
	"$TALLY" sched timehist --kallsyms "$d/kallsyms" -i "$d/sched.data" >"$d/th.out" 2>&1
	is "sched timehist --kallsyms exits 0" "$?" 0
	check "sched timehist: the chains' kernel frames are the file's (K_)" grep -q 'K_schedule' "$d/th.out"
	perf sched timehist --kallsyms "$d/kallsyms" -i "$d/sched.data" >"$d/pth.out" 2>&1
	# perf sched record is system-wide: the workload's lines and the idle
	# task's, their chains' kernel frames (what --kallsyms names; a user
	# frame in ld.so right after an exec perf leaves [unknown], a corner apart)
	mine() { grep -E '  (sh|sleep)\[|  <idle>' "$1" | awk -F' <- ' '{
		line = $1
		for (i = 2; i <= NF && $i ~ /^K_/; i++) line = line " <- " $i
		print line }'; }
	check "sched timehist --kallsyms is perf's (the workload's $(mine "$d/pth.out" | wc -l) lines)" \
		eval '[ -n "$(mine "$d/th.out")" ] && cmp -s <(mine "$d/th.out") <(mine "$d/pth.out")'
	diff <(mine "$d/th.out") <(mine "$d/pth.out") | head -6 | sed 's/^/# /'
else
	skip "perf is not installed: sched timehist --kallsyms not compared"
fi

# annotate: the kernel rows of its summary list come from the file too
"$TALLY" annotate --stdio --kallsyms "$d/kallsyms" -i "$d/tally.data" do_getpid >"$d/a.out" 2>"$d/a.err"
is "annotate --kallsyms exits 0" "$?" 0

# a file that cannot be read: named, nothing printed
for c in report script annotate "sched timehist"; do
	o=--stdio; [ "$c" != report ] && [ "$c" != annotate ] && o=
	"$TALLY" $c $o --kallsyms "$d/none" -i "$d/tally.data" >"$d/e.out" 2>"$d/e.err"
	rc=$?
	check "$c: a missing --kallsyms file fails ($rc)" test "$rc" -ne 0
	check "$c: and says which file" grep -q "tally $c: --kallsyms $d/none: No such file or directory" "$d/e.err"
	check "$c: and prints no report" test ! -s "$d/e.out"
done
"$TALLY" top --stdio --kallsyms "$d/none" -p $$ >/dev/null 2>"$d/e.err"
check "top: a missing --kallsyms file fails" test "$?" -ne 0
check "top: and says which file" grep -q "tally top: --kallsyms $d/none: No such file or directory" "$d/e.err"

# top, live: its kernel rows named by the file
"$W" getpid 400000000 & tgt=$!
"$TALLY" top --stdio -d 1 --kallsyms "$d/kallsyms" -p "$tgt" >"$d/top.txt" 2>/dev/null & tp=$!
# until a screen names a kernel row (a busy machine may take a few), 20 s at most
for ((i = 0; i < 400; i++)); do
	grep -aq '\[k\] ' "$d/top.txt" && [ "$(tr '\033' '\n' <"$d/top.txt" | grep -ac 'PerfTop:')" -ge 2 ] && break
	sleep 0.05
done
kill -TERM $tp; wait $tp 2>/dev/null; tp=
check "top --kallsyms: kernel rows named by the file" grep -aq '\[k\] K_' "$d/top.txt"
kill $tgt; wait $tgt 2>/dev/null; tgt=
done_testing
