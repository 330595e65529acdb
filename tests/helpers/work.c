// SPDX-License-Identifier: MIT
/*
 * Workloads with exactly known event counts, for oracle tests:
 *   work getpid N       N getpid syscalls   (syscalls:sys_enter_getpid == N)
 *   work write N        N stores to `target` (mem:&target:w:u == N)
 *   work addr           print &target (fixed: built -no-pie)
 *   work call N         N calls of tally_target_fn (uprobe count == N)
 *   work fnoff          print tally_target_fn's address
 *   work pages M        touch M fresh anonymous pages (page-faults >= M)
 *   work spin MS        burn CPU for MS milliseconds
 *   work spin-threads T MS  T threads (up to 1024) each burning CPU for MS milliseconds
 *   work sleep MS       sleep MS milliseconds
 *   work threads T N    T threads, each N getpid syscalls
 *   work exit CODE      exit with CODE
 *   work getpid-sleep N MS   N getpid then sleep MS (for -p attach tests)
 *   work sleep-getpid MS N   sleep MS then N getpid (attach first, then count)
 *   work threads-join T N MS  as threads, joined MS ms later (no futex wait: runs compare)
 *   work mix N          N times getpid then getppid (a pairing's mix-up shows in the values)
 *   work enoent N       N openat calls of a missing file (each fails ENOENT)
 *   work fork N         a child makes N getpid calls and exits 3; the parent waits
 *   work exec N         execs itself N times over (N + 1 execs with the first)
 *   work signals N      N times kill(self, SIGUSR1), handled: N rt_sigreturn
 *   work fds            fd 3 of one file, then another, dup2 over it, a third
 *   work fds-exec       an fd kept and one close-on-exec, through an exec
 *   work fds-threads    a thread opens, main reads, closes, opens another
 *   work fds-wait MS    a file open before MS ms of sleep (-p), then as fds
 *   work thread-exec    a thread (not the leader) execs work getpid 1
 *   work fresh-path FILE  opens FILE by a name on a page the process never
 *                       touched (a file's, mapped): a tracer can read that
 *                       string only after the kernel did, at the call's exit
 * The fds modes read each file with its own count: hostname 11, passwd 12,
 * group 13 (a line naming the wrong file shows), then sleep 300 ms (a
 * tracer reading /proc when it prints sees the last files, not those read).
 * Built without the library or sanitizers so counts are the workload's own.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile uint64_t target;

__attribute__((noinline)) void tally_target_fn(void)
{
	__asm__ volatile("" ::: "memory");
}

static void do_getpid(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *thread_fn(void *arg)
{
	do_getpid((long)(intptr_t)arg);
	return NULL;
}

static void on_sig(int sig)
{
	(void)sig;
}

/* read fd as the file it should be: hostname 11 bytes, passwd 12, group 13 */
static void read_as(int fd, int count)
{
	char buf[16];

	if (read(fd, buf, (size_t)count) < 0)
		buf[0] = 0;
}

static void *open_hostname(void *arg)
{
	*(int *)arg = open("/etc/hostname", O_RDONLY);
	return NULL;
}

static void *exec_getpid(void *arg)
{
	execl("/proc/self/exe", (const char *)arg, "getpid", "1", (char *)NULL);
	return NULL;
}

/* inlined: `work spin`'s samples stay in main (top_tui.sh looks for them there) */
static inline __attribute__((always_inline)) void spin(long ms)
{
	double end = now() + ms / 1000.0;
	uint64_t x = 0;

	while (now() < end)
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
	__asm__ volatile("" : : "r"(x));	/* keep the loop */
}

