// SPDX-License-Identifier: MIT
/*
 * The histogram's keys over the PMU's sample fields and its memory mode
 * (tally_hist_opts.mem_mode): a file of samples with known weights,
 * latencies and data sources; the rows each key makes, their fields and
 * periods, and the weights' totals perf's --mem-mode counts.
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

/* each sample: its period, weight, latency and lock bits */
static const struct { uint64_t period, weight, lat, lock; } samples[] = {
	{ 1000, 100, 7, PERF_MEM_LOCK_LOCKED },
	{ 1000, 100, 7, PERF_MEM_LOCK_LOCKED },
	{ 5000, 0, 0, PERF_MEM_LOCK_NA },
	{ 1000, 40, 3, 0 },
};
#define NS (sizeof(samples) / sizeof(samples[0]))

static char *write_file(void)
{
	static char path[64];
	struct perf_event_attr a = {
		.type = PERF_TYPE_RAW, .size = sizeof(a), .config = 0x1cd, .sample_period = 1000,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			       PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC,
	};
	uint64_t id = 1;
	struct tally_data_writer *w;
	int fd;

	strcpy(path, "/tmp/test_hist_mem.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	w = tally_data_writer__new_fd(fd, NULL);
	assert_non_null(w);
	assert_int_equal(tally_data_writer__add_attr(w, &a, &id, 1, "raw 0x1cd"), 0);
	assert_int_equal(tally_data_writer__begin(w), 0);
	for (size_t i = 0; i < NS; i++) {
		union perf_mem_data_src d = { .val = 0 };
		uint64_t r[8];
		struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(r) };

		d.mem_lock = samples[i].lock;
		d.mem_op = PERF_MEM_OP_LOAD;
		r[1] = 0x1000;				/* IP */
		r[2] = 42ull << 32 | 42;		/* pid, tid */
		r[3] = 100 + i;				/* TIME */
		r[4] = 0x5000 + 64 * i;			/* ADDR */
		r[5] = samples[i].period;
		r[6] = samples[i].weight | samples[i].lat << 32;	/* var1_dw, var2_w */
		r[7] = d.val;
		memcpy(r, &h, sizeof(h));
		assert_int_equal(tally_data_writer__write(w, r, sizeof(r)), 0);
	}
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);
	return path;
}

/* The rows of key (mem_mode or not) as text: totals, then "self samples weight lat lock" each. */
static char *rows_text(enum tally_hist_key key, bool mem_mode)
{
	char *path = write_file(), *text = NULL;
	size_t len = 0;
	TALLY_OPTS(tally_hist_opts, ho, .keys = &key, .nr_keys = 1, .mem_mode = mem_mode);
	TALLY_OPTS(tally_hist_totals, t);
	struct tally_session *ss = tally_session__open(path, NULL);
	struct tally_hist *h;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(ss);
	assert_non_null(out);
	unlink(path);
	h = tally_hist__new(ss, &ho);
	assert_non_null(h);
	assert_int_equal(tally_hist__run(h), 0);
	assert_int_equal(tally_hist__totals(h, 0, &t), 0);
	fprintf(out, "samples %llu period %llu\n", (unsigned long long)t.samples,
		(unsigned long long)t.period);
	for (size_t i = 0; i < tally_hist__nr_rows(h, 0); i++) {
		TALLY_OPTS(tally_hist_row, v);
		union perf_mem_data_src d;

		assert_int_equal(tally_hist__row(h, 0, i, &v), 0);
		d.val = v.data_src;
		fprintf(out, "%llu %llu w%llu l%llu lock%u\n", (unsigned long long)v.self,
			(unsigned long long)v.samples, (unsigned long long)v.weight,
			(unsigned long long)v.ins_lat, (unsigned)d.mem_lock);
	}
	fclose(out);
	tally_hist__free(h);
	tally_session__close(ss);
	return text;
}

