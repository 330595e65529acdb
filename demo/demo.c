// SPDX-License-Identifier: MIT
/*
 * The bundled demo workload: a little of everything tally can see here.
 * It sorts, hashes, faults in fresh memory, makes syscalls and sleeps,
 * so software events, tracepoints and (later) samples all have a story.
 * The sort and the hash table are its own code, built with frame
 * pointers (demo/run.sh), so record -g sees each sample's callers:
 * main > sort_keys > merge_pass > merge, main > count_keys >
 * table_insert > hash_key (libc's qsort, without frame pointers, showed
 * one frame only).
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
#define TABLE_BITS 21		/* twice the keys: short probe runs */
#define ROUNDS 3		/* of counting every key */

/* Not inlined, nor cloned (gcc's .constprop.0): each frame its own name. */
#ifdef __clang__
#define FRAME __attribute__((noinline))
#else
#define FRAME __attribute__((noinline, noclone))
#endif

struct entry {
	uint64_t key;
	uint64_t count;		/* in the key's cache line: one miss per insert */
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* a[lo, mid) and a[mid, hi), each sorted, into out[lo, hi). */
FRAME static void merge(const uint64_t *a, uint64_t *out, size_t lo,
					    size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		out[k++] = a[j] < a[i] ? a[j++] : a[i++];
	while (i < mid)
		out[k++] = a[i++];
	while (j < hi)
		out[k++] = a[j++];
}

/* Runs of width w in a merged pairwise into out. */
FRAME static void merge_pass(const uint64_t *a, uint64_t *out, size_t n,
						 size_t w)
{
	for (size_t lo = 0; lo < n; lo += 2 * w) {
		size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;

		merge(a, out, lo, mid, hi);
	}
}

/* Bottom-up merge sort: log2(n) passes between keys and tmp. */
FRAME static void sort_keys(uint64_t *keys, uint64_t *tmp, size_t n)
{
	uint64_t *from = keys, *to = tmp, *t;

	for (size_t w = 1; w < n; w *= 2) {
		merge_pass(from, to, n, w);
		t = from, from = to, to = t;
	}
	if (from != keys)
		memcpy(keys, from, n * sizeof(*keys));
}

/*
 * A leaf: gcc sets up no frame in a function that needs no stack (even
 * with -fno-omit-frame-pointer), so its samples skip its caller. The hot
 * loops are kept in functions that call (table_insert) or spill (merge).
 */
FRAME static uint64_t hash_key(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

/* Open addressing: the key's entry, its count one more. */
FRAME static void table_insert(struct entry *t, uint64_t k)
{
	size_t mask = ((size_t)1 << TABLE_BITS) - 1, i = hash_key(k) & mask;

	while (t[i].key && t[i].key != k)
		i = (i + 1) & mask;
	t[i].key = k;
	t[i].count++;
}

/* How many distinct keys, counting each key ROUNDS times. */
FRAME static size_t count_keys(const uint64_t *keys, size_t n)
{
	struct entry *t = calloc((size_t)1 << TABLE_BITS, sizeof(*t));
	size_t distinct = 0;

	if (!t)
		return 0;
	for (int r = 0; r < ROUNDS; r++)
		for (size_t i = 0; i < n; i++)
			table_insert(t, keys[i]);
	for (size_t i = 0; i < (size_t)1 << TABLE_BITS; i++)
		distinct += t[i].count != 0;
	free(t);
	return distinct;
}

FRAME static size_t touch_pages(size_t npages)
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
	uint64_t seed = 0x9e3779b97f4a7c15ull, *keys, *tmp;
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	size_t pages, distinct;

	keys = malloc(N_KEYS * sizeof(*keys));
	tmp = malloc(N_KEYS * sizeof(*tmp));
	if (!keys || !tmp)
		return 1;
	for (size_t i = 0; i < N_KEYS; i++)
		keys[i] = xorshift(&seed);
	sort_keys(keys, tmp, N_KEYS);
	distinct = count_keys(keys, N_KEYS);
	pages = touch_pages(4096);
	for (int i = 0; i < 1000; i++)
		syscall(SYS_getpid);
	nanosleep(&nap, NULL);
	printf("demo: sorted %d keys (smallest %016llx), counted %zu distinct, touched %zu pages, "
	       "1000 getpid calls\n", N_KEYS, (unsigned long long)keys[0], distinct, pages);
	free(keys);
	free(tmp);
	return 0;
}
