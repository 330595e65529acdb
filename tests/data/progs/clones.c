// SPDX-License-Identifier: MIT
// A C function GCC -O2 clones (sum_flags.constprop.0): perf keeps the
// suffix on C names, which no demangler reads.
#include <stdlib.h>

static __attribute__((noinline)) long sum_flags(const int *a, int n, int mode, long r)
{
	long s = r;

	for (int i = 0; i < n; i++)
		s += mode ? a[i] * 3 : a[i] ^ s;
	return s;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 40000;
	int *a = malloc(4000 * sizeof(int));
	volatile long t = 0;

	for (int i = 0; i < 4000; i++)
		a[i] = i ^ argc;
	for (long r = 0; r < rounds; r++)
		t += sum_flags(a, 4000, 1, r);
	return (int)(t & 1);
}
