#!/usr/bin/env bash
# perf's row order where rows tie, on a file that shows it: three threads
# call getpid through chains of different depths, each function as often
# as the others, recorded with -c 1 on the getpid tracepoint. With
# --children, perf orders equal rows of one thread caller above callee
# and leaves the others to its trees (the rows go into three red-black
# trees in turn, and that rule is not transitive): tally replays them.
. "$(dirname "$0")/lib.sh"
P=$(cd "$(dirname "$0")/../data/progs" && pwd)
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
if ! have_tp; then
	skip "no getpid tracepoint"
	done_testing; exit 0
fi
cc -O2 -g -fno-omit-frame-pointer -pthread -o "$d/ties" "$P/ties.c" ||
	{ fail "building ties.c"; done_testing; exit 0; }
# report's header and rows; perf's tip and tally's account of unresolved addresses aside
out() { "$1" report --stdio "${@:3}" -i "$2" 2>/dev/null | grep -v '^$' | grep -v '^#$' |
	grep -v -e '^# (Tip' -e '^# Addresses without' -e '^#   [/[]'; }
for who in perf tally; do
	if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
	f="$d/$who.data"
	$rec -q -g -c 1 -e syscalls:sys_enter_getpid -o "$f" -- "$d/ties" >/dev/null 2>&1 ||
		{ fail "$who record"; continue; }
	for o in "--children" "--children -g caller" "--children -g callee" "--children -g none" \
		 "--no-children" "--children --sort sym" "--children --sort dso,sym"; do
		case $o in *--sort*) ;; *) o="$o --sort comm,dso,sym" ;; esac
		out perf "$f" $o >"$d/p"
		out "$TALLY" "$f" $o >"$d/t"
		cmp -s "$d/p" "$d/t" || diff "$d/p" "$d/t" | head -8 | sed 's/^/# /'
		check "$who-written, $o: rows and graphs in perf's order ($(grep -c '%  ' "$d/p") rows)" \
			cmp -s "$d/p" "$d/t"
	done
	# the file has ties to order: rows of equal children and self
	n=$(out perf "$f" --children -g none --sort comm,dso,sym | grep '%  ' |
		awk '{print $1, $2}' | uniq -d | wc -l)
	check "$who-written: the rows tie ($n percentages shared)" test "$n" -ge 3
done
done_testing
