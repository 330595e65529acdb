#!/usr/bin/env bash
# tally annotate --stdio against perf annotate --stdio 6.1 on the same
# files (written by perf and by tally): -O0 PIE and -O2 non-PIE C, a
# shared library's function, C++, a stripped binary with a debuglink.
# The workload's DSOs must come out equal line for line (addresses,
# percentages, source lines, instruction text); over the whole output
# (ld.so, libc) the same symbols in the same order, and >= 95% of the
# instruction lines equal.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
if ! have_perf || ! command -v objdump >/dev/null; then
	skip "perf or objdump is not installed: no reference to compare with"
	done_testing; exit 0
fi
cat >"$d/hot.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
static volatile long sink;
long table[1024];
__attribute__((noinline)) long work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++) {
		s += table[i & 1023] * i;
		if (s & 1)
			s ^= 0x55;
	}
	return s;
}
__attribute__((noinline)) long other(long n)
{
	long s = 1;
	for (long i = 0; i < n; i++)
		s = s * 3 + i;
	return s;
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 30000000;
	sink = work(n) + other(n / 3);
	printf("%ld\n", sink);
	return 0;
}
EOC
cat >"$d/lib.c" <<'EOC'
long libwork(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += (i * 7) ^ (s >> 3);
	return s;
}
EOC
cat >"$d/main.c" <<'EOC'
#include <stdio.h>
long libwork(long n);
int main(void) { printf("%ld\n", libwork(60000000)); return 0; }
EOC
cat >"$d/cpp.cc" <<'EOC'
#include <vector>
#include <cstdio>
namespace ns {
template <typename T> struct Acc {
	T s{};
	__attribute__((noinline)) T run(const std::vector<T> &v, int reps)
	{
		for (int r = 0; r < reps; r++)
			for (auto x : v)
				s += x * r;
		return s;
	}
};
}
int main() { std::vector<long> v(1000, 3); ns::Acc<long> a; std::printf("%ld\n", a.run(v, 40000)); }
EOC
cd "$d" || exit 1
cc -O0 -g -o o0 hot.c
cc -O2 -g -no-pie -fno-pie -o o2 hot.c
cc -O2 -g -shared -fPIC -o libw.so lib.c && cc -O2 -g -o shlib main.c -L. -lw -Wl,-rpath,"$d"
# -z now: no lazy binding, whose resolver (PLT0) a sample can catch at the
# first call: perf then shows operator new@plt, tally not (a known gap)
c++ -O2 -g -Wl,-z,now -o cxx cpp.cc
cc -O2 -g -o strip hot.c && objcopy --only-keep-debug strip strip.debug &&
	objcopy --strip-all --add-gnu-debuglink=strip.debug strip strip.s && mv strip.s strip
same=0 all=0
for w in o0 o2 shlib cxx strip; do
	dso=$w; [ $w = shlib ] && dso=libw.so
	for who in perf tally; do
		if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
		$rec -q -e cpu-clock -o $who-$w.data ./$w >/dev/null 2>&1
		"$TALLY" annotate --stdio -i $who-$w.data >t.out 2>t.err; rc=$?
		perf annotate --stdio -i $who-$w.data >p.out 2>/dev/null
		is "$who $w: exits 0" "$rc" 0
		# the workload's own DSO: equal line for line
		"$TALLY" annotate --stdio -d $dso -i $who-$w.data >t.dso 2>/dev/null
		perf annotate --stdio -d $dso -i $who-$w.data >p.dso 2>/dev/null
		check "$who $w: $dso annotated" grep -q 'Source code & Disassembly of' p.dso
		if [ $w = strip ]; then
			# perf hands objdump its build-id cache's copy, whose debuglink
			# objdump cannot follow: no source there. tally follows it, so
			# only the instructions compare (docs/annotate.md).
			grep '^ *[0-9][0-9.]* : ' t.dso >t.ins; grep '^ *[0-9][0-9.]* : ' p.dso >p.ins
			is "$who $w: $dso's instructions as perf annotate shows them" \
				"$(diff t.ins p.ins | grep -c '^[<>]')" 0
			check "$who $w: the source found through the debuglink" grep -q 'for (long i = 0' t.dso
		else
			is "$who $w: $dso as perf annotate shows it" "$(diff t.dso p.dso | grep -c '^[<>]')" 0
		fi
		diff t.dso p.dso | head -6 | sed 's/^/# /'
		# the whole output: the symbols and their order
		syms() { awk '/Source code & Disassembly of/ { h = $0; n = NR } NR == n + 7 { print h " " $0 }' "$1"; }
		is "$who $w: the same symbols in the same order" "$(syms t.out)" "$(syms p.out)"
		# instruction lines by address
		n=$(join -t@ <(sed -n 's/^ *[0-9][0-9.]* : *\([0-9a-f]*\):\(.*\)/\1@\2/p' p.out | sort -u) \
			     <(sed -n 's/^ *[0-9][0-9.]* : *\([0-9a-f]*\):\(.*\)/\1@\2/p' t.out | sort -u) | wc -l)
		a=$(sed -n 's/^ *[0-9][0-9.]* : *\([0-9a-f]*\):\(.*\)/\1@\2/p' p.out | sort -u | wc -l)
		same=$((same + n)) all=$((all + a))
	done
