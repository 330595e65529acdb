#!/usr/bin/env bash
# tally report --percentage relative, as perf 6.1's on the same files: with
# --comm, --dsos, --symbols, --pid, -x the rows' shares are of what the
# filters keep (the header's Samples and Event count too), the graphs'
# branches stay shares of the whole but are pruned by what is kept; and the
# '#' lines naming a filter's one value (perf's "# comm: burn"), its column
# dropped, all shown again when every key would be.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed: no reference to compare with"; done_testing; exit 0; fi

perf record -q -F 999 -g -o "$d/perf.data" -- "$B" 300 >/dev/null 2>&1
"$TALLY" record -q -F 999 -g -o "$d/tally.data" -- "$B" 300 >/dev/null 2>&1
# perf's lines but its tips, and tally's but its unresolved addresses' note
notail() { awk '{ l[NR] = $0 } END { n = NR; while (n && l[n] ~ /^(#|# \(Tip:.*|)$/) n--; for (i = 1; i <= n; i++) print l[i] }'; }
# (perf 6.1 appends " (inlined)" to fractal mode's "[...]" line from a flag
# it never sets: not compared, as report_parity.sh)
noinl() { sed 's/\[\.\.\.\] (inlined)$/[...]/'; }
pl() { perf report --stdio "$@" 2>/dev/null | notail | noinl; }
# (tally's note on addresses without a symbol, and what follows it, left out)
tl() { "$TALLY" report --stdio "$@" 2>/dev/null | awk '/^# Addresses without a symbol/ { exit } { print }' | notail | noinl; }
pct() { awk '/^ +[0-9.]+%/ { s += $1 } END { printf "%.0f", s }'; }
for who in perf tally; do
	f=$d/$who.data
	for o in "--comm burn" "--dsos burn" "--symbols burn_a,burn_b" "--symbols burn_a --no-children" \
		 "--symbols burn_b -g none" "--comm burn -g fractal" "--comm burn -g caller,0.5,callee"; do
		tl --percentage relative $o -i "$f" >"$d/t.out"
		pl --percentage relative $o -i "$f" >"$d/p.out"
		n=$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')
		is "$who --percentage relative $o: perf's lines" "$n" 0
		[ "$n" = 0 ] || diff "$d/t.out" "$d/p.out" | head -8 | sed 's/^/# /'
		# rows where perf has them: a file whose burn_b samples' chains skip
		# burn_round (a frame-pointer chain through a leaf) has none under
		# --symbols burn_b -g none in either tool (twice in CI)
		if grep -qE '^ +[0-9.]+%' "$d/p.out"; then
			check "$who --percentage relative $o: rows" grep -qE '^ +[0-9.]+%' "$d/t.out"
		else
			skip "$who --percentage relative $o: rows (perf's output has none on this recording)"
		fi
	done
	# relative self shares add up to the whole of what is kept
	tl --percentage relative --no-children -g none --symbols burn_a,burn_b -i "$f" >"$d/t.out"
	is "$who relative: the kept rows' self shares sum to 100" "$(pct <"$d/t.out")" 100
	tl --no-children -g none --symbols burn_a,burn_b -i "$f" >"$d/a.out"
	check "$who absolute: they sum to less" test "$(pct <"$d/a.out")" -lt 100
	check "$who: the Samples line counts only the kept samples" \
		test "$(grep '^# Event count' "$d/t.out")" != "$(grep '^# Event count' "$d/a.out")"
	# the '#' lines: one value names its column's value; all elided: shown again
	for o in "--comm burn" "--dsos burn" "--symbols burn_a" "--comm burn --dsos burn --symbols burn_a" \
		 "--sort sym --symbols burn_a" "--percentage absolute --comm burn"; do
		tl -g none $o -i "$f" >"$d/t.out"
		pl -g none $o -i "$f" >"$d/p.out"
		n=$(diff "$d/t.out" "$d/p.out" | grep -c '^[<>]')
		is "$who $o: perf's lines, '#' lines too" "$n" 0
		[ "$n" = 0 ] || diff "$d/t.out" "$d/p.out" | head -8 | sed 's/^/# /'
	done
	check "$who --comm burn: '# comm: burn'" grep -qx '# comm: burn' "$d/t.out"
done
"$TALLY" report --stdio --percentage half -i "$d/perf.data" >/dev/null 2>"$d/e"
is "--percentage half: usage error" "$?" 129
check "and says the two words" grep -q "relative or absolute" "$d/e"
done_testing
