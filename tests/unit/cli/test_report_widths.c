// SPDX-License-Identifier: MIT
/*
 * report's plain table copies its rows a window at a time
 * (hist_key_widths): each column's width must be hist_key_width's over
 * every row, whatever the window, where the widest cell sits in the last
 * row, and a trace cell (measured only among two rows or more) in a last
 * window of one row; and where a second thread measures half the rows.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <tally/tally.h>
#include "../hist/hist_file.h"
#include "hist_cols.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
#define NTHREADS 7

/* thread i: comm of 3 + 2i letters, NTHREADS - i samples (the longest name: the last row) */
static const char *const comms[NTHREADS] = {
	"abc", "abcde", "abcdefg", "abcdefghi", "abcdefghijk", "abcdefghijklm", "abcdefghijklmno",
};

static void sample(struct tally_data_writer *w, uint32_t pid, uint64_t ip, uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time, period;
	} r = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(r) }, ip, pid, pid, time, 10 };

	hf_put(w, &r);
}

static char *write_file(void)
{
	static char path[] = "/tmp/test_report_widths.XXXXXX";
	struct perf_event_attr a = hf_attr(SAMPLE_TYPE);
	struct tally_data_writer *w;
	uint64_t t = 10;
	int fd;

	w = hf_begin(path, &a, &fd);
	for (int i = 0; i < NTHREADS; i++)
		hf_comm(w, 100 + (uint32_t)i, comms[i], 1, false);
	for (int i = 0; i < NTHREADS; i++)
		for (int k = 0; k < NTHREADS - i; k++)
			sample(w, 100 + (uint32_t)i, 0x1000, t++);
	hf_end(w, fd);
	return path;
}

static int on_sample(struct tally_session *ss, const struct tally_session_sample *smp, void *ctx)
{
	(void)ss;
	assert_int_equal(tally_hist__add(ctx, smp), 0);
	return 0;
}

/* path's histogram by ho's keys, resorted; the file removed */
static struct tally_hist *read_hist(const char *path, struct tally_session **ss,
				    const struct tally_hist_opts *ho)
{
	TALLY_OPTS(tally_session_opts, so);
	struct tally_hist *h;

	*ss = tally_session__open(path, &so);
	assert_non_null(*ss);
	assert_non_null(h = tally_hist__new(*ss, ho));
	assert_int_equal(tally_session__set_sample(*ss, on_sample, h), 0);
	assert_int_equal(tally_session__run(*ss), 0);
	unlink(path);
	assert_int_equal(tally_hist__resort(h), 0);
	return h;
}

static void test_windows(void **state)
{
	enum tally_hist_key keys[] = { TALLY_HIST_COMM, TALLY_HIST_DSO, TALLY_HIST_SYM,
				       TALLY_HIST_TRACE };
	int nk = (int)(sizeof(keys) / sizeof(keys[0]));
	char *path = write_file();
	TALLY_OPTS(tally_hist_opts, ho, .keys = keys, .nr_keys = nk);
	struct tally_session *ss;
	struct tally_hist *h;
	struct tally_hist_row all[NTHREADS], win[NTHREADS];
	size_t n;

	(void)state;
	h = read_hist(path, &ss, &ho);
	n = tally_hist__nr_rows(h, 0);
	assert_int_equal(n, NTHREADS);
	hist_rows_at(h, 0, 0, n, all);
	/* the row order puts the longest name last: only the last window sees it */
	assert_string_equal(all[n - 1].comm, comms[NTHREADS - 1]);

	struct hist_cells c = { .ss = ss };
	int want[4], got[4];

	for (int i = 0; i < nk; i++)
		want[i] = hist_key_width(&c, all, n, keys[i]);
	assert_int_equal(want[0], (int)strlen(comms[NTHREADS - 1]));
	/* 2 and 3 leave a last window of one row (7 = 3 * 2 + 1 = 2 * 3 + 1) */
	for (size_t nwin = 2; nwin <= n + 1; nwin++) {
		hist_key_widths(&c, h, 0, keys, nk, -1, win, nwin, got);
		for (int i = 0; i < nk; i++)
			assert_int_equal(got[i], want[i]);
	}
	/* ipc_at's column is 20 wide */
	hist_key_widths(&c, h, 0, keys, nk, 1, win, 3, got);
	assert_int_equal(got[1], 20);
	assert_int_equal(got[0], want[0]);
	tally_hist__free(h);
	tally_session__close(ss);
}

#define NBIG 20000

/*
 * More rows than one thread measures (hist_key_widths' second thread
 * takes the second half): NBIG rows of "abc" at as many addresses, then
 * one of a long name, the last row, seen by the second thread alone.
 */
static void test_two_halves(void **state)
{
	enum tally_hist_key keys[] = { TALLY_HIST_COMM, TALLY_HIST_SYM };
	static char path[] = "/tmp/test_report_widths.XXXXXX";
	struct perf_event_attr a = hf_attr(SAMPLE_TYPE);
	TALLY_OPTS(tally_hist_opts, ho, .keys = keys, .nr_keys = 2);
	struct tally_data_writer *w;
	struct tally_session *ss;
	struct tally_hist *h;
	struct tally_hist_row *all, win[64];
	int fd, want[2], got[2];
	size_t n;

	(void)state;
	strcpy(path, "/tmp/test_report_widths.XXXXXX");
	w = hf_begin(path, &a, &fd);
	hf_comm(w, 100, "abc", 1, false);
	hf_comm(w, 101, "abcdefghijklmno", 1, false);
	for (uint64_t i = 0; i < NBIG; i++)
		sample(w, 100, 0x100000 + 16 * i, 10 + i);
	sample(w, 101, 0x1000, 10 + NBIG);
	hf_end(w, fd);
	h = read_hist(path, &ss, &ho);
	n = tally_hist__nr_rows(h, 0);
	assert_int_equal(n, NBIG + 1);
	assert_non_null(all = malloc(n * sizeof(*all)));
	hist_rows_at(h, 0, 0, n, all);

	struct hist_cells c = { .ss = ss };

	for (int i = 0; i < 2; i++)
		want[i] = hist_key_width(&c, all, n, keys[i]);
	assert_int_equal(want[0], 15);
	for (int t = 0; t < 2; t++) {	/* two threads where two CPUs are, then one */
		hist_key_widths(&c, h, 0, keys, 2, -1, win, 64, got);
		assert_int_equal(got[0], want[0]);
		assert_int_equal(got[1], want[1]);
		assert_int_equal(setenv("TALLY_THREADS", "1", 1), 0);
	}
	unsetenv("TALLY_THREADS");
	free(all);
	tally_hist__free(h);
	tally_session__close(ss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_two_halves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
