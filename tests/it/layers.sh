#!/usr/bin/env bash
# The library's modules call each other one way: no import circle among
# lib/*.c, read from the built objects' symbols (scripts/check-layers.sh).
. tests/it/lib.sh
out=$(BUILD=$BUILD scripts/check-layers.sh 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
	ok "no import circles among lib/*.c"
else
	fail "import circles among lib/*.c"
	echo "$out" | sed 's/^/# /'
fi
# The checker itself finds a circle: two objects that call each other.
tmp=$(mktemp -d)
mkdir -p "$tmp/lib" "$tmp/scripts" "$tmp/b/lib"
cp scripts/check-layers.sh "$tmp/scripts/"
printf 'void b(void);\nvoid a(void) { b(); }\n' >"$tmp/lib/a.c"
printf 'void a(void);\nvoid b(void) { a(); }\n' >"$tmp/lib/b.c"
printf 'void a(void);\nvoid c(void) { a(); }\n' >"$tmp/lib/c.c"
for m in a b c; do cc -c -o "$tmp/b/lib/$m.o" "$tmp/lib/$m.c"; done
got=$(BUILD=b "$tmp/scripts/check-layers.sh" 2>&1)
check "a circle fails the check" [ $? -eq 1 ]
is "the circle is named with the symbols of each step" \
	"$(echo "$got" | grep -A2 '^circle:')" "circle: a -> b -> a
    a -> b: b
    b -> a: a"
rm -rf "$tmp"
done_testing
