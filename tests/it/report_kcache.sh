#!/usr/bin/env bash
# The kallsyms cache (lib/kcache.c): a report that reads it prints what a
# report reading /proc/kallsyms prints; a damaged, foreign or switched-off
# cache is never trusted, and the report stays the same.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
export XDG_CACHE_HOME=$d/cache
rep() { "$TALLY" report --stdio --no-children --sort dso,sym -i "$d/k.data" 2>&1 | grep -v '^#'; }
"$TALLY" record -q -e cpu-clock -c 50000 -o "$d/k.data" -- "$W" getpid 300000 >/dev/null 2>&1
TALLY_KALLSYMS_CACHE=0 rep >"$d/live"
check "a file with kernel samples: kernel symbols named" grep -q '\[k\] [a-z_]' "$d/live"
is "TALLY_KALLSYMS_CACHE=0: no cache written" "$(ls "$d/cache/tally" 2>/dev/null | wc -l)" 0
rep >"$d/first"
c=$(ls "$d/cache/tally"/kallsyms-* 2>/dev/null | head -1)
check "the first report writes this boot's cache" test -s "$c"
is "the cache is private to its user" "$(stat -c %a "$c")" 600
rep >"$d/second"
check "a report from the cache equals one from /proc/kallsyms" cmp -s "$d/live" "$d/second"
check "the report that wrote it too" cmp -s "$d/live" "$d/first"
for how in truncate flip empty; do
	case $how in
	truncate) truncate -s 100000 "$c" ;;
	flip) python3 -c 'import sys; f=open(sys.argv[1],"r+b"); n=f.seek(0,2); f.seek(n//2); f.write(b"Q")' "$c" ;;
	empty) : >"$c" ;;
	esac
	bad=$(md5sum <"$c")
	rep >"$d/$how"
	check "a $how cache is not trusted: the same report" cmp -s "$d/live" "$d/$how"
	check "a $how cache is rewritten" test "$(md5sum <"$c")" != "$bad"
	rep >"$d/again"
	check "the rewritten cache gives the same report" cmp -s "$d/live" "$d/again"
done
if id nobody >/dev/null 2>&1; then
	python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(40); f.write(b"\x00"*64)' "$c"
	chown nobody "$c"
	rep >"$d/foreign"
	check "a cache another user owns is not read" cmp -s "$d/live" "$d/foreign"
fi
done_testing