static void *spin_fn(void *arg)
{
	spin((long)(intptr_t)arg);
	return NULL;
}

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;

	if (!strcmp(cmd, "getpid")) {
		do_getpid(n);
	} else if (!strcmp(cmd, "write")) {
		for (long i = 0; i < n; i++)
			target = (uint64_t)i;
	} else if (!strcmp(cmd, "addr")) {
		printf("%p\n", (void *)&target);
	} else if (!strcmp(cmd, "call")) {
		for (long i = 0; i < n; i++)
			tally_target_fn();
	} else if (!strcmp(cmd, "fnoff")) {
		printf("%p\n", (void *)tally_target_fn);
	} else if (!strcmp(cmd, "pages")) {
		long pg = sysconf(_SC_PAGESIZE);
		char *p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		for (long i = 0; i < n; i++)
			p[i * pg] = 1;
	} else if (!strcmp(cmd, "spin")) {
		spin(n);
	} else if (!strcmp(cmd, "spin-threads")) {
		long ms = argc > 3 ? atol(argv[3]) : 0;
		static pthread_t t[1024];
		pthread_attr_t a;
		if (n > 1024)
			n = 1024;
		/* small stacks: hundreds of threads on a machine short of memory */
		pthread_attr_init(&a);
		pthread_attr_setstacksize(&a, 256 << 10);
		for (long i = 0; i < n; i++)
			if (pthread_create(&t[i], &a, spin_fn, (void *)(intptr_t)ms)) {
				perror("work: pthread_create");
				return 1;
			}
		for (long i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(cmd, "sleep")) {
		msleep(n);
	} else if (!strcmp(cmd, "threads")) {
		long per = argc > 3 ? atol(argv[3]) : 0;
		pthread_t t[64];
		if (n > 64)
			n = 64;
		for (long i = 0; i < n; i++)
			pthread_create(&t[i], NULL, thread_fn, (void *)(intptr_t)per);
		for (long i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(cmd, "threads-join")) {
		long per = argc > 3 ? atol(argv[3]) : 0;
		pthread_t t[64];
		if (n > 64)
			n = 64;
		for (long i = 0; i < n; i++)
			pthread_create(&t[i], NULL, thread_fn, (void *)(intptr_t)per);
		msleep(argc > 4 ? atol(argv[4]) : 0);
		for (long i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(cmd, "getpid-sleep")) {
		do_getpid(n);
		msleep(argc > 3 ? atol(argv[3]) : 0);
	} else if (!strcmp(cmd, "sleep-getpid")) {
		msleep(n);
		do_getpid(argc > 3 ? atol(argv[3]) : 0);
	} else if (!strcmp(cmd, "mix")) {
		for (long i = 0; i < n; i++) {
			syscall(SYS_getpid);
			syscall(SYS_getppid);
		}
	} else if (!strcmp(cmd, "fresh-path") && argc > 2) {
		char tmpl[] = "/tmp/work-fresh-path-XXXXXX";
		int fd = mkstemp(tmpl), o;
		const char *p;

		if (fd < 0 || write(fd, argv[2], strlen(argv[2]) + 1) < 0)
			return 1;
		p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		unlink(tmpl);
		if (p == MAP_FAILED || (o = open(p, O_RDONLY)) < 0)
			return 1;
		close(o);
	} else if (!strcmp(cmd, "enoent")) {
		for (long i = 0; i < n; i++)
			if (openat(AT_FDCWD, "/nonexistent/tally-work", O_RDONLY) >= 0)
				return 1;
	} else if (!strcmp(cmd, "fork")) {
		pid_t pid = fork();
		int st;

		if (pid < 0)
			return 1;
		if (pid == 0) {
			do_getpid(n);
			_exit(3);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 3)
			return 1;
	} else if (!strcmp(cmd, "exec")) {
		char left[32];

		if (n <= 0)
			return 0;
		snprintf(left, sizeof(left), "%ld", n - 1);
		execl("/proc/self/exe", argv[0], "exec", left, (char *)NULL);
		return 1;
	} else if (!strcmp(cmd, "signals")) {
		signal(SIGUSR1, on_sig);
		for (long i = 0; i < n; i++)
			kill(getpid(), SIGUSR1);
	} else if (!strcmp(cmd, "fds") || !strcmp(cmd, "fds-wait")) {
		int fd = open("/etc/hostname", O_RDONLY), fd2;

		if (!strcmp(cmd, "fds-wait"))
			msleep(n);
		read_as(fd, 11);
		close(fd);
		fd = open("/etc/passwd", O_RDONLY);	/* the same number again */
		read_as(fd, 12);
		fd2 = open("/etc/hostname", O_RDONLY);
		dup2(fd2, fd);				/* over the open passwd */
		read_as(fd, 11);
		close(fd2);
		fd2 = open("/etc/group", O_RDONLY);
		read_as(fd2, 13);
		msleep(300);
	} else if (!strcmp(cmd, "fds-exec")) {
		char a[16], b[16];

		snprintf(a, sizeof(a), "%d", open("/etc/hostname", O_RDONLY));
		snprintf(b, sizeof(b), "%d", open("/etc/passwd", O_RDONLY | O_CLOEXEC));
		execl("/proc/self/exe", argv[0], "fds-after", a, b, (char *)NULL);
		return 1;
	} else if (!strcmp(cmd, "fds-after")) {
		read_as(atoi(argv[2]), 11);
		read_as(atoi(argv[3]), 12);		/* closed by the exec: EBADF */
		read_as(open("/etc/group", O_RDONLY), 13);	/* its number, likely */
		msleep(300);
	} else if (!strcmp(cmd, "fds-threads")) {
		pthread_t t;
		int fd = -1;

		pthread_create(&t, NULL, open_hostname, &fd);
		pthread_join(t, NULL);
		read_as(fd, 11);
		close(fd);
		read_as(open("/etc/passwd", O_RDONLY), 12);
		msleep(300);
	} else if (!strcmp(cmd, "thread-exec")) {
		pthread_t t;

		pthread_create(&t, NULL, exec_getpid, argv[0]);
		pthread_join(t, NULL);
		return 1;	/* the exec failed */
	} else if (!strcmp(cmd, "exit")) {
		return (int)n;
	} else {
		fprintf(stderr, "usage: work getpid|write|addr|call|fnoff|pages|spin|sleep|threads|exec|exit ...\n");
		return 2;
	}
	return 0;
}
