#!/usr/bin/env bash
# The symbol cache (lib/symbol/symcache.c): a report whose DSO tables come
# from the cache prints what a report loading them from ELF prints; a
# damaged cache is never trusted and is rewritten; a program rebuilt in
# place (no build id: its path, size and mtime make the key) gets its new
# names, not the cached old ones.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
export XDG_CACHE_HOME=$d/cache
# a program of 1500 functions (the cache keeps tables of 1000 or more),
# spinning in one of them; NAME makes the functions' names
prog() {
	{
		for i in $(seq 1500); do echo "int ${1}_$i(int x) { return x * $i + 1; }"; done
		echo "int main(void) { volatile int s = 0; for (long i = 0; i < 100000000; i++) s = ${1}_750(s); return s & 1; }"
	} >"$d/p.c"
	cc -O0 -fno-omit-frame-pointer -Wl,--build-id=none -o "$d/p" "$d/p.c"
}
prog alpha
"$TALLY" record -q -e cpu-clock -c 100000 -g -o "$d/a.data" -- "$d/p" >/dev/null 2>&1
rep() { "$TALLY" report --stdio -i "$1" 2>&1 | grep -v '^#'; }
TALLY_SYMTAB_CACHE=0 rep "$d/a.data" >"$d/live"
check "the program's function is in the report" grep -q 'alpha_750' "$d/live"
is "TALLY_SYMTAB_CACHE=0: no table kept" "$(ls "$d/cache/tally"/symtab3-* 2>/dev/null | wc -l)" 0
rep "$d/a.data" >"$d/first"
c=$(grep -l alpha_750 "$d/cache/tally"/symtab3-* 2>/dev/null | head -1)
check "the first report keeps the program's table" test -s "$c"
is "the kept table is private to its user" "$(stat -c %a "$c" 2>/dev/null)" 600
check "the report that wrote it equals one from ELF" cmp -s "$d/live" "$d/first"
rep "$d/a.data" >"$d/warm"
check "a report from the cache equals one from ELF" cmp -s "$d/live" "$d/warm"
TALLY_SYMTAB_CACHE=0 "$TALLY" script -i "$d/a.data" >"$d/s-live" 2>&1
"$TALLY" script -i "$d/a.data" >"$d/s-warm" 2>&1
check "script from the cache equals script from ELF" cmp -s "$d/s-live" "$d/s-warm"
for how in truncate flip empty; do
	damage "$c" $how 1000
	bad=$(md5sum <"$c")
	rep "$d/a.data" >"$d/$how"
	check "a $how cache is not trusted: the same report" cmp -s "$d/live" "$d/$how"
	check "a $how cache is rewritten" test "$(md5sum <"$c")" != "$bad"
	rep "$d/a.data" >"$d/again"
	check "the rewritten cache gives the same report" cmp -s "$d/live" "$d/again"
done
# rebuilt in place: another size and mtime, another key
sleep 1
prog beta
"$TALLY" record -q -e cpu-clock -c 100000 -g -o "$d/b.data" -- "$d/p" >/dev/null 2>&1
rep "$d/b.data" >"$d/b-warm"
TALLY_SYMTAB_CACHE=0 rep "$d/b.data" >"$d/b-live"
check "the rebuilt program's names, not the cached ones" grep -q 'beta_750' "$d/b-warm"
check "no cached name of the old build" sh -c "! grep -q alpha_ '$d/b-warm'"
check "the rebuilt program's report equals one from ELF" cmp -s "$d/b-live" "$d/b-warm"
done_testing