done
pct=$(awk -v s=$same -v a=$all 'BEGIN { printf "%d", a ? 100 * s / a : 0 }')
check "instruction lines equal to perf's (objdump's text): $same of $all (${pct}%) >= 95%" [ "$pct" -ge 95 ]
# the options perf has, on one file
# -l on work: a sample outside every line table (crtstuff's code at exit)
# gets perf's "crtstuff.c:0" from bfd's STT_FILE fallback (fnfile.c)
for opt in --no-source --asm-raw "-M intel" "--percent-type global-period" "--percent-type local-hits" \
	   "-s work" "work" "-l -s work"; do
	"$TALLY" annotate --stdio $opt -d o2 -i perf-o2.data >t.out 2>/dev/null
	perf annotate --stdio $opt -d o2 -i perf-o2.data >p.out 2>/dev/null
	is "annotate $opt: as perf's" "$(diff t.out p.out | grep -c '^[<>]')" 0
	diff t.out p.out | head -4 | sed 's/^/# /'
done
# a sizeless symbol (crtstuff's __do_global_dtors_aux, size 0 in .symtab):
# perf keeps the nops that pad it up to the next symbol (it drops trailing
# nops for kcore's code only); a breakpoint on its code makes the sample
dtors=$(readelf -sW o2 | awk '$8 == "__do_global_dtors_aux" && $3 == 0 { print $2; exit }')
if [ -n "$dtors" ]; then
	bp=$(objdump -d --start-address=0x$dtors o2 | awk '/\tret/ { sub(":", "", $1); print $1; exit }')
	for who in perf tally; do
		if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
		$rec -q -e "mem:0x$bp:x" -c 1 -o bp-$who.data -- ./o2 1000 >/dev/null 2>&1
		"$TALLY" annotate --stdio -d o2 -i bp-$who.data >t.out 2>/dev/null
		perf annotate --stdio -d o2 -i bp-$who.data >p.out 2>/dev/null
		check "sizeless symbol ($who's file): __do_global_dtors_aux annotated" \
			grep -q "Disassembly of section .text" t.out
		is "sizeless symbol ($who's file): as perf's, its padding included" \
			"$(diff t.out p.out | grep -c '^[<>]')" 0
		diff t.out p.out | head -4 | sed 's/^/# /'
	done
else
	skip "sizeless symbol: this toolchain's crtstuff symbols have sizes"
fi
# a sizeless _init (crti's, in .init) grows to the next symbol, over the
# PLT: perf's objdump range then runs on into .plt and .plt.got, with
# their section heads and objdump's labels. A uprobe on the PLT's second
# instruction puts the sample there every time (a CI run's cpu-clock
# sample once did, by chance).
init=$(readelf -sW o0 | awk '$8 == "_init" && $3 == 0 { print $2; exit }')
plt=$(readelf -SW o0 | awk '$2 == ".plt" { print $4; exit }')
if [ -n "$init" ] && [ -n "$plt" ] && [ -d /sys/bus/event_source/devices/uprobe ]; then
	off=$((0x$plt + 6 - 0x$init))
	"$TALLY" record -q -e "uprobe:$d/o0:_init+$off" -o plt.data -- ./o0 1000 >/dev/null 2>&1
	"$TALLY" annotate --stdio -d o0 -i plt.data >t.out 2>/dev/null
	perf annotate --stdio -d o0 -i plt.data >p.out 2>/dev/null
	check "_init over the PLT: perf's range passes into .plt" grep -q 'Disassembly of section .plt:' p.out
	is "_init over the PLT: as perf's, section heads and labels included" \
		"$(diff t.out p.out | grep -c '^[<>]')" 0
	diff t.out p.out | head -4 | sed 's/^/# /'
else
	skip "_init over the PLT: no sizeless _init, no .plt or no uprobe PMU here"
	skip "_init over the PLT: no sizeless _init, no .plt or no uprobe PMU here"
