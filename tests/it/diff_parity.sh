#!/usr/bin/env bash
# tally diff against perf diff 6.1 on the same two files (written by perf
# and by tally): the same rows in the same order, baseline and delta.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
cat >"$d/tree.c" <<'EOC'
volatile long x;
__attribute__((noinline)) void leaf(int n) { for (int i = 0; i < n; i++) x++; }
/* work of its own: leaf's self share then grows from a to b by 3 points, not by a sample or two's noise */
/* (300 rounds a run: enough samples that the growth is not lost in their noise) */
__attribute__((noinline)) void top(int n) { leaf(n); for (int i = 0; i < n / 4; i++) x++; }
int main(int argc, char **argv) { for (int k = 0; k < 300 * argc; k++) { top(200000); leaf(100000 * argc); } return 0; }
EOC
cc -O0 -fno-omit-frame-pointer -o "$d/tree" "$d/tree.c"  # -O0: every function keeps its frame
for who in perf tally; do
	if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
	$rec -q -e cpu-clock -c 100000 -g -o "$d/$who-a.data" -- "$d/tree" >/dev/null 2>&1
	$rec -q -e cpu-clock -c 100000 -g -o "$d/$who-b.data" -- "$d/tree" 2 >/dev/null 2>&1
	for pair in "a b" "b a" "a a"; do
		set -- $pair
		"$TALLY" diff "$d/$who-$1.data" "$d/$who-$2.data" >"$d/t.out" 2>"$d/t.err"; rc=$?
		perf diff "$d/$who-$1.data" "$d/$who-$2.data" >"$d/p.out" 2>/dev/null
		is "$who diff $1 $2: exits 0" "$rc" 0
		is "$who diff $1 $2: rows and columns as perf diff's" \
			"$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
		diff "$d/t.out" "$d/p.out" | head -6 | sed 's/^/# /'
	done
	check "$who: a change is shown" grep -qE '^ +[0-9.]+% +[-+][0-9.]+%' "$d/t.out"
done
# two static functions of one name in one program: perf diff's row is
# the name (its collapse by name), their shares summed, not a row each
cat >"$d/s1.c" <<'EOC'
volatile long x;
static __attribute__((noinline)) void work(int n) { for (int i = 0; i < n; i++) x++; }
void one(int n) { work(n); }
EOC
cat >"$d/s2.c" <<'EOC'
extern volatile long x;
static __attribute__((noinline)) void work(int n) { for (int i = 0; i < n; i++) x += 2; }
void two(int n) { work(n); }
void one(int n);
int main(int argc, char **argv) { for (int k = 0; k < 100; k++) { one(300000 * argc); two(600000); } return 0; }
EOC
cc -O0 -o "$d/statics" "$d/s1.c" "$d/s2.c"
perf record -q -e cpu-clock -c 100000 -o "$d/st-a.data" -- "$d/statics" >/dev/null 2>&1
perf record -q -e cpu-clock -c 100000 -o "$d/st-b.data" -- "$d/statics" 2 >/dev/null 2>&1
"$TALLY" diff "$d/st-a.data" "$d/st-b.data" >"$d/t.out" 2>&1
perf diff "$d/st-a.data" "$d/st-b.data" >"$d/p.out" 2>/dev/null
is "two statics named work: one row" "$(grep -c '\] work$' "$d/t.out")" 1
is "two statics named work: rows as perf diff's" "$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')" 0
# a differential flame graph: top's frame says its change of share (its
# callers' share, report --children's of each file) and is drawn blue
# where it shrank, red where it grew. (Which way: the workload's rounds
# last about as long as the 100 us period, so the samples alias: top's
# share in b came out from 13% to 31% here from run to run.)
"$TALLY" diff "$d/tally-a.data" "$d/tally-b.data" --flamegraph "$d/d.svg" >/dev/null 2>&1
is "diff --flamegraph exits 0" "$?" 0
# (the widest top: a chain cut short in a prologue makes a small top of its own)
g=$(grep -o '<g class="f"[^>]*data-n="top">.*</g>' "$d/d.svg" |
	awk -F'data-w="' '{ split($2, a, "\""); if (a[1] + 0 > best) { best = a[1] + 0; l = $0 } } END { print l }')
share() { "$TALLY" report -i "$1" --stdio --children --sort sym -g none 2>/dev/null |
	awk '$NF == "top" { sub("%", "", $1); print $1; exit }'; }
want=$(awk -v a="$(share "$d/tally-a.data")" -v b="$(share "$d/tally-b.data")" 'BEGIN { printf "%+.2f", b - a }')
got=$(echo "$g" | grep -o '; [-+][0-9.]*% since the baseline' | grep -o '[-+][0-9.]*' | head -1)
# every top frame's change (a chain cut short makes a small top of its
# own, once in CI 0.08% of the samples): together report --children's
all=$(grep -o '<g class="f"[^>]*data-n="top">[^<]*<title>[^<]*' "$d/d.svg" |
	grep -o '; [-+][0-9.]*% since the baseline' | grep -o '[-+][0-9.]*' |
	awk '{ s += $1; n++ } END { printf "%+.2f %d", s, n }')
check "top's titles: their changes of share add up to report's ($all, report --children's $want%)" \
	awk -v a="${all% *}" -v n="${all#* }" -v b="$want" 'BEGIN { d = a - b; exit !(n > 0 && d * d <= (0.01 * n) ^ 2 + 0.0001) }'
check "the widest top's change is most of it ($got%)" \
	awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(a != "" && d * d <= 1) }'
case $want in
-*) check "top shrank: drawn blue" sh -c "echo '$g' | grep -q 'fill=\"rgb([0-9]*,[0-9]*,255)\"'" ;;
*) check "top grew: drawn red" sh -c "echo '$g' | grep -q 'fill=\"rgb(255,[0-9]*,[0-9]*)\"'" ;;
esac
# the comparison's page: the functions' changes and the differential graph
"$TALLY" diff "$d/tally-a.data" "$d/tally-b.data" --html "$d/d.html" >/dev/null 2>&1
is "diff --html exits 0" "$?" 0
check "diff --html: the differential flame graph is in it" grep -q 'Differential flame graph' "$d/d.html"
# leaf's change as the text says it (a busy machine's samples can make it
# shrink rather than grow: the page must say the same, either way)
ch=$("$TALLY" diff "$d/tally-a.data" "$d/tally-b.data" 2>/dev/null | awk '$NF == "leaf" { print $2 }')
case $ch in
+*) dir=up ;;
*) dir=down ;;
esac
check "diff --html: leaf's row says the text's change ($ch, $dir)" \
	grep -q "class=\"n $dir\"[^<]*>${ch//./\\.}</td><td>leaf<" "$d/d.html"
"$TALLY" diff "$d/perf-a.data" "$d/nope.data" >/dev/null 2>"$d/e"; rc=$?
check "a missing file: fails (rc $rc)" [ $rc -ne 0 ]
check "a missing file: named" grep -q 'nope.data' "$d/e"
done_testing
