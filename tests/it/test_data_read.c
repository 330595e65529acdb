// SPDX-License-Identifier: MIT
/*
 * perf.data reader against perf 6.1: a file perf records here must give
 * the same number of SAMPLE records as `perf script` prints, and a copy cut
 * inside the data section must give every whole record before the cut and
 * an error at the cut.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/data_read.h>

static char dir[] = "/tmp/tally-dr.XXXXXX";
static char data[256];

struct counts { uint64_t samples, records, last_end; };

static int count(void *ctx, const struct perf_event_header *h,
		 uint64_t off, int idx)
{
	struct counts *c = ctx;

	c->records++;
	c->samples += h->type == PERF_RECORD_SAMPLE;
	c->last_end = off + h->size;
	return 0;
}

static uint64_t run_count(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	unsigned long long n = 0;

	assert_non_null(f);
	if (fscanf(f, "%llu", &n) != 1)
		n = ~0ULL;
	pclose(f);
	return n;
}

static void test_samples_match_perf_script(void **state)
{
	char cmd[600];
	struct tally_data_reader *r;
	struct counts c = { 0 };

	if (!data[0])
		skip();
	r = tally_data_reader__open(data);
	assert_non_null(r);
	assert_int_equal(tally_data_reader__nr_attrs(r), 1);
	assert_int_equal(tally_data_reader__foreach(r, count, &c), 0);
	assert_null(tally_data_reader__error(r));
	snprintf(cmd, sizeof(cmd),
		 "perf script -i %s -F pid,tid,time 2>/dev/null | wc -l", data);
	assert_true(c.samples > 0);
	assert_int_equal(c.samples, run_count(cmd));
	tally_data_reader__close(r);
}

static void test_truncated_keeps_records_before_cut(void **state)
{
	struct tally_data_reader *r;
	struct counts full = { 0 }, cut = { 0 };
	const struct tally_data_error *e;
	char path[300], cmd[700];
	struct stat st;

	if (!data[0])
		skip();
	r = tally_data_reader__open(data);
	assert_non_null(r);
	tally_data_reader__foreach(r, count, &full);
	tally_data_reader__close(r);
	assert_int_equal(stat(data, &st), 0);
	/* cut in the middle of the records: perf's data section ends before
	 * the feature sections, so half of last_end lies inside it */
	snprintf(path, sizeof(path), "%s/cut.data", dir);
	snprintf(cmd, sizeof(cmd), "head -c %llu %s > %s",
		 (unsigned long long)full.last_end / 2 + 3, data, path);
	assert_int_equal(system(cmd), 0);
	r = tally_data_reader__open(path);
	assert_non_null(r);
	assert_int_equal(tally_data_reader__foreach(r, count, &cut), -ENODATA);
	e = tally_data_reader__error(r);
	assert_non_null(e);
	assert_int_equal(e->offset, cut.last_end);
	/* the bad record is the one the cut went through */
	assert_true(e->offset <= full.last_end / 2 + 3);
	assert_true(cut.records > 0 && cut.records < full.records);
	tally_data_reader__close(r);
}

static void test_garbage_is_rejected(void **state)
{
	static const uint8_t junk[200] = { 'P', 'E', 'R', 'F' };

	assert_null(tally_data_reader__open_mem(junk, sizeof(junk)));
	assert_int_equal(errno, EBADMSG);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_samples_match_perf_script),
		cmocka_unit_test(test_truncated_keeps_records_before_cut),
		cmocka_unit_test(test_garbage_is_rejected),
	};
	const char *h = getenv("HELPERS");
	char cmd[600];

	if (mkdtemp(dir)) {
		snprintf(data, sizeof(data), "%s/a.data", dir);
		snprintf(cmd, sizeof(cmd),
			 "perf record -q -o %s -F 999 -g -- %s/work spin 200 "
			 ">/dev/null 2>&1", data, h ? h : "build/helpers");
		if (system(cmd) != 0)
			data[0] = 0;
	}
	int rc = cmocka_run_group_tests(t, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd)) {}
	return rc;
}
