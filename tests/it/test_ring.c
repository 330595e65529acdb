// SPDX-License-Identifier: MIT
/*
 * The ring buffer reader on a real kernel ring: sample the
 * syscalls:sys_enter_getpid tracepoint with period 1 for N calls, drain,
 * count exactly N PERF_RECORD_SAMPLE with our tid; with a ring too small
 * for them, samples + PERF_RECORD_LOST counts add up to the calls made.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>
#include "oracle_util.h"
#include <tally/mmap.h>
#include <tally/sys.h>

/* Opens the sampling event (disabled) or returns -1 to skip. */
static int open_sampler(void)
{
	struct perf_event_attr a;
	long id = tp_id("syscalls", "sys_enter_getpid");
	int fd;

	if (id < 0)
		return -1;
	tally_attr__init(&a, PERF_TYPE_TRACEPOINT, (uint64_t)id);
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.disabled = 1;
	fd = tally_sys_open(&a, 0, -1, -1, 0);
	assert_true(fd >= 0);
	return fd;
}

struct drained {
	uint32_t pid, tid;	/* taken before enabling: getpid() is a sample too */
	uint64_t samples, mine, lost_records, other;
	uint64_t last_time;
	bool time_ordered;
};

static void drain(struct tally_mmap *m, struct drained *d)
{
	const struct perf_event_header *ev;

	if (tally_mmap__read_init(m))
		return;
	while ((ev = tally_mmap__read_event(m))) {
		if (ev->type == PERF_RECORD_SAMPLE) {
			/* PERF_SAMPLE_TID | PERF_SAMPLE_TIME: u32 pid, tid; u64 time */
			struct { struct perf_event_header h; uint32_t pid, tid; uint64_t time; } s;

			assert_int_equal(ev->size, sizeof(s));
			memcpy(&s, ev, sizeof(s));
			d->samples++;
			if (s.pid == d->pid && s.tid == d->tid)
				d->mine++;
			if (s.time < d->last_time)
				d->time_ordered = false;
			d->last_time = s.time;
		} else if (ev->type == PERF_RECORD_LOST) {
			d->lost_records++;
		} else {
			d->other++;
		}
	}
	assert_int_equal(errno, 0);
	tally_mmap__read_done(m);
}

static void test_exact_samples(void **state)
{
	const long N = 5000;
	struct drained d = { .time_ordered = true, .pid = (uint32_t)getpid(),
			     .tid = (uint32_t)syscall(SYS_gettid) };
	struct tally_mmap *m;
	int fd = open_sampler();

	(void)state;
	if (fd < 0)
		skip();
	/* 5000 samples * 24 bytes = 120 KB: 64 pages hold them, and wrap. */
	m = tally_mmap__new(fd, 64);
	assert_non_null(m);
	assert_int_equal(tally_mmap__fd(m), fd);
	assert_int_equal(tally_mmap__data_size(m), 64 * (size_t)sysconf(_SC_PAGESIZE));
	assert_int_equal(tally_mmap__read_init(m), -EAGAIN);
	assert_int_equal(tally_sys_enable(fd, false), 0);
	/* Drain while it runs, so the ring wraps many times. */
	for (long i = 0; i < N; i++) {
		syscall(SYS_getpid);
		if (i % 1000 == 999)
			drain(m, &d);
	}
	assert_int_equal(tally_sys_disable(fd, false), 0);
	drain(m, &d);
	print_message("# %llu samples, %llu lost records, %llu other\n",
		      (unsigned long long)d.samples, (unsigned long long)d.lost_records,
		      (unsigned long long)d.other);
	assert_int_equal(d.samples, N);
	assert_int_equal(d.mine, N);
	assert_int_equal(d.lost_records, 0);
	assert_int_equal(tally_mmap__lost(m), 0);
	assert_true(d.time_ordered);
	/* Everything consumed: data_tail caught up with data_head. */
	assert_int_equal(tally_mmap__page(m)->data_tail, tally_mmap__page(m)->data_head);
	tally_mmap__free(m);
	close(fd);
}

/* One data page for 2000 samples: most are lost, none miscounted. */
static void test_lost(void **state)
{
	const long N = 2000;
	struct drained d = { .time_ordered = true, .pid = (uint32_t)getpid(),
			     .tid = (uint32_t)syscall(SYS_gettid) };
	struct tally_mmap *m;
	int fd = open_sampler();

	(void)state;
	if (fd < 0)
		skip();
	m = tally_mmap__new(fd, 1);
	assert_non_null(m);
	assert_int_equal(tally_sys_enable(fd, false), 0);
	for (long i = 0; i < N; i++)
		syscall(SYS_getpid);
	drain(m, &d);
	/*
	 * The kernel writes its PERF_RECORD_LOST ahead of the next record
	 * that fits: make one more call with the ring empty.
	 */
	syscall(SYS_getpid);
	assert_int_equal(tally_sys_disable(fd, false), 0);
	drain(m, &d);
	print_message("# %llu samples, %llu lost in %llu records\n",
		      (unsigned long long)d.samples,
		      (unsigned long long)tally_mmap__lost(m),
		      (unsigned long long)d.lost_records);
	assert_true(d.lost_records >= 1);
	assert_true(tally_mmap__lost(m) > 0);
	assert_int_equal(d.samples + tally_mmap__lost(m), N + 1);
	tally_mmap__free(m);
	close(fd);
}

static void test_bad_pages(void **state)
{
	int fd = open_sampler();

	(void)state;
	if (fd < 0)
		skip();
	assert_null(tally_mmap__new(fd, 3));
	assert_int_equal(errno, EINVAL);
	assert_null(tally_mmap__new(fd, 0));
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_samples),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_bad_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
