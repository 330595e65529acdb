// SPDX-License-Identifier: MIT
/*
 * A group read around a loop: several events opened as one group on this
 * thread, read together (one read() here, no syscall at all where the
 * counters can be read from user space), values scaled by
 * enabled/running.
 *
 *	cc selfmon_group.c $(pkg-config --cflags --libs tally)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <tally/selfmon.h>

#define PAGES 256
#define CALLS 1000

static void region(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	unsigned char *p = mmap(NULL, PAGES * (size_t)psz, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	for (int i = 0; i < PAGES; i++) {
		p[(size_t)i * (size_t)psz] = 1;	/* a page fault each */
		for (int j = 0; j < CALLS / PAGES + 1; j++)
			if (i * (CALLS / PAGES + 1) + j < CALLS)
				syscall(SYS_getpid);
	}
	munmap(p, PAGES * (size_t)psz);
}

int main(void)
{
	/* The tracepoint needs tracefs; fall back to software events only. */
	static const char *specs[] = {
		"task-clock,page-faults,context-switches,syscalls:sys_enter_getpid",
		"task-clock,page-faults,context-switches",
	};
	struct tally_selfmon *sm = NULL;
	uint64_t deltas[8];
	int nr;

	TALLY_OPTS(tally_selfmon_opts, opts, .enable = true);
	for (size_t i = 0; i < 2 && !sm; i++)
		sm = tally_selfmon__new_events(specs[i], &opts);
	if (!sm) {
		fprintf(stderr, "selfmon_group: %s\n", strerror(errno));
		return 1;
	}
	nr = tally_selfmon__nr(sm);

	TALLY_SELFMON_REGION(sm, deltas) {
		region();
	}

	printf("%d events around a loop touching %d pages and calling getpid() %d times:\n",
	       nr, PAGES, CALLS);
	for (int i = 0; i < nr; i++)
		printf("%16llu  %s\n", (unsigned long long)deltas[i],
		       tally_selfmon__name(sm, (size_t)i));
	printf("read path: %s\n", tally_selfmon_path__name(tally_selfmon__path(sm)));
	tally_selfmon__free(sm);
	return 0;
}
