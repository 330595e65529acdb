// SPDX-License-Identifier: MIT
/*
 * The floor of reading a perf.data file through libtally: its records
 * walked in file order (the mapping, the pages mapped ahead and let go
 * behind, each header touched), nothing parsed, queued or counted. What
 * a command on the same file cannot go under on this machine; bench
 * sections set it beside the command's time and perf's.
 *
 * usage: walk_floor FILE [ROUNDS]: min and median wall and CPU, seconds
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <tally/data_read.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int touch(void *ctx, const struct perf_event_header *h, uint64_t off, int idx)
{
	(void)off;
	(void)idx;
	*(uint64_t *)ctx += h->type;
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	double wall[64], used[64];
	uint64_t sum = 0;

	if (argc < 2 || rounds < 1 || rounds > 64) {
		fprintf(stderr, "usage: walk_floor FILE [ROUNDS (1-64)]\n");
		return 2;
	}
	for (int i = 0; i < rounds; i++) {
		double t0 = now(), c0 = cpu();
		struct tally_data_reader *r = tally_data_reader__open(argv[1]);

		if (!r) {
			perror(argv[1]);
			return 1;
		}
		if (tally_data_reader__foreach(r, touch, &sum) < 0)
			fprintf(stderr, "walk_floor: %s: the walk stopped early\n", argv[1]);
		tally_data_reader__close(r);
		wall[i] = now() - t0;
		used[i] = cpu() - c0;
	}
	qsort(wall, (size_t)rounds, sizeof(double), cmp_d);
	qsort(used, (size_t)rounds, sizeof(double), cmp_d);
	printf("walk %s: wall min %.3f median %.3f s, CPU min %.3f median %.3f s (%llu)\n", argv[1],
	       wall[0], wall[rounds / 2], used[0], used[rounds / 2], (unsigned long long)(sum & 1));
	return 0;
}
