// SPDX-License-Identifier: MIT
/*
 * The pages of a mapped file mapped ahead of its walk: never for a short
 * span or one CPU; a lead of 2 MiB past the walk's position and no more
 * (the mapping's Rss says what it mapped); a walk that jumps leaves the
 * pages it passed unmapped; stopped at once; a reader's walk over a file
 * long enough for it hands every record, in order.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <tally/data_read.h>
#include <tally/data_write.h>
#include "prefault.h"

#define MB (1u << 20)

static void nap_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* the Rss of the mapping at p, in KiB (smaps), -1 if not found */
static long rss_kb(const void *p)
{
	char line[256], want[32];
	long kb = -1;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	assert_non_null(f);
	snprintf(want, sizeof(want), "%lx-", (unsigned long)(uintptr_t)p);
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '-') && strchr(line, '-') < strchr(line, ' '))
			in = !strncmp(line, want, strlen(want));
		else if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/* a sparse file of len bytes, mapped; its pages not mapped yet */
static uint8_t *map_file(size_t len, char *path)
{
	int fd;
	void *p;

	strcpy(path, "/tmp/test_prefault.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)len), 0);
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(p != MAP_FAILED);
	close(fd);
	return p;
}

/* wait until the mapping's Rss reaches kb (the thread is SCHED_OTHER here) */
static long wait_rss(const void *p, long kb)
{
	long got = 0;

	for (int i = 0; i < 500 && (got = rss_kb(p)) < kb; i++)
		nap_ms(10);
	return got;
}

static void test_none_when_not_worth_it(void **state)
{
	(void)state;
	static uint8_t buf[64];

	assert_null(tally__prefault_start(buf, 0, 24 * MB));
	assert_null(tally__prefault_start(NULL, 0, 64 * MB));
	assert_null(tally__prefault_start(buf, 64 * MB, 32 * MB));
	setenv("TALLY_THREADS", "1", 1);
	assert_null(tally__prefault_start(buf, 0, 64 * MB));
	unsetenv("TALLY_THREADS");
	/* without a thread, the walk asks never again */
	assert_int_equal(tally__prefault_at(NULL, 123), UINT64_MAX);
	assert_int_equal(tally__prefault_stop(NULL), 0);
}

static void test_lead_and_jump(void **state)
{
	(void)state;
	size_t len = 48 * MB;
	char path[64];
	uint8_t *p = map_file(len, path);
	struct tally__prefault *pf;
	uint64_t next;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		skip();
	assert_int_equal(rss_kb(p), 0);
	pf = tally__prefault_start(p, 0, len);
	assert_non_null(pf);
	next = tally__prefault_at(pf, 0);
	assert_true(next > 0 && next <= 1 * MB);	/* said again within a few hundred KiB */
	/* 2 MiB ahead of the walk at 0, then it waits */
	assert_true(wait_rss(p, 2 * 1024) >= 2 * 1024);
	nap_ms(50);
	assert_int_equal(rss_kb(p), 2 * 1024);
	/*
	 * The walk jumps to 30 MiB: the pages between stay unmapped; the
	 * thread goes on from 128 KiB past the walk, 2 MiB ahead of it.
	 */
	tally__prefault_at(pf, 30 * MB);
	assert_true(wait_rss(p, 4 * 1024) >= 4 * 1024);
	nap_ms(50);
	assert_int_equal(rss_kb(p), 4 * 1024);
	assert_int_equal(tally__prefault_stop(pf), 4 * MB);
	/* stopped: nothing more mapped, whatever the walk said */
	assert_int_equal(rss_kb(p), 4 * 1024);
	munmap(p, len);
	unlink(path);
}

static void test_stop_at_once(void **state)
{
	(void)state;
	size_t len = 64 * MB;
	char path[64];
	uint8_t *p = map_file(len, path);
	struct tally__prefault *pf = tally__prefault_start(p, 0, len);
	struct timespec a, b;

	if (!pf)
		skip();
	tally__prefault_at(pf, 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_true(tally__prefault_stop(pf) <= 3 * MB);
	clock_gettime(CLOCK_MONOTONIC, &b);
	/* a chunk's madvise at most, not the file */
	assert_true((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < 2000);
	munmap(p, len);
	unlink(path);
}

struct walked {
	uint64_t n, next_time;
	bool in_order;
};

static int on_rec(void *ctx, const struct perf_event_header *h, uint64_t off, int idx)
{
	struct walked *w = ctx;
	uint64_t t;

	(void)off;
	(void)idx;
	if (h->type != PERF_RECORD_SAMPLE)
		return 0;
	memcpy(&t, (const uint8_t *)h + 8 + 8 + 8, 8);	/* ip, pid/tid, time */
	if (t != w->next_time)
		w->in_order = false;
	w->next_time = t + 1;
	w->n++;
	return 0;
}

static void test_reader_walks_all(void **state)
{
	(void)state;
	enum { N = 500000 };	/* 72 bytes each: 36 MB, past the 32 MiB where the thread starts */
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1, .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
		PERF_SAMPLE_PHYS_ADDR,
	};
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time, addr;
		uint32_t cpu, res;
		uint64_t period, phys;
	} s = { .h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) } };
	char path[64] = "/tmp/test_prefault_rd.XXXXXX";
	int fd = mkstemp(path);
	struct tally_data_writer *w;
	struct tally_data_reader *r;
	struct walked got = { 0, 1, true };
	uint64_t id = 1;

	assert_true(fd >= 0);
	w = tally_data_writer__new_fd(fd, NULL);
	assert_non_null(w);
	assert_int_equal(tally_data_writer__add_attr(w, &a, &id, 1, "cpu-clock"), 0);
	assert_int_equal(tally_data_writer__begin(w), 0);
	for (uint64_t i = 1; i <= N; i++) {
		s.ip = 0x1000 + i;
		s.pid = s.tid = 7;
		s.time = i;
		s.period = 1;
		assert_int_equal(tally_data_writer__write(w, &s, sizeof(s)), 0);
	}
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);
	r = tally_data_reader__open(path);
	assert_non_null(r);
	assert_int_equal(tally_data_reader__foreach(r, on_rec, &got), 0);
	assert_int_equal(got.n, N);
	assert_true(got.in_order);
	tally_data_reader__close(r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none_when_not_worth_it),
		cmocka_unit_test(test_lead_and_jump),
		cmocka_unit_test(test_stop_at_once),
		cmocka_unit_test(test_reader_walks_all),
	};

	/* the thread a normal one: on a busy machine nice 19 may run late */
	tally__prefault_idle = false;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
