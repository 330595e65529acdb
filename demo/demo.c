// SPDX-License-Identifier: MIT
/*
 * The bundled demo workload: a little of everything tally can see here.
 * It sorts, hashes, faults in fresh memory, makes syscalls and sleeps,
 * so software events, tracepoints and (later) samples all have a story.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define N_KEYS (1 << 20)

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) static uint64_t fnv1a(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

__attribute__((noinline)) static size_t touch_pages(size_t npages)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, npages * (size_t)pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return 0;
	for (size_t i = 0; i < npages; i++)
		m[i * (size_t)pg] = (char)i;
	munmap(m, npages * (size_t)pg);
	return npages;
}

int main(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull, *keys;
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	size_t pages;

	keys = malloc(N_KEYS * sizeof(*keys));
	if (!keys)
		return 1;
	for (size_t i = 0; i < N_KEYS; i++)
		keys[i] = xorshift(&seed);
	qsort(keys, N_KEYS, sizeof(*keys), cmp_u64);
	pages = touch_pages(4096);
	for (int i = 0; i < 1000; i++)
		syscall(SYS_getpid);
	nanosleep(&nap, NULL);
	printf("demo: sorted %d keys (hash %016llx), touched %zu pages, 1000 getpid calls\n",
	       N_KEYS, (unsigned long long)fnv1a(keys, N_KEYS * sizeof(*keys)), pages);
	free(keys);
	return 0;
}
