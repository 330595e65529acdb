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
# One node per release; the newest is the release being made, named by the
# Makefile's VERSION, which the library and the command report too.
mkver=$(sed -n 's/^VERSION *:= *//p' Makefile)
newest=$(grep -oE '^TALLY_[0-9]+\.[0-9]+' lib/libtally.map | tail -1)
is "the map's newest node is the Makefile's release" "$newest" "TALLY_${mkver%.*}"
is "tally --version says the Makefile's VERSION" "$($TALLY --version)" "tally version $mkver"
is "every man page names the Makefile's VERSION" "$(grep -L "^\.TH .*\"tally $mkver\"" docs/*.1 docs/man3/*.3)" ""
check "the shared library's file carries the version" [ -e "$BUILD/libtally.so.$mkver" ]
if [ -n "$(comm -23 <(echo "$api") <(cat scripts/api-*.txt | sort -u))" ]; then
	check "symbols new in this release carry its node" sh -c "objdump -T $so | grep -q '${newest}'"
fi
genmap=$(mktemp); scripts/gen-map.sh "$genmap"
is "lib/libtally.map is what scripts/gen-map.sh makes" "$(diff lib/libtally.map "$genmap")" ""
rm -f "$genmap"
check "soname is libtally.so.0" sh -c "readelf -d $so | grep -q 'SONAME.*libtally.so.0'"
# The command's start-up: libstdc++ is linked in (tally uses only its
# demangler); loading the shared one cost ~1 ms of every run (bench/RESULTS.md)
is "the tally command loads no libstdc++ at start" \
	"$(readelf -d "$TALLY" | grep NEEDED | grep -c 'libstdc++')" 0
check "the tally command still demangles (its C++ demangler is linked in)" \
	sh -c "nm '$TALLY' | grep -q ' T __cxa_demangle'"
# C++ callers: every public header carries extern "C" guards, each compiles
# alone as C++, and a C++ program links against the library by C names.
is "every public header has extern \"C\" guards" "$(grep -L 'extern "C"' include/tally/*.h)" ""
cxx=$(mktemp -d)
for h in include/tally/*.h; do
	printf '#include <tally/%s>\n' "${h##*/}" >"$cxx/h.cc"
	g++ -fsyntax-only -x c++ -Iinclude "$cxx/h.cc" 2>"$cxx/err" ||
		{ echo "# ${h##*/} as C++:"; sed 's/^/# /' "$cxx/err" | head -5; echo "${h##*/}" >>"$cxx/bad"; }
done
is "each public header compiles alone as C++" "$(cat "$cxx/bad" 2>/dev/null)" ""
printf '#include <tally/tally.h>\n#include <cstdio>\nint main() { std::puts(tally_version()); return 0; }\n' >"$cxx/v.cc"
# a sanitized library wants its runtime first: the program is built with it too
san=${SAN:+-fsanitize=address,undefined}
check "a C++ program with <tally/tally.h> links and calls the library" \
	sh -c "g++ $san -Iinclude -o '$cxx/v' -x c++ '$cxx/v.cc' -x none '$so' -Wl,-rpath,'$(dirname "$so")' && '$cxx/v' | grep -qx '$mkver'"
rm -rf "$cxx"
done_testing
