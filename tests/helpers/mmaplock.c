// SPDX-License-Identifier: MIT
/*
 * A workload that contends on the kernel's mmap lock, for tally lock's
 * tests: mmaplock THREADS ITERS starts THREADS threads, each mapping,
 * touching and unmapping 64 KiB ITERS times. mmap and munmap take the
 * process's mmap lock (an rwsem) for writing, a page fault for reading:
 * with two threads or more they wait on it (lock:contention_begin/end).
 * User-space mutexes would wait in futex(), not on those tracepoints.
 * Built without the library so the workload is its own.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static long iters;

static void *run(void *arg)
{
	(void)arg;
	for (long i = 0; i < iters; i++) {
		volatile char *p = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return NULL;
		p[0] = 1;
		p[4096] = 1;
		munmap((void *)p, 1 << 16);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];

	iters = argc > 2 ? atol(argv[2]) : 10000;
	if (n < 1 || n > 64 || iters < 1) {
		fprintf(stderr, "usage: mmaplock THREADS(1-64) ITERS\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, run, NULL)) {
			n = i;
			break;
		}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
