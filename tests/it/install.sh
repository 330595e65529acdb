#!/usr/bin/env bash
# make install puts a usable library, headers, pkg-config file, binary and
# man pages under PREFIX; a program builds against it with pkg-config alone.
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
done_testing
