#!/usr/bin/env bash
# The library's modules call each other one way: no import circle among
# lib's modules, and no call or include from a layer (its folder,
# lib/<layer>/) to one above it (scripts/layers.txt orders them), read
# from the built objects' symbols and the sources' includes
# (scripts/check-layers.sh).
. tests/it/lib.sh
out=$(BUILD=$BUILD scripts/check-layers.sh 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
	ok "no import circles among lib/*/*.c, no call or include upward"
else
	fail "import circles or upward steps among lib/*/*.c"
	echo "$out" | sed 's/^/# /'
fi
# The checker itself finds a circle: two objects that call each other.
tmp=$(mktemp -d)
mkdir -p "$tmp/lib/low" "$tmp/lib/high" "$tmp/scripts" "$tmp/b/lib/low" "$tmp/b/lib/high"
cp scripts/check-layers.sh "$tmp/scripts/"
src() {  # src LAYER MODULE CODE: lib/LAYER/MODULE.c and its object
	printf '%s\n' "$3" >"$tmp/lib/$1/$2.c"
	cc -c -I"$tmp/lib/high" -o "$tmp/b/lib/$1/$2.o" "$tmp/lib/$1/$2.c"
}
src high a 'void b(void);
void a(void) { b(); }'
src high b 'void a(void);
void b(void) { a(); }'
src low c 'void a(void);
void c(void) { a(); }'
got=$(BUILD=b LAYERS=none "$tmp/scripts/check-layers.sh" 2>&1)
check "a circle fails the check" [ $? -eq 1 ]
is "the circle is named with the symbols of each step" \
	"$(echo "$got" | grep -A2 '^circle:')" "circle: a -> b -> a
    a -> b: b
    b -> a: a"
# ... and a call from a lower layer (folder) to a higher one, unless allowed
rm "$tmp/lib/high/b.c" "$tmp/b/lib/high/b.o"
printf 'layers: low high\n' >"$tmp/layers"
got=$(BUILD=b LAYERS=$tmp/layers "$tmp/scripts/check-layers.sh" 2>&1)
check "a call upward fails the check" [ $? -eq 1 ]
is "the upward call is named" "$got" "upward: c (low) -> a (high): calls a"
printf 'layers: low high\nallow: c -> a\n' >"$tmp/layers"
check "an allowed upward call passes" \
	sh -c "BUILD=b LAYERS=$tmp/layers $tmp/scripts/check-layers.sh >/dev/null"
# an include of a higher layer's header, even with no call
printf 'void a(void);\n' >"$tmp/lib/high/a_internal.h"
src low d '#include "a_internal.h"
int d(void) { return 0; }'
got=$(BUILD=b LAYERS=$tmp/layers "$tmp/scripts/check-layers.sh" 2>&1)
check "an include upward fails the check" [ $? -eq 1 ]
is "the upward include is named" "$got" "upward: d (low) -> a (high): includes a_internal.h"
rm "$tmp/lib/low/d.c" "$tmp/b/lib/low/d.o" "$tmp/lib/high/a_internal.h"
printf 'layers: high low\nallow: c -> a\n' >"$tmp/layers"
check "an allowance no longer needed fails" \
	sh -c "! BUILD=b LAYERS=$tmp/layers $tmp/scripts/check-layers.sh >/dev/null"
printf 'layers: low\n' >"$tmp/layers"
got=$(BUILD=b LAYERS=$tmp/layers "$tmp/scripts/check-layers.sh" 2>&1)
check "a folder that is no layer fails" [ $? -eq 1 ]
is "the folder is named" "$got" "lib/high/ is no layer of $tmp/layers"
printf 'layers: low high\n' >"$tmp/layers"
mv "$tmp/lib/low/c.c" "$tmp/lib/c.c"
got=$(BUILD=b LAYERS=$tmp/layers "$tmp/scripts/check-layers.sh" 2>&1)
check "a module in no folder fails" [ $? -eq 1 ]
is "the module is named" "$got" "lib/c.c is in no layer: move it to lib/<layer>/"
rm -rf "$tmp"
done_testing
