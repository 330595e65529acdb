#!/usr/bin/env bash
# annotate's names as objdump makes them, compared with perf annotate on
# the same recording: a stripped library's default exports are
# "name@@Base" (bfd's name for version index 1), and a PLT entry of an
# IFUNC the file resolves itself (R_X86_64_IRELATIVE, libc's own calls)
# is "*ABS*+0xADDR@plt", never the entry before it plus an offset.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
cd "$d" || exit 1
export HOME=$d
if ! have_perf; then
	skip "no perf to compare with"; done_testing; exit 0
fi
cat >hot.c <<'EOC'
#include <stdio.h>
static volatile long sink;
long hot(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += (i * 7) ^ (s >> 3);
	if (s == 42)
		printf("%ld\n", s);
	return s;
}
EOC
cat >main.c <<'EOC'
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
long hot(long n);
static int cmp(const void *a, const void *b) { return strcmp(*(char **)a, *(char **)b); }
int main(void)
{
	char *v[2000], buf[64];
	volatile long s = hot(30000000);
	for (int r = 0; r < 150; r++) {
		for (int i = 0; i < 2000; i++) {
			snprintf(buf, sizeof(buf), "%d-%d", (i * 7919) % 2000, r);
			v[i] = strdup(buf);
		}
		qsort(v, 2000, sizeof(char *), cmp);
		for (int i = 0; i < 2000; i++)
			free(v[i]);
	}
	return (int)(s & 0);
}
EOC
cc -O2 -fPIC -shared -o libhot.so hot.c && strip libhot.so && cc -O2 -o prog main.c -L. -lhot -Wl,-rpath,"$d" ||
	{ skip "no compiler"; done_testing; exit 0; }
"$TALLY" record -q -N -e cpu-clock -o p.data ./prog >/dev/null 2>&1
# the <name> labels of the annotated lines, as each prints them
labels() { grep -o '<[^<>]*>' "$1" | sort -u; }

"$TALLY" annotate --stdio --no-source -i p.data -d libhot.so >t.out 2>/dev/null
perf annotate --stdio --no-source -i p.data -d libhot.so >p.out 2>/dev/null
check "stripped library: perf shows @@Base names" grep -q '@@Base>' p.out
is "stripped library: the labels are perf's" "$(labels t.out | tr '\n' ' ')" "$(labels p.out | tr '\n' ' ')"

# a library without version sections (no versioned import): its GOT slots
# are the bare names (a weak symbol's here; also __cxa_finalize's, which
# annotate_parity met once in __do_global_dtors_aux): tally said "wk@Base"
cat >nv.c <<'EOC'
extern int wk __attribute__((weak));
long nvhot(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += ((i * 7) ^ (s >> 3)) + (long)&wk;
	return s;
}
EOC
printf 'long nvhot(long);\nint main(void) { return (int)(nvhot(60000000) & 0); }\n' >nvmain.c
cc -O2 -fPIC -shared -o libnv.so nv.c && cc -O2 -o nvprog nvmain.c -L. -lnv -Wl,-rpath,"$d"
"$TALLY" record -q -N -e cpu-clock -o nv.data ./nvprog >/dev/null 2>&1
"$TALLY" annotate --stdio --no-source -i nv.data -d libnv.so >t.out 2>/dev/null
perf annotate --stdio --no-source -i nv.data -d libnv.so >p.out 2>/dev/null
check "versionless library: perf names the GOT slot <wk>" grep -q '<wk>' p.out
is "versionless library: the labels are perf's" "$(labels t.out | tr '\n' ' ')" "$(labels p.out | tr '\n' ' ')"

"$TALLY" annotate --stdio --no-source -i p.data -d libc.so.6 >t.out 2>/dev/null
perf annotate --stdio --no-source -i p.data -d libc.so.6 >p.out 2>/dev/null
if grep -q '<\*ABS\*+0x[0-9a-f]*@plt>' p.out; then
	is "libc: the PLT entries called are named as perf's" \
		"$(grep -o '<[^<>]*@plt[^<>]*>' t.out | sort -u | tr '\n' ' ')" \
		"$(grep -o '<[^<>]*@plt[^<>]*>' p.out | sort -u | tr '\n' ' ')"
else
	skip "no call through an IRELATIVE PLT entry in the annotated libc code"
fi
done_testing
