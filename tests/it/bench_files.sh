#!/usr/bin/env bash
# The synthetic files bench/branch.sh times issue 33's targets on, small
# here: mkfields brmem N DEPTH (N samples of DEPTH-entry branch stacks
# with data sources, weights and data addresses, a FINISHED_ROUND each
# 1024, written as they go) and mkc2c a N (c2c's mix repeated to N
# samples). perf 6.1 reads them with the counts asked for, and the
# commands the bench times print perf's lines on them: tally's branch
# ends and shapes kept across samples and rounds of 32-entry stacks.
. "$(dirname "$0")/lib.sh"
H=$HELPERS
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
"$H/mkfields" "$d/br.data" brmem 2100 32 || { fail "mkfields brmem"; done_testing; exit 0; }
"$H/mkc2c" "$d/c2c.data" a 2100 || { fail "mkc2c a 2100"; done_testing; exit 0; }
"$H/mkfields" "$d/x.data" brmem 0 2>/dev/null
is "mkfields brmem 0: usage error" "$?" 2
"$H/mkc2c" "$d/x.data" a 0 2>/dev/null
is "mkc2c a 0: usage error" "$?" 2
if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
perf script -F brstack -i "$d/br.data" >"$d/p" 2>/dev/null
is "brmem 2100 32: perf reads 2100 samples" "$(wc -l <"$d/p")" 2100
is "... each of 32 branches" "$(awk '{ print NF }' "$d/p" | sort -u)" 32
is "... in 2 rounds (a FINISHED_ROUND each 1024)" \
	"$(perf report --stats -i "$d/br.data" 2>/dev/null | awk '/FINISHED_ROUND events:/ { print $3 }')" 2
n=$(perf c2c report --stats -i "$d/c2c.data" 2>/dev/null | awk '/Total records/ { print $4 }')
check "mkc2c a 2100: perf c2c reads 2100 samples and the rest ($n)" test "${n:-0}" -ge 2100 -a "${n:-0}" -lt 2300

"$TALLY" script -F brstacksym -i "$d/br.data" >"$d/t" 2>/dev/null
perf script -F brstacksym -i "$d/br.data" >"$d/p" 2>/dev/null
is "script -F brstacksym: perf's lines" "$(cmp -s "$d/t" "$d/p" && echo same)" same
"$TALLY" script -F brstacksym,dso -i "$d/br.data" >"$d/t" 2>/dev/null
perf script -F brstacksym,dso -i "$d/br.data" >"$d/p" 2>/dev/null
is "script -F brstacksym,dso: perf's lines" "$(cmp -s "$d/t" "$d/p" && echo same)" same
# what both print besides the table: perf's tips, tally's account of misses
body() { grep -v '^#$\|^$\|^# (Tip\|header info\|^#   \|^# Addresses without'; }
for args in "-b" "--no-branch-stack --mem-mode --sort mem" "--no-branch-stack --mem-mode --sort mem,snoop,local_weight"; do
	"$TALLY" report --stdio $args -i "$d/br.data" 2>/dev/null | body >"$d/t"
	perf report --stdio $args -i "$d/br.data" 2>/dev/null | body >"$d/p"
	is "report $args: perf's lines ($(wc -l <"$d/p"))" "$(diff "$d/t" "$d/p" | grep -c '^[<>]')" 0
	diff "$d/t" "$d/p" | head -6 | sed 's/^/# /'
	check "report $args: rows" grep -q '%' "$d/t"
done
"$TALLY" c2c report --stdio -i "$d/c2c.data" >"$d/t" 2>/dev/null
perf c2c report --stdio -i "$d/c2c.data" >"$d/p" 2>/dev/null
is "c2c report --stdio: perf's" "$(cmp -s "$d/t" "$d/p" && echo same)" same
diff "$d/t" "$d/p" | head -6 | sed 's/^/# /'
done_testing
