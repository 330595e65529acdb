// SPDX-License-Identifier: MIT
/*
 * A minimal sampler: one sampling event on this thread, its ring buffer
 * mapped, drained with the read_init / read_event / read_done protocol of
 * <tally/mmap.h>. It samples every getpid() system call (the
 * syscalls:sys_enter_getpid tracepoint, period 1); without tracefs, the
 * cpu-clock every 100 us of a busy loop.
 *
 *	cc ring_sampler.c $(pkg-config --cflags --libs tally)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <tally/events.h>
#include <tally/mmap.h>
#include <tally/sys.h>

#define CALLS 1000

struct counts {
	unsigned long samples, lost_records, other;
};

/* PERF_SAMPLE_IP | PERF_SAMPLE_TID */
struct sample {
	struct perf_event_header header;
	uint64_t ip;
	uint32_t pid, tid;
};

static void drain(struct tally_mmap *m, struct counts *c)
{
	const struct perf_event_header *ev;

	if (tally_mmap__read_init(m))
		return;				/* empty */
	while ((ev = tally_mmap__read_event(m))) {
		if (ev->type == PERF_RECORD_SAMPLE && ev->size >= sizeof(struct sample))
			c->samples++;
		else if (ev->type == PERF_RECORD_LOST)
			c->lost_records++;
		else
			c->other++;
	}
	tally_mmap__read_done(m);		/* hand the space back */
}

static int open_event(bool *tp)
{
	struct tally_events evs = { 0 };
	struct tally_parse_error perr;
	struct perf_event_attr attr;
	int fd;

	*tp = tally_parse_events("syscalls:sys_enter_getpid", NULL, &evs, &perr) == 0;
	if (*tp) {
		attr = evs.ev[0].attr;
		attr.sample_period = 1;
	} else {
		tally_attr__init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
		attr.sample_period = 100000;	/* ns */
	}
	tally_events__clear(&evs);
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	attr.disabled = 1;
	fd = tally_sys_open(&attr, 0, -1, -1, 0);
	if (fd < 0 && *tp) {
		*tp = false;
		tally_attr__init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
		attr.sample_period = 100000;
		attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
		attr.disabled = 1;
		fd = tally_sys_open(&attr, 0, -1, -1, 0);
	}
	return fd;
}

static void spin_ms(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

int main(void)
{
	struct counts c = { 0 };
	struct tally_mmap *m;
	bool tp;
	int fd = open_event(&tp);

	if (fd < 0) {
		fprintf(stderr, "ring_sampler: open: %s\n", strerror(-fd));
		return 1;
	}
	m = tally_mmap__new(fd, 8);	/* 1 + 8 pages */
	if (!m) {
		fprintf(stderr, "ring_sampler: mmap: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	tally_sys_enable(fd, false);
	if (tp) {
		for (int i = 0; i < CALLS; i++) {
			syscall(SYS_getpid);
			if (i % 100 == 99)
				drain(m, &c);	/* keep up, as a real tool would poll() */
		}
	} else {
		for (int i = 0; i < 10; i++) {
			spin_ms(10);
			drain(m, &c);
		}
	}
	tally_sys_disable(fd, false);
	drain(m, &c);

	printf("%lu samples of %s, %llu lost, %lu other records\n", c.samples,
	       tp ? "syscalls:sys_enter_getpid" : "cpu-clock",
	       (unsigned long long)tally_mmap__lost(m), c.other);
	tally_mmap__free(m);
	close(fd);
	return 0;
}
