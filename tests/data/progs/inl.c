/* Inline frames (built -O2 -g -fomit-frame-pointer, --call-graph dwarf):
 * mix and step are inlined into work, step inside mix; argv[1]: rounds. */
#include <stdlib.h>
volatile unsigned long sink;
static inline __attribute__((always_inline)) unsigned long step(unsigned long v)
{
	for (int i = 0; i < 64; i++)
		v = v * 6364136223846793005UL + 1442695040888963407UL;
	return v;
}
static inline __attribute__((always_inline)) unsigned long mix(unsigned long v)
{
	return step(v ^ (v >> 7)) + 1;
}
__attribute__((noinline)) void work(unsigned long n)
{
	unsigned long v = n;

	for (unsigned long i = 0; i < n; i++)
		v = mix(v + i);
	sink = v;
}
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 300;

	for (int k = 0; k < rounds; k++)
		work(20000);
	return 0;
}
