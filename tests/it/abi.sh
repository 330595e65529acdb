#!/usr/bin/env bash
# The shared library's ABI: what it exports is exactly what the public
# headers declare TALLY_API, and the linker map lists each by name.
. tests/it/lib.sh
so=$BUILD/libtally.so
api=$(scripts/api-symbols.sh)
exported=$(nm -D --defined-only "$so" | awk '$2 ~ /[TWDBR]/ {print $3}' | sed 's/@.*//' | grep -v '^TALLY_' | sort -u)
missing=$(comm -23 <(echo "$api") <(echo "$exported"))
extra=$(comm -13 <(echo "$api") <(echo "$exported"))
is "every TALLY_API function is implemented and exported" "$missing" ""
is "nothing else is exported" "$extra" ""
mapped=$(grep -oE '^\s+tally_[a-z0-9_]+;' lib/libtally.map | tr -d ' \t;' | sort -u)
is "lib/libtally.map lists the API by name (scripts/gen-map.sh)" "$(comm -3 <(echo "$api") <(echo "$mapped"))" ""
ver=$(objdump -T "$so" | grep -c 'TALLY_0.1')
check "symbols carry the TALLY_0.1 version node" [ "$ver" -gt 0 ]
check "soname is libtally.so.0" sh -c "readelf -d $so | grep -q 'SONAME.*libtally.so.0'"
# The command's start-up: libstdc++ is linked in (tally uses only its
# demangler); loading the shared one cost ~1 ms of every run (bench/RESULTS.md)
is "the tally command loads no libstdc++ at start" \
	"$(readelf -d "$TALLY" | grep NEEDED | grep -c 'libstdc++')" 0
check "the tally command still demangles (its C++ demangler is linked in)" \
	sh -c "nm '$TALLY' | grep -q ' T __cxa_demangle'"
done_testing
