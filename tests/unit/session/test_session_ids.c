// SPDX-License-Identifier: MIT
/*
 * A sample goes to the event its id names: three events whose ids share
 * their low bits (5, 69, 133 and 197: the session's id cache is
 * direct-mapped by them), two ids for one event, samples interleaved so
 * that each slot's id changes at every sample, with IDENTIFIER (the id
 * first) and without (the id after IP, TID, TIME), on one thread and two.
 * An id no event has goes to the first event, as before the cache.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <tally/tally.h>

#define NR 3000

/* the sample's id, then which attr it belongs to (3: none) */
static const uint64_t ids[] = { 5, 69, 133, 197, 1000 };
static const int owner[] = { 0, 1, 2, 1, 0 };
#define NIDS (sizeof(ids) / sizeof(ids[0]))

static char file_path[64];

static void write_file(bool identifier)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1, .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD,
	};
	struct perf_event_attr b = a, c = a;
	uint64_t id_a = 5, id_b[2] = { 69, 197 }, id_c = 133;
	struct tally_data_writer *w;
	int fd;

	if (identifier)
		a.sample_type = b.sample_type = c.sample_type =
			(a.sample_type & ~(uint64_t)PERF_SAMPLE_ID) | PERF_SAMPLE_IDENTIFIER;
	b.config = PERF_COUNT_SW_TASK_CLOCK;
	c.config = PERF_COUNT_SW_PAGE_FAULTS;
	strcpy(file_path, "/tmp/test_session_ids.XXXXXX");
	fd = mkstemp(file_path);
	assert_true(fd >= 0);
	w = tally_data_writer__new_fd(fd, NULL);
	assert_non_null(w);
	assert_int_equal(tally_data_writer__add_attr(w, &a, &id_a, 1, "cpu-clock"), 0);
	assert_int_equal(tally_data_writer__add_attr(w, &b, id_b, 2, "task-clock"), 0);
	assert_int_equal(tally_data_writer__add_attr(w, &c, &id_c, 1, "page-faults"), 0);
	assert_int_equal(tally_data_writer__begin(w), 0);
	for (uint64_t t = 1; t <= NR; t++) {
		uint64_t id = ids[(t * 7) % NIDS];
		struct {
			struct perf_event_header h;
			uint64_t w[6];
		} s = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) - 8 }, { 0 } };

		/* IDENTIFIER: id, ip, pid/tid, time, period; ID: ip, pid/tid, time, id, period */
		if (identifier) {
			s.w[0] = id, s.w[1] = 0x1000 + t, s.w[2] = 42ull << 32 | 42, s.w[3] = t;
			s.w[4] = t;	/* the period: the sample's own number */
		} else {
			s.w[0] = 0x1000 + t, s.w[1] = 42ull << 32 | 42, s.w[2] = t, s.w[3] = id;
			s.w[4] = t;
		}
		assert_int_equal(tally_data_writer__write(w, &s, s.h.size), 0);
	}
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);
}

struct seen {
	int samples, wrong;
};

static int on_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct seen *v = ctx;
	uint64_t t = smp->sample->period;

	(void)s;
	v->samples++;
	if (t < 1 || t > NR || smp->attr != owner[(t * 7) % NIDS] ||
	    smp->sample->time != t)
		v->wrong++;
	return 0;
}

static void run(bool identifier, const char *threads)
{
	struct seen v = { 0 };
	TALLY_OPTS(tally_session_opts, o, .sample = on_sample, .ctx = &v);
	struct tally_session *s;

	write_file(identifier);
	setenv("TALLY_THREADS", threads, 1);
	s = tally_session__open(file_path, &o);
	assert_non_null(s);
	assert_int_equal(tally_session__run(s), 0);
	tally_session__close(s);
	unsetenv("TALLY_THREADS");
	unlink(file_path);
	assert_int_equal(v.samples, NR);
	assert_int_equal(v.wrong, 0);
}

static void test_identifier(void **state)
{
	(void)state;
	run(true, "1");
	run(true, "2");
}

static void test_id_after_time(void **state)
{
	(void)state;
	run(false, "1");
	run(false, "2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identifier),
		cmocka_unit_test(test_id_after_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