fi
# a versioned C++ name of a library's .dynsym: objdump -C demangles the
# name, then appends its version ("operator new(unsigned long)@@GLIBCXX_3.4";
# a CI run's cpu-clock sample once landed there). A uprobe on _Znwm puts
# a sample there every time.
lib=$(ldd ./cxx 2>/dev/null | awk '/libstdc\+\+/ { print $3; exit }')
if [ -n "$lib" ] && [ -d /sys/bus/event_source/devices/uprobe ]; then
	b=$(basename "$(readlink -f "$lib")")
	"$TALLY" record -q -e "uprobe:$lib:_Znwm" -o new.data -- ./cxx >/dev/null 2>&1
	"$TALLY" annotate --stdio -d "$b" -i new.data >t.out 2>/dev/null
	perf annotate --stdio -d "$b" -i new.data >p.out 2>/dev/null
	check "a versioned C++ name: perf shows it demangled" grep -qF '<operator new(unsigned long)@@GLIBCXX' p.out
	is "a versioned C++ name: as perf's" "$(diff t.out p.out | grep -c '^[<>]')" 0
	diff t.out p.out | head -4 | sed 's/^/# /'
else
	skip "a versioned C++ name: no libstdc++ or no uprobe PMU here"
	skip "a versioned C++ name: no libstdc++ or no uprobe PMU here"
