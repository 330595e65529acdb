#!/usr/bin/env bash
# The library's modules call each other one way: no import circle among
# lib/*.c, and no call or include from a layer to one above it
# (scripts/layers.txt), read from the built objects' symbols and the
# sources' includes (scripts/check-layers.sh).
. tests/it/lib.sh
out=$(BUILD=$BUILD scripts/check-layers.sh 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
	ok "no import circles among lib/*.c, no call or include upward"
else
	fail "import circles or upward steps among lib/*.c"
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
got=$(BUILD=b LAYERS=none "$tmp/scripts/check-layers.sh" 2>&1)
check "a circle fails the check" [ $? -eq 1 ]
is "the circle is named with the symbols of each step" \
	"$(echo "$got" | grep -A2 '^circle:')" "circle: a -> b -> a
    a -> b: b
    b -> a: a"
# ... and a call from a lower layer to a higher one, unless allowed
rm "$tmp/lib/b.c" "$tmp/b/lib/b.o"
printf 'low: c\nhigh: a\n' >"$tmp/layers"
got=$(BUILD=b LAYERS=$tmp/layers "$tmp/scripts/check-layers.sh" 2>&1)
check "a call upward fails the check" [ $? -eq 1 ]
is "the upward call is named" "$got" "upward: c (low) -> a (high): calls a"
printf 'low: c\nhigh: a\nallow: c -> a\n' >"$tmp/layers"
check "an allowed upward call passes" \
	sh -c "BUILD=b LAYERS=$tmp/layers $tmp/scripts/check-layers.sh >/dev/null"
printf 'low: a c\nallow: c -> a\n' >"$tmp/layers"
check "an allowance no longer needed fails" \
	sh -c "! BUILD=b LAYERS=$tmp/layers $tmp/scripts/check-layers.sh >/dev/null"
printf 'low: a\n' >"$tmp/layers"
check "a module in no layer fails" \
	sh -c "! BUILD=b LAYERS=$tmp/layers $tmp/scripts/check-layers.sh >/dev/null"
rm -rf "$tmp"
done_testing
