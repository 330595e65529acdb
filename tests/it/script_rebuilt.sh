#!/usr/bin/env bash
# A program rebuilt since its --call-graph dwarf recording, its recorded
# build kept in the build-id cache (record copies it there): the user
# stacks are unwound with the recorded build's CFI, as perf unwinds them.
# The rebuild puts a function with an 8 KiB frame where the hot loop was:
# unwound with the new file's rules, the chains lose main and _start.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
cd "$d" || exit 1
export HOME=$d	# record's build-id cache (~/.debug) is the test's
# the functions sampled, the same in both builds
cat >work.c <<'EOC'
static volatile long sink;
__attribute__((noinline)) long work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += (i * 7) ^ (s >> 3);
	return s;
}
__attribute__((noinline)) long outer(long n) { return work(n) + 1; }
EOC
{ cat work.c; echo 'int main(void) { sink = outer(40000000); return 0; }'; } >hot.c
cc -O2 -g -fomit-frame-pointer -o prog hot.c &&
	"$TALLY" record -q --call-graph dwarf -o dw.data ./prog >/dev/null 2>&1
# the rebuild: pad's 8 KiB frame first, where work's loop was
cat >pad.c <<'EOC'
static volatile long sink2;
__attribute__((noinline)) long pad(long n)
{
	volatile char big[8192];
	long s = 0;
	for (long i = 0; i < n; i++) {
		big[i & 8191] = (char)i;
		s += big[(i * 7) & 8191] ^ (s >> 3);
	}
	return s + sink2;
}
EOC
{ cat pad.c work.c; echo 'int main(void) { sink = outer(40000000) + pad(3); return 0; }'; } >hot.c
cc -O2 -g -fomit-frame-pointer -o prog hot.c
frames() { "$@" -i dw.data -F ip,sym 2>/dev/null | awk 'NF == 2 { print $2 }' | sort | uniq -c; }
frames "$TALLY" script >t.frames
nw=$(awk '$2 == "work" { print $1 }' t.frames)
check "samples in work ($nw)" test "${nw:-0}" -gt 10
is "every work sample's chain reaches main, through outer" \
	"$(awk '$2 == "outer" || $2 == "main" { print $1 }' t.frames | sort -u)" "$nw"
if have_perf; then
	frames perf script >p.frames
	check "the frames perf unwinds ($(wc -l <p.frames) functions)" cmp -s p.frames t.frames
	cmp -s p.frames t.frames || diff p.frames t.frames | head -6 | sed 's/^/# /'
else
	skip "perf is not installed"
fi
done_testing
