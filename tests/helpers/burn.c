// SPDX-License-Identifier: MIT
/*
 * A CPU-bound workload with known hot spots, for profiling tests:
 * burn_a does 6 units of work per round, burn_b 3, burn_c 1, all called
 * from burn_round, so a profile ranks burn_a > burn_b > burn_c (about
 * 60/30/10 %). Frame pointers are kept so -g call chains are whole.
 *   burn MS        spin about MS milliseconds
 *   burn MS crash  then die of SIGSEGV (a crashing workload)
 *   burn -r N      exactly N rounds (a fixed amount of work, for slowdowns)
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile uint64_t sink;

/* inlined: each burn_* function holds its own self time */
static inline __attribute__((always_inline)) void unit(uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink += x;
}

__attribute__((noinline)) void burn_a(uint64_t s) { for (int i = 0; i < 6; i++) unit(s + i); }
__attribute__((noinline)) void burn_b(uint64_t s) { for (int i = 0; i < 3; i++) unit(s + i); }
__attribute__((noinline)) void burn_c(uint64_t s) { unit(s); }

__attribute__((noinline)) void burn_round(uint64_t s)
{
	burn_a(s);
	burn_b(s);
	burn_c(s);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 200, t0 = now_ms();
	uint64_t r = 0;

	if (argc > 2 && !strcmp(argv[1], "-r")) {
		uint64_t n = strtoull(argv[2], NULL, 10);

		while (r < n)
			burn_round(r++);
		printf("%llu rounds\n", (unsigned long long)r);
		return 0;
	}
	while (now_ms() - t0 < ms)
		burn_round(r++);
	if (argc > 2 && !strcmp(argv[2], "crash"))
		raise(SIGSEGV);
	printf("%llu rounds\n", (unsigned long long)r);
	return 0;
}
