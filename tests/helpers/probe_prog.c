// SPDX-License-Identifier: MIT
/*
 * tally probe's workload: probe_prog N calls work(i) for i = 0..N-1 (the
 * exact oracles: N hits, the values of i in order, 3i returned) and
 * passes an SDT marker (probe_prog:tick, its note written out here as
 * sys/sdt.h writes it, since systemtap-sdt-dev may be absent) once per
 * call; probe_prog N malloc calls malloc N times (through alloc_one) and
 * nothing else. The other functions give the parity table its members, arrays,
 * strings, nested structs, lines and inlined instances. Built by the
 * tests with -g -O0 (the make build's -O1 copy is not the one probed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One .note.stapsdt entry (type 3, "stapsdt"): pc, base, semaphore, provider, name, args. */
#define PP_SDT1(prov, name, a1)							\
	__asm__ __volatile__("990: nop\n"					\
		".pushsection .note.stapsdt,\"?\",\"note\"\n"			\
		".balign 4\n"							\
		".4byte 992f-991f, 994f-993f, 3\n"				\
		"991: .asciz \"stapsdt\"\n"					\
		"992: .balign 4\n"						\
		"993: .8byte 990b\n"						\
		".8byte _.stapsdt.base\n"					\
		".8byte 0\n"							\
		".asciz \"" prov "\"\n"						\
		".asciz \"" name "\"\n"						\
		".asciz \"-4@%0\"\n"						\
		"994: .balign 4\n"						\
		".popsection\n"							\
		".ifndef _.stapsdt.base\n"					\
		".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
		".weak _.stapsdt.base\n"					\
		".hidden _.stapsdt.base\n"					\
		"_.stapsdt.base: .space 1\n"					\
		".size _.stapsdt.base, 1\n"					\
		".popsection\n"							\
		".endif\n" :: "r"((int)(a1)))

struct inner {
	short lo;
	unsigned int hi;
};

struct rec {
	int len;
	char buf[16];
	const char *name;
	struct inner in;
	struct inner *next;
	unsigned long flags;
	long vals[4];
};

int counter = 7;
const char *label = "probe-label";

int __attribute__((noinline)) work(int i)
{
	int r = 3 * i;

	PP_SDT1("probe_prog", "tick", i);
	return r;
}

static inline __attribute__((always_inline)) int twice(int x)
{
	return 2 * x + counter;
}

int __attribute__((noinline)) parse(struct rec *s, const char *name, unsigned long n)
{
	int k = s->len + (int)n;

	if (k > 2)
		k += (int)strlen(name);
	for (int j = 0; j < 2; j++)
		k += s->buf[j];
	return k + twice(k);
}

long __attribute__((noinline)) sum(const long *v, int nr, struct inner in)
{
	long t = in.lo;

	for (int j = 0; j < nr; j++)
		t += v[j];
	return t + twice((int)t);
}

/* void underneath: -V's (unknown_type) */
int __attribute__((noinline)) same(const void *a, void *b, void **pp)
{
	return a == b && pp != NULL;
}

/* one malloc per call, through a call of its own (probe_prog N malloc) */
void *__attribute__((noinline)) alloc_one(size_t n)
{
	return malloc(n);
}

int main(int argc, char **argv)
{
	struct inner nx = { 3, 4 };
	struct rec s = { 5, "abcdef", "nm", { 1, 2 }, &nx, 0x10, { 1, 2, 3, 4 } };
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long total = 0;

	if (argc > 2 && !strcmp(argv[2], "malloc")) {
		for (int i = 0; i < n; i++) {
			void *volatile p = alloc_one(16 + (size_t)i);

			free(p);
		}
		return 0;
	}
	for (int i = 0; i < n; i++)
		total += work(i);
	total += parse(&s, label, 3);
	total += sum(s.vals, 4, nx);
	total += same(&s, &nx, NULL);
	printf("%ld\n", total);
	return 0;
}