/* --mem-mode: a sample weighs its weight, 1 without one; the lock bits alone make the rows */
static void test_mem_mode_locked(void **state)
{
	char *s = rows_text(TALLY_HIST_LOCKED, true);

	(void)state;
	assert_string_equal(s, "samples 4 period 241\n"
			       "200 2 w100 l7 lock2\n"
			       "40 1 w40 l3 lock0\n"
			       "1 1 w0 l0 lock1\n");
	free(s);
}

/* without it, periods; local_weight keys by WEIGHT_STRUCT's first word, the latency its second */
static void test_local_weight(void **state)
{
	char *s = rows_text(TALLY_HIST_LOCAL_WEIGHT, false);

	(void)state;
	assert_string_equal(s, "samples 4 period 8000\n"
			       "5000 1 w0 l0 lock1\n"
			       "2000 2 w100 l7 lock2\n"
			       "1000 1 w40 l3 lock0\n");
	free(s);
}

/* ins_lat: the latency splits what the weight would not */
static void test_ins_lat(void **state)
{
	char *s = rows_text(TALLY_HIST_INS_LAT, true);

	(void)state;
	assert_non_null(strstr(s, "200 2 w100 l7 lock2\n"));
	assert_non_null(strstr(s, "40 1 w40 l3 lock0\n"));
	free(s);
}

/* top's refresh after the first two samples: the rows, then aged until they are gone */
static int on_sample(struct tally_session *ss, const struct tally_session_sample *smp, void *ctx)
{
	static int seen;
	struct tally_hist *h = ctx;

	(void)ss;
	assert_int_equal(tally_hist__add(h, smp), 0);
	if (++seen == 2) {
		assert_int_equal(tally_hist__resort(h), 0);
		assert_int_equal(tally_hist__nr_rows(h, 0), 1);
		for (int i = 0; i < 100 && tally_hist__nr_rows(h, 0); i++) {
			assert_int_equal(tally_hist__decay(h), 0);
			assert_int_equal(tally_hist__resort(h), 0);
		}
		assert_int_equal(tally_hist__nr_rows(h, 0), 0);
	}
	return 0;
}

/*
 * The PMU fields of a row made after a decay freed the rows and shapes
 * before it (its entry a freed one, its fields that entry's own copy):
 * the new samples' weights, latencies and lock bits, not the freed ones'.
 */
static void test_decayed_rows(void **state)
{
	char *path = write_file();
	enum tally_hist_key key = TALLY_HIST_LOCAL_WEIGHT;
	TALLY_OPTS(tally_hist_opts, ho, .keys = &key, .nr_keys = 1);
	struct tally_session *ss = tally_session__open(path, NULL);
	struct tally_hist *h;
	char got[3][64];

	(void)state;
	assert_non_null(ss);
	unlink(path);
	assert_non_null(h = tally_hist__new(ss, &ho));
	assert_int_equal(tally_session__set_sample(ss, on_sample, h), 0);
	assert_int_equal(tally_session__run(ss), 0);
	assert_int_equal(tally_hist__resort(h), 0);
	assert_int_equal(tally_hist__nr_rows(h, 0), 2);
	for (size_t i = 0; i < 2; i++) {
		TALLY_OPTS(tally_hist_row, v);
		union perf_mem_data_src d;

		assert_int_equal(tally_hist__row(h, 0, i, &v), 0);
		d.val = v.data_src;
		snprintf(got[i], sizeof(got[i]), "%llu w%llu l%llu lock%u", (unsigned long long)v.self,
			 (unsigned long long)v.weight, (unsigned long long)v.ins_lat, (unsigned)d.mem_lock);
	}
	assert_string_equal(got[0], "5000 w0 l0 lock1");
	assert_string_equal(got[1], "1000 w40 l3 lock0");
	tally_hist__free(h);
	tally_session__close(ss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mem_mode_locked),
		cmocka_unit_test(test_local_weight),
		cmocka_unit_test(test_ins_lat),
		cmocka_unit_test(test_decayed_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
