#!/usr/bin/env bash
# make install puts a usable library, headers, pkg-config file, binary,
# man pages (the commands' and the library's) and docs/api.md under
# PREFIX; a program builds against it with pkg-config alone.
. tests/it/lib.sh
if [ -n "${SAN:-}" ]; then
	skip "install is tested in the plain build (a sanitized .so needs the ASan runtime first)"
	done_testing; exit 0
fi
d=$(mktemp -d /tmp/tally-install.XXXXXX)
trap 'rm -rf "$d"' EXIT
if ! make --no-print-directory install PREFIX="$d" BUILD="$BUILD" >"$d.log" 2>&1; then
	fail "make install PREFIX=$d (see $d.log)"; done_testing; exit 0
fi
ok "make install"
check "binary installed" test -x "$d/bin/tally"
check "headers installed" test -f "$d/include/tally/tally.h"
check "man pages installed" sh -c "ls $d/share/man/man1/tally*.1 >/dev/null"
# The library's documentation: api.md, and a section-3 page per object
# (as libperf and libbpf ship theirs), each rendering without a warning,
# found by man by its name, its SEE ALSO pages there too, and naming only
# functions the installed headers declare.
is "docs/api.md installed as share/doc/tally/api.md" \
	"$(cmp "$d/share/doc/tally/api.md" docs/api.md 2>&1 && echo same)" same
for obj in libtally tally_evsel tally_evlist tally_cpu_map tally_thread_map tally_data_reader \
	tally_data_writer tally_session tally_hist tally_store; do
	check "man page $obj(3) installed" test -f "$d/share/man/man3/$obj.3"
done
for p in "$d"/share/man/man1/*.1 "$d"/share/man/man3/*.3; do
	n=$(basename "$p")
	is "$n renders without warnings" "$(MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null)" ""
done
for p in "$d"/share/man/man3/*.3; do
	n=$(basename "$p" .3)
	check "man -M finds $n(3)" sh -c "MANWIDTH=80 man -M '$d/share/man' 3 '$n' 2>/dev/null | grep -q '^NAME'"
	refs=$(sed -n '/^\.SH SEE ALSO/,$p' "$p" | grep -oE '^\.BR [a-z_]+ \(3\)' | awk '{print $2}')
	missing=$(for r in $refs; do [ -f "$d/share/man/man3/$r.3" ] || echo "$r"; done)
	is "$n(3): its SEE ALSO pages are installed" "$missing" ""
	fns=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$p" | grep -oE 'tally_[a-z0-9_]+__[a-z0-9_]+' | sort -u)
	undeclared=$(for f in $fns; do grep -qw "$f" "$d"/include/tally/*.h || echo "$f"; done)
	is "$n(3): its synopsis names declared functions only" "$undeclared" ""
done
cat > "$d/prog.c" <<'C'
#include <stdio.h>
#include <tally/tally.h>
int main(void)
{
	struct tally_cpu_map *m = tally_cpu_map__new("0-3,7");
	int n = tally_cpu_map__nr(m);
	tally_cpu_map__put(m);
	printf("%s %d\n", tally_version(), n);
	return n == 5 ? 0 : 1;
}
C
export PKG_CONFIG_PATH="$d/lib/pkgconfig"
if cc -o "$d/prog" "$d/prog.c" $(pkg-config --cflags --libs tally) 2>"$d/cc.log"; then
	ok "a program links with pkg-config --libs tally (shared)"
	check "and runs against the installed .so" env LD_LIBRARY_PATH="$d/lib" "$d/prog"
else
	fail "link with pkg-config: $(head -3 "$d/cc.log")"
fi
if cc -o "$d/prog-static" "$d/prog.c" $(pkg-config --cflags tally) "$d/lib/libtally.a" \
	$(pkg-config --libs-only-other --libs --static tally | sed 's/-ltally//') 2>"$d/cc2.log"; then
	check "static link with Libs.private runs" "$d/prog-static"
else
	fail "static link: $(head -3 "$d/cc2.log")"
fi

# examples/read_perf_data, built against the installed library alone, ranks
# the symbols of a perf.data file as tally report does (perf's file and
# tally's): the same ten rows, the same shares to 2 decimals.
if cc -o "$d/read_perf_data" examples/read_perf_data.c $(pkg-config --cflags --libs tally) \
	2>"$d/cc3.log"; then
	ok "examples/read_perf_data builds against the installed headers and .so"
else
	fail "examples/read_perf_data: $(head -3 "$d/cc3.log")"
fi
top10() {	# the first ten "PCT [L] NAME" rows; rows tied with the tenth's share are counted, not named
	local rows p10
	rows=$(grep -E '^ *[0-9]+\.[0-9]+%' | head -10 | awk '{$1=$1; print}')
	p10=$(tail -1 <<<"$rows" | cut -d' ' -f1)
	grep -v "^$p10 " <<<"$rows" | sort
	echo "tied at $p10: $(grep -c "^$p10 " <<<"$rows")"
}
for who in perf tally; do
	if [ $who = perf ]; then
		have_perf || { skip "no perf: no perf-written file"; continue; }
		rec="perf record"
	else
		rec="$TALLY record"
	fi
	$rec -q -F 999 -g -o "$d/$who.data" -- "$HELPERS/burn" 300 >/dev/null 2>&1
	LD_LIBRARY_PATH="$d/lib" "$d/read_perf_data" "$d/$who.data" >"$d/ex.out" 2>&1; rc=$?
	is "read_perf_data on $who's file exits 0" "$rc" 0
	"$TALLY" report --stdio --no-children --sort sym -g none -i "$d/$who.data" \
		>"$d/rep.out" 2>/dev/null
	top10 <"$d/ex.out" >"$d/ex.top"
	top10 <"$d/rep.out" >"$d/rep.top"
	check "read_perf_data on $who's file: rows" [ "$(wc -l <"$d/ex.top")" -gt 1 ]
	is "read_perf_data on $who's file: top ten as tally report's" \
		"$(diff "$d/ex.top" "$d/rep.top" | grep -c '^[<>]')" 0
	diff "$d/ex.top" "$d/rep.top" | sed -n '1,12s/^/# /p'
done
done_testing
