#!/usr/bin/env bash
# The symbol cache (issue 19): report's CPU (user+sys, median of 5) and
# instructions (callgrind) on the real-program files, for a binary before
# the cache (OLD) and this one cold (no symtab1-* files) and warm.
# Usage: OLD=/path/to/old/tally [NEW=build/tally] [REAL_BENCH_CACHE=dir] bench/symcache.sh
set -u
NEW=${NEW:-build/tally} B=${REAL_BENCH_CACHE:-tmp/bench-cache}
: "${OLD:?OLD=the tally binary to compare with}"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
export XDG_CACHE_HOME=$t/cache
args() { case $1 in stdio) echo "report --stdio" ;; nochildren) echo "report --stdio --no-children" ;;
	flame) echo "report --flamegraph $t/fg.svg" ;; esac; }
cold() { rm -f "$XDG_CACHE_HOME"/tally/symtab1-*; }
cpu() {	# prep command...: the median of 5
	local prep=$1; shift
	for i in 1 2 3 4 5; do
		$prep
		/usr/bin/time -f '%U %S' -o "$t/time" "$@" >/dev/null 2>&1
		awk '{printf "%.2f\n", $1 + $2}' "$t/time"
	done | sort -n | sed -n 3p
}
ir() {
	local prep=$1; shift
	$prep
	valgrind --tool=callgrind --callgrind-out-file="$t/cg" "$@" >/dev/null 2>"$t/cg.err"
	grep -o 'Collected : [0-9]*' "$t/cg.err" | awk '{printf "%.1f M", $3 / 1e6}'
}
"$OLD" report --stdio -i "$B/python-g.data" >/dev/null 2>&1	# kallsyms cached for all
echo "| file | command | old: CPU s, Ir | cold: CPU s, Ir | warm: CPU s, Ir |"
echo "|---|---|---|---|---|"
for f in node-jit gcc-g system-g cxx-g python-g; do
	for m in stdio nochildren flame; do
		a="$(args $m) -i $B/$f.data"
		o="$(cpu true "$OLD" $a), $(ir true "$OLD" $a)"
		c="$(cpu cold "$NEW" $a), $(ir cold "$NEW" $a)"
		"$NEW" $a >/dev/null 2>&1
		w="$(cpu true "$NEW" $a), $(ir true "$NEW" $a)"
		echo "| $f | $(args $m | sed "s|$t/||") | $o | $c | $w |"
	done
done