fi
# hundreds of symbols in one file (gcc's cc1 at work): every one annotated,
# in bounded time (past 128 symbols the sorted table once never ended a probe)
{ for i in $(seq 300); do echo "int f$i(int x) { int s = 0; for (int k = 0; k < x; k++) s += k * $i ^ (s >> 3); return s; }"; done; } >big.c
"$TALLY" record -q -F 999 -o gcc.data -- gcc -O2 -c -o big.o big.c >/dev/null 2>&1
timeout 120 "$TALLY" annotate --stdio -i gcc.data >t.out 2>/dev/null; rc=$?
is "a gcc profile: exits 0 in time" "$rc" 0
n=$(grep -c 'Source code & Disassembly of' t.out)
check "a gcc profile: more than 128 symbols annotated ($n)" [ "$n" -gt 128 ]
# (annotate's peak memory against report's on this profile is a ratio
# of two commands, which a cold cache moves: bench/memory.sh prints it)
# the source-only view: work's lines hold all its samples, the hottest
# line the one perf's -l summary puts first
"$TALLY" annotate --source-only -s work -i perf-o2.data >t.out 2>/dev/null
sum=$(awk '/^ +[0-9]+\.[0-9]+ : [0-9]/ { s += $1 } END { printf "%.0f", s }' t.out)
is "--source-only: work's lines sum to 100%" "$sum" 100
top=$(awk '/^ +[0-9]+\.[0-9]+ : [0-9]/ && $1 > m { m = $1; l = $3 } END { print l }' t.out)
ptop=$(perf annotate --stdio -l -s work -i perf-o2.data 2>/dev/null | awk '/^ +[0-9.]+ hot\.c:/ { sub(/.*:/, "", $2); print $2; exit }')
is "--source-only: the hottest line is perf's" "$top" "$ptop"
check "--source-only: with the source text" grep -q 's += table\[i & 1023\] \* i;' t.out
# ---- a kernel function, its code from a vmlinux (-k): no vmlinux ships
# here and this kernel has no /proc/kcore, so the test makes one, an ELF
# file with the running kernel's build id and the hottest kernel
# function at its address, kallsyms' size, some real instructions for its
# bytes; perf annotate -k and tally annotate -k read the same file
kid=$(perf buildid-list -k 2>/dev/null)
if [ "$(id -u)" = 0 ] && [ -n "$kid" ] && command -v ld >/dev/null; then
	for who in perf tally; do
		if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
		$rec -q -e cpu-clock -o $who-k.data -- dd if=/dev/zero of=/dev/null bs=4k count=400000 2>/dev/null
	done
	ksym=$(perf report --stdio -q --sort sym -i perf-k.data 2>/dev/null |
		awk '$2 == "[k]" && $3 !~ /^0x/ { print $3; exit }')
	start=$(awk -v s="$ksym" '$3 == s && NF == 3 { print $1; exit }' /proc/kallsyms)
	next=$(awk '$2 ~ /^[TtWwDdBb]$/ && NF == 3 { print $1 }' /proc/kallsyms | sort -u |
		awk -v a="$start" '$1 > a { print; exit }')
	size=$((0x$next - 0x$start))
	{
		printf '\t.text\n\t.globl %s\n\t.type %s,@function\n%s:\n' "$ksym" "$ksym" "$ksym"
		printf '\t.rept %d\n1:\tadd %%rax,%%rbx\n\tmov 0x8(%%rdi),%%rcx\n\tlea 0x1(%%rcx),%%rdx\n' $((size / 16))
		printf '\ttest %%rdx,%%rdx\n\tjne 1b\n\t.endr\n\t.fill %d,1,0xcc\n\t.size %s,.-%s\n' \
			$((size % 16)) "$ksym" "$ksym"
	} >k.S
	cc -c -o k.o k.S && ld -e "$ksym" -Ttext=0x$start --build-id=0x$kid -o vmlinux k.o &&
		ld -e "$ksym" -Ttext=0x$start --build-id=0x0123456789abcdef0123456789abcdef01234567 \
			-o vmlinux-other k.o
	for who in perf tally; do
		perf annotate --stdio -k vmlinux -s "$ksym" -i $who-k.data >p.k 2>/dev/null
		"$TALLY" annotate --stdio -k vmlinux -s "$ksym" -i $who-k.data >t.k 2>t.err; rc=$?
		is "kernel ($who's file): exits 0" "$rc" 0
		check "kernel ($who's file): perf annotated $ksym from the vmlinux ($size bytes)" \
			grep -q 'Source code & Disassembly of vmlinux' p.k
		is "kernel ($who's file): $ksym as perf annotate -k shows it" "$(diff t.k p.k | grep -c '^[<>]')" 0
		diff t.k p.k | head -6 | sed 's/^/# /'
		"$TALLY" annotate --stdio -k vmlinux-other -s "$ksym" -i $who-k.data >t.k 2>t.err
		check "kernel ($who's file): another kernel's vmlinux refused, both ids said" \
			grep -Eq "build id mismatch: (recorded|the running kernel's is) $kid, vmlinux-other has 0123456789abcdef" t.err
		check "kernel ($who's file): none of its code shown" [ ! -s t.k ]
	done
	# no -k: perf's vmlinux path (./vmlinux first), the file with the kernel's build id
	"$TALLY" annotate --stdio -s "$ksym" -i perf-k.data >t.k 2>t.err
	perf annotate --stdio -s "$ksym" -i perf-k.data >p.k 2>/dev/null
	check "kernel without -k: ./vmlinux found, as perf finds it" grep -q 'Disassembly of vmlinux' t.k
	is "kernel without -k: $ksym as perf annotate shows it" "$(diff t.k p.k | grep -c '^[<>]')" 0
	# then /proc/kcore as root, as perf; this kernel has none
	if [ ! -e /proc/kcore ]; then
		mv vmlinux vmlinux.k
		"$TALLY" annotate --stdio -s "$ksym" -i perf-k.data >t.k 2>t.err
		perf annotate --stdio -s "$ksym" -i perf-k.data >p.k 2>p.err
		# perf's message, its CAP_SYS_RAWIO note replaced: there is no kcore to read
		is "kernel with no vmlinux and no /proc/kcore: perf's first lines" \
			"$(head -3 t.err | sed 's/, and .*//')" "$(cat p.k p.err | head -3 | sed 's/\.$//')"
		check "kernel with no vmlinux and no /proc/kcore: says kcore is absent" \
			sh -c '! grep -q CAP_SYS_RAWIO t.err && grep -q "/proc/kcore is absent" t.err'
	fi
else
	skip "kernel functions: not root, or no kernel build id (perf buildid-list -k)"
fi
# -n, --show-total-period (the column perf shows instead of the share), and
# -l over two events. A listing's first hot line names its source in
# tally; perf compares it with the last path printed, a pointer into the
# previous symbol's lines, which it freed: mostly garbage by then (the path
# printed, as tally), sometimes not (left out). So an instruction line is
# compared by its column and address (its text is objdump's, compared
# above: a sanitized build's burn holds instructions capstone names
# otherwise), the " // path" ends apart.
perf record -q -e cpu-clock,task-clock -o two.data -- "$HELPERS/burn" 200 >/dev/null 2>&1
nopath() { sed -E 's|^( +[0-9.]+ : +[0-9a-f]+:).*|\1|' "$1"; }
# (burn's own symbols: ld.so's inlined lines are another corner)
for opt in "-n -s burn_a" "--show-total-period -s burn_b" "-l -s burn_b" "-n -l -d burn" "-l -d burn" \
	   "--show-total-period -d burn"; do
	"$TALLY" annotate --stdio $opt -i two.data >t.out 2>/dev/null
	perf annotate --stdio $opt -i two.data >p.out 2>/dev/null
	is "annotate $opt (two events): as perf's" "$(diff <(nopath t.out) <(nopath p.out) | grep -c '^[<>]')" 0
	cmp -s <(nopath t.out) <(nopath p.out) || diff <(nopath t.out) <(nopath p.out) | head -4 | sed 's/^/# /'
