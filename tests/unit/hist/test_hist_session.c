// SPDX-License-Identifier: MIT
/*
 * The histogram counts what the session resolved: an address is resolved
 * once, in the session, whoever asks (the session's own frames, one
 * histogram or two): the same answer, not a copy (each asker once kept a
 * resolver of its own, and resolved every address again). And the
 * thread's name the session hands over, resolved once per thread, is
 * the one its latest COMM gave.
 */
#include <errno.h>
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
#include "hist_file.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
		     PERF_SAMPLE_PERIOD)

static void sample(struct tally_data_writer *w, uint32_t pid, uint64_t ip, uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t period;
	} r = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(r) }, ip, pid, pid, time, 0, 0, 10 };

	hf_put(w, &r);
}

/* A file of: COMM 100 alpha; samples; COMM 100 beta; samples (addresses no map holds). */
static char *write_file(void)
{
	char *path = strdup("/tmp/test_hist_session.XXXXXX");
	struct perf_event_attr a = hf_attr(SAMPLE_TYPE);
	struct tally_data_writer *w;
	int fd;

	assert_non_null(path);
	w = hf_begin(path, &a, &fd);
	hf_comm(w, 100, "alpha", 1, true);
	hf_comm(w, 200, "gamma", 1, true);
	sample(w, 100, 0x1000, 10);
	sample(w, 100, 0x2000, 11);
	sample(w, 200, 0x1000, 12);
	sample(w, 100, 0x2000, 13);
	hf_comm(w, 100, "beta", 20, true);
	sample(w, 100, 0x1000, 21);
	sample(w, 100, 0x3000, 22);
	hf_end(w, fd);
	return path;
}

struct run {
	struct tally_hist *h[2];
	/* each sample's address and thread, and its srcline as the session's frames gave it */
	uint64_t ip[8];
	int32_t pid[8];
	const char *srcline[8];
	int n;
	char names[8][16];		/* each sample's thread name */
	int nnames;
};

static int on_sample(struct tally_session *ss, const struct tally_session_sample *smp, void *ctx)
{
	struct run *r = ctx;
	struct tally_frame f;

	for (int i = 0; i < 2; i++)
		assert_int_equal(tally_hist__add(r->h[i], smp), 0);
	assert_int_equal(tally_session__frames(ss, smp, &f, 1), 1);
	assert_non_null(f.srcline);
	assert_true(r->n < 8 && r->nnames < 8);
	r->ip[r->n] = f.ip;
	r->pid[r->n] = smp->thread.pid;
	r->srcline[r->n++] = f.srcline;
	snprintf(r->names[r->nnames++], sizeof(r->names[0]), "%s", smp->thread.comm);
	return 0;
}

/* The srcline the frames gave for ip in pid (an address is a process's). */
static const char *frames_srcline(const struct run *r, int32_t pid, uint64_t ip)
{
	for (int i = 0; i < r->n; i++)
		if (r->ip[i] == ip && r->pid[i] == pid)
			return r->srcline[i];
	fail_msg("no frame of %llx", (unsigned long long)ip);
	return NULL;
}

static void test_resolved_once(void **state)
{
	static const enum tally_hist_key k0[] = { TALLY_HIST_SYM, TALLY_HIST_SRCLINE };
	static const enum tally_hist_key k1[] = { TALLY_HIST_COMM, TALLY_HIST_SYM, TALLY_HIST_SRCLINE };
	char *path = write_file();
	struct run r = { 0 };
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &r, .srcline = true);
	TALLY_OPTS(tally_hist_opts, o0, .keys = k0, .nr_keys = 2);
	TALLY_OPTS(tally_hist_opts, o1, .keys = k1, .nr_keys = 3);
	struct tally_session *ss = tally_session__open(path, &so);
	size_t rows = 0;

	(void)state;
	assert_non_null(ss);
	assert_non_null(r.h[0] = tally_hist__new(ss, &o0));
	assert_non_null(r.h[1] = tally_hist__new(ss, &o1));
	assert_int_equal(tally_session__run(ss), 0);
	unlink(path);
	free(path);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(tally_hist__resort(r.h[i]), 0);
		for (size_t j = 0; j < tally_hist__nr_rows(r.h[i], 0); j++, rows++) {
			TALLY_OPTS(tally_hist_row, v);

			assert_int_equal(tally_hist__row(r.h[i], 0, j, &v), 0);
			assert_string_equal(v.srcline, "??:0");	/* no map: addr2line's answer */
			/* the session's answer itself, not another resolver's copy of it */
			assert_ptr_equal(v.srcline, frames_srcline(&r, v.pid, v.addr));
		}
	}
	assert_int_equal(rows, 3 + 5);	/* 3 addresses; 5 of them by thread name too */
	/* each sample's thread: its name as of its time */
	static const char *const want[] = { "alpha", "alpha", "gamma", "alpha", "beta", "beta" };

	assert_int_equal(r.nnames, 6);
	for (int i = 0; i < 6; i++)
		assert_string_equal(r.names[i], want[i]);
	tally_hist__free(r.h[0]);
	tally_hist__free(r.h[1]);
	tally_session__close(ss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolved_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
