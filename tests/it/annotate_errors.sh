#!/usr/bin/env bash
# tally annotate on bad input: a file gone since the recording, one
# rebuilt (another build id: refused, never its bytes shown as the
# sampled code), a symbol without samples, a binary without debug info,
# a truncated perf.data, bad options. A clear message, no crash.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
cd "$d" || exit 1
export HOME=$d	# record's build-id cache (~/.debug) is the test's
cat >hot.c <<'EOC'
static volatile long sink;
__attribute__((noinline)) long work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += (i * 7) ^ (s >> 3);
	return s;
}
int main(void) { sink = work(40000000); return 0; }
EOC
# -N: no copy in the build-id cache, so a file gone or rebuilt stays so
rec() { "$TALLY" record -q -N -e cpu-clock -o "$1" "$2" >/dev/null 2>&1; }
# nocrash RC NAME: no signal ended it
nocrash() { if [ "$1" -lt 128 ] || [ "$1" = 129 ]; then ok "$2"; else fail "$2 (rc $1)"; fi; }

cc -O2 -o nodbg hot.c && rec nodbg.data ./nodbg
"$TALLY" annotate --stdio -i nodbg.data -d nodbg >out 2>err; rc=$?
is "no debug info: exits 0" "$rc" 0
check "no debug info: the instructions are shown" grep -Eq '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+: +[a-z]' out
check "no debug info: no source line" sh -c '! grep -q "s += (i" out'

"$TALLY" annotate --stdio -i nodbg.data no_such_symbol >out 2>err; rc=$?
is "a symbol without samples: exits 0" "$rc" 0
check "a symbol without samples: said so" grep -q "no samples in symbol 'no_such_symbol'" err
check "a symbol without samples: nothing annotated" [ ! -s out ]

cc -O2 -g -o gone hot.c && rec gone.data ./gone && rm gone
"$TALLY" annotate --stdio -i gone.data -d gone >out 2>err; rc=$?
nocrash $rc "a file gone: no crash"
check "a file gone: says which and why" grep -q "samples in $d/gone not annotated: file not found" err

cc -O2 -g -o rebuilt hot.c && rec rb.data ./rebuilt
sed -i 's/i \* 7/i * 9/' hot.c && cc -O2 -g -o rebuilt hot.c
"$TALLY" annotate --stdio -i rb.data -d rebuilt >out 2>err; rc=$?
nocrash $rc "a file rebuilt: no crash"
check "a file rebuilt: build id mismatch said" grep -q "rebuilt: build id mismatch: recorded [0-9a-f]*, the file has [0-9a-f]*" err
check "a file rebuilt: its code not annotated" [ ! -s out ]
# kept in the build-id cache (no -N): script's instruction bytes are the
# recorded build's copy, as perf reads them, not the rebuilt file's
cc -O2 -g -o kept hot.c && "$TALLY" record -q -e cpu-clock -o kept.data ./kept >/dev/null 2>&1
sed -i 's/i \* 9/i * 11/' hot.c && cc -O2 -g -o kept hot.c
"$TALLY" script -i kept.data -F ip,sym,insn 2>/dev/null | grep ' work ' >t.insn
if command -v perf >/dev/null; then
	perf script -i kept.data -F ip,sym,insn 2>/dev/null | grep ' work ' >p.insn
	check "a file rebuilt, its build cached: script -F insn as perf's ($(wc -l <p.insn) lines)" \
		sh -c "[ -s p.insn ] && cmp -s p.insn t.insn"
else
	skip "perf is not installed"
fi
check "a file rebuilt, its build cached: the bytes shown" grep -q 'insn: [0-9a-f]' t.insn

# kernel code with no vmlinux and no kcore (TALLY_KCORE: a kernel without
# /proc/kcore, on any kernel): said so, once, not perf's CAP_SYS_RAWIO note
# for a kcore that is there; nothing annotated is exit 1
"$TALLY" record -q -N -e cpu-clock -o k.data -- dd if=/dev/zero of=/dev/null bs=4k count=200000 2>/dev/null
if ! "$TALLY" report -i k.data --stdio --sort dso 2>/dev/null | grep -q 'kernel.kallsyms'; then
	for _ in 1 2 3 4; do skip "no kernel samples (not root?)"; done
else
	TALLY_KCORE=$d/no-kcore "$TALLY" annotate --stdio -i k.data -d '[kernel.kallsyms]' >out 2>err; rc=$?
	if [ -s out ]; then
		for _ in 1 2 3 4; do skip "a vmlinux of this kernel is in perf's path"; done
	else
		is "no kcore: nothing annotated exits 1" "$rc" 1
		check "no kcore: says it is absent" grep -q "$d/no-kcore is absent" err
		check "no kcore: not perf's note on CAP_SYS_RAWIO" sh -c '! grep -q CAP_SYS_RAWIO err'
		TALLY_KCORE=$d/no-kcore "$TALLY" annotate --stdio -i k.data >out 2>err
		is "no kcore: said once for the kernel and its modules" "$(grep -c 'is absent' err)" 1
	fi
fi

size=$(stat -c %s nodbg.data)
head -c $((size * 2 / 3)) nodbg.data >trunc.data
"$TALLY" annotate --stdio -i trunc.data >out 2>err; rc=$?
is "a truncated file: exits 1" "$rc" 1
check "a truncated file: said where ($(head -1 err))" grep -q "trunc.data: .*offset" err
"$TALLY" annotate --stdio -i no_such.data >out 2>err; rc=$?
check "a missing perf.data: fails, named (rc $rc)" sh -c "[ $rc -ne 0 ] && grep -q no_such.data err"

"$TALLY" annotate --stdio -k /no/such/vmlinux -i nodbg.data >out 2>err; rc=$?
is "-k a file that is not there: fails" "$rc" 1
check "-k a file that is not there: said" grep -q -- "--vmlinux /no/such/vmlinux: No such file" err
"$TALLY" annotate --stdio --percent-type bogus -i nodbg.data >out 2>err; rc=$?
is "--percent-type bogus: a usage error" "$rc" 129
"$TALLY" annotate --stdio -M arm -i nodbg.data >out 2>err; rc=$?
is "-M arm: a usage error" "$rc" 129
"$TALLY" annotate --no-such-option >out 2>err; rc=$?
is "an unknown option: a usage error" "$rc" 129
"$TALLY" annotate --help >out 2>err; rc=$?
is "--help: exits 0" "$rc" 0
check "--help: names the options" grep -q -- '--percent-type' out
done_testing