done
# each listing of -l -d burn of a function of burn.c: its first hot line
# names burn.c:26 (a loaded machine can sample crt code, _start or
# frame_dummy, built without lines: those listings are not counted)
"$TALLY" annotate --stdio -l -d burn -i two.data >t.out 2>/dev/null
is "-l: every listing's hot line names its source" \
	"$(awk '/Source code & Disassembly/ { n++ } / <[A-Za-z_0-9]+>:$/ { f = $NF; gsub(/[<>:]/, "", f); fn[n] = f }
		/ \/\/ burn.c:/ { seen[n] = 1 }
		END { for (i = 1; i <= n; i++) if (fn[i] ~ /^(burn_[abc]|burn_round|main)$/) { k++; m += !seen[i] }
		      print k + 0 " " m + 0 }' t.out)" \
	"$(grep -cE ' <(burn_[abc]|burn_round|main)>:$' t.out) 0"
check "-n: a Samples column" grep -q '^ Samples |' <("$TALLY" annotate --stdio -n -d burn -i two.data 2>/dev/null)
# --percent-limit (a symbol's share of its event) and -C/--cpu (samples on
# other CPUs dropped first): burn pinned to CPU 1 in a system-wide file
for opt in "--percent-limit 20 -d burn" "--percent-limit 5 -d burn" "--percent-limit 40 -l -d burn"; do
	"$TALLY" annotate --stdio $opt -i two.data >t.out 2>/dev/null
	perf annotate --stdio $opt -i two.data >p.out 2>/dev/null
	is "annotate $opt: as perf's ($(grep -c 'Source code' p.out) symbols)" "$(diff <(nopath t.out) <(nopath p.out) | grep -c '^[<>]')" 0
done
# (the share is of the samples counted: with -s SYM that symbol's alone, 100%, as perf)
# burn_c's listing known by its first instruction's address (burn_c runs under 10%)
cstart=$(nm "$HELPERS/burn" | awk '$3 == "burn_c" { sub(/^0+/, "", $1); print $1 }')
check "--percent-limit 20: burn_c listed without it" \
	sh -c "'$TALLY' annotate --stdio -d burn -i two.data 2>/dev/null | grep -q ' $cstart:'"
check "--percent-limit 20: burn_c left out" \
	sh -c "! '$TALLY' annotate --stdio --percent-limit 20 -d burn -i two.data 2>/dev/null | grep -q ' $cstart:'"
check "--percent-limit 20 -s burn_c: burn_c is all of what is counted" \
	sh -c "'$TALLY' annotate --stdio --percent-limit 20 -s burn_c -i two.data 2>/dev/null | grep -q 'Source code'"
# (a copy of burn of its own: other tests' burns run meanwhile, on any CPU)
cp "$HELPERS/burn" cpuburn
perf record -q -a --sample-cpu -F 999 -o cpu.data -- taskset -c 1 ./cpuburn 100 >/dev/null 2>&1
for opt in "--cpu 1 -d cpuburn" "--cpu 0 -d cpuburn" "--cpu 0,1 -d cpuburn --percent-limit 10"; do
	"$TALLY" annotate --stdio $opt -i cpu.data >t.out 2>/dev/null
	perf annotate --stdio $opt -i cpu.data >p.out 2>/dev/null
	is "annotate $opt: as perf's ($(grep -c 'Source code' p.out) symbols)" "$(diff <(nopath t.out) <(nopath p.out) | grep -c '^[<>]')" 0
done
is "--cpu 0: none of cpuburn's samples (it ran on CPU 1)" \
	"$("$TALLY" annotate --stdio --cpu 0 -d cpuburn -i cpu.data 2>/dev/null | grep -c 'Source code')" 0
check "--cpu 1: cpuburn's functions annotated" \
	sh -c "'$TALLY' annotate --stdio --cpu 1 -d cpuburn -i cpu.data 2>/dev/null | grep -q 'Source code'"
"$TALLY" annotate --stdio --cpu 0 -i two.data >/dev/null 2>t.err
is "--cpu on a file without CPUs: an error (1)" "$?" 1
"$TALLY" annotate --stdio -n --show-total-period -i two.data >/dev/null 2>&1
is "-n with --show-total-period: refused (129), as perf" "$?" 129
done_testing
