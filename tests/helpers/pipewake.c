// SPDX-License-Identifier: MIT
/*
 * Scheduler workloads with known wake-ups, for tally sched's tests:
 *   pipewake wake N     a child blocks in read() on a pipe; the parent
 *                       writes N one-byte messages 1 ms apart, each once
 *                       the child sleeps again (/proc says 'S'), so each
 *                       wakes it: N wake-ups, even on a busy machine.
 *                       Prints "reader PID" first. The child exits at EOF.
 *   pipewake pingpong N two processes pass a byte back and forth N times
 *                       over two pipes.
 * Built without the library so the workload is its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Wait (up to a second) until pid sleeps: its /proc stat says 'S'. */
static void wait_asleep(pid_t pid)
{
	char path[64], buf[512];
	struct timespec us = { 0, 20000 };

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 50000; i++) {
		FILE *f = fopen(path, "r");
		char *rp;
		size_t len;

		if (!f)
			return;
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = 0;
		rp = strrchr(buf, ')');	/* the name may hold spaces and parentheses */
		if (rp && rp[1] == ' ' && rp[2] == 'S')
			return;
		nanosleep(&us, NULL);
	}
}

static int wake(long n)
{
	int p[2];
	pid_t child;
	char b = 'x';
	struct timespec ms = { 0, 1000000 };

	if (pipe(p))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		long got = 0;

		close(p[1]);
		while (read(p[0], &b, 1) == 1)
			got++;
		_exit(got == n ? 0 : 2);
	}
	close(p[0]);
	printf("reader %d\n", (int)child);
	fflush(stdout);
	for (long i = 0; i < n; i++) {
		nanosleep(&ms, NULL);
		wait_asleep(child);	/* blocked in read() again */
		if (write(p[1], &b, 1) != 1)
			return 1;
	}
	close(p[1]);
	return waitpid(child, NULL, 0) == child ? 0 : 1;
}

static int pingpong(long n)
{
	int a[2], b[2];
	pid_t child;
	char c = 'x';

	if (pipe(a) || pipe(b))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		for (long i = 0; i < n; i++)
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(2);
		_exit(0);
	}
	for (long i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			return 1;
	return waitpid(child, NULL, 0) == child ? 0 : 1;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;

	if (argc > 2 && !strcmp(argv[1], "wake"))
		return wake(n);
	if (argc > 2 && !strcmp(argv[1], "pingpong"))
		return pingpong(n);
	fprintf(stderr, "usage: pipewake wake N | pingpong N\n");
	return 2;
}
