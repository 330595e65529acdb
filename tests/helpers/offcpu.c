// SPDX-License-Identifier: MIT
/*
 * Workloads with known off-CPU time, for record --off-cpu's tests:
 *   offcpu nap N MS     sleeps N times MS ms in nap()
 *   offcpu pipe MS      a thread blocks in pipe_wait() (read on a pipe)
 *                       until the main thread writes, MS ms later
 *   offcpu mix MS N NMS spin() runs MS ms of CPU time, then nap() sleeps
 *                       N times NMS ms: on- and off-CPU time
 *   offcpu vfork MS     the parent waits in vfork_wait() while its vfork
 *                       child naps MS ms: the kernel's vfork wait is
 *                       killable, state D
 * The waits are raw system calls made in those functions, so the user
 * stack recorded at the switch starts in them (libc's wrappers have no
 * frame pointer: their caller would be lost).
 * Built without the library so the workload is its own.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long sys3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	sys3(SYS_nanosleep, (long)&ts, 0, 0);
}

__attribute__((noinline)) long pipe_wait(int fd)
{
	char c;

	return sys3(SYS_read, fd, (long)&c, 1);
}

/* MS ms of this thread's CPU time: on-CPU whatever else runs */
__attribute__((noinline)) void spin(long ms)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

__attribute__((noinline)) long vfork_wait(long ms)
{
	pid_t c = vfork();

	if (c == 0) {
		nap(ms);
		_exit(0);
	}
	return c;
}

static int p[2];
static _Atomic long reader_tid;

static void *reader(void *arg)
{
	(void)arg;
	reader_tid = syscall(SYS_gettid);
	pipe_wait(p[0]);
	return NULL;
}

/* The reader asleep in its read (its state S): the wait is timed from there, not from its start. */
static void reader_blocked(void)
{
	char path[64], buf[512], *r;
	struct timespec ms1 = { 0, 1000000 };

	while (!reader_tid)
		sched_yield();
	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", (long)reader_tid);
	for (int i = 0; i < 2000; i++) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = '\0';
		if ((r = strrchr(buf, ')')) && r[1] == ' ' && r[2] == 'S')
			return;
		nanosleep(&ms1, NULL);
	}
}

int main(int argc, char **argv)
{
	if (argc == 4 && argv[1][0] == 'n') {
		long n = atol(argv[2]), ms = atol(argv[3]);

		for (long i = 0; i < n; i++)
			nap(ms);
		return 0;
	}
	if (argc == 5 && argv[1][0] == 'm') {
		long n = atol(argv[3]), ms = atol(argv[4]);

		spin(atol(argv[2]));
		for (long i = 0; i < n; i++)
			nap(ms);
		return 0;
	}
	if (argc == 3 && argv[1][0] == 'v') {
		if (vfork_wait(atol(argv[2])) < 0)
			return 1;
		wait(NULL);
		return 0;
	}
	if (argc == 3 && argv[1][0] == 'p') {
		struct timespec ts;
		pthread_t t;
		long ms = atol(argv[2]);

		if (pipe(p) || pthread_create(&t, NULL, reader, NULL))
			return 1;
		reader_blocked();
		ts = (struct timespec){ ms / 1000, (ms % 1000) * 1000000 };
		nanosleep(&ts, NULL);
		if (write(p[1], "x", 1) != 1)
			return 1;
		pthread_join(t, NULL);
		return 0;
	}
	fprintf(stderr, "usage: offcpu nap N MS | offcpu pipe MS | offcpu mix MS N NMS | offcpu vfork MS\n");
	return 2;
}
