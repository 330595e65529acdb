// SPDX-License-Identifier: MIT
/*
 * A workload with exact page faults and context switches between two
 * moments a test chooses (agent_prometheus.sh):
 *   cgwork N M
 * maps N fresh anonymous pages (no transparent huge pages), warms up
 * every code path it will take, prints "ready" and blocks reading
 * stdin. Each 'g' read: the first touch of N fresh pages (N page
 * faults), M sleeps (M context switches), "done" printed, and blocked
 * reading stdin again (one more switch): between a reading taken while
 * it is blocked and one taken after "done" while it is blocked again,
 * exactly N faults and M + 1 voluntary switches (involuntary ones, a
 * preemption, show in /proc/PID/status). EOF ends it.
 * Built without the library: its counts are its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void touch(volatile char *p, long pages, long psz)
{
	for (long i = 0; i < pages; i++)
		p[i * psz] = 1;
}

static void naps(long m)
{
	struct timespec ts = { 0, 1000000 };	/* 1 ms */

	for (long i = 0; i < m; i++)
		nanosleep(&ts, NULL);
}

static void say(const char *s, size_t n)
{
	if (write(1, s, n) != (ssize_t)n)
		exit(1);
}

static char *fresh(long pages, long psz)
{
	char *p = mmap(NULL, (size_t)(pages ? pages : 1) * (size_t)psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	/* one fault per page: no huge page fills a range at once */
	madvise(p, (size_t)(pages ? pages : 1) * (size_t)psz, MADV_NOHUGEPAGE);
	return p;
}

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE), n, m;
	char c, *warm;

	if (argc != 3 || (n = atol(argv[1])) < 0 || (m = atol(argv[2])) < 0) {
		fprintf(stderr, "usage: cgwork PAGES SLEEPS\n");
		return 2;
	}
	/* every path taken after a 'g', once before: no first-call faults later */
	warm = fresh(1, psz);
	touch(warm, 1, psz);
	naps(1);
	say("ready\n", 6);
	for (;;) {
		ssize_t got = read(0, &c, 1);

		if (got <= 0)
			return 0;
		if (c != 'g')
			continue;
		/* a fresh mapping each round: mmap and madvise fault nothing */
		touch(fresh(n, psz), n, psz);
		naps(m);
		say("done\n", 5);
	}
}
