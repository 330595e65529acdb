// SPDX-License-Identifier: MIT
/*
 * Overflow signals: the kernel sends this thread a signal every PERIOD
 * events (here: every PERIOD getpid() system calls, counted by the
 * syscalls:sys_enter_getpid tracepoint; where tracefs is missing, every
 * PERIOD page faults). F_SETOWN_EX names the thread, F_SETSIG the signal
 * (with si_fd in its siginfo), O_ASYNC turns it on.
 *
 *	cc overflow_signal.c $(pkg-config --cflags --libs tally)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <tally/events.h>
#include <tally/selfmon.h>
#include <tally/sys.h>

#define PERIOD 100
#define EVENTS 2000

static volatile sig_atomic_t overflows;
static int event_fd = -1;

static void on_overflow(int signo, siginfo_t *si, void *uc)
{
	(void)signo;
	(void)uc;
	if (si->si_fd == event_fd && si->si_code == POLL_IN)
		overflows++;
}

static void touch_pages(int n)
{
	long psz = sysconf(_SC_PAGESIZE);
	unsigned char *p = mmap(NULL, (size_t)n * (size_t)psz, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	for (int i = 0; i < n; i++)
		p[(size_t)i * (size_t)psz] = 1;
	munmap(p, (size_t)n * (size_t)psz);
}

/* A sampling event: an overflow every PERIOD events. */
static struct tally_selfmon *open_sampling(bool *tp)
{
	struct tally_events evs = { 0 };
	struct tally_parse_error perr;
	struct perf_event_attr attr;
	struct tally_selfmon *sm = NULL;

	*tp = tally_parse_events("syscalls:sys_enter_getpid", NULL, &evs, &perr) == 0;
	if (*tp) {
		attr = evs.ev[0].attr;
		attr.sample_period = PERIOD;
		sm = tally_selfmon__new(&attr, 1, NULL);
	}
	tally_events__clear(&evs);
	if (!sm) {
		*tp = false;
		tally_attr__init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
		attr.sample_period = PERIOD;
		sm = tally_selfmon__new(&attr, 1, NULL);
	}
	return sm;
}

int main(void)
{
	struct tally_selfmon *sm;
	struct sigaction sa;
	bool tp;
	uint64_t count;
	int signo = SIGRTMIN + 1;

	sm = open_sampling(&tp);
	if (!sm) {
		fprintf(stderr, "overflow_signal: %s\n", strerror(errno));
		return 1;
	}
	event_fd = tally_selfmon__fd(sm, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(signo, &sa, NULL);
	if (tally_selfmon__set_signal(sm, 0, signo)) {
		fprintf(stderr, "overflow_signal: signal: %s\n", strerror(errno));
		return 1;
	}

	tally_selfmon__enable(sm);
	if (tp)
		for (int i = 0; i < EVENTS; i++)
			syscall(SYS_getpid);
	else
		touch_pages(EVENTS);
	tally_selfmon__disable(sm);
	tally_selfmon__read(sm, &count);

	printf("%d signals for %llu %s (one every %d)\n", (int)overflows,
	       (unsigned long long)count, tp ? "getpid() calls" : "page faults", PERIOD);
	tally_selfmon__free(sm);
	return 0;
}
